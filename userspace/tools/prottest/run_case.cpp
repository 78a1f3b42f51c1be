// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * run_case.cpp - one case of sroce-prottest, on the objects case_setup.cpp
 * made: B's receive, A's operation (with, behind a violation, a fenced
 * valid RDMA WRITE), then A's completions and both QPs' states, B's
 * receive, and both buffers byte for byte; for a WQE refused when posted,
 * no completion and both QPs in RTS.
 */
#include <arpa/inet.h>
#include <cinttypes>
#include <cstring>
#include <optional>

#include "case_state.h"
#include "completion.h"
#include "ktap.h"

namespace prottest {

using namespace verbs_util;

namespace {

/* who's QP ("A's", "B's") is in state want; a failure says what it is. */
void expect_state(const char *who, ibv_qp *qp, ibv_qp_state want)
{
	const ibv_qp_state s = qp_state(qp);

	if (s != want)
		ktap::fail("%s QP is %s, expected %s", who, qp_state_str(s),
			   qp_state_str(want));
	else
		ktap::note("%s QP is %s", who, qp_state_str(s));
}

/*
 * B's receive (for a violation, or a WRITE_WITH_IMM), then A's operation
 * and, behind a violation, the fenced valid WRITE.
 */
bool post(case_state &s)
{
	const prot_case &c = s.c;

	if (!s.allowed() || c.op == op_kind::write_imm) {
		ibv_sge rs{reinterpret_cast<std::uintptr_t>(s.rbuf.data()),
			   static_cast<std::uint32_t>(s.rbuf.size()),
			   s.rmr->lkey};
		ibv_recv_wr rw{};
		ibv_recv_wr *rbad = nullptr;

		rw.wr_id = 7;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		const int ret = ibv_post_recv(s.b.qp.get(), &rw, &rbad);
		if (ret != 0) {
			ktap::fail("post_recv on B: %s", std::strerror(ret));
			return false;
		}
	}

	ibv_send_wr wr[2] = {};
	wr[0].wr_id = 1;
	wr[0].sg_list = &s.sge;
	wr[0].num_sge = s.len != 0 ? 1 : 0;
	wr[0].opcode = wr_opcode(c.op);
	wr[0].send_flags = IBV_SEND_SIGNALED;
	if (is_atomic(c.op)) {
		wr[0].wr.atomic.remote_addr = s.va;
		wr[0].wr.atomic.rkey = s.rkey;
		wr[0].wr.atomic.compare_add =
			c.op == op_kind::cmp_swp ? s.compare : add_value;
		wr[0].wr.atomic.swap = s.swap;
	} else {
		/* An atomic write's 8 bytes are the SGE's, read when posted. */
		wr[0].wr.rdma.remote_addr = s.va;
		wr[0].wr.rdma.rkey = s.rkey;
		wr[0].imm_data = htonl(imm_value);
	}
	ibv_sge fence_sge{reinterpret_cast<std::uintptr_t>(s.spare.data()),
			  static_cast<std::uint32_t>(s.spare.size()),
			  s.smr->lkey};
	if (!s.allowed()) {
		wr[0].next = &wr[1];
		wr[1].wr_id = 2;
		wr[1].sg_list = &fence_sge;
		wr[1].num_sge = 1;
		wr[1].opcode = IBV_WR_RDMA_WRITE;
		wr[1].send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
		wr[1].wr.rdma.remote_addr = s.tbuf.addr(s.mr_region.off);
		wr[1].wr.rdma.rkey = s.cmr->rkey;
	}
	ktap::note("A: %s of %u bytes, SGE %#" PRIx64
		   " lkey %#x, to va %#" PRIx64 " rkey %#x: expecting %s",
		   op_str(c.op), s.len, s.sge.addr, s.sge.lkey, s.va, s.rkey,
		   c.post_err != 0 ? std::strerror(c.post_err)
				   : ibv_wc_status_str(c.expect));
	ibv_send_wr *bad = nullptr;
	const int ret = ibv_post_send(s.a.qp.get(), wr, &bad);
	if (c.post_err != 0) {
		if (ret != c.post_err || bad != &wr[0])
			ktap::fail("post_send on A: %s, expected %s of its "
				   "first WQE",
				   std::strerror(ret),
				   std::strerror(c.post_err));
		return false; /* nothing posted: nothing to complete */
	}
	if (ret != 0) {
		ktap::fail("post_send on A: %s", std::strerror(ret));
		return false;
	}
	return true;
}

/* A WQE refused when posted: nothing completes, both QPs stay in RTS. */
void check_nothing_posted(case_state &s)
{
	if (!no_wc("A's send queue", s.a.scq, 200) ||
	    !no_wc("B's receive queue", s.b.rcq, 200))
		return;
	expect_state("A's", s.a.qp.get(), IBV_QPS_RTS);
	expect_state("B's", s.b.qp.get(), IBV_QPS_RTS);
}

/*
 * Does A's device carry atomic writes: Linux 6.2's
 * IB_UVERBS_DEVICE_ATOMIC_WRITE (bit 40 of device_cap_flags_ex, which
 * rdma-core 44 does not name)?
 */
bool has_atomic_write(device &d)
{
	ibv_device_attr_ex ax{};

	return ibv_query_device_ex(d.ctx.get(), nullptr, &ax) == 0 &&
	       (ax.device_cap_flags_ex & (std::uint64_t{1} << 40)) != 0;
}

/* The completions and QP states on both sides. */
void check_completions(case_state &s)
{
	const prot_case &c = s.c;

	expect_wc("A's WQE", s.a.scq, 1, c.expect, wc_opcode(c.op));
	if (!s.allowed()) {
		expect_wc("A's fenced WRITE behind it", s.a.scq, 2,
			  IBV_WC_WR_FLUSH_ERR, IBV_WC_RDMA_WRITE);
		expect_state("A's", s.a.qp.get(), IBV_QPS_ERR);
	} else {
		expect_state("A's", s.a.qp.get(), IBV_QPS_RTS);
	}

	if (is_remote(c.expect)) {
		/* Consumed by a WRITE_WITH_IMM, or flushed. */
		const std::optional<ibv_wc> wc = wait_wc(s.b.rcq, 3000);

		if (!wc) {
			ktap::fail(
				"B's receive did not complete (B's QP is %s)",
				qp_state_str(qp_state(s.b.qp.get())));
			return;
		}
		print_wc("B's receive", *wc);
		if (wc->status == IBV_WC_SUCCESS)
			ktap::fail("B's receive completed successfully");
		return;
	}
	if (!s.allowed()) {
		/* Nothing reached B. */
		const std::optional<ibv_wc> wc = wait_wc(s.b.rcq, 200);

		if (wc) {
			print_wc("B's receive", *wc);
			ktap::fail(
				"B's receive completed: something reached B");
		} else {
			ktap::note("B's receive: no completion within %d ms",
				   200 * scale);
		}
		expect_state("B's", s.b.qp.get(), IBV_QPS_RTS);
		return;
	}
	if (c.op == op_kind::write_imm) {
		const std::optional<ibv_wc> wc =
			expect_wc("B's receive", s.b.rcq, 7, IBV_WC_SUCCESS,
				  IBV_WC_RECV_RDMA_WITH_IMM);

		if (wc && ((wc->wc_flags & IBV_WC_WITH_IMM) == 0 ||
			   ntohl(wc->imm_data) != imm_value))
			ktap::fail(
				"B's receive: imm %#x, wc_flags %#x, expected "
				"imm %#x",
				ntohl(wc->imm_data), wc->wc_flags, imm_value);
	}
	expect_state("B's", s.b.qp.get(), IBV_QPS_RTS);
}

} /* namespace */

void run_case(const prot_case &c, std::uint32_t seed, device &da, device &db)
{
	if (is_atomic(c.op)) {
		for (const device *d : {&da, &db}) {
			if (d->attr.atomic_cap == IBV_ATOMIC_NONE) {
				ktap::skip("atomics not supported by %s "
					   "(atomic_cap "
					   "IBV_ATOMIC_NONE)",
					   d->name.c_str());
				return;
			}
		}
	}
	if (c.op == op_kind::atomic_write && !has_atomic_write(da)) {
		ktap::skip("no atomic write on %s (device_cap_flags_ex without "
			   "Linux 6.2's IB_UVERBS_DEVICE_ATOMIC_WRITE)",
			   da.name.c_str());
		return;
	}
	case_state s(c, seed, da, db);
	s.pda.reset(ibv_alloc_pd(da.ctx.get()));
	s.pdb.reset(ibv_alloc_pd(db.ctx.get()));
	if (!s.pda || !s.pdb) {
		ktap::fail("alloc_pd: %s", std::strerror(errno));
		return;
	}
	/* B's QP in RTS: windows are bound through it. */
	if (!make_qp(s.a, da, s.pda.get(), acc_lw) ||
	    !make_qp(s.b, db, s.pdb.get(), c.qp_access) || !make_target(s) ||
	    !connect(s.a, s.b))
		return;
	ktap::note("A: QP %#x on %s; B: QP %#x on %s", s.a.qp->qp_num,
		   da.name.c_str(), s.b.qp->qp_num, db.name.c_str());
	if (!aim(s) || !make_local(s) || !expect_memory(s))
		return;
	if (!post(s)) {
		if (c.post_err == 0)
			return;
		check_nothing_posted(s);
	} else {
		check_completions(s);
	}
	compare_bytes("B's target buffer", s.tbuf.data(), s.want_t.data(),
		      s.buf_size);
	compare_bytes("A's buffer", s.lbuf.data(), s.want_l.data(), s.buf_size);
	if (!s.big_canary.empty())
		compare_bytes("A's largest region", s.big.data(),
			      s.big_canary.data(), s.big_canary.size());
}

} /* namespace prottest */
