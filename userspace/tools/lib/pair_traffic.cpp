// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* pair_traffic.cpp - a QP pair still carries traffic (pair_traffic.h). */
#include "pair_traffic.h"

#include <cstring>

#include "completion.h"
#include "ktap.h"

namespace verbs_util {

bool send_arrives(endpoint &a, endpoint &b, std::uint32_t msg,
		  std::uint32_t len)
{
	REQUIRE(qp_state(a.qp.get()) == IBV_QPS_RTS);
	REQUIRE(qp_state(b.qp.get()) == IBV_QPS_RTS);
	std::memset(b.buf.data(), 0, len);
	fill(a.buf.data(), len, msg);
	REQUIRE(post_recv(b, 900 + msg, 0, len) == 0);
	REQUIRE(post_send(a, 900 + msg, 0, len) == 0);
	REQUIRE(expect_wc("the checking send", a.scq, 900 + msg, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_wc("the checking receive", b.rcq, 900 + msg,
			  IBV_WC_SUCCESS, IBV_WC_RECV));
	REQUIRE(mismatch(b.buf.data(), len, msg) < 0);
	return true;
}

bool write_read_arrive(endpoint &a, endpoint &b, std::uint32_t len)
{
	fill(a.buf.data() + len, len, 2);
	ibv_sge sge{a.addr(len), len, a.mr->lkey};
	REQUIRE(post_rdma(a, b, 3, IBV_WR_RDMA_WRITE, &sge, 1, len) == 0);
	REQUIRE(expect_wc("the checking write", a.scq, 3, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE));
	CHECK(mismatch(b.buf.data() + len, len, 2) < 0);
	fill(b.buf.data() + 2 * len, len, 3);
	sge = {a.addr(2 * len), len, a.mr->lkey};
	REQUIRE(post_rdma(a, b, 4, IBV_WR_RDMA_READ, &sge, 1, 2 * len) == 0);
	REQUIRE(expect_wc("the checking read", a.scq, 4, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_READ));
	CHECK(mismatch(a.buf.data() + 2 * len, len, 3) < 0);
	return true;
}

bool new_rc_pair_works(device &da, device &db)
{
	constexpr std::uint32_t len = 8192;
	endpoint a;
	endpoint b;
	qp_opts o;

	ktap::note("a new RC pair between %s and %s", da.name.c_str(),
		   db.name.c_str());
	o.mr_access = o.qp_access = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
	REQUIRE(make_qp_pair(a, b, da, db, o));
	REQUIRE(send_arrives(a, b, 77, len));
	REQUIRE(send_arrives(b, a, 78, len));
	REQUIRE(write_read_arrive(a, b, len));
	return true;
}

} /* namespace verbs_util */
