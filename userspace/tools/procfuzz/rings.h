// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rings.h - what sroce-procfuzz does to its own mapped rings: the send,
 * receive and shared receive queues and the completion queues the kernel
 * shares with the process (include/uapi/rdma/sroce-abi.h), reached through
 * the provider's own view of them (userspace/provider: the objects behind
 * ibv_qp, ibv_srq and ibv_cq).
 *
 * One mutation is one write to a ring, then what makes the kernel look:
 *
 *   sq-index     the SQ producer index rewound, pushed past the consumer
 *                by more than the ring holds, or random; doorbell
 *   sq-wqe       the next SQ slot filled with a WQE of random fields
 *                (opcode, flags, SGE count, inline length, SGEs with live
 *                and dead keys, remote address and key, AH number, bind
 *                fields) or random bytes, published; doorbell
 *   rq-index     the RQ or SRQ producer index as sq-index; the peer sends
 *   rq-wqe       the next RQ or SRQ slot as sq-wqe (SGE count, SGEs);
 *                the peer sends
 *   cq-index     a CQ's consumer index or notification word garbage;
 *                completions come
 *   doorbell     POST_SEND commands with no work request, odd sizes
 *   post         legitimate work requests through libibverbs
 *   reset        the QPs back to RESET (the kernel zeroes the indices)
 *                and connected again
 *
 * Meanwhile a second thread (scribble) stores random words at random
 * places of the same rings, slots and indices alike, racing the kernel
 * as it reads them.
 *
 * What the kernel does with them is not predicted: it must neither crash,
 * hang nor touch anything but this process's own objects.
 */
#ifndef SROCE_TOOLS_PROCFUZZ_RINGS_H
#define SROCE_TOOLS_PROCFUZZ_RINGS_H

#include <cstdint>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "qp_pair.h"

namespace procfuzz {

class rings {
public:
	explicit rings(std::uint64_t seed)
	    : rng_(seed)
	{
	}
	rings(const rings &) = delete;
	rings &operator=(const rings &) = delete;

	/*
	 * The hostile objects between a and b: an RC pair, an RC pair whose
	 * B end receives from an SRQ, a UD QP on a.  False, reported, when
	 * they cannot be made.
	 */
	bool make(verbs_util::device &a, verbs_util::device &b);

	/* One mutation; false, reported, when a verb fails unexpectedly. */
	bool mutate();

	/* Every QP reset and connected again; false if that fails. */
	bool reset_all();

	/* The racing thread started, and stopped (before any unmapping). */
	void start_scribbling();
	void stop_scribbling();

	/* Words the racing thread stored. */
	unsigned long scribbled() const { return scribbled_; }

	~rings() { stop_scribbling(); }

	/* Mutations done, by kind. */
	const std::map<std::string, unsigned long> &done() const
	{
		return done_;
	}

private:
	struct pair {
		verbs_util::endpoint a, b;
	};

	std::uint32_t below(std::uint32_t n)
	{
		return n ? static_cast<std::uint32_t>(rng_() % n) : 0;
	}
	std::uint32_t index_garbage(std::uint32_t prod, std::uint32_t cons,
				    std::uint32_t entries);
	std::uint32_t some_key();
	void random_sges(unsigned char *p, std::size_t room);
	bool sq_index(verbs_util::endpoint &e);
	bool sq_wqe(verbs_util::endpoint &e);
	bool rq_index(pair &p, bool srq);
	bool rq_wqe(pair &p, bool srq);
	bool cq_index(verbs_util::endpoint &e);
	bool doorbell(verbs_util::endpoint &e, bool odd);
	bool post(pair &p);
	void reap();
	pair &any_pair();
	verbs_util::endpoint &any_sender();

	std::mt19937_64 rng_;
	/* the SRQ and its PD outlive the QP that receives from it */
	verbs_util::pd_ptr srq_pd_;
	verbs_util::srq_ptr srq_;
	std::unique_ptr<pair> rc_, srq_pair_;
	verbs_util::endpoint ud_;
	std::map<std::string, unsigned long> done_;
	std::uint32_t n_ = 0;
	std::thread scribbler_;
	std::atomic<bool> stop_{false};
	unsigned long scribbled_ = 0;
};

} /* namespace procfuzz */

#endif /* SROCE_TOOLS_PROCFUZZ_RINGS_H */
