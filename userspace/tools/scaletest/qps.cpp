// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qps.cpp - sroce-scaletest qps DEV_A DEV_B COUNT: COUNT RC QPs, half on
 * each device, on one PD and one pair of CQs per device, each QP of A
 * connected to one of B with ibv_modify_qp() alone; then on every pair one
 * message of msg_len bytes each way, in batches, every receive checked
 * (its QP, length and every byte, once each); then every QP destroyed.
 * Cases: setup, create, connect, messages, destroy, each timed; the time
 * per QP of create, connect (INIT, RTR and RTS: three modify_qp calls per
 * QP) and destroy, and per message, are results.
 */
#include <cinttypes>
#include <deque>
#include <vector>

#include "ktap.h"
#include "scaletest.h"

namespace scaletest {

namespace {

using namespace verbs_util;

/* Pairs whose messages are in flight at once. */
constexpr unsigned int batch = 256;
/* Entries of each CQ: every completion of a batch fits. */
constexpr int cq_entries = 2 * batch;

/* One device's half: its PD, CQs, message buffer and QPs. */
struct side {
	device dev;
	pd_ptr pd;
	cq_ptr scq;
	cq_ptr rcq;
	std::vector<unsigned char> buf;
	mr_ptr mr;
	std::deque<endpoint> eps; /* endpoints do not move */

	/* Pair i's send and receive slots. */
	std::uint64_t send_addr(std::size_t i)
	{
		return reinterpret_cast<std::uintptr_t>(buf.data()) +
		       i * 2 * msg_len;
	}
	unsigned char *recv_buf(std::size_t i)
	{
		return buf.data() + i * 2 * msg_len + msg_len;
	}
};

bool setup(side &s, const char *name, unsigned int pairs)
{
	if (!open_device(s.dev, name) || !use_gid(s.dev))
		return false;
	ktap::note("%s: GID %d %s; max_qp %d, max_cq %d, max_mr %d, max_qp_wr "
		   "%d",
		   name, s.dev.gid_index, gid_str(s.dev.gid).c_str(),
		   s.dev.attr.max_qp, s.dev.attr.max_cq, s.dev.attr.max_mr,
		   s.dev.attr.max_qp_wr);
	EXPECT(static_cast<long>(s.dev.attr.max_qp) >= pairs,
	       "%s allows %d QPs, %u asked for", name, s.dev.attr.max_qp,
	       pairs);
	ibv_context *ctx = s.dev.ctx.get();
	s.pd.reset(ibv_alloc_pd(ctx));
	s.scq.reset(ibv_create_cq(ctx, cq_entries, nullptr, nullptr, 0));
	s.rcq.reset(ibv_create_cq(ctx, cq_entries, nullptr, nullptr, 0));
	REQUIRE(s.pd && s.scq && s.rcq);
	s.buf.assign(std::size_t{pairs} * 2 * msg_len, 0);
	s.mr.reset(ibv_reg_mr(s.pd.get(), s.buf.data(), s.buf.size(), acc_lw));
	REQUIRE(s.mr);
	return true;
}

bool create(side &s, unsigned int pairs)
{
	const qp_opts o = rc_opts();

	for (unsigned int i = 0; i < pairs; ++i) {
		endpoint &e = s.eps.emplace_back();

		e.dev = &s.dev;
		e.opts = o;
		e.pd = s.pd.get();
		e.scq = s.scq.get();
		e.rcq = s.rcq.get();
		e.qp.reset(create_qp(e.pd, e.scq, e.rcq, o));
		EXPECT(e.qp != nullptr, "create_qp %u on %s: %s", i,
		       s.dev.name.c_str(), std::strerror(errno));
	}
	return true;
}

/* Post pair i's receive on r and its send (message id msg) on s. */
bool post_one(side &s, side &r, unsigned int i, std::uint32_t msg)
{
	ibv_sge rsge{reinterpret_cast<std::uintptr_t>(r.recv_buf(i)), msg_len,
		     r.mr->lkey};
	ibv_sge ssge{s.send_addr(i), msg_len, s.mr->lkey};

	std::memset(r.recv_buf(i), 0, msg_len);
	fill(reinterpret_cast<unsigned char *>(ssge.addr), msg_len, msg);
	const int rret = post_recv_sges(r.eps[i], i, &rsge, 1);
	EXPECT(rret == 0, "post_recv of pair %u: %s", i, std::strerror(rret));
	const int sret = post_sges(s.eps[i], i, &ssge, 1);
	EXPECT(sret == 0, "post_send of pair %u: %s", i, std::strerror(sret));
	return true;
}

/*
 * n completions of pairs [first, first + n) from cq within 10 s (scaled),
 * each a success of the opcode op, once per pair; receives (r non-null)
 * from pair i's QP of r, msg_len bytes of message msg_of(i).
 */
template <typename MsgOf>
bool reap(ibv_cq *cq, unsigned int first, unsigned int n, ibv_wc_opcode op,
	  side *r, MsgOf msg_of)
{
	const auto deadline = deadline_in(10000);
	std::vector<bool> seen(n, false);
	ibv_wc wc[64];
	unsigned int got = 0;

	while (got < n) {
		const int k = ibv_poll_cq(cq, 64, wc);

		EXPECT(k >= 0, "poll_cq: %d", k);
		EXPECT(k > 0 || clock_type::now() < deadline,
		       "%u of %u completions (opcode %d) from pairs %u.. "
		       "within 10 s",
		       got, n, op, first);
		for (int j = 0; j < k; ++j) {
			const ibv_wc &c = wc[j];
			const std::uint64_t i = c.wr_id;

			EXPECT(c.status == IBV_WC_SUCCESS && c.opcode == op,
			       "pair %" PRIu64 ": %s, opcode %d (want %d)", i,
			       ibv_wc_status_str(c.status), c.opcode, op);
			EXPECT(i >= first && i < first + n && !seen[i - first],
			       "completion of pair %" PRIu64
			       " (batch %u..%u), or twice",
			       i, first, first + n - 1);
			seen[i - first] = true;
			++got;
			if (r == nullptr)
				continue;
			EXPECT(c.qp_num == r->eps[i].qp->qp_num &&
				       c.byte_len == msg_len,
			       "pair %" PRIu64 ": QP %#x (want %#x), %u bytes",
			       i, c.qp_num, r->eps[i].qp->qp_num, c.byte_len);
			const long bad =
				mismatch(r->recv_buf(i), msg_len, msg_of(i));
			EXPECT(bad < 0, "pair %" PRIu64 ": byte %ld wrong", i,
			       bad);
		}
	}
	return true;
}

bool messages(side &a, side &b, unsigned int pairs)
{
	const auto a_msg = [](std::uint64_t i) {
		return static_cast<std::uint32_t>(2 * i);
	};
	const auto b_msg = [](std::uint64_t i) {
		return static_cast<std::uint32_t>(2 * i + 1);
	};

	for (unsigned int first = 0; first < pairs; first += batch) {
		const unsigned int n = std::min(batch, pairs - first);

		for (unsigned int i = first; i < first + n; ++i)
			if (!post_one(a, b, i, a_msg(i)) ||
			    !post_one(b, a, i, b_msg(i)))
				return false;
		if (!reap(a.scq.get(), first, n, IBV_WC_SEND, nullptr, a_msg) ||
		    !reap(b.scq.get(), first, n, IBV_WC_SEND, nullptr, b_msg) ||
		    !reap(b.rcq.get(), first, n, IBV_WC_RECV, &b, a_msg) ||
		    !reap(a.rcq.get(), first, n, IBV_WC_RECV, &a, b_msg))
			return false;
	}
	return true;
}

/* Every QP of s destroyed (destroy failures are reported by qp_ptr). */
void destroy(side &s)
{
	for (endpoint &e : s.eps)
		e.qp.reset();
}

} /* namespace */

int run_qps(const char *dev_a, const char *dev_b, unsigned int count)
{
	const unsigned int pairs = count / 2;
	side a, b;
	bool ok = true;
	clock_type::time_point t0;

	ktap::header(5);
	ktap::begin();
	ok = setup(a, dev_a, pairs) && setup(b, dev_b, pairs);
	ktap::note("%u RC QPs: %u on %s, %u on %s, each %u/%u WRs, %u/%u SGEs",
		   count, pairs, dev_a, pairs, dev_b, rc_opts().send_wr,
		   rc_opts().recv_wr, rc_opts().send_sge, rc_opts().recv_sge);
	ktap::end("setup", ok);

	/* A step after one that failed does not run, and fails. */
	const auto step = [&ok](const char *name, const char *per,
				const char *what, double units, auto fn) {
		ktap::begin();
		if (!ok) {
			ktap::fail("not run: an earlier step failed");
			ktap::end(name, false);
			return;
		}
		const auto start = clock_type::now();
		ok = fn();
		const double s = seconds_since(start);
		ktap::note("%s: %.2f s, %.1f us per %s", what, s,
			   s * 1e6 / units, per);
		if (ok)
			result(name, s * 1e6 / units, "us");
		ktap::end(name, ok);
	};

	step("qp_create", "QP", "ibv_create_qp", count,
	     [&] { return create(a, pairs) && create(b, pairs); });
	step("qp_connect", "QP", "INIT, RTR, RTS", count, [&] {
		for (unsigned int i = 0; i < pairs; ++i)
			if (!connect(a.eps[i], b.eps[i]))
				return false;
		return true;
	});
	step("qp_message", "message", "one message each way per pair", count,
	     [&] { return messages(a, b, pairs); });

	/* Whatever was created is destroyed, also after a failure. */
	ktap::begin();
	t0 = clock_type::now();
	const unsigned int before = ktap::failures();
	destroy(a);
	destroy(b);
	const double s = seconds_since(t0);
	const std::size_t made = a.eps.size() + b.eps.size();
	ktap::note("ibv_destroy_qp: %zu QPs in %.2f s, %.1f us per QP", made, s,
		   made != 0 ? s * 1e6 / static_cast<double>(made) : 0.0);
	if (ok && ktap::failures() == before)
		result("qp_destroy", s * 1e6 / count, "us");
	if (!ok)
		ktap::fail("not all %u QPs were made and used", count);
	ktap::end("qp_destroy");
	a.eps.clear();
	b.eps.clear();
	return ktap::exit_status();
}

} /* namespace scaletest */
