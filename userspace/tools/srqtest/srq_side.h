// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srq_side.h - the two sides of sroce-srqtest's checks: RC QPs of DEV_A
 * (requesters, each with its own receive queue) connected to RC QPs of
 * DEV_B (responders, all on one SRQ of DEV_B), every QP of a side on the
 * side's two CQs (qp_pair.h endpoints borrowing them); messages that say
 * which QP sent them; the SRQ's async events.
 */
#ifndef SROCE_TOOLS_SRQ_SIDE_H
#define SROCE_TOOLS_SRQ_SIDE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <infiniband/verbs.h>

#include "qp_pair.h"
#include "verbs_util.h"

namespace srqtest {

using verbs_util::device;

/* The size of every message, and of every receive WQE's buffer. */
constexpr std::uint32_t msg_size = 256;

/*
 * One side: PD, CQs, a registered buffer and its QPs, all on one SRQ when
 * the side has one (B), each with a receive queue otherwise (A).
 */
struct side {
	device *dev = nullptr;
	verbs_util::pd_ptr pd;
	verbs_util::cq_ptr scq;
	verbs_util::cq_ptr rcq;
	std::vector<unsigned char> buf;
	verbs_util::mr_ptr mr;
	verbs_util::srq_ptr srq;
	std::vector<std::unique_ptr<verbs_util::endpoint>> qps;

	std::uint64_t addr(std::size_t off = 0)
	{
		return reinterpret_cast<std::uintptr_t>(buf.data() + off);
	}
};

/* A QP of s's, on srq (or with a receive queue of its own: nullptr). */
bool add_qp(side &s, ibv_srq *srq);

/* nqp QPs on d; srq_wr 0: no SRQ, an SRQ of srq_wr WQEs otherwise. */
bool make_side(side &s, device &d, int nqp, std::uint32_t srq_wr,
	       std::uint32_t buf_size);

/* QP i of a connected to QP i of b, for every i. */
bool connect_all(side &a, side &b);

/* Byte i of message n of QP q: every byte says who sent it. */
unsigned char msg_byte(std::uint32_t q, std::uint32_t n, std::size_t i);

/* Receive WQE wr_id into slot wr_id of b's buffer; ibv_post_srq_recv(). */
int post_srq(side &b, std::uint64_t wr_id, ibv_recv_wr **bad = nullptr);

/* Message n of QP q of a, from slot q of a's buffer; ibv_post_send(). */
int send_msg(side &a, std::uint32_t q, std::uint32_t n);

/* The send of message n of QP q of a completed successfully. */
bool sent_ok(side &a, std::uint32_t q, std::uint32_t n);

/*
 * The next receive completion at b: success, of msg_size bytes, into the
 * slot its wr_id names, holding message n of QP *qidx (any QP, told in
 * *qidx, when *qidx < 0); *wr_id gets the WQE taken.
 */
bool received(side &b, std::uint64_t *wr_id, int *qidx, std::uint32_t n);

/* Message n from QP q of a, received by QP q of b from WQE expect_wr_id. */
bool one_message(side &a, side &b, std::uint32_t q, std::uint32_t n,
		 std::uint64_t expect_wr_id);

/* A non-blocking async fd, so that wait_event() never hangs. */
bool async_nonblock(ibv_context *ctx);

/* The next async event of ctx within ms (scaled); acknowledged. */
std::optional<ibv_async_event> wait_event(ibv_context *ctx, int ms);

/* No async event of ctx within ms (scaled); one is a failure. */
bool no_event(ibv_context *ctx, int ms, const char *what);

/* ibv_query_srq() (a failure: zeros, and a failure of the case). */
ibv_srq_attr query(ibv_srq *srq);

/* ibv_modify_srq() of the limit alone. */
int arm(ibv_srq *srq, std::uint32_t limit);

} /* namespace srqtest */

#endif /* SROCE_TOOLS_SRQ_SIDE_H */
