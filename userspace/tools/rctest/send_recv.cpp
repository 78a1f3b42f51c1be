// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * send_recv.cpp - sroce-rctest's checks of RC SEND and receive:
 *
 *   wrap        1000 sends through queues of depth 4, every byte checked:
 *               the ring indices wrap many times (PSNs wrap 2^24 too);
 *               half of them signaled, half mostly unsignaled
 *   full        post_recv and post_send fail with ENOMEM exactly at the
 *               max_recv_wr / max_send_wr ibv_query_qp reports, and the
 *               queues work on once drained
 *   multi-sge   gather from several SGEs of two regions, scatter into
 *               SGEs of odd sizes across packet boundaries; max SGEs
 *   imm         SEND_WITH_IMM: imm_data and IBV_WC_WITH_IMM, 0-byte and
 *               multi-packet messages; a plain SEND has no immediate
 *   inline      IBV_SEND_INLINE up to max_inline_data, from unregistered
 *               memory; one byte more is refused by post_send
 */
#include <algorithm>
#include <arpa/inet.h>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

/* ---- wrap -------------------------------------------------------------------- */

namespace {

constexpr std::uint32_t wrap_sizes[] = {1,    64,   1023, 1024,
					1025, 2048, 4000, 4096};
constexpr std::size_t slot_size = 4096;

/*
 * n messages through the QP pair, at most depth outstanding on each side.
 * signal_every: 1 signals every send; k > 1 signals every k-th (and the
 * last), posting sends in lists.  msg0 numbers the first message.
 */
bool stream(endpoint &a, endpoint &b, std::uint32_t msg0, std::uint32_t n,
	    std::uint32_t depth, std::uint32_t signal_every)
{
	std::uint32_t posted_s = 0, done_s = 0, posted_r = 0, done_r = 0;
	auto progress = deadline_in(10000);

	auto size_of = [msg0](std::uint32_t i) {
		return wrap_sizes[(msg0 + i) % std::size(wrap_sizes)];
	};
	while (done_r < n || done_s < n) {
		/* Receives first, as a list of everything there is room for. */
		ibv_recv_wr rwr[16];
		ibv_sge rsge[16];
		int nr = 0;
		while (posted_r < n && posted_r - done_r < depth && nr < 16) {
			const std::size_t off = (posted_r % depth) * slot_size;
			std::memset(b.buf.data() + off, 0, slot_size);
			rsge[nr] = {b.addr(off), slot_size, b.mr->lkey};
			rwr[nr] = {};
			rwr[nr].wr_id = posted_r;
			rwr[nr].sg_list = &rsge[nr];
			rwr[nr].num_sge = 1;
			if (nr > 0)
				rwr[nr - 1].next = &rwr[nr];
			++nr;
			++posted_r;
		}
		if (nr > 0) {
			ibv_recv_wr *bad = nullptr;
			const int ret = ibv_post_recv(b.qp.get(), rwr, &bad);
			EXPECT(ret == 0, "post_recv of %d: %s", nr,
			       std::strerror(ret));
		}

		/* Sends: never ahead of the receives posted. */
		ibv_send_wr swr[16];
		ibv_sge ssge[16];
		int ns = 0;
		while (posted_s < n && posted_s < posted_r &&
		       posted_s - done_s < depth && ns < 16) {
			const std::size_t off = (posted_s % depth) * slot_size;
			const std::uint32_t len = size_of(posted_s);
			fill(a.buf.data() + off, len, msg0 + posted_s);
			ssge[ns] = {a.addr(off), len, a.mr->lkey};
			swr[ns] = {};
			swr[ns].wr_id = posted_s;
			swr[ns].sg_list = &ssge[ns];
			swr[ns].num_sge = 1;
			swr[ns].opcode = IBV_WR_SEND;
			if (signal_every <= 1 ||
			    posted_s % signal_every == signal_every - 1 ||
			    posted_s + 1 == n)
				swr[ns].send_flags = IBV_SEND_SIGNALED;
			if (ns > 0)
				swr[ns - 1].next = &swr[ns];
			++ns;
			++posted_s;
			if (signal_every <= 1)
				break; /* one at a time */
		}
		if (ns > 0) {
			ibv_send_wr *bad = nullptr;
			const int ret = ibv_post_send(a.qp.get(), swr, &bad);
			EXPECT(ret == 0, "post_send of %d at %u: %s", ns,
			       posted_s - ns, std::strerror(ret));
		}

		ibv_wc wc[8];
		int got = ibv_poll_cq(a.scq, 8, wc);
		EXPECT(got >= 0, "poll_cq %d", got);
		for (int i = 0; i < got; ++i) {
			EXPECT(wc[i].status == IBV_WC_SUCCESS &&
				       wc[i].opcode == IBV_WC_SEND &&
				       wc[i].wr_id >= done_s &&
				       wc[i].wr_id < posted_s,
			       "send wc wr_id %" PRIu64
			       " status %s opcode %d, expected "
			       "%u..%u",
			       wc[i].wr_id, ibv_wc_status_str(wc[i].status),
			       wc[i].opcode, done_s, posted_s - 1);
			EXPECT(signal_every > 1 || wc[i].wr_id == done_s,
			       "send wc wr_id %" PRIu64 ", expected %u",
			       wc[i].wr_id, done_s);
			done_s = static_cast<std::uint32_t>(wc[i].wr_id) + 1;
			progress = deadline_in(10000);
		}
		got = ibv_poll_cq(b.rcq, 8, wc);
		EXPECT(got >= 0, "poll_cq %d", got);
		for (int i = 0; i < got; ++i) {
			const std::uint32_t len = size_of(done_r);
			const unsigned char *p =
				b.buf.data() + (done_r % depth) * slot_size;
			EXPECT(wc[i].status == IBV_WC_SUCCESS &&
				       wc[i].opcode == IBV_WC_RECV &&
				       wc[i].wr_id == done_r &&
				       wc[i].byte_len == len &&
				       (wc[i].wc_flags & IBV_WC_WITH_IMM) == 0,
			       "recv wc wr_id %" PRIu64
			       " status %s opcode %d byte_len %u flags %#x; "
			       "expected %u, %u bytes",
			       wc[i].wr_id, ibv_wc_status_str(wc[i].status),
			       wc[i].opcode, wc[i].byte_len, wc[i].wc_flags,
			       done_r, len);
			const long bad = mismatch(p, len, msg0 + done_r);
			EXPECT(bad < 0, "message %u: byte %ld of %u differs",
			       msg0 + done_r, bad, len);
			EXPECT(p[len] == 0 || len == slot_size,
			       "message %u: byte after the end written",
			       msg0 + done_r);
			++done_r;
			progress = deadline_in(10000);
		}
		if (nr == 0 && ns == 0 && got == 0)
			usleep(20);
		EXPECT(clock_type::now() < progress,
		       "no progress for 10 s: sent %u/%u completed %u, "
		       "received %u/%u posted",
		       posted_s, n, done_s, done_r, posted_r);
	}
	return true;
}

} /* namespace */

bool check_wrap(device &da, device &db)
{
	constexpr std::uint32_t depth = 4;
	qp_opts o;
	o.send_wr = depth;
	o.recv_wr = depth;
	o.cqe = depth;
	o.buf_size = depth * slot_size;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o, false));
	ktap::note("granted: send_wr %u recv_wr %u, CQs of %d and %d",
		   a.cap.max_send_wr, b.cap.max_recv_wr, a.scq->cqe,
		   b.rcq->cqe);
	REQUIRE(a.cap.max_send_wr == depth && b.cap.max_recv_wr == depth);
	/* Start the PSNs just below 2^24: they wrap as well. */
	REQUIRE(to_init(a.qp.get()) == 0 && to_init(b.qp.get()) == 0);
	a.psn = 0xffffff - 40;
	b.psn = 0xffffff - 3;
	REQUIRE(to_rtr(a, b) == 0 && to_rtr(b, a) == 0);
	REQUIRE(to_rts(a) == 0 && to_rts(b) == 0);

	REQUIRE(stream(a, b, 0, 500, depth, 1));
	ktap::note("ok: 500 signaled sends of 1..4096 bytes, depth %u", depth);
	REQUIRE(stream(a, b, 500, 500, depth, depth));
	ktap::note("ok: 500 sends in lists, every %u-th signaled", depth);
	/* And the other way round on the same QPs. */
	REQUIRE(stream(b, a, 1000, 100, depth, 1));
	ktap::note("ok: 100 sends from B to A");
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	CHECK(qp_state(b.qp.get()) == IBV_QPS_RTS);
	return true;
}

/* ---- full -------------------------------------------------------------------- */

bool check_full(device &da, device &db)
{
	qp_opts o;
	o.send_wr = 10;
	o.recv_wr = 10;
	o.cqe = 256;

	/* The receive queue of a QP in INIT: nothing consumes it. */
	{
		endpoint c;
		REQUIRE(make_endpoint(c, db, o));
		REQUIRE(to_init(c.qp.get()) == 0);
		const std::uint32_t r = query_cap(c.qp.get()).max_recv_wr;
		ktap::note("max_recv_wr asked 10, ibv_query_qp says %u", r);
		REQUIRE(r >= 10);
		for (std::uint32_t i = 0; i + 1 < r; ++i)
			EXPECT(post_recv(c, i, 0, 64) == 0, "post_recv %u", i);
		/* A list of two with room for one: the second is bad_wr. */
		ibv_sge sge[2] = {{c.addr(), 64, c.mr->lkey},
				  {c.addr(), 64, c.mr->lkey}};
		ibv_recv_wr wr[2] = {};
		wr[0].wr_id = r - 1;
		wr[0].sg_list = &sge[0];
		wr[0].num_sge = 1;
		wr[0].next = &wr[1];
		wr[1].wr_id = r;
		wr[1].sg_list = &sge[1];
		wr[1].num_sge = 1;
		ibv_recv_wr *bad = nullptr;
		CHECK(ibv_post_recv(c.qp.get(), wr, &bad) == ENOMEM &&
		      bad == &wr[1]);
		CHECK(post_recv(c, r + 1, 0, 64) == ENOMEM);
		/* RESET empties the queue; it holds r receives again. */
		CHECK(to_state(c.qp.get(), IBV_QPS_RESET) == 0);
		CHECK(to_init(c.qp.get()) == 0);
		std::uint32_t n = 0;
		while (n <= r && post_recv(c, n, 0, 64) == 0)
			++n;
		ktap::note("after RESET: %u receives posted", n);
		CHECK(n == r);
	}

	/*
	 * The send queue: B has no receive posted and A retries RNR NAKs
	 * forever, so nothing A posts retires until B posts receives.
	 */
	o.recv_wr = 64;
	o.min_rnr_timer = 14; /* 1.28 ms */
	endpoint a, b;
	REQUIRE(make_qp_pair(a, b, da, db, o));
	const std::uint32_t s = query_cap(a.qp.get()).max_send_wr;
	ktap::note("max_send_wr asked 10, ibv_query_qp says %u", s);
	REQUIRE(s >= 10 && s <= b.cap.max_recv_wr);
	for (std::uint32_t i = 0; i < s; ++i) {
		fill(a.buf.data() + std::size_t{i} * 256, 256, i);
		EXPECT(post_send(a, i, std::size_t{i} * 256, 256) == 0,
		       "post_send %u", i);
	}
	CHECK(post_send(a, s, 0, 256) == ENOMEM);
	CHECK(no_wc("A's sends while B has no receive", a.scq, 300));
	CHECK(post_send(a, s, 0, 256) == ENOMEM);

	/* B's receives let everything through, in order. */
	for (std::uint32_t i = 0; i < s; ++i)
		EXPECT(post_recv(b, i, std::size_t{i} * 256, 256) == 0,
		       "post_recv %u", i);
	for (std::uint32_t i = 0; i < s; ++i) {
		REQUIRE(expect_wc("send", a.scq, i, IBV_WC_SUCCESS, IBV_WC_SEND,
				  false));
		const auto wc = expect_wc("recv", b.rcq, i, IBV_WC_SUCCESS,
					  IBV_WC_RECV, false);
		REQUIRE(wc && wc->byte_len == 256);
		EXPECT(mismatch(b.buf.data() + std::size_t{i} * 256, 256, i) <
			       0,
		       "message %u differs", i);
	}
	ktap::note("ok: %u sends and receives completed after the late "
		   "receives",
		   s);

	/* Drained: the full depth can be posted again. */
	for (std::uint32_t i = 0; i < s; ++i)
		EXPECT(post_recv(b, s + i, std::size_t{i} * 256, 256) == 0,
		       "post_recv %u", s + i);
	for (std::uint32_t i = 0; i < s; ++i)
		EXPECT(post_send(a, s + i, std::size_t{i} * 256, 256) == 0,
		       "post_send %u", s + i);
	for (std::uint32_t i = 0; i < s; ++i) {
		REQUIRE(expect_wc("send", a.scq, s + i, IBV_WC_SUCCESS,
				  IBV_WC_SEND, false));
		REQUIRE(expect_wc("recv", b.rcq, s + i, IBV_WC_SUCCESS,
				  IBV_WC_RECV, false));
	}
	ktap::note("ok: the full depth again after draining");
	return true;
}

/* ---- multi-sge ---------------------------------------------------------------- */

namespace {

struct piece {
	std::size_t off;
	std::uint32_t len;
	bool second; /* in the second region */
};

} /* namespace */

bool check_multi_sge(device &da, device &db)
{
	qp_opts o;
	o.send_sge = 8;
	o.recv_sge = 8;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o, false));
	ktap::note("granted: send SGEs %u, receive SGEs %u", a.cap.max_send_sge,
		   b.cap.max_recv_sge);
	REQUIRE(a.cap.max_send_sge >= 8 && b.cap.max_recv_sge >= 8);
	/* A second region on each side. */
	std::vector<unsigned char> a2(16384), b2(16384);
	mr_ptr a2mr(ibv_reg_mr(a.pd, a2.data(), a2.size(), acc_lw));
	mr_ptr b2mr(ibv_reg_mr(b.pd, b2.data(), b2.size(), acc_lw));
	REQUIRE(a2mr != nullptr && b2mr != nullptr);
	REQUIRE(connect(a, b));

	auto sge_of = [](endpoint &e, std::vector<unsigned char> &v,
			 const mr_ptr &mr2, const piece &p) {
		unsigned char *base = p.second ? v.data() : e.buf.data();
		return ibv_sge{reinterpret_cast<std::uintptr_t>(base + p.off),
			       p.len, p.second ? mr2->lkey : e.mr->lkey};
	};
	auto bytes_of = [](endpoint &e, std::vector<unsigned char> &v,
			   const piece &p) {
		return (p.second ? v.data() : e.buf.data()) + p.off;
	};

	/*
	 * 3552 bytes (4 packets of 1024) gathered from 4 pieces, scattered
	 * into 4 pieces of 7 + 1000 + 3 + 2600 bytes; none of the
	 * boundaries is a packet boundary.
	 */
	const piece gather[] = {{11, 5, false},
				{500, 2047, true},
				{5000, 1, false},
				{7001, 1499, false}};
	const piece scatter[] = {{1, 7, false},
				 {100, 1000, true},
				 {2001, 3, false},
				 {3003, 2600, false}};
	std::uint32_t total = 0;
	std::vector<ibv_sge> ss, rs;
	/* Message byte i is pattern(1, i), spread over the pieces. */
	for (const piece &p : gather) {
		ss.push_back(sge_of(a, a2, a2mr, p));
		unsigned char *q = bytes_of(a, a2, p);
		for (std::uint32_t i = 0; i < p.len; ++i)
			q[i] = pattern(1, total + i);
		total += p.len;
	}
	std::memset(b.buf.data(), 0xee, b.buf.size());
	std::memset(b2.data(), 0xee, b2.size());
	for (const piece &p : scatter)
		rs.push_back(sge_of(b, b2, b2mr, p));
	REQUIRE(post_recv_sges(b, 1, rs.data(), static_cast<int>(rs.size())) ==
		0);
	REQUIRE(post_sges(a, 1, ss.data(), static_cast<int>(ss.size())) == 0);
	REQUIRE(expect_wc("send", a.scq, 1, IBV_WC_SUCCESS, IBV_WC_SEND));
	auto wc = expect_wc("recv", b.rcq, 1, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc);
	CHECK(wc->byte_len == total);
	std::uint32_t at = 0;
	for (const piece &p : scatter) {
		const unsigned char *q = bytes_of(b, b2, p);
		const std::uint32_t n = std::min(p.len, total - at);
		const long bad = mismatch(q, n, 1, at);
		if (bad >= 0)
			ktap::note("scatter piece at %zu: byte %ld of %u "
				   "differs",
				   p.off, bad, n);
		CHECK(bad < 0);
		CHECK(q[-1] == 0xee);
		CHECK(q[p.len] == 0xee);
		for (std::uint32_t i = n; i < p.len; ++i)
			if (q[i] != 0xee) {
				ktap::fail("byte %u of the last piece "
					   "written past the message",
					   i);
				break;
			}
		at += n;
	}
	ktap::note("%u bytes from %zu SGEs into %zu SGEs", total,
		   std::size(gather), std::size(scatter));

	/*
	 * As many SGEs as granted on both sides, of odd sizes, one after
	 * the other with gaps of 16 bytes; the last receive SGE takes the
	 * rest and 5 bytes more.
	 */
	const std::uint32_t ns = a.cap.max_send_sge, nr = b.cap.max_recv_sge;
	ss.clear();
	rs.clear();
	total = 0;
	std::size_t off = 0;
	for (std::uint32_t i = 0; i < ns; ++i) {
		const std::uint32_t len = 13 + 97 * i;
		REQUIRE(off + len <= a.buf.size());
		ss.push_back({a.addr(off), len, a.mr->lkey});
		for (std::uint32_t k = 0; k < len; ++k)
			a.buf[off + k] = pattern(2, total + k);
		total += len;
		off += len + 16;
	}
	std::uint32_t room = 0;
	off = 0;
	for (std::uint32_t i = 0; i < nr; ++i) {
		std::uint32_t len = 3 + 31 * i;
		if (i + 1 == nr) {
			REQUIRE(room < total);
			len = total - room + 5;
		}
		REQUIRE(off + len <= b.buf.size());
		rs.push_back({b.addr(off), len, b.mr->lkey});
		room += len;
		off += len + 16;
	}
	std::memset(b.buf.data(), 0xee, b.buf.size());
	REQUIRE(post_recv_sges(b, 2, rs.data(), static_cast<int>(rs.size())) ==
		0);
	REQUIRE(post_sges(a, 2, ss.data(), static_cast<int>(ss.size())) == 0);
	REQUIRE(expect_wc("send", a.scq, 2, IBV_WC_SUCCESS, IBV_WC_SEND));
	wc = expect_wc("recv", b.rcq, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc);
	CHECK(wc->byte_len == total);
	at = 0;
	bool same = true;
	for (const ibv_sge &s : rs) {
		const std::uint32_t n = std::min(s.length, total - at);
		if (mismatch(b.buf.data() + (s.addr - b.addr()), n, 2, at) >= 0)
			same = false;
		at += n;
	}
	ktap::note("%u bytes from %u SGEs into %u SGEs", total, ns, nr);
	CHECK(same);

	/* One SGE more than granted is refused by post_send/post_recv. */
	ss.push_back(ss.back());
	rs.push_back(rs.back());
	CHECK(post_recv_sges(b, 3, rs.data(), static_cast<int>(rs.size())) !=
	      0);
	CHECK(post_sges(a, 3, ss.data(), static_cast<int>(ss.size())) != 0);
	CHECK(no_wc("A's send CQ", a.scq, 50));
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	return true;
}

/* ---- imm ---------------------------------------------------------------------- */

bool check_imm(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o));

	struct {
		std::uint32_t len;
		bool imm;
		std::uint32_t value;
	} const cases[] = {
		{100, true, 0x12345678},
		{0, true, 0xdeadbeef},
		{5000, true, 0x01020304},
		{10, false, 0},
		{0, false, 0},
		{1, true, 0},
	};
	std::uint64_t id = 1;
	for (const auto &c : cases) {
		ktap::note("%s of %u bytes, imm %#x",
			   c.imm ? "SEND_WITH_IMM" : "SEND", c.len, c.value);
		fill(a.buf.data(), c.len, static_cast<std::uint32_t>(id));
		std::memset(b.buf.data(), 0, 8192);
		CHECK(post_recv(b, id, 0, 8192) == 0);
		CHECK(post_send(a, id, 0, c.len,
				c.imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				IBV_SEND_SIGNALED, htonl(c.value)) == 0);
		CHECK(expect_wc("send", a.scq, id, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		const auto wc = expect_wc("recv", b.rcq, id, IBV_WC_SUCCESS,
					  IBV_WC_RECV);
		REQUIRE(wc);
		CHECK(wc->byte_len == c.len);
		CHECK(mismatch(b.buf.data(), c.len,
			       static_cast<std::uint32_t>(id)) < 0);
		if (c.imm) {
			CHECK((wc->wc_flags & IBV_WC_WITH_IMM) != 0);
			CHECK(wc->imm_data == htonl(c.value));
		} else {
			CHECK((wc->wc_flags & IBV_WC_WITH_IMM) == 0);
		}
		CHECK(wc->qp_num == b.qp->qp_num);
		++id;
	}
	return true;
}

/* ---- inline ------------------------------------------------------------------- */

bool check_inline(device &da, device &db)
{
	qp_opts o;
	o.inline_data = 64;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o));
	const std::uint32_t max_inline = a.cap.max_inline_data;
	ktap::note("max_inline_data asked 64, granted %u", max_inline);
	REQUIRE(max_inline >= 64);

	/* Unregistered memory, lkey 0: only inline can send it. */
	std::vector<unsigned char> src(max_inline + 16);
	std::uint64_t id = 1;
	for (const std::uint32_t len :
	     {1U, 17U, 64U, max_inline - 1, max_inline}) {
		fill(src.data(), len, static_cast<std::uint32_t>(id));
		ibv_sge s[2] = {
			{reinterpret_cast<std::uintptr_t>(src.data()), len / 2,
			 0},
			{reinterpret_cast<std::uintptr_t>(src.data() + len / 2),
			 len - len / 2, 0}};
		CHECK(post_recv(b, id, 0, 4096) == 0);
		const int n = len / 2 != 0 ? 2 : 1;
		CHECK(post_sges(a, id, len / 2 != 0 ? s : &s[1], n, IBV_WR_SEND,
				IBV_SEND_SIGNALED | IBV_SEND_INLINE) == 0);
		/* Posted: the source may change at once. */
		std::memset(src.data(), 0x5a, src.size());
		CHECK(expect_wc("inline send", a.scq, id, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		const auto wc = expect_wc("recv", b.rcq, id, IBV_WC_SUCCESS,
					  IBV_WC_RECV);
		REQUIRE(wc);
		ktap::note("%u bytes inline in %d SGE(s): received %u", len, n,
			   wc->byte_len);
		CHECK(wc->byte_len == len);
		CHECK(mismatch(b.buf.data(), len,
			       static_cast<std::uint32_t>(id)) < 0);
		++id;
	}
	/* One byte more is refused at post time; the QP is unaffected. */
	ibv_sge big{reinterpret_cast<std::uintptr_t>(src.data()),
		    max_inline + 1, 0};
	const int ret = post_sges(a, id, &big, 1, IBV_WR_SEND,
				  IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	ktap::note("%u bytes inline: %d (%s)", max_inline + 1, ret,
		   std::strerror(ret));
	CHECK(ret != 0);
	CHECK(no_wc("A's send CQ", a.scq, 100));
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	fill(a.buf.data(), 300, 99);
	CHECK(post_recv(b, 99, 0, 4096) == 0);
	CHECK(post_send(a, 99, 0, 300) == 0);
	CHECK(expect_wc("send", a.scq, 99, IBV_WC_SUCCESS, IBV_WC_SEND));
	CHECK(expect_wc("recv", b.rcq, 99, IBV_WC_SUCCESS, IBV_WC_RECV));
	CHECK(mismatch(b.buf.data(), 300, 99) < 0);
	return true;
}

} /* namespace rctest */
