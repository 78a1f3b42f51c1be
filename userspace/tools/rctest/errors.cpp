// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * errors.cpp - sroce-rctest's checks of RC error completions:
 *
 *   bad-lkey    a wrong lkey or an address outside the region completes
 *               with IBV_WC_LOC_PROT_ERR, the QP goes to ERROR, later WQEs
 *               flush with IBV_WC_WR_FLUSH_ERR, nothing reaches B (its
 *               receive takes A's next good send)
 *   rnr         no receive posted: rnr_retry 0 or 2 ends in
 *               IBV_WC_RNR_RETRY_EXC_ERR; rnr_retry 7 waits for a late
 *               post_recv and succeeds
 *   recv-too-small  a message larger than the receive buffer (in its first
 *               or a later packet): IBV_WC_LOC_LEN_ERR at B,
 *               IBV_WC_REM_INV_REQ_ERR at A
 */
#include <cstdint>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

/* ---- bad-lkey ------------------------------------------------------------------ */

namespace {

/*
 * A posts a bad WQE followed by two good ones in one list: the bad one
 * completes with LOC_PROT_ERR, the others flush, A is in ERROR and B, with
 * a receive posted, sees nothing.  Then A alone is reconnected and a good
 * send goes through into that very receive.
 */
bool bad_send(endpoint &a, endpoint &b, const ibv_sge &bad, const char *what,
	      std::uint64_t id)
{
	ktap::note("%s", what);
	fill(a.buf.data(), 200, static_cast<std::uint32_t>(id));
	ibv_sge good{a.addr(), 200, a.mr->lkey};
	ibv_sge bad_copy = bad;
	ibv_send_wr wr[3] = {};
	for (int i = 0; i < 3; ++i) {
		wr[i].wr_id = id + static_cast<std::uint64_t>(i);
		wr[i].sg_list = i == 0 ? &bad_copy : &good;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (i < 2)
			wr[i].next = &wr[i + 1];
	}
	ibv_send_wr *bad_wr = nullptr;
	REQUIRE(ibv_post_send(a.qp.get(), wr, &bad_wr) == 0);
	CHECK(expect_wc("bad WQE", a.scq, id, IBV_WC_LOC_PROT_ERR,
			IBV_WC_SEND));
	CHECK(expect_wc("next WQE", a.scq, id + 1, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_SEND));
	CHECK(expect_wc("last WQE", a.scq, id + 2, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_SEND));
	CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
	/* A send posted now flushes as well. */
	CHECK(post_send(a, id + 3, 0, 200) == 0);
	CHECK(expect_wc("WQE posted in ERROR", a.scq, id + 3,
			IBV_WC_WR_FLUSH_ERR, IBV_WC_SEND));
	CHECK(no_wc("B's receive CQ", b.rcq, 200));
	CHECK(qp_state(b.qp.get()) == IBV_QPS_RTS);

	/*
	 * Nothing reached B: A, back from RESET with the same PSN, sends
	 * into the receive B posted before, with the PSN B still expects.
	 */
	REQUIRE(to_state(a.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(to_init(a.qp.get()) == 0);
	REQUIRE(to_rtr(a, b) == 0);
	REQUIRE(to_rts(a) == 0);
	CHECK(post_send(a, id + 4, 0, 200) == 0);
	CHECK(expect_wc("send after reconnecting A", a.scq, id + 4,
			IBV_WC_SUCCESS, IBV_WC_SEND));
	const auto wc = expect_wc("B's receive posted before", b.rcq, id,
				  IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc && wc->byte_len == 200 &&
	      mismatch(b.buf.data(), 200, static_cast<std::uint32_t>(id)) < 0);
	/* A's PSN moved on by one message: keep B's view in step. */
	a.psn = (a.psn + 1) & 0xffffff;
	return true;
}

} /* namespace */

bool check_bad_lkey(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o));
	const std::uint32_t lkey = a.mr->lkey;
	const std::size_t len = a.buf.size();

	std::uint64_t id = 10;
	auto one = [&](const ibv_sge &s, const char *what) {
		CHECK(post_recv(b, id, 0, 4096) == 0);
		const bool ok = bad_send(a, b, s, what, id);
		id += 10;
		return ok;
	};
	REQUIRE(one({a.addr(), 64, lkey + 0x100}, "an lkey of no region"));
	REQUIRE(one({a.addr(), 64, lkey ^ 0x1}, "an lkey of another variant"));
	REQUIRE(one({a.addr(len - 10), 100, lkey},
		    "an SGE running past the end of the region"));
	REQUIRE(one({a.addr() - 4096, 100, lkey},
		    "an SGE starting below the region"));
	REQUIRE(one({a.addr(len), 1, lkey}, "one byte just past the region"));
	/* The right key of another device's region. */
	REQUIRE(one({b.addr(), 64, b.mr->lkey},
		    "the lkey and address of B's region (another device)"));
	return true;
}

/* ---- rnr ---------------------------------------------------------------------- */

bool check_rnr(device &da, device &db)
{
	qp_opts o;
	o.min_rnr_timer = 1; /* 0.01 ms */
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o, false));

	for (const std::uint8_t retries : {0, 2}) {
		a.opts.rnr_retry = retries;
		REQUIRE(reconnect(a, b));
		ktap::note("rnr_retry %u, no receive posted", retries);
		CHECK(post_send(a, retries, 0, 100) == 0);
		CHECK(expect_wc("send", a.scq, retries,
				IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_SEND));
		CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
		CHECK(no_wc("B's receive CQ", b.rcq, 50));
	}

	/* Retried forever, until B posts a receive late. */
	a.opts.rnr_retry = 7;
	b.opts.min_rnr_timer = 14; /* 1.28 ms */
	REQUIRE(reconnect(a, b));
	fill(a.buf.data(), 3000, 5);
	ktap::note("rnr_retry 7, receive posted late");
	CHECK(post_send(a, 5, 0, 3000) == 0);
	CHECK(no_wc("A's send CQ before the receive", a.scq, 500));
	CHECK(post_recv(b, 5, 0, 4096) == 0);
	CHECK(expect_wc("send", a.scq, 5, IBV_WC_SUCCESS, IBV_WC_SEND));
	const auto wc =
		expect_wc("recv", b.rcq, 5, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc && wc->byte_len == 3000 &&
	      mismatch(b.buf.data(), 3000, 5) < 0);
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	return true;
}

/* ---- recv-too-small ------------------------------------------------------------- */

bool check_recv_too_small(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o, false));

	struct {
		std::uint32_t recv, send;
		const char *what;
	} const cases[] = {
		{100, 200, "200 bytes into 100 (one packet)"},
		{1500, 3000,
		 "3000 bytes into 1500 (the second packet "
		 "overflows)"},
		{4096, 4097, "4097 bytes into 4096 (one byte too many)"},
	};
	std::uint64_t id = 1;
	for (const auto &c : cases) {
		REQUIRE(reconnect(a, b));
		ktap::note("%s", c.what);
		CHECK(post_recv(b, id, 0, c.recv) == 0);
		CHECK(post_send(a, id, 0, c.send) == 0);
		CHECK(expect_wc("recv", b.rcq, id, IBV_WC_LOC_LEN_ERR,
				IBV_WC_RECV));
		CHECK(expect_wc("send", a.scq, id, IBV_WC_REM_INV_REQ_ERR,
				IBV_WC_SEND));
		CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
		CHECK(qp_state(b.qp.get()) == IBV_QPS_ERR);
		++id;
	}
	/* Exactly the size fits. */
	REQUIRE(reconnect(a, b));
	fill(a.buf.data(), 3000, 9);
	CHECK(post_recv(b, 9, 0, 3000) == 0);
	CHECK(post_send(a, 9, 0, 3000) == 0);
	CHECK(expect_wc("send", a.scq, 9, IBV_WC_SUCCESS, IBV_WC_SEND));
	const auto wc = expect_wc("recv of exactly its size", b.rcq, 9,
				  IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc && wc->byte_len == 3000 &&
	      mismatch(b.buf.data(), 3000, 9) < 0);
	return true;
}

} /* namespace rctest */
