// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * delivery.cpp - sroce-srqtest's checks of receiving through an SRQ:
 *
 *   limit       an SRQ of 16 WQEs armed with limit 8: no
 *               IBV_EVENT_SRQ_LIMIT_REACHED while 8 or more remain, one
 *               when the 9th is taken, the limit then reads 0 and no
 *               further event comes; armed again, it fires again
 *   shared      3 QPs on one SRQ: one message at a time, the WQEs are
 *               taken in ring order whichever QP receives (wr_id, qp_num
 *               and data of every completion checked); then a burst from
 *               all three at once: every QP's messages arrive in its
 *               order, each in a WQE later than the one before
 *   full        ibv_post_srq_recv fails with ENOMEM exactly at the max_wr
 *               ibv_query_srq reports (bad_wr at the first refused), and
 *               takes one more once a WQE was consumed; a QP created with
 *               the SRQ reports max_recv_wr 0 and refuses ibv_post_recv
 *   error       one of two QPs sharing the SRQ goes to ERROR: it reports
 *               IBV_EVENT_QP_LAST_WQE_REACHED, the SRQ's WQEs are not
 *               flushed, and they serve the other QP, in order
 */
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <optional>
#include <vector>

#include "completion.h"
#include "ktap.h"
#include "srq_side.h"
#include "srqtest.h"

namespace srqtest {

using namespace verbs_util;

bool check_limit(device &da, device &db)
{
	side a, b;

	REQUIRE(async_nonblock(db.ctx.get()));
	REQUIRE(make_side(a, da, 1, 0, 64 * 1024));
	REQUIRE(make_side(b, db, 1, 16, 64 * 1024));
	REQUIRE(connect_all(a, b));
	const ibv_srq_attr before = query(b.srq.get());
	REQUIRE(before.max_wr == 16 && before.srq_limit == 0);
	for (std::uint64_t i = 0; i < 16; ++i)
		REQUIRE(post_srq(b, i) == 0);
	REQUIRE(arm(b.srq.get(), 8) == 0);
	CHECK(query(b.srq.get()).srq_limit == 8);

	/* 16 posted: taking 8 leaves 8, not below the limit. */
	for (std::uint32_t n = 0; n < 8; ++n)
		REQUIRE(one_message(a, b, 0, n, n));
	REQUIRE(no_event(db.ctx.get(), 300, "8 WQEs left, limit 8"));
	CHECK(query(b.srq.get()).srq_limit == 8);

	/* The 9th leaves 7: the event, once, and the limit disarmed. */
	REQUIRE(one_message(a, b, 0, 8, 8));
	const std::optional<ibv_async_event> ev =
		wait_event(db.ctx.get(), 3000);
	CHECK(ev.has_value() && ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	      ev->element.srq == b.srq.get());
	CHECK(query(b.srq.get()).srq_limit == 0);
	for (std::uint32_t n = 9; n < 12; ++n)
		REQUIRE(one_message(a, b, 0, n, n));
	REQUIRE(no_event(db.ctx.get(), 300, "disarmed"));

	/* 4 left; armed at 3 it fires again when the next leaves 2. */
	REQUIRE(arm(b.srq.get(), 3) == 0);
	REQUIRE(one_message(a, b, 0, 12, 12));
	REQUIRE(no_event(db.ctx.get(), 300, "3 WQEs left, limit 3"));
	REQUIRE(one_message(a, b, 0, 13, 13));
	const std::optional<ibv_async_event> ev2 =
		wait_event(db.ctx.get(), 3000);
	CHECK(ev2.has_value() &&
	      ev2->event_type == IBV_EVENT_SRQ_LIMIT_REACHED);
	REQUIRE(no_event(db.ctx.get(), 200, "after the second event"));
	return true;
}

bool check_shared(device &da, device &db)
{
	constexpr std::uint32_t nqp = 3;
	constexpr std::uint32_t rounds = 10;
	constexpr std::uint32_t burst = 8;
	side a, b;

	REQUIRE(make_side(a, da, nqp, 0, 64 * 1024));
	REQUIRE(make_side(b, db, nqp, 64, 64 * msg_size));
	REQUIRE(connect_all(a, b));
	for (std::uint64_t i = 0; i < 64; ++i)
		REQUIRE(post_srq(b, i) == 0);

	/* One at a time, QPs in a scrambled order: WQEs in ring order. */
	std::uint64_t next = 0;
	std::vector<std::uint32_t> sent(nqp, 0);
	for (std::uint32_t r = 0; r < rounds; ++r) {
		for (std::uint32_t k = 0; k < nqp; ++k) {
			const std::uint32_t q = (k * 2 + r) % nqp;

			if (!one_message(a, b, q, sent[q]++, next++))
				return false;
		}
	}
	ktap::note("ok: %" PRIu64 " messages of %u QPs took WQEs 0..%" PRIu64
		   " in order",
		   next, nqp, next - 1);

	/* A burst from every QP: each QP's messages in order. */
	const std::uint64_t first = next;
	for (std::uint32_t n = 0; n < burst; ++n)
		for (std::uint32_t q = 0; q < nqp; ++q)
			REQUIRE(send_msg(a, q, sent[q] + n) == 0);
	std::vector<std::uint64_t> last_wr(nqp, 0);
	std::vector<std::uint32_t> got(nqp, 0);
	std::vector<bool> taken(64, false);
	for (std::uint32_t m = 0; m < burst * nqp; ++m) {
		std::uint64_t wr_id = 0;
		int qidx = -1;
		const std::optional<ibv_wc> wc = wait_wc(b.rcq.get());
		EXPECT(wc.has_value() && wc->status == IBV_WC_SUCCESS,
		       "burst receive %u", m);
		for (std::uint32_t q = 0; q < nqp; ++q)
			if (b.qps[q]->qp->qp_num == wc->qp_num)
				qidx = static_cast<int>(q);
		EXPECT(qidx >= 0, "unknown QP %#x", wc->qp_num);
		const auto q = static_cast<std::uint32_t>(qidx);
		wr_id = wc->wr_id;
		EXPECT(wr_id >= first && wr_id < 64 && !taken[wr_id],
		       "burst WQE %" PRIu64, wr_id);
		taken[wr_id] = true;
		EXPECT(got[q] == 0 || wr_id > last_wr[q],
		       "QP %u took WQE %" PRIu64 " after %" PRIu64, q, wr_id,
		       last_wr[q]);
		const std::uint32_t n = sent[q] + got[q];
		const unsigned char *p = b.buf.data() + wr_id * msg_size;
		for (std::size_t i = 0; i < msg_size; ++i)
			EXPECT(p[i] == msg_byte(q, n, i),
			       "QP %u message %u in WQE %" PRIu64
			       " byte %zu wrong",
			       q, n, wr_id, i);
		last_wr[q] = wr_id;
		++got[q];
	}
	for (std::uint32_t m = 0; m < burst * nqp; ++m) {
		const std::optional<ibv_wc> wc = wait_wc(a.scq.get());
		EXPECT(wc.has_value() && wc->status == IBV_WC_SUCCESS,
		       "burst send completion %u", m);
	}
	ktap::note("ok: a burst of %u messages from each of %u QPs, every "
		   "QP's in order",
		   burst, nqp);
	return true;
}

bool check_full(device &da, device &db)
{
	side a, b;

	REQUIRE(make_side(a, da, 1, 0, 64 * 1024));
	REQUIRE(make_side(b, db, 1, 10, 64 * msg_size));
	REQUIRE(connect_all(a, b));
	const ibv_srq_attr attr = query(b.srq.get());
	ktap::note("max_wr %u (10 asked)", attr.max_wr);
	REQUIRE(attr.max_wr >= 10 && attr.max_wr <= 64);

	std::uint64_t i = 0;
	for (; i < attr.max_wr; ++i)
		REQUIRE(post_srq(b, i) == 0);
	ibv_recv_wr *bad = nullptr;
	CHECK(post_srq(b, i, &bad) == ENOMEM && bad != nullptr &&
	      bad->wr_id == i);
	/* Take one: room for exactly one more. */
	REQUIRE(one_message(a, b, 0, 0, 0));
	CHECK(post_srq(b, i) == 0);
	CHECK(post_srq(b, i + 1) == ENOMEM);

	/* The QP has no receive queue of its own. */
	ibv_qp_attr qa{};
	ibv_qp_init_attr qia{};
	REQUIRE(ibv_query_qp(b.qps[0]->qp.get(), &qa, IBV_QP_CAP, &qia) == 0);
	CHECK(qa.cap.max_recv_wr == 0);
	ibv_sge sge{b.addr(), 16, b.mr->lkey};
	ibv_recv_wr wr{};
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CHECK(ibv_post_recv(b.qps[0]->qp.get(), &wr, &bad) != 0);
	/* The WQEs still posted all serve. */
	for (std::uint32_t n = 1; n <= attr.max_wr; ++n)
		REQUIRE(one_message(a, b, 0, n, n));
	return true;
}

bool check_error(device &da, device &db)
{
	side a, b;

	REQUIRE(async_nonblock(db.ctx.get()));
	REQUIRE(make_side(a, da, 2, 0, 64 * 1024));
	REQUIRE(make_side(b, db, 2, 16, 16 * msg_size));
	REQUIRE(connect_all(a, b));
	for (std::uint64_t i = 0; i < 8; ++i)
		REQUIRE(post_srq(b, i) == 0);
	/* Both QPs receive once. */
	REQUIRE(one_message(a, b, 0, 0, 0));
	REQUIRE(one_message(a, b, 1, 0, 1));

	REQUIRE(to_state(b.qps[0]->qp.get(), IBV_QPS_ERR) == 0);
	const std::optional<ibv_async_event> ev =
		wait_event(db.ctx.get(), 3000);
	CHECK(ev.has_value() &&
	      ev->event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
	      ev->element.qp == b.qps[0]->qp.get());
	REQUIRE(no_event(db.ctx.get(), 200, "one LAST_WQE_REACHED only"));
	const std::optional<ibv_wc> flushed = wait_wc(b.rcq.get(), 300);
	CHECK(!flushed.has_value());
	if (flushed)
		ktap::note("unexpected completion wr_id %" PRIu64 " status %s",
			   flushed->wr_id, ibv_wc_status_str(flushed->status));
	/* The 6 WQEs left serve the other QP, in ring order. */
	for (std::uint32_t n = 1; n <= 6; ++n)
		REQUIRE(one_message(a, b, 1, n, n + 1));
	CHECK(to_state(b.qps[0]->qp.get(), IBV_QPS_RESET) == 0);
	return true;
}

} /* namespace srqtest */
