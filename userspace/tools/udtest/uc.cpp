// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uc.cpp - sroce-udtest's checks of UC QPs:
 *
 *   uc          multi-packet SEND and RDMA WRITE_WITH_IMM arrive whole; a
 *               SEND without a receive posted is dropped (the next message
 *               takes the receive); READ is refused locally
 *   uc-loss     run with packets lost from A to B (tests/ud.sh sets netem
 *               loss): 200 three-packet SENDs, each tagged by its
 *               immediate; B gets some, each whole and right, never part
 *               of one, and not all
 */
#include <arpa/inet.h>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <optional>
#include <unistd.h>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "udtest.h"

namespace udtest {

using namespace verbs_util;

/* ---- uc ----------------------------------------------------------------------- */

namespace {

bool make_uc_pair(endpoint &a, endpoint &b, device &da, device &db)
{
	qp_opts o;

	o.type = IBV_QPT_UC;
	o.recv_wr = 256;
	o.send_wr = 256;
	o.cqe = 512;
	o.buf_size = std::size_t{1} << 20;
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	o.qp_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	return make_qp_pair(a, b, da, db, o);
}

} /* namespace */

bool check_uc(device &da, device &db)
{
	endpoint a, b;

	REQUIRE(make_uc_pair(a, b, da, db));
	ktap::note("a SEND of 3000 bytes (3 packets)");
	fill(a.buf.data(), 3000, 1);
	REQUIRE(post_recv(b, 1, 0, 8192) == 0);
	REQUIRE(post_send(a, 1, 0, 3000) == 0);
	REQUIRE(expect_wc("A send", a.scq, 1, IBV_WC_SUCCESS, IBV_WC_SEND));
	const std::optional<ibv_wc> wc =
		expect_wc("B receive", b.rcq, 1, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	CHECK(wc->byte_len == 3000);
	CHECK(mismatch(b.buf.data(), 3000, 1) == -1);

	ktap::note("RDMA WRITE_WITH_IMM of 5000 bytes");
	fill(a.buf.data(), 5000, 2);
	REQUIRE(post_recv(b, 2, 0, 0) == 0);
	{
		ibv_sge sge{a.addr(0), 5000, a.mr->lkey};

		REQUIRE(post_rdma(a, b, 2, IBV_WR_RDMA_WRITE_WITH_IMM, &sge, 1,
				  65536, 0, 0, htonl(0x5150)) == 0);
	}
	REQUIRE(expect_wc("A write", a.scq, 2, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE));
	const std::optional<ibv_wc> wi =
		expect_wc("B receive", b.rcq, 2, IBV_WC_SUCCESS,
			  IBV_WC_RECV_RDMA_WITH_IMM);
	REQUIRE(wi.has_value());
	CHECK(ntohl(wi->imm_data) == 0x5150);
	CHECK(mismatch(b.buf.data() + 65536, 5000, 2) == -1);

	ktap::note("no receive posted: the SEND is dropped");
	const long long before = hw_counter(db, "no_recv_drops");
	fill(a.buf.data(), 3000, 3);
	REQUIRE(post_send(a, 3, 0, 3000) == 0);
	REQUIRE(expect_wc("A send", a.scq, 3, IBV_WC_SUCCESS, IBV_WC_SEND));
	usleep(static_cast<useconds_t>(300000 * scale));
	counter_moved(db, "no_recv_drops", before, false);
	REQUIRE(post_recv(b, 4, 0, 8192) == 0);
	no_wc("B, the SEND that found no receive", b.rcq, 300);
	fill(a.buf.data(), 2000, 4);
	REQUIRE(post_send(a, 4, 0, 2000) == 0);
	REQUIRE(expect_wc("A send", a.scq, 4, IBV_WC_SUCCESS, IBV_WC_SEND));
	const std::optional<ibv_wc> w4 =
		expect_wc("B receive", b.rcq, 4, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(w4.has_value());
	CHECK(w4->byte_len == 2000);
	CHECK(mismatch(b.buf.data(), 2000, 4) == -1);

	ktap::note("RDMA READ on UC: refused locally");
	ibv_sge sge{a.addr(0), 64, a.mr->lkey};
	const int ret = post_rdma(a, b, 5, IBV_WR_RDMA_READ, &sge, 1, 0);
	CHECK(ret == EINVAL || ret == EOPNOTSUPP);
	return true;
}

bool check_uc_loss(device &da, device &db)
{
	constexpr std::uint32_t n = 200, len = 3000;
	endpoint a, b;
	std::uint32_t got = 0;

	REQUIRE(make_uc_pair(a, b, da, db));
	for (std::uint32_t i = 0; i < n; ++i)
		REQUIRE(post_recv(b, i, std::size_t{i % 64} * 4096, 4096) == 0);
	/* One message at a time in A's buffer: each is sent before the next
	 * is written (signaled, waited for). */
	for (std::uint32_t i = 0; i < n; ++i) {
		fill(a.buf.data() + std::size_t{i % 64} * 4096, len, 1000 + i);
		ibv_sge sge{a.addr(std::size_t{i % 64} * 4096), len,
			    a.mr->lkey};
		REQUIRE(post_sges(a, i, &sge, 1, IBV_WR_SEND_WITH_IMM,
				  IBV_SEND_SIGNALED, htonl(i)) == 0);
		REQUIRE(expect_wc("A send", a.scq, i, IBV_WC_SUCCESS,
				  IBV_WC_SEND, false));
		/* B's completions so far: each a whole message, in order. */
		for (;;) {
			const std::optional<ibv_wc> wc = wait_wc(b.rcq, 0);
			if (!wc)
				break;
			const std::uint32_t msg = ntohl(wc->imm_data);
			const unsigned char *p =
				b.buf.data() + (wc->wr_id % 64) * 4096;
			EXPECT(wc->status == IBV_WC_SUCCESS &&
				       wc->byte_len == len && msg < n,
			       "receive %" PRIu64 ": status %d byte_len %u "
			       "message %u",
			       wc->wr_id, wc->status, wc->byte_len, msg);
			EXPECT(mismatch(p, len, 1000 + msg) == -1,
			       "receive %" PRIu64 " holds message %u with "
			       "bytes of another",
			       wc->wr_id, msg);
			++got;
		}
		usleep(2000);
	}
	usleep(static_cast<useconds_t>(300000 * scale));
	for (;;) {
		const std::optional<ibv_wc> wc = wait_wc(b.rcq, 0);
		if (!wc)
			break;
		EXPECT(wc->status == IBV_WC_SUCCESS && wc->byte_len == len,
		       "late receive: status %d byte_len %u", wc->status,
		       wc->byte_len);
		++got;
	}
	ktap::note("%u of %u messages arrived, each whole", got, n);
	CHECK(got > 0);
	CHECK(got < n);
	return true;
}

} /* namespace udtest */
