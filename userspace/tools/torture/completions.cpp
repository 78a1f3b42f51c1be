// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * completions.cpp - sroce-torture's completions (streams.h): each one
 * matched with the operation or receive it must be, its data checked by
 * the verifier, the deadlines, and the orderly stop after a clean failure.
 *
 * SEND: the receiver checks byte_len, the immediate data (present exactly
 * when sent) and every byte of the message in its SGEs, in order (RC
 * delivers in order: receive k holds message k).  WRITE, WRITE_WITH_IMM:
 * after the requester's successful completion (the responder has placed
 * the data before it acknowledged) the target range and its guards are
 * compared with the shadow; WRITE_WITH_IMM also checks the receive it
 * consumes.  READ: the scattered result is compared with the shadow of the
 * remote range.  Atomics: the value each returns was predicted at post
 * time (each stream owns its counters, RC executes in order).
 */
#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "completion.h"
#include "ktap.h"
#include "streams.h"

namespace torture {

using namespace verbs_util;

namespace {

ibv_wc_opcode wc_opcode(op_kind k)
{
	switch (k) {
	case op_send:
	case op_send_imm:
		return IBV_WC_SEND;
	case op_write:
	case op_write_imm:
		return IBV_WC_RDMA_WRITE;
	case op_read:
		return IBV_WC_RDMA_READ;
	case op_fetch_add:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_COMP_SWAP;
	}
}

std::string secs_str(clock_type::duration d)
{
	char buf[32];

	std::snprintf(buf, sizeof(buf), "%.1f", seconds(d));
	return buf;
}

/* A successful completion of r: its data checks. */
void verify_send(const config &c, stream &s, const op_rec &r)
{
	const op_desc &d = r.d;
	const std::size_t depth = c.opt.depth;
	const std::size_t base = (r.seq % depth) * c.g.local_slot;
	const std::size_t tbase = (r.seq % depth) * c.g.target_slot;
	side &e = *s.req;
	side &t = *s.resp;

	switch (d.kind) {
	case op_write:
	case op_write_imm: {
		/* The shadow learns the write, the target must match it. */
		pattern_fill(t.shadow.data() + tbase + d.remote_off, d.data_key,
			     0, d.len);
		ver.target(op_label(s, r.seq, d), t.target.data(),
			   t.shadow.data(), tbase, d.remote_off - guard_len,
			   std::size_t{d.remote_off} + d.len + guard_len,
			   d.remote_off, std::size_t{d.remote_off} + d.len);
		break;
	}
	case op_read: {
		const source src{0, t.shadow.data() + tbase + d.remote_off};

		ver.scatter(op_label(s, r.seq, d), "local", e.local.data(),
			    base, d.local, d.len, src);
		break;
	}
	case op_fetch_add:
	case op_cmp_swp: {
		unsigned char want[8];

		store64(want, r.expect);
		const source src{0, want};
		if (!ver.scatter(op_label(s, r.seq, d), "result",
				 e.local.data(), base, d.local, 8, src) &&
		    ver.errors() <= verifier::printed)
			ktap::note(
				"  %s returned %#" PRIx64
				", expected the counter's %#" PRIx64
				" (operand %#" PRIx64 ")\n",
				op_names[d.kind],
				load64(e.local.data() + base + d.local[0].off),
				r.expect, d.operand);
		total.swapped += r.swaps;
		break;
	}
	default:
		break;
	}
}

void on_send_wc(const config &c, pair_state &p, unsigned int x,
		const ibv_wc &wc)
{
	stream &s = p.st[x];
	side &e = *p.ep[x];

	if (s.sq.empty()) {
		print_wc("completion", wc);
		fatal(stream_name(s) + ": a send completion (" +
		      wrid_str(wc.wr_id) +
		      ") with nothing outstanding: a duplicate?");
		return;
	}
	const op_rec &r = s.sq.front();
	const std::string what = op_label(s, r.seq, r.d);
	if (wc.wr_id != make_wrid(s, false, r.seq) ||
	    wc.qp_num != e.ep.qp->qp_num) {
		print_wc("completion", wc);
		fatal(what + ": expected its completion (" +
		      wrid_str(make_wrid(s, false, r.seq)) + ", qp " +
		      std::to_string(e.ep.qp->qp_num) + "), got " +
		      wrid_str(wc.wr_id) + " on qp " +
		      std::to_string(wc.qp_num) +
		      ((wc.wr_id & wrid_num_mask) < r.seq ? ": a duplicate"
							  : ": out of order"));
		return;
	}
	s.sq_progress = clock_type::now();
	if (p.lost) {
		if (wc.status == IBV_WC_SUCCESS)
			++total.after_loss_ok;
		else if (wc.status == IBV_WC_RETRY_EXC_ERR)
			++total.after_loss_retry;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			++total.after_loss_flushed;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		if (wc.status == IBV_WC_RETRY_EXC_ERR && c.opt.expect_fail_ok &&
		    !e.sq_error && !p.err_moved) {
			ktap::note("%s: %s: transport retries exhausted; a "
				   "clean failure (--expect-fail-ok): the QP "
				   "pair stops",
				   what.c_str(), ibv_wc_status_str(wc.status));
			e.sq_error = true;
			p.stopping = true;
			p.failed = true;
			++total.clean_failures;
		} else if (wc.status == IBV_WC_WR_FLUSH_ERR &&
			   (e.sq_error || p.err_moved)) {
			++total.flushed;
		} else {
			print_wc("completion", wc);
			fatal(what + ": completion status " +
			      ibv_wc_status_str(wc.status) + " (" +
			      std::to_string(wc.status) +
			      "), expected success" +
			      (e.sq_error ? " or a flush after the retry "
					    "error"
					  : ""));
			return;
		}
		/* Whatever it did to the target is unknown now. */
		s.poisoned = true;
		s.sq.pop_front();
		return;
	}
	if (wc.opcode != wc_opcode(r.d.kind)) {
		print_wc("completion", wc);
		fatal(what + ": completion opcode " +
		      std::to_string(wc.opcode) + ", expected " +
		      std::to_string(wc_opcode(r.d.kind)));
		return;
	}
	verify_send(c, s, r);
	++total.ops[r.d.kind];
	total.bytes += op_bytes(r.d);
	total.inline_ops += r.d.inl;
	total.zero_len += r.d.len == 0;
	total.multi_sge += r.d.local.size() > 1;
	if (consumes_recv(r.d.kind)) {
		if (r.recv_index >= s.first_flushed) {
			fatal(what +
			      ": completed successfully, but its "
			      "receive (number " +
			      std::to_string(r.recv_index) + ") was flushed");
			return;
		}
		if (s.recv_ok == s.recv_due)
			s.rq_progress = clock_type::now();
		++s.recv_due;
	}
	s.sq.pop_front();
}

using wc_handler = void (*)(const config &, pair_state &, unsigned int,
			    const ibv_wc &);

/* Every completion of cq, handed to on() (what: "send" or "recv"). */
void drain_cq(const config &c, pair_state &p, unsigned int x, bool &moved,
	      ibv_cq *cq, const stream &s, const char *what, wc_handler on)
{
	ibv_wc wc[16];

	while (!aborted) {
		const int n = ibv_poll_cq(cq, 16, wc);

		if (n < 0) {
			fatal(stream_name(s) + ": poll_cq (" + what +
			      ") returned " + std::to_string(n));
			return;
		}
		if (n == 0)
			return;
		moved = true;
		for (int i = 0; i < n && !aborted; ++i)
			on(c, p, x, wc[i]);
	}
}

} /* namespace */

void poll_sq(const config &c, pair_state &p, unsigned int x, bool &moved)
{
	drain_cq(c, p, x, moved, p.ep[x]->ep.scq, p.st[x], "send", on_send_wc);
}

namespace {

/* A completion of ep[x]'s receive queue: stream st[1 - x]. */
void on_recv_wc(const config &c, pair_state &p, unsigned int x,
		const ibv_wc &wc)
{
	stream &s = p.st[1 - x];
	side &e = *p.ep[x];

	if (s.rq.empty()) {
		print_wc("completion", wc);
		fatal(stream_name(s) + ": a receive completion (" +
		      wrid_str(wc.wr_id) +
		      ") with no receive outstanding: a duplicate?");
		return;
	}
	const recv_rec &r = s.rq.front();
	const std::string what = op_label(s, r.seq, r.d) + ", receive " +
				 std::to_string(r.index);
	if (wc.wr_id != make_wrid(s, true, r.index) ||
	    wc.qp_num != e.ep.qp->qp_num) {
		print_wc("completion", wc);
		fatal(what + ": expected its completion (" +
		      wrid_str(make_wrid(s, true, r.index)) + "), got " +
		      wrid_str(wc.wr_id) + " on qp " +
		      std::to_string(wc.qp_num));
		return;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		bool explained = e.sq_error || p.err_moved;
		if (!explained && wc.status == IBV_WC_WR_FLUSH_ERR) {
			/* Its send queue's error may not be polled yet. */
			bool moved = false;

			poll_sq(c, p, x, moved);
			explained = e.sq_error || p.err_moved;
		}
		if (aborted)
			return;
		if (wc.status != IBV_WC_WR_FLUSH_ERR || !explained) {
			print_wc("completion", wc);
			fatal(what + ": receive completion status " +
			      ibv_wc_status_str(wc.status) + " (" +
			      std::to_string(wc.status) + "), expected " +
			      (explained ? "success or a flush"
					 : "success (the QP reported no "
					   "error)"));
			return;
		}
		if (r.index < s.recv_due) {
			fatal(what + ": flushed, but its message's send "
				     "completed successfully");
			return;
		}
		s.first_flushed = std::min(s.first_flushed, r.index);
		++total.flushed;
		total.after_loss_flushed += p.lost;
		s.rq_progress = clock_type::now();
		s.rq.pop_front();
		return;
	}
	const op_desc &d = r.d;
	const bool imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
	const ibv_wc_opcode op = d.kind == op_write_imm
					 ? IBV_WC_RECV_RDMA_WITH_IMM
					 : IBV_WC_RECV;
	if (wc.opcode != op || wc.byte_len != d.len || imm != has_imm(d.kind) ||
	    (imm && wc.imm_data != htonl(d.imm))) {
		print_wc("completion", wc);
		fatal(what + ": expected opcode " + std::to_string(op) +
		      ", byte_len " + std::to_string(d.len) +
		      (has_imm(d.kind) ? ", immediate " + std::to_string(d.imm)
				       : ", no immediate"));
		return;
	}
	const std::size_t base = (r.index % c.opt.depth) * c.g.recv_slot;
	/* WRITE_WITH_IMM: its receive buffer holds nothing of it. */
	const source src{d.data_key, nullptr};
	ver.scatter(what, "receive", e.recv.data(), base, d.recv,
		    d.kind == op_write_imm ? 0 : d.len, src);
	++total.recvs;
	++s.recv_ok;
	s.rq_progress = clock_type::now();
	s.rq.pop_front();
}

} /* namespace */

void poll_rq(const config &c, pair_state &p, unsigned int x, bool &moved)
{
	drain_cq(c, p, x, moved, p.ep[x]->ep.rcq, p.st[1 - x], "recv",
		 on_recv_wc);
}

void check_deadlines(const config &c, pair_state &p, clock_type::time_point now)
{
	for (stream &s : p.st) {
		if (!s.sq.empty() && now - s.sq_progress > c.deadline) {
			const op_rec &r = s.sq.front();

			fatal(op_label(s, r.seq, r.d) +
			      ": no completion within " + secs_str(c.deadline) +
			      " s (" + std::to_string(s.sq.size()) +
			      " outstanding): lost");
			return;
		}
		if (s.recv_ok < s.recv_due && !s.rq.empty() &&
		    now - s.rq_progress > c.deadline) {
			const recv_rec &r = s.rq.front();

			fatal(op_label(s, r.seq, r.d) +
			      ": its send completed, " + "but receive " +
			      std::to_string(r.index) + " did not within " +
			      secs_str(c.deadline) + " s: lost");
			return;
		}
		if (p.err_moved && !s.rq.empty() &&
		    now - s.rq_progress > c.deadline) {
			fatal(stream_name(s) + ": " +
			      std::to_string(s.rq.size()) +
			      " receives not flushed after the QP went to "
			      "ERROR");
			return;
		}
	}
}

void advance_stop(const config &c, pair_state &p)
{
	if (!p.st[0].sq.empty() || !p.st[1].sq.empty())
		return;
	if (!p.err_moved) {
		/* A lost side's receives never complete. */
		for (const stream &s : p.st)
			if (!s.resp->lost && s.recv_ok < s.recv_due)
				return;
		for (unsigned int x = 0; x < 2; ++x) {
			ibv_qp_attr a{};

			if (p.ep[x]->lost)
				continue;
			a.qp_state = IBV_QPS_ERR;
			const int ret = ibv_modify_qp(p.ep[x]->ep.qp.get(), &a,
						      IBV_QP_STATE);
			if (ret == EIO && c.opt.device_loss_ok) {
				/* Its device is gone; its event follows. */
				lose_side(p, x);
				total.eio_sides[x] = true;
			} else if (ret != 0) {
				fatal(stream_name(p.st[0]) +
				      ": modify_qp to ERROR failed: " +
				      std::strerror(ret));
				return;
			}
		}
		p.err_moved = true;
		for (stream &s : p.st)
			s.rq_progress = clock_type::now();
	}
	if (p.st[0].rq.empty() && p.st[1].rq.empty())
		p.done = true;
}

void lose_side(pair_state &p, unsigned int x)
{
	side &e = *p.ep[x];

	if (e.lost)
		return;
	e.lost = true;
	if (!p.lost)
		++total.lost_pairs;
	p.lost = true;
	p.stopping = true;
	p.failed = true;
	/* Its requests and its receives (the other stream's). */
	p.st[x].sq.clear();
	p.st[1 - x].rq.clear();
	for (stream &s : p.st) {
		s.poisoned = true;
		s.rq_progress = clock_type::now();
	}
}

} /* namespace torture */
