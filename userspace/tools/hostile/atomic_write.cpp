// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * atomic_write.cpp - sroce-hostile's checks of the IBTA 1.5 atomic write
 * (issue #17) against a peer's forged packets, which no provider would
 * send; the forger sends them from A's address to B's QP.
 *
 *   aw-length  an atomic write of another length than 8 (16 bytes, 4
 *       bytes under a RETH of 8, none under a RETH of 0, 12 under a RETH
 *       of 8) at B's expected PSN, after one of 8 that lands: an invalid
 *       request, B's QP in ERROR, not a byte of it written (as rdma_rxe's
 *       fix of 2026 for the zero-length one, which leaked kernel memory)
 *   aw-replay  after A's atomic write was executed and B's CPU wrote the
 *       8 bytes again, a duplicate of it (its PSN), with other bytes, and
 *       one aimed at another address: answered again, executed never; A's
 *       next atomic write still lands
 */
#include <unistd.h>

#include <cstring>

#include "completion.h"
#include "hostile.h"
#include "ktap.h"

namespace hostile {

using namespace verbs_util;

namespace {

/* A pair whose B takes atomic writes: REMOTE_WRITE on its region and QP. */
bool aw_pair(endpoint &x, endpoint &y, device &a, device &b)
{
	qp_opts o;

	o.buf_size = 65536;
	o.mr_access = acc_lw | acc_rw;
	o.qp_access = acc_lw | acc_rw;
	return make_qp_pair(x, y, a, b, o);
}

/* A forged atomic write to off of y's buffer: RETH length, payload. */
std::vector<std::uint8_t> aw_frame(const forger &f, const endpoint &y,
				   std::uint32_t psn, std::size_t off,
				   std::uint32_t reth_len,
				   const unsigned char *payload,
				   std::uint32_t len)
{
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_ATOMIC_WRITE, y.qp->qp_num, psn);

	h.reth.va = reinterpret_cast<std::uintptr_t>(y.buf.data() + off);
	h.reth.rkey = y.mr->rkey;
	h.reth.len = reth_len;
	return f.frame(h, payload, len);
}

/* Up to 2 s (scaled) for e's QP to be in state want. */
bool wait_state(endpoint &e, ibv_qp_state want)
{
	const auto until = deadline_in(2000);

	while (qp_state(e.qp.get()) != want) {
		if (clock_type::now() > until)
			return false;
		usleep(1000);
	}
	return true;
}

/* An atomic write of A's by ibv_post_send(), 8 bytes of value v, done. */
bool post_and_complete(endpoint &x, endpoint &y, std::uint64_t id,
		       std::size_t off, unsigned char v)
{
	std::memset(x.buf.data(), v, 8);
	ibv_sge sge{x.addr(), 8, x.mr->lkey};
	REQUIRE(post_rdma(x, y, id, IBV_WR_ATOMIC_WRITE, &sge, 1, off) == 0);
	REQUIRE(expect_wc("A's atomic write", x.scq, id, IBV_WC_SUCCESS,
			  IBV_WC_ATOMIC_WRITE));
	return true;
}

} /* namespace */

/* ---- aw-length ----------------------------------------------------------- */

bool aw_length(device &a, device &b)
{
	struct bad {
		const char *what;
		std::uint32_t reth_len, len;
	};
	const bad bads[] = {
		{"16 bytes under a RETH of 16", 16, 16},
		{"4 bytes under a RETH of 8", 8, 4},
		{"no byte under a RETH of 0", 0, 0},
		{"12 bytes under a RETH of 8", 8, 12},
	};
	unsigned char good[8], wrong[16];

	std::memset(good, 0x5a, sizeof(good));
	std::memset(wrong, 0xa5, sizeof(wrong));
	for (const bad &k : bads) {
		endpoint x, y;
		forger f;

		ktap::note("an atomic write of %s", k.what);
		REQUIRE(aw_pair(x, y, a, b));
		REQUIRE(f.open(a, b));
		/* The forger gets through: one of 8 bytes lands. */
		REQUIRE(f.send(aw_frame(f, y, x.psn, 64, 8, good, 8)));
		if (!wait_bytes(y.buf.data() + 64, 8, 0x5a, 2000)) {
			ktap::fail("the forged atomic write of 8 bytes did not "
				   "land: the case proves nothing");
			return false;
		}
		REQUIRE(f.send(aw_frame(f, y, psn_add(x.psn, 1), 128,
					k.reth_len, wrong, k.len)));
		CHECK(wait_state(y, IBV_QPS_ERR));
		ktap::note("B's QP is %s", qp_state_str(qp_state(y.qp.get())));
		CHECK(nonzero(y.buf.data() + 128, 16) == 0);
		CHECK(nonzero(y.buf.data(), 64) == 0);
	}
	CHECK(new_rc_pair_works(a, b));
	return true;
}

/* ---- aw-replay ----------------------------------------------------------- */

bool aw_replay(device &a, device &b)
{
	endpoint x, y;
	forger f;
	unsigned char other[8];

	REQUIRE(aw_pair(x, y, a, b));
	REQUIRE(f.open(a, b));
	const std::uint32_t psn = x.psn; /* of A's first request */
	REQUIRE(post_and_complete(x, y, 1, 256, 0x11));
	CHECK(wait_bytes(y.buf.data() + 256, 8, 0x11, 2000));
	/* B's CPU: the 8 bytes again; an execution would overwrite them. */
	std::memset(y.buf.data() + 256, 0x22, 8);

	const long long dups = hw_counter(b, "duplicate_requests");
	std::memset(other, 0x33, sizeof(other));
	REQUIRE(f.send(aw_frame(f, y, psn, 256, 8, other, 8)));
	REQUIRE(f.send(aw_frame(f, y, psn, 512, 8, other, 8)));
	CHECK(counter_moved_by(b, "duplicate_requests", dups, 2));
	usleep(static_cast<useconds_t>(200000 * scale));
	CHECK(wait_bytes(y.buf.data() + 256, 8, 0x22, 0));
	CHECK(nonzero(y.buf.data() + 512, 8) == 0);
	CHECK(qp_state(y.qp.get()) == IBV_QPS_RTS);

	/* The pair goes on: A's next atomic write lands. */
	REQUIRE(post_and_complete(x, y, 2, 256, 0x44));
	CHECK(wait_bytes(y.buf.data() + 256, 8, 0x44, 2000));
	CHECK(nonzero(y.buf.data() + 512, 8) == 0);
	return true;
}

} /* namespace hostile */
