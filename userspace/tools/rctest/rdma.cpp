// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma.cpp - sroce-rctest's checks of RDMA WRITE, READ and atomics:
 *
 *   rdma        RDMA WRITE (also WITH_IMM) across the path MTU, READ into
 *               three SGEs, FETCH_ADD and CMP_SWP with every result
 *               checked, a burst of mixed operations completing in order
 *   rd-limit    max_rd_atomic honoured by the requester, and enforced by
 *               the responder
 *   rereg       ibv_rereg_mr: new rights, a new translation, the old keys
 *               refused
 */
#include <arpa/inet.h>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

/* ---- one-sided operations --------------------------------------------------- */

namespace {

constexpr int acc_remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

bool make_remote_pair(endpoint &a, endpoint &b, device &da, device &db,
		      qp_opts o)
{
	o.mr_access = acc_remote;
	o.qp_access = acc_remote;
	return make_qp_pair(a, b, da, db, o);
}

} /* namespace */

/*
 * RDMA WRITE and WRITE_WITH_IMM of several sizes (across the path MTU),
 * READ scattered into three local SGEs, and atomics whose every result is
 * checked: run under a wire that duplicates every packet, this shows
 * duplicate requests are answered, not executed, again.
 */
bool check_rdma(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;
	std::uint64_t id = 1;

	o.buf_size = std::size_t{256} * 1024;
	REQUIRE(make_remote_pair(a, b, da, db, o));
	constexpr std::size_t half = std::size_t{128} * 1024;

	for (const std::uint32_t len : {0U, 1U, 1024U, 1025U, 5000U, 65536U}) {
		ktap::note("RDMA WRITE of %u bytes", len);
		fill(a.buf.data(), len, static_cast<std::uint32_t>(id));
		std::memset(b.buf.data(), 0, len + 64);
		ibv_sge sge{a.addr(), len, a.mr->lkey};
		CHECK(post_rdma(a, b, id, IBV_WR_RDMA_WRITE, &sge,
				len != 0 ? 1 : 0, 0) == 0);
		CHECK(expect_wc("write", a.scq, id, IBV_WC_SUCCESS,
				IBV_WC_RDMA_WRITE, false));
		CHECK(mismatch(b.buf.data(), len,
			       static_cast<std::uint32_t>(id)) < 0);
		CHECK(b.buf[len] == 0); /* nothing past it */
		++id;
	}
	for (const std::uint32_t len : {0U, 100U, 3000U}) {
		ktap::note("RDMA WRITE_WITH_IMM of %u bytes", len);
		fill(a.buf.data(), len, static_cast<std::uint32_t>(id));
		CHECK(post_recv(b, id, half, 16) == 0);
		ibv_sge sge{a.addr(), len, a.mr->lkey};
		CHECK(post_rdma(a, b, id, IBV_WR_RDMA_WRITE_WITH_IMM, &sge,
				len != 0 ? 1 : 0, 0, 0, 0,
				htonl(0xabc00000U + len)) == 0);
		CHECK(expect_wc("write_imm", a.scq, id, IBV_WC_SUCCESS,
				IBV_WC_RDMA_WRITE, false));
		const auto wc = expect_wc("recv", b.rcq, id, IBV_WC_SUCCESS,
					  IBV_WC_RECV_RDMA_WITH_IMM);
		CHECK(wc && wc->byte_len == len &&
		      (wc->wc_flags & IBV_WC_WITH_IMM) != 0 &&
		      wc->imm_data == htonl(0xabc00000U + len));
		CHECK(mismatch(b.buf.data(), len,
			       static_cast<std::uint32_t>(id)) < 0);
		++id;
	}
	for (const std::uint32_t len : {0U, 1U, 1024U, 3000U, 65536U}) {
		ktap::note("RDMA READ of %u bytes into 3 SGEs", len);
		fill(b.buf.data(), len, static_cast<std::uint32_t>(id));
		std::memset(a.buf.data(), 0, half);
		/* Pieces at three places of a's buffer, 4 KiB apart. */
		const std::uint32_t p0 = len / 3, p1 = len / 3;
		const std::uint32_t p2 = len - p0 - p1;
		ibv_sge sges[3] = {
			{a.addr(0), p0, a.mr->lkey},
			{a.addr(p0 + 4096), p1, a.mr->lkey},
			{a.addr(p0 + p1 + 8192), p2, a.mr->lkey},
		};
		CHECK(post_rdma(a, b, id, IBV_WR_RDMA_READ, sges,
				len != 0 ? 3 : 0, 0) == 0);
		const auto wc = expect_wc("read", a.scq, id, IBV_WC_SUCCESS,
					  IBV_WC_RDMA_READ, false);
		CHECK(wc && wc->byte_len == len);
		CHECK(mismatch(a.buf.data(), p0, static_cast<std::uint32_t>(id),
			       0) < 0);
		CHECK(mismatch(a.buf.data() + p0 + 4096, p1,
			       static_cast<std::uint32_t>(id), p0) < 0);
		CHECK(mismatch(a.buf.data() + p0 + p1 + 8192, p2,
			       static_cast<std::uint32_t>(id), p0 + p1) < 0);
		++id;
	}

	/* 64 FETCH_ADDs of 3: every original value once, the sum exact. */
	constexpr std::size_t ctr = half + 64;
	store64(b.buf.data() + ctr, 1000);
	for (std::uint64_t i = 0; i < 64; ++i, ++id) {
		ibv_sge sge{a.addr(8 * i), 8, a.mr->lkey};
		EXPECT(post_rdma(a, b, id, IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 1,
				 ctr, 3) == 0,
		       "post fetch_add %" PRIu64, i);
		const auto wc =
			expect_wc("fetch_add", a.scq, id, IBV_WC_SUCCESS,
				  IBV_WC_FETCH_ADD, false);
		EXPECT(wc && wc->byte_len == 8, "fetch_add %" PRIu64, i);
		EXPECT(load64(a.buf.data() + 8 * i) == 1000 + 3 * i,
		       "fetch_add %" PRIu64 " returned %" PRIu64, i,
		       load64(a.buf.data() + 8 * i));
	}
	CHECK(load64(b.buf.data() + ctr) == 1000 + 3 * 64);
	/* CMP_SWP: a match swaps, a mismatch does not; both return it. */
	ibv_sge sge{a.addr(1024), 8, a.mr->lkey};
	CHECK(post_rdma(a, b, id, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 1, ctr,
			1000 + 3 * 64, 77) == 0);
	CHECK(expect_wc("cmp_swp", a.scq, id++, IBV_WC_SUCCESS,
			IBV_WC_COMP_SWAP));
	CHECK(load64(a.buf.data() + 1024) == 1000 + 3 * 64 &&
	      load64(b.buf.data() + ctr) == 77);
	CHECK(post_rdma(a, b, id, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 1, ctr, 5,
			99) == 0);
	CHECK(expect_wc("cmp_swp", a.scq, id++, IBV_WC_SUCCESS,
			IBV_WC_COMP_SWAP));
	CHECK(load64(a.buf.data() + 1024) == 77 &&
	      load64(b.buf.data() + ctr) == 77);

	/* A burst of mixed operations completes in order. */
	fill(b.buf.data(), 4096, 500);
	ibv_sge w{a.addr(0), 2000, a.mr->lkey};
	ibv_sge r{a.addr(8192), 4096, a.mr->lkey};
	ibv_sge f{a.addr(16384), 8, a.mr->lkey};
	fill(a.buf.data(), 2000, 501);
	const std::uint64_t first = id;
	CHECK(post_rdma(a, b, id++, IBV_WR_RDMA_READ, &r, 1, 0) == 0);
	CHECK(post_rdma(a, b, id++, IBV_WR_RDMA_WRITE, &w, 1, 32768) == 0);
	CHECK(post_rdma(a, b, id++, IBV_WR_ATOMIC_FETCH_AND_ADD, &f, 1, ctr,
			1) == 0);
	CHECK(post_rdma(a, b, id++, IBV_WR_RDMA_READ, &r, 1, 0) == 0);
	const ibv_wc_opcode ops[] = {IBV_WC_RDMA_READ, IBV_WC_RDMA_WRITE,
				     IBV_WC_FETCH_ADD, IBV_WC_RDMA_READ};
	for (std::uint64_t i = 0; i < 4; ++i)
		CHECK(expect_wc("burst", a.scq, first + i, IBV_WC_SUCCESS,
				ops[i], false));
	CHECK(mismatch(a.buf.data() + 8192, 4096, 500) < 0);
	CHECK(mismatch(b.buf.data() + 32768, 2000, 501) < 0);
	CHECK(load64(a.buf.data() + 16384) == 77 &&
	      load64(b.buf.data() + ctr) == 78);
	return true;
}

/*
 * max_rd_atomic: a requester allowed one outstanding READ at a time gets
 * all of them done against a responder that grants one; one allowed four
 * against a responder granting one is refused (invalid request) once a
 * second READ arrives while the first one's responses still go out.  That
 * takes a first READ long enough for its responses to leave from the
 * responder's work item (more than 32 packets) yet inside the requester's
 * window (128 PSNs): 96 packets.  Whether the second request arrives
 * before the work item is done is up to the scheduler, so a few attempts
 * are allowed; a refusal must come in one of them, and never elsewhere.
 */
bool check_rd_limit(device &da, device &db)
{
	qp_opts o;

	o.max_dest_rd_atomic = 1;
	{
		constexpr std::uint32_t len = 4U << 20U;
		endpoint a, b;
		o.buf_size = std::size_t{2} * len;
		o.max_rd_atomic = 1;
		REQUIRE(make_remote_pair(a, b, da, db, o));
		fill(b.buf.data(), len, 7);
		for (std::uint64_t i = 0; i < 4; ++i) {
			ibv_sge sge{a.addr(), len, a.mr->lkey};
			CHECK(post_rdma(a, b, i, IBV_WR_RDMA_READ, &sge, 1,
					0) == 0);
		}
		for (std::uint64_t i = 0; i < 4; ++i)
			CHECK(expect_wc("read within max_rd_atomic 1", a.scq, i,
					IBV_WC_SUCCESS, IBV_WC_RDMA_READ));
		CHECK(mismatch(a.buf.data(), len, 7) < 0);
	}
	/*
	 * Four READs of 96 KiB in one post.  The requester builds the first
	 * two requests in one batch (the second starts within its window of
	 * 128 PSNs) and sends them back to back from one context; the
	 * responder, which answers the first in softirq for 32 packets and
	 * from a work item of this CPU for the rest, sees the second while
	 * the first still holds its only resource.  (Posted one by one, the
	 * work item could finish the first READ before the next post.)
	 */
	const std::uint32_t len = 96 * 1024;
	o.buf_size = len;
	o.max_rd_atomic = 4;
	for (int attempt = 1; attempt <= 5; ++attempt) {
		endpoint a, b;
		REQUIRE(make_remote_pair(a, b, da, db, o));
		ibv_sge sge{a.addr(), len, a.mr->lkey};
		std::array<ibv_send_wr, 4> wrs{};
		ibv_send_wr *bad = nullptr;
		for (std::size_t i = 0; i < wrs.size(); ++i) {
			wrs[i].wr_id = i;
			wrs[i].sg_list = &sge;
			wrs[i].num_sge = 1;
			wrs[i].opcode = IBV_WR_RDMA_READ;
			wrs[i].send_flags = IBV_SEND_SIGNALED;
			wrs[i].wr.rdma.remote_addr = b.addr();
			wrs[i].wr.rdma.rkey = b.mr->rkey;
			wrs[i].next =
				i + 1 < wrs.size() ? &wrs[i + 1] : nullptr;
		}
		CHECK(ibv_post_send(a.qp.get(), wrs.data(), &bad) == 0);
		int refused = 0, flushed = 0, done = 0;
		for (std::uint64_t i = 0; i < 4; ++i) {
			const std::optional<ibv_wc> wc = wait_wc(a.scq);
			REQUIRE(wc);
			print_wc("read beyond the responder's resources", *wc);
			REQUIRE(wc->wr_id == i);
			refused += wc->status == IBV_WC_REM_INV_REQ_ERR;
			flushed += wc->status == IBV_WC_WR_FLUSH_ERR;
			done += wc->status == IBV_WC_SUCCESS;
		}
		if (refused == 0) {
			/* Every response went out before the next request. */
			REQUIRE(done == 4);
			ktap::note("attempt %d: no overlap, all done", attempt);
			continue;
		}
		/* The first READ done, one refused, the rest flushed. */
		CHECK(refused == 1 && done >= 1 &&
		      done + refused + flushed == 4);
		CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
		CHECK(qp_state(b.qp.get()) == IBV_QPS_ERR);
		return true;
	}
	ktap::fail("no READ beyond max_dest_rd_atomic was refused "
		   "in 5 attempts");
	return false;
}

/*
 * ibv_rereg_mr: new access rights take effect (a READ refused before is
 * served after), a new translation points the keys at another buffer, and
 * the keys the region had before no longer work when the kernel gave it
 * new ones.
 */
bool check_rereg(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;
	std::vector<unsigned char> other(8192);

	o.qp_access = acc_remote;
	o.mr_access = acc_remote;
	REQUIRE(make_endpoint(a, da, o));
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));
	fill(b.buf.data(), 4096, 3);
	ibv_sge sge{a.addr(), 4096, a.mr->lkey};

	CHECK(post_rdma(a, b, 1, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	CHECK(expect_wc("read without REMOTE_READ", a.scq, 1,
			IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ));
	REQUIRE(reconnect(a, b));

	const std::uint32_t old_rkey = b.mr->rkey;
	REQUIRE(ibv_rereg_mr(b.mr.get(), IBV_REREG_MR_CHANGE_ACCESS, nullptr,
			     nullptr, 0, acc_remote) == 0);
	ktap::note("rkey %#x -> %#x after rereg (access)", old_rkey,
		   b.mr->rkey);
	CHECK(post_rdma(a, b, 2, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	CHECK(expect_wc("read after rereg", a.scq, 2, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	CHECK(mismatch(a.buf.data(), 4096, 3) < 0);

	/* The same keys' translation to another buffer. */
	fill(other.data(), other.size(), 4);
	REQUIRE(ibv_rereg_mr(b.mr.get(), IBV_REREG_MR_CHANGE_TRANSLATION,
			     nullptr, other.data(), other.size(), 0) == 0);
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;
	wr.wr_id = 3;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(other.data());
	wr.wr.rdma.rkey = b.mr->rkey;
	CHECK(ibv_post_send(a.qp.get(), &wr, &bad) == 0);
	CHECK(expect_wc("read of the new translation", a.scq, 3, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	CHECK(mismatch(a.buf.data(), 4096, 4) < 0);
	if (b.mr->rkey != old_rkey) {
		wr.wr_id = 4;
		wr.wr.rdma.rkey = old_rkey;
		CHECK(ibv_post_send(a.qp.get(), &wr, &bad) == 0);
		CHECK(expect_wc("read with the rkey before rereg", a.scq, 4,
				IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ));
	}
	return true;
}

} /* namespace rctest */
