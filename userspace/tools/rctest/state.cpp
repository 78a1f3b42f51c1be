// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * state.cpp - sroce-rctest's check of the QP state machine:
 *
 *   state       post_send in RESET, INIT and RTR and post_recv in RESET
 *               fail; invalid transitions and bad attributes of modify_qp
 *               fail with EINVAL and leave the state unchanged; sends
 *               posted in ERROR are flushed
 */
#include <cstring>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

/* ---- state ------------------------------------------------------------------- */

namespace {

bool send_refused(endpoint &e, const char *what)
{
	const int ret = post_send(e, 1, 0, 16);

	ktap::note("post_send in %s: %d (%s)", what, ret,
		   ret != 0 ? std::strerror(ret) : "accepted");
	return ret != 0;
}

} /* namespace */

bool check_state(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o, false));
	ibv_qp *qa = a.qp.get();
	a.psn = next_psn();
	b.psn = next_psn();

	/* RESET */
	CHECK(qp_state(qa) == IBV_QPS_RESET);
	CHECK(send_refused(a, "RESET"));
	const int rret = post_recv(a, 1, 0, 16);
	ktap::note("post_recv in RESET: %d (%s)", rret, std::strerror(rret));
	CHECK(rret != 0);
	ibv_qp_attr x{};
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask, "RESET -> RTR"));
	CHECK(modify_refused(qa, rts_attr(a), rts_mask, "RESET -> RTS"));
	x.qp_state = IBV_QPS_SQD;
	CHECK(modify_refused(qa, x, IBV_QP_STATE, "RESET -> SQD"));
	x = {};
	x.qp_state = IBV_QPS_INIT;
	x.port_num = 2;
	CHECK(modify_refused(qa, x, init_mask, "RESET -> INIT on port 2"));
	x.port_num = 1;
	x.pkey_index = 5;
	CHECK(modify_refused(qa, x, init_mask,
			     "RESET -> INIT with P_Key index 5"));

	/* INIT */
	REQUIRE(to_init(qa) == 0);
	CHECK(qp_state(qa) == IBV_QPS_INIT);
	CHECK(send_refused(a, "INIT"));
	CHECK(post_recv(a, 2, 0, 16) == 0);
	CHECK(to_init(qa) == 0); /* INIT -> INIT is allowed */
	CHECK(modify_refused(qa, rts_attr(a), rts_mask, "INIT -> RTS"));
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask & ~IBV_QP_AV,
			     "INIT -> RTR without an address vector"));
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask & ~IBV_QP_DEST_QPN,
			     "INIT -> RTR without a destination QP"));
	ibv_qp_attr r = rtr_attr(a, b);
	r.dest_qp_num = 1U << 24;
	CHECK(modify_refused(qa, r, rtr_mask, "INIT -> RTR with a 25-bit QPN"));
	/* An empty GID entry: the RDMA core answers ENODATA. */
	r = rtr_attr(a, b);
	r.ah_attr.grh.sgid_index = 200;
	CHECK(modify_refused(qa, r, rtr_mask,
			     "INIT -> RTR with an empty source GID entry",
			     ENODATA));
	if (a.dev->port.active_mtu < IBV_MTU_4096) {
		r = rtr_attr(a, b);
		r.path_mtu = static_cast<ibv_mtu>(a.dev->port.active_mtu + 1);
		CHECK(modify_refused(qa, r, rtr_mask,
				     "INIT -> RTR with a path MTU above the "
				     "port's"));
	}

	/* RTR */
	REQUIRE(to_rtr(a, b) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RTR);
	CHECK(send_refused(a, "RTR"));
	CHECK(post_recv(a, 3, 0, 16) == 0);
	x = {};
	x.qp_state = IBV_QPS_INIT;
	CHECK(modify_refused(qa, x, IBV_QP_STATE, "RTR -> INIT"));
	CHECK(modify_refused(qa, rts_attr(a), IBV_QP_STATE,
			     "RTR -> RTS without its attributes"));
	ibv_qp_attr t = rts_attr(a);
	t.retry_cnt = 8;
	CHECK(modify_refused(qa, t, rts_mask, "RTR -> RTS with retry count 8"));
	t = rts_attr(a);
	t.timeout = 32;
	CHECK(modify_refused(qa, t, rts_mask, "RTR -> RTS with timeout 32"));

	/* RTS */
	REQUIRE(to_rts(a) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RTS);
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask, "RTS -> RTR"));
	x = {};
	x.qp_state = IBV_QPS_INIT;
	CHECK(modify_refused(qa, x, IBV_QP_STATE, "RTS -> INIT"));
	/* RTS -> RTS with a new RNR timer is allowed. */
	x = {};
	x.qp_state = IBV_QPS_RTS;
	x.min_rnr_timer = 14;
	CHECK(ibv_modify_qp(qa, &x, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RTS);

	/* ERROR: the receives posted in INIT and RTR flush; so do sends. */
	REQUIRE(to_state(qa, IBV_QPS_ERR) == 0);
	CHECK(qp_state(qa) == IBV_QPS_ERR);
	CHECK(expect_wc("recv posted in INIT", a.rcq, 2, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_RECV));
	CHECK(expect_wc("recv posted in RTR", a.rcq, 3, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_RECV));
	CHECK(post_send(a, 4, 0, 16) == 0);
	CHECK(expect_wc("send posted in ERROR", a.scq, 4, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_SEND));
	CHECK(modify_refused(qa, rts_attr(a), rts_mask, "ERROR -> RTS"));
	x = {};
	x.qp_state = IBV_QPS_INIT;
	CHECK(modify_refused(qa, x, init_mask, "ERROR -> INIT"));
	CHECK(no_wc("A's send CQ", a.scq, 50));
	CHECK(no_wc("A's receive CQ", a.rcq, 50));

	/* Back to RESET, and usable again. */
	REQUIRE(to_state(qa, IBV_QPS_RESET) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RESET);
	CHECK(send_refused(a, "RESET again"));
	REQUIRE(to_state(b.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(connect(a, b));
	fill(a.buf.data(), 100, 7);
	CHECK(post_recv(b, 10, 0, 100) == 0);
	CHECK(post_send(a, 11, 0, 100) == 0);
	CHECK(expect_wc("send after RESET", a.scq, 11, IBV_WC_SUCCESS,
			IBV_WC_SEND));
	CHECK(expect_wc("recv after RESET", b.rcq, 10, IBV_WC_SUCCESS,
			IBV_WC_RECV));
	CHECK(mismatch(b.buf.data(), 100, 7) < 0);
	return true;
}

} /* namespace rctest */
