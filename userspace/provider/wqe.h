/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wqe.h - the producer side of a QP's send and receive rings (see the
 * "Queue pairs" section of <rdma/sroce-abi.h>): work requests encoded as
 * WQEs into ring slots, ring space, publication of the producer index and
 * the doorbell decision.
 *
 * Pure logic over memory, like ring.h: no system calls, no libibverbs
 * state, so the host unit tests drive it over an ordinary buffer standing
 * in for the mapping.  qp.cpp adds the locks, the QP state checks and the
 * doorbell system call.
 *
 * The provider produces, the kernel consumes.  A WQE is written into its
 * slot, then the producer index is stored with release; the consumer index
 * (the WQEs the kernel has retired) is loaded with acquire before a slot is
 * reused.  The provider keeps its own copy of the producer index and never
 * reads it back from the mapping.  A consumer index that is more than a
 * ring behind reads as a full ring.
 */
#ifndef SROCE_PROVIDER_WQE_H
#define SROCE_PROVIDER_WQE_H

#include <cstddef>
#include <cstdint>
#include <span>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "ring.h"
#include "uverbs_cmd.h"

namespace sroce {

/* One work queue of a QP as its producer sees it. */
struct work_queue {
	ring_view ring;
	std::uint32_t prod; /* index of the next WQE; only we write it */
	std::uint32_t max_sge; /* SGEs a WQE may carry */
	std::uint32_t max_inline; /* inline payload bytes (SQ only, else 0) */
	/* SQ: the kernel carries atomic writes (SROCE_UCTX_F_ATOMIC_WRITE) */
	bool atomic_write;
};

/* Entry sizes the kernel must give for these capabilities (sroce-abi.h). */
constexpr std::size_t sq_entry_min(std::uint32_t max_sge,
				   std::uint32_t max_inline)
{
	const std::size_t sges = std::size_t{max_sge} * sizeof(sroce_sge);

	return sizeof(sroce_send_wqe) + (sges > max_inline ? sges : max_inline);
}

constexpr std::size_t rq_entry_min(std::uint32_t max_sge)
{
	return sizeof(sroce_recv_wqe) +
	       std::size_t{max_sge} * sizeof(sroce_sge);
}

/* The states in which work requests may be posted (sroce-abi.h). */
constexpr bool sq_state_can_post(ibv_qp_state state)
{
	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

constexpr bool rq_state_can_post(ibv_qp_state state)
{
	return state != IBV_QPS_RESET;
}

/*
 * The low byte of an rkey: the variant ibv_inc_rkey() steps, the rest
 * names the region or window (sroce-abi.h).
 */
constexpr std::uint32_t key_variant_mask = 0xff;

/*
 * Encode one send work request into a ring slot (sq_entry_min(max_sge,
 * max_inline) bytes hold any request the checks let through): the
 * sroce_send_wqe header, then the gather list or, with IBV_SEND_INLINE,
 * the payload copied from the SGEs' addresses; on an XRC INI QP
 * (IBV_QPT_XRC_SEND) also wr.qp_type.xrc.remote_srqn.  Returns 0, or EINVAL
 * (slot untouched) for too many SGEs, an opcode the QP type does not
 * carry, unknown send flags, inline data with an opcode that has no
 * payload or beyond max_inline, or a WQE larger than the slot.
 *
 * IBV_WR_BIND_MW (RC and UC; a type 2 window from the application, a type
 * 1 window from bind_mw()) carries wr.bind_mw and no gather list; it is
 * also EINVAL without a window, with an rkey that is not the window's own
 * with another low byte, with a length but no region or a region of
 * another context, and with a length of 0 for a type 2 window.
 *
 * IBV_WR_ATOMIC_WRITE (RC only) carries wr.wr.rdma and its 8 bytes in the
 * header (sroce_wqe_atomic_write), no gather list and no inline payload:
 * the 8 bytes at atomic_wr (ibv_wr_atomic_write()'s, with no SGE), or,
 * without atomic_wr (ibv_post_send()), read now from the gather list's
 * addresses, which must add up to 8 bytes (as inline data is: the lkeys
 * are not used, IBV_SEND_INLINE makes no difference and max_inline does
 * not apply); EINVAL otherwise.  Whether the kernel carries it at all is
 * the caller's to check (work_queue.atomic_write).
 */
int encode_send_wqe(const ibv_send_wr &wr, ibv_qp_type qp_type,
		    std::uint32_t max_sge, std::uint32_t max_inline,
		    std::span<unsigned char> slot,
		    const void *atomic_wr = nullptr) noexcept;

/*
 * Can a QP of qp_type post opcode from user space at all (the protocol
 * core's work-request table)?  encode_send_wqe() refuses the others.
 */
bool send_opcode_supported(ibv_wr_opcode opcode, ibv_qp_type qp_type) noexcept;

/*
 * The same for a receive: the sroce_recv_wqe header, then the scatter
 * list; EINVAL for too many SGEs or a WQE larger than the slot.
 */
int encode_recv_wqe(const ibv_recv_wr &wr, std::uint32_t max_sge,
		    std::span<unsigned char> slot) noexcept;

/*
 * Encode a list of work requests into the ring from wq.prod on and publish
 * the new producer index (release) if anything was written.  Returns 0, or
 * an errno value with *bad_wr at the first request not posted (those
 * before it are posted): EINVAL from the encoder or for an atomic write
 * the queue does not carry, ENOMEM when the ring is full.  *posted, if given, counts the WQEs written.  The caller holds the
 * queue's lock.
 */
int wq_post_send(work_queue &wq, ibv_qp_type qp_type, ibv_send_wr *wr,
		 ibv_send_wr **bad_wr, std::uint32_t *posted) noexcept;
int wq_post_recv(work_queue &wq, ibv_recv_wr *wr,
		 ibv_recv_wr **bad_wr) noexcept;

/*
 * One send request into the slot of free-running index prod (not yet
 * published), for a caller that publishes a batch itself (the ibv_wr_*()
 * post of wr_builder.h; atomic_wr as encode_send_wqe() takes it).
 * Returns 0, ENOMEM when the ring has no room at prod, or EINVAL as
 * wq_post_send().  The caller holds the lock.
 */
int wq_encode_send_at(work_queue &wq, ibv_qp_type qp_type,
		      const ibv_send_wr &wr, std::uint32_t prod,
		      const void *atomic_wr = nullptr) noexcept;

/* Publish the WQEs up to prod (release), if there are new ones. */
void wq_publish(work_queue &wq, std::uint32_t prod) noexcept;

/* The QP went to RESET: the kernel zeroed the ring's indices. */
inline void wq_reset(work_queue &wq) noexcept
{
	wq.prod = 0;
}

/* Does a notification word ask for the doorbell? */
constexpr bool doorbell_wanted(std::uint32_t notify)
{
	return (notify & SROCE_SQ_NOTIFY_DOORBELL) != 0;
}

/*
 * While the kernel's requester waits for the answer to packets it sent, a
 * post needs no doorbell: the answer runs the requester, which takes what
 * was posted meanwhile.  A process that posts many WQEs at once (perftest
 * after each completion of its CQ moderation) would have them wait up to
 * a round trip; a doorbell whenever the producer index passes a multiple
 * of this starts them early, one system call per this many posts at most.
 */
inline constexpr std::uint32_t sq_doorbell_every = 16;

/*
 * Did a post of posted (> 0) WQEs, which left the producer index at prod,
 * pass a multiple of sq_doorbell_every?  (Free-running indices: the power
 * of two divides 2^32, so the wrap is one more multiple.)
 */
constexpr bool sq_doorbell_due(std::uint32_t prod, std::uint32_t posted)
{
	static_assert((sq_doorbell_every & (sq_doorbell_every - 1)) == 0);
	return ((prod - posted) & (sq_doorbell_every - 1)) + posted >=
	       sq_doorbell_every;
}

/*
 * After a post published its producer index: a full barrier, then the
 * notification word (the kernel sets the bit, issues a full barrier and
 * reads the producer index before it idles, so one side sees the other).
 * True when the kernel's requester is idle and must be woken.
 */
bool sq_doorbell_needed(const ring_view &sq) noexcept;

/*
 * After a post of posted WQEs that left the producer index at prod (read
 * under the SQ lock) and was published: ring the doorbell?  Not for an
 * empty post; then every sq_doorbell_every posts, else when the kernel
 * asks.
 */
bool sq_doorbell_after_post(const ring_view &sq, std::uint32_t prod,
			    std::uint32_t posted) noexcept;

/*
 * The doorbell: POST_SEND for QP qp_handle without work requests, as
 * write() sends it on the uverbs file; the kernel writes its
 * ib_uverbs_post_send_resp to *resp.
 */
post_send_cmd make_doorbell_cmd(std::uint32_t qp_handle,
				ib_uverbs_post_send_resp *resp) noexcept;

static_assert(sizeof(sroce_send_wqe) == 80);
static_assert(sizeof(sroce_recv_wqe) == 16);
static_assert(sizeof(sroce_sge) == 16);
static_assert(sizeof(sroce_create_qp_cmd) == 16);
static_assert(sizeof(sroce_create_qp_resp) == 144);

} /* namespace sroce */

#endif /* SROCE_PROVIDER_WQE_H */
