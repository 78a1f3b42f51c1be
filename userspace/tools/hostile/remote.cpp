// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * remote.cpp - sroce-hostile's findings a peer exploits with packets; the
 * forger sends them from A's address to B's QP, whose PSNs and keys this
 * process knows because it made the pair.  Each check shows first that
 * its forged packets get through (a counter moves, bytes land before the
 * revocation), then that they do no harm, then that the pair or the
 * devices still carry verified traffic.
 *
 *   f1-replays-fill-resources  40 duplicate READs, then a READ at the
 *       expected PSN: the responder must not run out of resources (a NULL
 *       write in softirq before the fix)
 *   f3-blind-nak  300 fatal NAKs of PSNs never sent, amid B's traffic:
 *       dropped and counted, B's QP stays in RTS
 *   f4-write-after-dereg, f4-write-after-local-inv  a multi-packet WRITE
 *       whose region is deregistered, or whose memory window is
 *       invalidated, after its FIRST packet: nothing of the rest lands
 *   f4-read-after-dereg  a long READ whose region is deregistered while
 *       its responses go out, and asked for again by a duplicate: it
 *       fails, and no more than what was on its way lands after
 *       ibv_dereg_mr() returned
 *   f6-read-amplification  one duplicate READ of 1 MiB that no resource
 *       answered: no response goes out
 *   f6-replay-then-read  a duplicate of A's answered READ of 1 MiB, then
 *       A's next READ while the answer to the duplicate still streams: the
 *       replay does not take the resource A's READ is owed (max_rd_atomic
 *       1 on both sides; REM_INV_REQ_ERR before the fix)
 *   f9-cnp  a CNP at the PSN of an outstanding zero-length READ completes
 *       nothing; counted in rx_cnp
 *   f9-reserved-aeth  a reserved AETH syndrome, and a reserved NAK code,
 *       at the PSN after an outstanding SEND: neither acknowledges nor ends
 *       it
 */
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "completion.h"
#include "hostile.h"
#include "ktap.h"

namespace hostile {

using namespace verbs_util;

namespace {

/* A WRITE of len bytes of x's buffer to y's, for its PSNs. */
bool write_through(endpoint &x, endpoint &y, std::uint64_t id,
		   std::uint32_t len)
{
	ibv_sge sge{x.addr(), len, x.mr->lkey};

	REQUIRE(post_rdma(x, y, id, IBV_WR_RDMA_WRITE, &sge, 1, 0) == 0);
	/* Thousands of small packets under TCG: more than expect_wc()'s 10 s. */
	const auto wc = wait_wc(x.scq, 60000);
	REQUIRE(wc.has_value());
	print_wc("A's WRITE", *wc);
	REQUIRE(wc->wr_id == id && wc->status == IBV_WC_SUCCESS);
	return true;
}

/*
 * The completion of wr_id on cq within 10 s is anything but a success:
 * what the forged packet must not have brought about.
 */
bool not_succeeded(const char *what, ibv_cq *cq, std::uint64_t wr_id)
{
	const auto wc = wait_wc(cq, 10000);

	if (!wc) {
		ktap::fail("%s: no completion within 10 s", what);
		return false;
	}
	print_wc(what, *wc);
	if (wc->wr_id != wr_id) {
		ktap::fail("%s: completion of wr_id %llu, expected %llu", what,
			   static_cast<unsigned long long>(wc->wr_id),
			   static_cast<unsigned long long>(wr_id));
		return false;
	}
	if (wc->status == IBV_WC_SUCCESS) {
		ktap::fail("%s: succeeded though nothing answered it", what);
		return false;
	}
	return true;
}

/*
 * One forged WRITE of three packets to y at y's expected PSN, the region
 * or window behind rkey revoked by revoke() after the FIRST: the FIRST
 * lands, nothing after it.
 */
template <typename Revoke>
bool write_then_revoke(device &a, device &b, endpoint &x, endpoint &y,
		       std::uint32_t rkey, Revoke revoke)
{
	const std::uint32_t mtu = mtu_bytes(x.opts.mtu);
	const std::uint32_t epsn = x.psn; /* nothing sent by x yet */
	std::vector<unsigned char> payload(mtu, 0xa5);
	forger f;

	REQUIRE(f.open(a, b));
	std::memset(y.buf.data(), 0, 3 * mtu);
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_WRITE_FIRST, y.qp->qp_num, epsn);
	h.reth.va = y.addr();
	h.reth.rkey = rkey;
	h.reth.len = 3 * mtu;
	h.bth.flags = 0;
	REQUIRE(f.send(f.frame(h, payload.data(), mtu)));
	if (!wait_bytes(y.buf.data(), mtu, 0xa5, 2000)) {
		ktap::fail("the forged WRITE FIRST did not land: the forger "
			   "does not get through, the case proves nothing");
		return false;
	}
	ktap::note("the forged WRITE FIRST landed in B's buffer");
	REQUIRE(revoke());
	const long long naks = hw_counter(b, "access_naks_sent");
	h = rc_hdrs(SROCE_OP_RC_WRITE_MIDDLE, y.qp->qp_num, psn_add(epsn, 1));
	h.bth.flags = 0;
	REQUIRE(f.send(f.frame(h, payload.data(), mtu)));
	h = rc_hdrs(SROCE_OP_RC_WRITE_LAST, y.qp->qp_num, psn_add(epsn, 2));
	REQUIRE(f.send(f.frame(h, payload.data(), mtu)));
	usleep(static_cast<useconds_t>(500000 * scale));
	const std::size_t landed = nonzero(y.buf.data() + mtu, 2 * mtu);
	ktap::note("bytes landed after the revocation: %zu of %u", landed,
		   2 * mtu);
	CHECK(landed == 0);
	CHECK(counter_moved_by(b, "access_naks_sent", naks, 1));
	return landed == 0;
}

} /* namespace */

/* ---- f1 ------------------------------------------------------------------ */

bool f1_replays_fill_resources(device &a, device &b)
{
	constexpr std::uint32_t dups = 40, span = 400;
	const qp_opts o = rdma_opts(IBV_MTU_256, std::size_t{4} << 20);
	const std::uint32_t mtu = mtu_bytes(o.mtu);
	const std::uint32_t total = static_cast<std::uint32_t>(o.buf_size);
	endpoint x, y;
	forger f;

	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	/* B's expected PSN moves on by total / mtu: room for duplicates. */
	REQUIRE(write_through(x, y, 1, total));
	const std::uint32_t epsn = psn_add(x.psn, total / mtu);
	ktap::note("B expects PSN %#x; %u duplicate READs of %u PSNs before it",
		   epsn, dups, span);

	std::vector<std::vector<std::uint8_t>> burst;
	for (std::uint32_t k = 0; k < dups; ++k) {
		sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num,
				       psn_add(x.psn, k * span));
		h.reth.va = y.addr(std::size_t{k} * span * mtu);
		h.reth.rkey = y.mr->rkey;
		h.reth.len = span * mtu;
		burst.push_back(f.frame(h, nullptr, 0));
	}
	/* A new READ at the expected PSN, as A's next one will be. */
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num, epsn);
	h.reth.va = y.addr();
	h.reth.rkey = y.mr->rkey;
	h.reth.len = 0;
	burst.push_back(f.frame(h, nullptr, 0));

	const long long dup_before = hw_counter(b, "duplicate_requests");
	REQUIRE(f.send_all(burst));
	CHECK(counter_moved_by(b, "duplicate_requests", dup_before, dups));

	/*
	 * A's own READ at that PSN is now a duplicate of the forged one, same
	 * RETH: answered again from its resource, which brings A and B back
	 * in step.
	 */
	REQUIRE(post_rdma(x, y, 2, IBV_WR_RDMA_READ, nullptr, 0, 0) == 0);
	CHECK(expect_wc("A's zero-length READ", x.scq, 2, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	CHECK(send_arrives(x, y, 11));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

/* ---- f3 ------------------------------------------------------------------ */

bool f3_blind_nak(device &a, device &b)
{
	constexpr std::uint32_t rounds = 10, per_round = 30, len = 1000;
	endpoint x, y;
	forger f;

	/* B is the requester, A answers; the forger speaks as A. */
	REQUIRE(make_qp_pair(x, y, a, b));
	REQUIRE(f.open(a, b));
	const long long bad_before = hw_counter(b, "bad_responses");
	for (std::uint32_t r = 0; r < rounds; ++r) {
		std::vector<std::vector<std::uint8_t>> naks;

		for (std::uint32_t i = 0; i < per_round; ++i) {
			/* A quarter of the PSN space away: never outstanding. */
			sroce_hdrs h = rc_hdrs(
				SROCE_OP_RC_ACK, y.qp->qp_num,
				psn_add(y.psn, 0x400000 + r * per_round + i));
			h.bth.flags = 0;
			h.aeth.syndrome = static_cast<u8>(
				SROCE_AETH_NAK |
				(SROCE_NAK_INVALID_REQ + i % 3));
			h.aeth.msn = r;
			naks.push_back(f.frame(h, nullptr, 0));
		}
		fill(y.buf.data(), len, r);
		REQUIRE(post_recv(x, r, 0, len) == 0);
		REQUIRE(post_send(y, r, 0, len) == 0);
		REQUIRE(f.send_all(naks));
		CHECK(expect_wc("B's send amid the NAKs", y.scq, r,
				IBV_WC_SUCCESS, IBV_WC_SEND, false));
		CHECK(expect_wc("A's receive", x.rcq, r, IBV_WC_SUCCESS,
				IBV_WC_RECV, false));
		EXPECT(mismatch(x.buf.data(), len, r) < 0, "round %u", r);
	}
	CHECK(counter_moved_by(b, "bad_responses", bad_before,
			       rounds * per_round));
	CHECK(send_arrives(y, x, 12));
	return true;
}

/* ---- f4 ------------------------------------------------------------------ */

bool f4_write_after_dereg(device &a, device &b)
{
	endpoint x, y;

	REQUIRE(make_qp_pair(x, y, a, b, rdma_opts(IBV_MTU_1024, 65536)));
	const std::uint32_t rkey = y.mr->rkey;
	CHECK(write_then_revoke(a, b, x, y, rkey, [&y] {
		ktap::note("ibv_dereg_mr() of B's region");
		y.mr.reset();
		return true;
	}));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool f4_write_after_local_inv(device &a, device &b)
{
	endpoint x, y;

	REQUIRE(make_qp_pair(x, y, a, b, rdma_opts(IBV_MTU_1024, 65536)));
	mw_ptr mw(ibv_alloc_mw(y.pd, IBV_MW_TYPE_2));
	REQUIRE(mw != nullptr);
	const std::uint32_t rkey = ibv_inc_rkey(mw->rkey);
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;
	wr.wr_id = 1;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw.get();
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = y.mr.get();
	wr.bind_mw.bind_info.addr = y.addr();
	wr.bind_mw.bind_info.length = 16384;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	REQUIRE(ibv_post_send(y.qp.get(), &wr, &bad) == 0);
	REQUIRE(expect_wc("B binds a type 2 window", y.scq, 1, IBV_WC_SUCCESS,
			  IBV_WC_BIND_MW));
	CHECK(write_then_revoke(a, b, x, y, rkey, [&y, rkey] {
		ibv_send_wr inv{};
		ibv_send_wr *bad_inv = nullptr;

		ktap::note("LOCAL_INV of the window by B");
		inv.wr_id = 2;
		inv.opcode = IBV_WR_LOCAL_INV;
		inv.send_flags = IBV_SEND_SIGNALED;
		inv.invalidate_rkey = rkey;
		REQUIRE(ibv_post_send(y.qp.get(), &inv, &bad_inv) == 0);
		REQUIRE(expect_wc("B's LOCAL_INV", y.scq, 2, IBV_WC_SUCCESS,
				  IBV_WC_LOCAL_INV));
		return true;
	}));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool f4_read_after_dereg(device &a, device &b)
{
	const qp_opts o = rdma_opts(IBV_MTU_256, std::size_t{8} << 20);
	const std::uint32_t len = static_cast<std::uint32_t>(o.buf_size);
	endpoint x, y;
	forger f;

	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	std::memset(y.buf.data(), 0x5a, len);
	std::memset(x.buf.data(), 0, len);
	ibv_sge sge{x.addr(), len, x.mr->lkey};
	REQUIRE(post_rdma(x, y, 1, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	if (!wait_bytes(x.buf.data(), 256, 0x5a, 5000)) {
		ktap::fail("no READ response came within 5 s");
		return false;
	}
	ibv_wc wc{};
	if (ibv_poll_cq(x.scq, 1, &wc) != 0) {
		ktap::fail("the READ of %u bytes ended before B's region could "
			   "be deregistered: the case proves nothing",
			   len);
		return false;
	}
	const std::uint32_t rkey = y.mr->rkey;
	ktap::note("ibv_dereg_mr() of B's region while the READ streams");
	y.mr.reset();
	const long long tx_at_dereg = fresh_counter(b, "tx_packets");
	const std::size_t before = nonzero(x.buf.data(), len);
	const long long rx_before = hw_counter(b, "rx_qp");
	/* And A, as it may, asks for the whole READ again. */
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num, x.psn);
	h.reth.va = y.addr();
	h.reth.rkey = rkey;
	h.reth.len = len;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));
	CHECK(counter_moved_by(b, "rx_qp", rx_before, 1));
	CHECK(not_succeeded("A's READ of the deregistered region", x.scq, 1));
	const std::size_t got = nonzero(x.buf.data(), len);
	/*
	 * What B sent before the deregistration returned may still land
	 * (a loaded receiver holds hundreds of packets in its backlog), so
	 * count at B: after it, at most the responses of one run of its
	 * output engine built before it (SROCE_RESP_SOFTIRQ_BUDGET, 32), and
	 * the NAKs of the revoked READ and of A's READ again.  Without the
	 * revocation B sends the rest of the 8 MiB: thousands.
	 */
	const long long sent = fresh_counter(b, "tx_packets") - tx_at_dereg;
	ktap::note("%zu of %u bytes of the READ had arrived when "
		   "ibv_dereg_mr() returned, %zu in all; B sent %lld packets "
		   "after it (at most 40 allowed)",
		   before, len, got, sent);
	CHECK(tx_at_dereg >= 0 && sent <= 40);
	CHECK(new_rc_pair_works(a, b));
	return true;
}

/* ---- f6 ------------------------------------------------------------------ */

bool f6_read_amplification(device &a, device &b)
{
	const qp_opts o = rdma_opts(IBV_MTU_256, std::size_t{1} << 20);
	const std::uint32_t len = static_cast<std::uint32_t>(o.buf_size);
	const std::uint32_t mtu = mtu_bytes(o.mtu);
	endpoint x, y;
	forger f;

	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	REQUIRE(write_through(x, y, 1, len));
	const long long dup_before = hw_counter(b, "duplicate_requests");
	const long long tx_before = fresh_counter(b, "tx_packets");
	/* The first PSN of the WRITE, asking for all it wrote, read back. */
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num, x.psn);
	h.reth.va = y.addr();
	h.reth.rkey = y.mr->rkey;
	h.reth.len = len;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));
	CHECK(counter_moved_by(b, "duplicate_requests", dup_before, 1));
	usleep(static_cast<useconds_t>(1000000 * scale));
	const long long tx = fresh_counter(b, "tx_packets") - tx_before;
	ktap::note("B sent %lld packets for one duplicate READ of %u packets",
		   tx, len / mtu);
	CHECK(tx < 16);
	CHECK(send_arrives(x, y, 13));
	return true;
}

/*
 * Two READs answered, then the first asked again and again (a requester
 * that goes back for its lost responses while the second is still its
 * own): the answers again must not take the second READ's resource.
 */
bool f6_replays_keep_resources(device &a, device &b)
{
	constexpr int replays = 6;
	qp_opts o = rdma_opts(IBV_MTU_1024, 65536);
	endpoint x, y;
	forger f;

	o.max_rd_atomic = 2;
	o.max_dest_rd_atomic = 2;
	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	REQUIRE(silence(x));
	auto read_at = [&](std::uint32_t k) {
		sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num,
				       psn_add(x.psn, k));
		h.reth.va = y.addr(std::size_t{k} * 64);
		h.reth.rkey = y.mr->rkey;
		h.reth.len = 64;
		return f.frame(h, nullptr, 0);
	};
	/* Each answered (B's one response) before the next is sent. */
	auto answered = [&](std::uint32_t k, const char *what) {
		const long long before = fresh_counter(b, "tx_packets");

		REQUIRE(f.send(read_at(k)));
		if (!counter_moved_by(b, "tx_packets", before, 1)) {
			ktap::fail("%s went unanswered", what);
			return false;
		}
		return true;
	};
	REQUIRE(answered(0, "the first READ"));
	REQUIRE(answered(1, "the second READ"));
	for (int i = 0; i < replays; ++i)
		REQUIRE(answered(0, "a duplicate of the first READ"));
	CHECK(answered(1, "a duplicate of the second READ, after the "
			  "first one's"));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool f6_replay_then_read(device &a, device &b)
{
	const qp_opts o = rdma_opts(IBV_MTU_256, std::size_t{4} << 20);
	const std::uint32_t len = static_cast<std::uint32_t>(o.buf_size) / 2;
	endpoint x, y;
	forger f;

	/* max_rd_atomic and max_dest_rd_atomic 1: one READ at a time. */
	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	fill(y.buf.data(), len, 1);
	ibv_sge sge{x.addr(), len, x.mr->lkey};
	REQUIRE(post_rdma(x, y, 1, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	CHECK(expect_wc("A's first READ", x.scq, 1, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	EXPECT(mismatch(x.buf.data(), len, 1) < 0, "A's first READ's bytes");

	/* The READ again, as a requester that timed out would ask for it. */
	const long long dup_before = hw_counter(b, "duplicate_requests");
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num, x.psn);
	h.reth.va = y.addr();
	h.reth.rkey = y.mr->rkey;
	h.reth.len = len;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));

	/*
	 * A has its answer: its next READ, posted at once, is legitimate
	 * while B still sends the 8192 responses to the duplicate.
	 */
	fill(y.buf.data() + len, len, 2);
	sge = {x.addr(len), len, x.mr->lkey};
	REQUIRE(post_rdma(x, y, 2, IBV_WR_RDMA_READ, &sge, 1, len) == 0);
	CHECK(expect_wc("A's second READ", x.scq, 2, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	EXPECT(mismatch(x.buf.data() + len, len, 2) < 0,
	       "A's second READ's bytes");
	CHECK(counter_moved_by(b, "duplicate_requests", dup_before, 1));
	CHECK(send_arrives(x, y, 14));
	return true;
}

/* ---- f9 ------------------------------------------------------------------ */

bool f9_cnp(device &a, device &b)
{
	endpoint x, y;
	forger f;

	/* B's requests go unanswered: A's QP is in ERROR. */
	REQUIRE(make_qp_pair(x, y, a, b, rdma_opts(IBV_MTU_1024, 65536)));
	REQUIRE(f.open(a, b));
	REQUIRE(silence(x));
	REQUIRE(post_send(y, 1, 0, 100) == 0);
	REQUIRE(post_rdma(y, x, 2, IBV_WR_RDMA_READ, nullptr, 0, 0) == 0);
	const long long cnp_before = hw_counter(b, "rx_cnp");
	/* A CNP with the PSN of the READ (the SEND's is y.psn). */
	sroce_hdrs h = rc_hdrs(SROCE_OP_CNP, y.qp->qp_num, psn_add(y.psn, 1));
	h.bth.flags = SROCE_BTHF_BECN;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));
	CHECK(counter_moved_by(b, "rx_cnp", cnp_before, 1));
	CHECK(not_succeeded("B's SEND before the READ", y.scq, 1));
	CHECK(not_succeeded("B's zero-length READ", y.scq, 2));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool f9_reserved_aeth(device &a, device &b)
{
	const u8 syndromes[] = {
		SROCE_AETH_RESERVED | 0x1f, /* reserved type, credits "none" */
		SROCE_AETH_NAK |
			(SROCE_NAK_INVALID_RD_REQ + 1), /* reserved code */
	};

	for (const u8 syn : syndromes) {
		endpoint x, y;
		forger f;

		ktap::note("AETH syndrome %#04x at the PSN after B's SEND",
			   syn);
		REQUIRE(make_qp_pair(x, y, a, b));
		REQUIRE(f.open(a, b));
		REQUIRE(silence(x));
		REQUIRE(post_send(y, 1, 0, 100) == 0);
		const long long bad_before = hw_counter(b, "bad_responses");
		/* A NAK acknowledges what precedes its PSN: the SEND. */
		sroce_hdrs h = rc_hdrs(SROCE_OP_RC_ACK, y.qp->qp_num,
				       psn_add(y.psn, 1));
		h.bth.flags = 0;
		h.aeth.syndrome = syn;
		h.aeth.msn = 1;
		REQUIRE(f.send(f.frame(h, nullptr, 0)));
		CHECK(counter_moved_by(b, "bad_responses", bad_before, 1));
		const auto wc = wait_wc(y.scq, 10000);
		REQUIRE(wc.has_value());
		print_wc("B's SEND", *wc);
		/* Nothing answers it: it runs out of retries. */
		CHECK(wc->status == IBV_WC_RETRY_EXC_ERR);
	}
	CHECK(new_rc_pair_works(a, b));
	return true;
}

} /* namespace hostile */
