// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * streams.cpp - sroce-torture's QP pairs and their streams: making them,
 * and posting receives and operations as the workload generator says
 * (streams.h).
 */
#include <algorithm>
#include <cerrno>
#include <arpa/inet.h>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

#include "ktap.h"
#include "streams.h"

namespace torture {

using namespace verbs_util;

tally total;
bool aborted;
verifier ver{0};

void fatal(const std::string &what)
{
	ktap::fail("%s", what.c_str());
	++total.fatal;
	aborted = true;
}

std::string stream_name(const stream &s)
{
	return "qp " + std::to_string(s.qpi) + (s.dir == 0 ? " A->B" : " B->A");
}

std::string op_label(const stream &s, std::uint64_t seq, const op_desc &d)
{
	char buf[160];

	std::snprintf(buf, sizeof(buf),
		      "%s seq %" PRIu64 " %s %u B (%zu SGE%s%s)",
		      stream_name(s).c_str(), seq, op_names[d.kind], d.len,
		      d.local.size(), d.local.size() == 1 ? "" : "s",
		      d.inl ? ", inline" : "");
	return buf;
}

/* ---- wr_id ------------------------------------------------------------------------ */

namespace {

constexpr std::uint64_t wrid_magic = 0x7c;

} /* namespace */

std::uint64_t make_wrid(const stream &s, bool recv, std::uint64_t n)
{
	return wrid_magic << 56U | std::uint64_t{recv} << 55U |
	       std::uint64_t{s.dir} << 54U | std::uint64_t{s.qpi} << 40U |
	       (n & wrid_num_mask);
}

std::string wrid_str(std::uint64_t id)
{
	char buf[128];

	if (id >> 56U != wrid_magic) {
		std::snprintf(buf, sizeof(buf), "wr_id %#" PRIx64 " (not ours)",
			      id);
		return buf;
	}
	std::snprintf(buf, sizeof(buf),
		      "wr_id %#" PRIx64 " (%s of qp %u %s, number %" PRIu64 ")",
		      id, (id >> 55U & 1U) != 0 ? "receive" : "send",
		      static_cast<unsigned int>(id >> 40U & 0x3fffU),
		      (id >> 54U & 1U) != 0 ? "B->A" : "A->B",
		      id & wrid_num_mask);
	return buf;
}

/* ---- set-up ----------------------------------------------------------------------- */

namespace {

constexpr int acc_local = IBV_ACCESS_LOCAL_WRITE;
constexpr int acc_remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

/* e on d: its memory, registered in d's PD, and its QP. */
bool make_side(side &e, device_with_pd &d, const config &c)
{
	e.local.resize(c.g.local_size);
	e.recv.resize(c.g.recv_size);
	e.target.resize(c.g.target_size);
	e.shadow.resize(c.g.target_size);
	for (mr_ptr &mr : e.local_mr)
		mr.reset(ibv_reg_mr(d.pd.get(), e.local.data(), e.local.size(),
				    acc_local));
	e.recv_mr.reset(ibv_reg_mr(d.pd.get(), e.recv.data(), e.recv.size(),
				   acc_local));
	e.target_mr.reset(ibv_reg_mr(d.pd.get(), e.target.data(),
				     e.target.size(), acc_remote));
	if (!e.local_mr[0] || !e.local_mr[1] || !e.recv_mr || !e.target_mr) {
		ktap::fail("reg_mr on %s (%zu + %zu + %zu bytes): %s",
			   d.name.c_str(), e.local.size(), e.recv.size(),
			   e.target.size(), std::strerror(errno));
		return false;
	}

	qp_opts o;
	o.cqe = static_cast<int>(c.opt.depth) + 1;
	o.sig_all = true;
	o.send_wr = c.opt.depth;
	o.recv_wr = c.opt.depth;
	o.send_sge = std::max(c.w.send_sge, c.w.rd_sge);
	o.recv_sge = c.w.recv_sge;
	o.inline_data = c.w.max_inline;
	o.inline_optional = true;
	o.buf_size = 0;
	o.qp_access = acc_remote;
	o.mtu = c.opt.mtu;
	o.max_rd_atomic = c.rd_atomic;
	o.max_dest_rd_atomic = c.rd_atomic;
	o.timeout = static_cast<std::uint8_t>(c.opt.timeout);
	o.retry_cnt = static_cast<std::uint8_t>(c.opt.retry_cnt);
	o.rnr_retry = static_cast<std::uint8_t>(c.opt.rnr_retry);
	return make_endpoint(e.ep, d, o, {d.pd.get()});
}

/* Target memory of a stream: its init pattern, mirrored by the shadow. */
void init_target(side &t, std::uint64_t skey)
{
	pattern_fill(t.target.data(), target_init_key(skey), 0,
		     t.target.size());
	std::memcpy(t.shadow.data(), t.target.data(), t.target.size());
}

} /* namespace */

bool make_pair(const config &c, pair_state &p, unsigned int i,
	       device_with_pd &a, device_with_pd &b)
{
	device_with_pd *devs[2] = {&a, &b};
	const auto [psn_a, psn_b] = initial_psns(c.opt.seed, i);
	/* --one-way: the A->B streams share the whole budget. */
	const unsigned int streams = (c.opt.one_way ? 1 : 2) * c.opt.qps;

	for (unsigned int x = 0; x < 2; ++x) {
		p.ep[x] = std::make_unique<side>();
		if (!make_side(*p.ep[x], *devs[x], c))
			return false;
	}
	p.ep[0]->ep.psn = psn_a;
	p.ep[1]->ep.psn = psn_b;
	for (unsigned int x = 0; x < 2; ++x) {
		stream &s = p.st[x];
		const unsigned int n = c.opt.one_way ? i : 2 * i + x;

		s.qpi = i;
		s.dir = x;
		s.req = p.ep[x].get();
		s.resp = p.ep[1 - x].get();
		s.key = stream_key(c.opt.seed, n);
		s.ops_budget = budget_share(c.opt.ops, streams, n);
		s.bytes_budget = budget_share(c.opt.bytes, streams, n);
		if (c.opt.one_way && x == 1)
			s.ops_budget = s.bytes_budget = 0;
		init_target(*s.resp, s.key);
	}
	return bring_up(p.ep[0]->ep, p.ep[1]->ep);
}

/* ---- posting --------------------------------------------------------------------- */

namespace {

ibv_wr_opcode wr_opcode(op_kind k)
{
	switch (k) {
	case op_send:
		return IBV_WR_SEND;
	case op_send_imm:
		return IBV_WR_SEND_WITH_IMM;
	case op_write:
		return IBV_WR_RDMA_WRITE;
	case op_write_imm:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case op_read:
		return IBV_WR_RDMA_READ;
	case op_fetch_add:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	default:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	}
}

bool in_budget(const stream &s, std::uint64_t seq, std::uint64_t bytes_before)
{
	return seq < s.ops_budget && bytes_before < s.bytes_budget;
}

/*
 * --device-loss-ok: a post that failed because the device is going.  EIO
 * once the provider's command failed; ENOMEM when the ring filled first:
 * after the device went, its QPs were destroyed and flushed, the flushes
 * gave the credits back, and nothing consumes the mapped ring any more
 * (hardware providers behave alike: posting never learns of the loss).
 * Either way the pair stops, and the device's IBV_EVENT_DEVICE_FATAL must
 * follow (fatal_came()), or the run fails.
 */
bool device_going(const config &c, int ret)
{
	return c.opt.device_loss_ok && (ret == EIO || ret == ENOMEM);
}

} /* namespace */

void post_recvs(const config &c, stream &s)
{
	std::vector<ibv_recv_wr> wrs;
	std::vector<ibv_sge> sges;
	side &e = *s.resp;
	const std::uint32_t depth = c.opt.depth;

	/* Stable storage: no reallocation while the list is built. */
	wrs.reserve(depth);
	sges.reserve(std::size_t{depth} * c.w.recv_sge);
	for (unsigned int steps = 0;
	     !s.rcur_end && s.rq.size() < depth && steps < 256; ++steps) {
		if (!in_budget(s, s.rcur_seq, s.rcur_bytes)) {
			s.rcur_end = true;
			break;
		}
		op_desc d = make_desc(c.w, s.key, s.rcur_seq);
		const std::uint64_t seq = s.rcur_seq++;

		s.rcur_bytes += op_bytes(d);
		if (!consumes_recv(d.kind))
			continue;
		const std::size_t base =
			(s.recv_posted % depth) * c.g.recv_slot;
		const auto [lo, hi] = span_of(d.recv);

		ver.guard_fill(e.recv.data(), base + lo, base + hi);
		ibv_recv_wr wr{};
		wr.wr_id = make_wrid(s, true, s.recv_posted);
		wr.num_sge = static_cast<int>(d.recv.size());
		wr.sg_list = sges.data() + sges.size();
		for (const piece &p : d.recv)
			sges.push_back({reinterpret_cast<std::uintptr_t>(
						e.recv.data() + base + p.off),
					p.len, e.recv_mr->lkey});
		if (wr.num_sge == 0)
			wr.sg_list = nullptr;
		wrs.push_back(wr);
		s.rq.push_back({s.recv_posted, seq, std::move(d)});
		if (s.rq.size() == 1)
			s.rq_progress = clock_type::now();
		++s.recv_posted;
	}
	if (wrs.empty())
		return;
	for (std::size_t i = 0; i + 1 < wrs.size(); ++i)
		wrs[i].next = &wrs[i + 1];
	ibv_recv_wr *bad = nullptr;
	const int ret = ibv_post_recv(e.ep.qp.get(), wrs.data(), &bad);
	if (device_going(c, ret)) {
		e.post_failed = true;
		return;
	}
	if (ret != 0)
		fatal(stream_name(s) + ": post_recv of " +
		      std::to_string(wrs.size()) +
		      " receives failed: " + std::strerror(ret));
}

void post_sends(const config &c, stream &s)
{
	std::vector<ibv_send_wr> wrs;
	std::vector<ibv_sge> sges;
	side &e = *s.req;
	side &t = *s.resp;
	const std::uint32_t depth = c.opt.depth;

	wrs.reserve(depth);
	sges.reserve(std::size_t{depth} * std::max(c.w.send_sge, c.w.rd_sge));
	while (!s.done_posting && s.sq.size() < depth) {
		if (!in_budget(s, s.next_seq, s.bytes_posted)) {
			s.done_posting = true;
			break;
		}
		op_rec rec;
		rec.seq = s.next_seq;
		rec.d = make_desc(c.w, s.key, s.next_seq);
		const op_desc &d = rec.d;
		if (consumes_recv(d.kind)) {
			/* Never ahead of the receiver. */
			if (s.recv_posted <= s.consumers_posted)
				break;
			rec.recv_index = s.consumers_posted++;
		}
		const std::size_t base = (rec.seq % depth) * c.g.local_slot;
		const std::size_t tbase = (rec.seq % depth) * c.g.target_slot;
		unsigned char *lb = e.local.data() + base;

		if (d.kind == op_read || is_atomic(d.kind)) {
			const auto [lo, hi] = span_of(d.local);
			ver.guard_fill(e.local.data(), base + lo, base + hi);
		} else {
			for (const piece &p : d.local)
				pattern_fill(lb + p.off, d.data_key, p.msg_off,
					     p.len);
		}
		ibv_send_wr wr{};
		wr.wr_id = make_wrid(s, false, rec.seq);
		wr.opcode = wr_opcode(d.kind);
		wr.send_flags = IBV_SEND_SIGNALED;
		if (d.inl)
			wr.send_flags |= IBV_SEND_INLINE;
		wr.num_sge = static_cast<int>(d.local.size());
		wr.sg_list =
			d.local.empty() ? nullptr : sges.data() + sges.size();
		for (const piece &p : d.local)
			sges.push_back(
				{reinterpret_cast<std::uintptr_t>(lb + p.off),
				 p.len, e.local_mr[p.alt ? 1 : 0]->lkey});
		if (has_imm(d.kind))
			wr.imm_data = htonl(d.imm);
		if (is_atomic(d.kind)) {
			const std::size_t co = counter_at(c.g, d.counter);
			/* RC executes in order: the value it will see. */
			const atomic_effect a =
				apply_atomic(d, load64(t.shadow.data() + co));

			wr.wr.atomic.remote_addr =
				reinterpret_cast<std::uintptr_t>(
					t.target.data() + co);
			wr.wr.atomic.rkey = t.target_mr->rkey;
			wr.wr.atomic.compare_add = a.compare_add;
			wr.wr.atomic.swap = d.swap;
			rec.swaps = a.swaps;
			rec.expect = a.returned;
			store64(t.shadow.data() + co, a.after);
		} else if (d.kind != op_send && d.kind != op_send_imm) {
			wr.wr.rdma.remote_addr =
				reinterpret_cast<std::uintptr_t>(
					t.target.data() + tbase + d.remote_off);
			wr.wr.rdma.rkey = t.target_mr->rkey;
		}
		wrs.push_back(wr);
		s.bytes_posted += op_bytes(d);
		if (s.sq.empty())
			s.sq_progress = clock_type::now();
		s.sq.push_back(std::move(rec));
		++s.next_seq;
	}
	if (wrs.empty())
		return;
	for (std::size_t i = 0; i + 1 < wrs.size(); ++i)
		wrs[i].next = &wrs[i + 1];
	ibv_send_wr *bad = nullptr;
	const int ret = ibv_post_send(e.ep.qp.get(), wrs.data(), &bad);
	if (device_going(c, ret)) {
		/* The device is going: its IBV_EVENT_DEVICE_FATAL follows. */
		e.post_failed = true;
		return;
	}
	if (ret != 0) {
		const std::size_t at =
			bad != nullptr
				? static_cast<std::size_t>(bad - wrs.data())
				: 0;
		const op_rec &r = s.sq[s.sq.size() - wrs.size() + at];

		fatal(op_label(s, r.seq, r.d) + ": post_send failed: " +
		      std::strerror(ret) + " (WR " + std::to_string(at) +
		      " of a list of " + std::to_string(wrs.size()) + ")");
	}
}

bool stream_finished(const stream &s)
{
	return s.done_posting && s.sq.empty() && s.rcur_end && s.rq.empty();
}

} /* namespace torture */
