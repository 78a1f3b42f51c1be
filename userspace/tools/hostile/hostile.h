// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * hostile.h - sroce-hostile: the regression tests of the review findings
 * of issue #16, one check per finding, and the atomic write's forged
 * packets (issue #17) (tests/hostile.sh).  A remote
 * finding is a peer's packet forged here (forger), from the address of
 * the QP pair's side A to its side B, whose QPN, PSNs and keys this
 * process knows because it made the pair; a local finding is this
 * process scribbling on its own mapped rings or using verbs as no
 * well-behaved process does.
 */
#ifndef SROCE_TOOLS_HOSTILE_H
#define SROCE_TOOLS_HOSTILE_H

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pair_traffic.h"
#include "qp_pair.h"
#include "verbs_util.h"

extern "C" {
#include "sroce_proto.h"
}

namespace hostile {

using verbs_util::device;
using verbs_util::endpoint;

/*
 * A UDP socket bound to the IPv4 address of a device's GID, sending
 * RoCEv2 packets to another device's address, port 4791: what the
 * network of the pair cannot tell from the peer's own packets (the ICRC
 * is right, the source address is the peer's).
 */
class forger {
public:
	forger() = default;
	forger(const forger &) = delete;
	forger &operator=(const forger &) = delete;
	~forger();

	/* From from's address to to's; false, reported, if it cannot. */
	bool open(const device &from, const device &to);

	/* The UDP payload (BTH to ICRC) of a packet of h and payload. */
	std::vector<std::uint8_t> frame(sroce_hdrs h, const void *payload,
					std::uint32_t len) const;

	/* One packet; false, reported, if sendto() fails. */
	bool send(const std::vector<std::uint8_t> &f) const;

	/* Several packets as fast as the socket takes them. */
	bool send_all(const std::vector<std::vector<std::uint8_t>> &fs) const;

private:
	int fd_ = -1;
	sockaddr_in src_{};
	sockaddr_in dst_{};
	std::uint8_t sgid_[16]{};
	std::uint8_t dgid_[16]{};
};

/* RC headers to QP dqpn at psn, opcode op, AckReq set. */
sroce_hdrs rc_hdrs(std::uint8_t op, std::uint32_t dqpn, std::uint32_t psn);

/* psn + n, modulo 2^24. */
inline std::uint32_t psn_add(std::uint32_t psn, std::uint32_t n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* The path MTU in bytes of an ibv_mtu. */
std::uint32_t mtu_bytes(ibv_mtu mtu);

/*
 * QP options at path MTU mtu with a buffer of buf bytes that the peer may
 * write, read and use atomics on (and bind windows to).
 */
verbs_util::qp_opts rdma_opts(ibv_mtu mtu, std::size_t buf);

/* e's QP in ERROR: its peer's requests go unanswered from now on. */
bool silence(endpoint &e);

/* Up to ms (scaled) for len bytes at p to be byte v. */
bool wait_bytes(const unsigned char *p, std::size_t len, unsigned char v,
		int ms);

/* How many of len bytes at p are not 0. */
std::size_t nonzero(const unsigned char *p, std::size_t len);

/*
 * The counter of d moved by at least n from before (waiting up to 2 s
 * for the core's cache); noted, a failure if not.
 */
bool counter_moved_by(const device &d, const char *name, long long before,
		      long long n);

/* ---- the checks, one per finding -------------------------------------- */

/* remote.cpp */
bool f1_replays_fill_resources(device &a, device &b);
bool f3_blind_nak(device &a, device &b);
bool f4_write_after_dereg(device &a, device &b);
bool f4_read_after_dereg(device &a, device &b);
/* dereg.cpp */
bool f4_dereg_under_traffic(device &a, device &b);
bool f4_write_after_local_inv(device &a, device &b);
bool f6_read_amplification(device &a, device &b);
bool f6_replay_then_read(device &a, device &b);
bool f6_replays_keep_resources(device &a, device &b);
bool f9_cnp(device &a, device &b);
bool f9_reserved_aeth(device &a, device &b);

/* atomic_write.cpp: the IBTA 1.5 atomic write (issue #17) */
bool aw_length(device &a, device &b);
bool aw_replay(device &a, device &b);

/* ext_hello.cpp: forged SroceHello MADs (issue #36) */
bool ext_forged_hello(device &a, device &b);

/* sr.cpp: forged packets of selective repeat (issue #36) */
bool sr_forged_sack(device &a, device &b);
bool sr_read_ahead(device &a, device &b);
bool sr_read_pieces(device &a, device &b);
bool sr_not_granted(device &a, device &b);

/* local.cpp */
bool f2_rewound_producer(device &a, device &b);
bool f5_requester_budget(device &a, device &b);
bool f7_memcg(device &a, device &b);
bool f8_cq_overflow(device &a, device &b);
/* review2.cpp: the second review round (issue #34) */
bool r2_privileged_qkey(device &a, device &b);
bool r2_responder_yields(device &a, device &b);
bool r2_read_2g_mtu256(device &a, device &b);
bool r2_xrc_srq_gone(device &a, device &b);

} /* namespace hostile */

#endif /* SROCE_TOOLS_HOSTILE_H */
