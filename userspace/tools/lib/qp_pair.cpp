// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* qp_pair.cpp - the QP-pair harness of the test tools (qp_pair.h). */
#include "qp_pair.h"

#include <cerrno>
#include <cstring>

#include "ktap.h"

namespace verbs_util {

endpoint::~endpoint()
{
	if (scq_unacked != 0)
		ibv_ack_cq_events(scq, scq_unacked);
	if (rcq_unacked != 0)
		ibv_ack_cq_events(rcq, rcq_unacked);
}

ibv_qp *create_qp(ibv_pd *pd, ibv_cq *scq, ibv_cq *rcq, const qp_opts &o)
{
	ibv_qp_init_attr ia{};

	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = o.srq;
	ia.qp_type = o.type;
	ia.sq_sig_all = o.sig_all ? 1 : 0;
	ia.cap.max_send_wr = o.send_wr;
	ia.cap.max_recv_wr = o.recv_wr;
	ia.cap.max_send_sge = o.send_sge;
	ia.cap.max_recv_sge = o.recv_sge;
	ia.cap.max_inline_data = o.inline_data;
	if (o.send_ops == 0)
		return ibv_create_qp(pd, &ia);

	ibv_qp_init_attr_ex ix{};
	ix.send_cq = ia.send_cq;
	ix.recv_cq = ia.recv_cq;
	ix.srq = ia.srq;
	ix.qp_type = ia.qp_type;
	ix.sq_sig_all = ia.sq_sig_all;
	ix.cap = ia.cap;
	ix.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ix.pd = pd;
	ix.send_ops_flags = o.send_ops;
	return ibv_create_qp_ex(pd->context, &ix);
}

bool make_endpoint(endpoint &e, device &d, const qp_opts &o, const borrowed &b)
{
	ibv_context *ctx = d.ctx.get();

	e.dev = &d;
	e.opts = o;
	const char *dev = d.name.c_str();

	e.pd = b.pd;
	if (e.pd == nullptr) {
		e.own_pd.reset(ibv_alloc_pd(ctx));
		EXPECT(e.own_pd != nullptr, "alloc_pd on %s: %s", dev,
		       std::strerror(errno));
		e.pd = e.own_pd.get();
	}
	if (o.buf_size != 0) {
		e.buf.assign(o.buf_size, 0);
		e.mr.reset(ibv_reg_mr(e.pd, e.buf.data(), e.buf.size(),
				      o.mr_access));
		EXPECT(e.mr != nullptr, "reg_mr of %zu bytes on %s: %s",
		       o.buf_size, dev, std::strerror(errno));
	}
	e.scq = b.scq;
	e.rcq = b.rcq;
	if (e.scq == nullptr || e.rcq == nullptr) {
		if (o.channel) {
			e.ch.reset(ibv_create_comp_channel(ctx));
			EXPECT(e.ch != nullptr, "create_comp_channel on %s: %s",
			       dev, std::strerror(errno));
		}
		e.own_scq.reset(ibv_create_cq(ctx, o.cqe, &e, e.ch.get(), 0));
		e.own_rcq.reset(ibv_create_cq(ctx, o.cqe, &e, e.ch.get(), 0));
		EXPECT(e.own_scq != nullptr && e.own_rcq != nullptr,
		       "create_cq of %d on %s: %s", o.cqe, dev,
		       std::strerror(errno));
		e.scq = e.own_scq.get();
		e.rcq = e.own_rcq.get();
	}
	e.qp.reset(create_qp(e.pd, e.scq, e.rcq, o));
	if (!e.qp && o.inline_optional && o.inline_data != 0) {
		qp_opts without = o;

		ktap::note("%s: no QP with %u bytes of inline data (%s): "
			   "without",
			   d.name.c_str(), o.inline_data, std::strerror(errno));
		without.inline_data = 0;
		e.qp.reset(create_qp(e.pd, e.scq, e.rcq, without));
	}
	EXPECT(e.qp != nullptr,
	       "create_qp of type %d on %s (%u/%u WRs, %u/%u SGEs, %u inline): "
	       "%s",
	       o.type, dev, o.send_wr, o.recv_wr, o.send_sge, o.recv_sge,
	       o.inline_data, std::strerror(errno));
	e.cap = query_cap(e.qp.get());
	return true;
}

bool make_qp_pair(endpoint &a, endpoint &b, device &da, device &db,
		  const qp_opts &o, bool connected)
{
	return make_endpoint(a, da, o) && make_endpoint(b, db, o) &&
	       (!connected || connect(a, b));
}

ibv_qp_cap query_cap(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_CAP, &ia) != 0)
		return {};
	return a.cap;
}

std::uint32_t next_psn()
{
	static std::uint32_t psn = 0x1234;

	psn = (psn * 1103515245U + 12345U) & 0xffffff;
	return psn;
}

ibv_qp_attr rtr_attr(const endpoint &e, const endpoint &peer)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e.opts.mtu;
	a.dest_qp_num = peer.qp->qp_num;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = e.opts.max_dest_rd_atomic;
	a.min_rnr_timer = e.opts.min_rnr_timer;
	a.ah_attr = roce_av(*e.dev, *peer.dev);
	return a;
}

ibv_qp_attr rts_attr(const endpoint &e)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTS;
	a.timeout = e.opts.timeout;
	a.retry_cnt = e.opts.retry_cnt;
	a.rnr_retry = e.opts.rnr_retry;
	a.sq_psn = e.psn;
	a.max_rd_atomic = e.opts.max_rd_atomic;
	return a;
}

int rtr_mask_of(const endpoint &e)
{
	if (e.opts.type == IBV_QPT_UC)
		return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	return rtr_mask;
}

int rts_mask_of(const endpoint &e)
{
	if (e.opts.type == IBV_QPT_UC)
		return IBV_QP_STATE | IBV_QP_SQ_PSN;
	return rts_mask;
}

int to_rtr(endpoint &e, const endpoint &peer)
{
	ibv_qp_attr a = rtr_attr(e, peer);

	return ibv_modify_qp(e.qp.get(), &a, rtr_mask_of(e));
}

int to_rts(endpoint &e)
{
	ibv_qp_attr a = rts_attr(e);

	return ibv_modify_qp(e.qp.get(), &a, rts_mask_of(e));
}

bool connect(endpoint &a, endpoint &b, bool b_rts)
{
	if (a.opts.type == IBV_QPT_UD)
		return ud_ready(a) && ud_ready(b);
	a.psn = next_psn();
	b.psn = next_psn();
	return bring_up(a, b, b_rts);
}

namespace {

/* ret of a modify_qp of e to state: a failure of the case unless 0. */
bool modified(int ret, const endpoint &e, const char *state)
{
	EXPECT(ret == 0, "modify_qp of QP %#x on %s to %s: %s", e.qp->qp_num,
	       e.dev->name.c_str(), state, std::strerror(ret));
	return true;
}

} /* namespace */

bool bring_up(endpoint &a, endpoint &b, bool b_rts)
{
	return modified(to_init(a.qp.get(), a.opts.qp_access), a, "INIT") &&
	       modified(to_init(b.qp.get(), b.opts.qp_access), b, "INIT") &&
	       modified(to_rtr(a, b), a, "RTR") &&
	       modified(to_rtr(b, a), b, "RTR") &&
	       modified(to_rts(a), a, "RTS") &&
	       (!b_rts || modified(to_rts(b), b, "RTS"));
}

bool reconnect(endpoint &a, endpoint &b)
{
	return modified(to_state(a.qp.get(), IBV_QPS_RESET), a, "RESET") &&
	       modified(to_state(b.qp.get(), IBV_QPS_RESET), b, "RESET") &&
	       connect(a, b);
}

bool ud_ready(endpoint &e)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = e.opts.qkey;
	if (!modified(ibv_modify_qp(e.qp.get(), &a,
				    IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					    IBV_QP_PORT | IBV_QP_QKEY),
		      e, "INIT") ||
	    !modified(to_state(e.qp.get(), IBV_QPS_RTR), e, "RTR"))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = e.psn = next_psn();
	return modified(
		ibv_modify_qp(e.qp.get(), &a, IBV_QP_STATE | IBV_QP_SQ_PSN), e,
		"RTS");
}

bool make_ud(endpoint &e, device &d, std::uint32_t qkey)
{
	qp_opts o;

	o.type = IBV_QPT_UD;
	o.qkey = qkey;
	return make_endpoint(e, d, o) && ud_ready(e);
}

ibv_ah *make_ah(ibv_pd *pd, const endpoint &e, const ibv_gid &dgid)
{
	ibv_ah_attr a{};

	a.is_global = 1;
	a.grh.dgid = dgid;
	a.grh.sgid_index = static_cast<std::uint8_t>(e.dev->gid_index);
	a.grh.hop_limit = 64;
	a.port_num = 1;
	return ibv_create_ah(pd, &a);
}

/* ---- posting ---------------------------------------------------------------- */

namespace {

/* A send work request, signaled as flags say, on its own. */
ibv_send_wr send_wr(std::uint64_t wr_id, ibv_sge *sges, int num_sge,
		    ibv_wr_opcode op, unsigned int flags, std::uint32_t imm)
{
	ibv_send_wr wr{};

	wr.wr_id = wr_id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.imm_data = imm;
	return wr;
}

int post(ibv_qp *qp, ibv_send_wr &wr)
{
	ibv_send_wr *bad = nullptr;
	const int ret = ibv_post_send(qp, &wr, &bad);

	if (ret != 0 && bad != &wr)
		ktap::fail("post_send returned %d but bad_wr %p", ret,
			   static_cast<void *>(bad));
	return ret;
}

} /* namespace */

int post_sges(endpoint &e, std::uint64_t wr_id, ibv_sge *sges, int num_sge,
	      ibv_wr_opcode op, unsigned int flags, std::uint32_t imm)
{
	ibv_send_wr wr = send_wr(wr_id, sges, num_sge, op, flags, imm);

	return post(e.qp.get(), wr);
}

int post_send(endpoint &e, std::uint64_t wr_id, std::size_t off,
	      std::uint32_t len, ibv_wr_opcode op, unsigned int flags,
	      std::uint32_t imm)
{
	ibv_sge sge{e.addr(off), len, e.mr->lkey};

	return post_sges(e, wr_id, &sge, len != 0 ? 1 : 0, op, flags, imm);
}

int post_recv_sges(endpoint &e, std::uint64_t wr_id, ibv_sge *sges, int num_sge)
{
	ibv_recv_wr wr{};
	ibv_recv_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	const int ret = ibv_post_recv(e.qp.get(), &wr, &bad);
	if (ret != 0 && bad != &wr)
		ktap::fail("post_recv returned %d but bad_wr %p", ret,
			   static_cast<void *>(bad));
	return ret;
}

int post_recv(endpoint &e, std::uint64_t wr_id, std::size_t off,
	      std::uint32_t len)
{
	ibv_sge sge{e.addr(off), len, e.mr->lkey};

	return post_recv_sges(e, wr_id, &sge, 1);
}

int post_rdma(endpoint &a, endpoint &b, std::uint64_t wr_id, ibv_wr_opcode op,
	      ibv_sge *sges, int num_sge, std::size_t remote_off,
	      std::uint64_t compare_add, std::uint64_t swap, std::uint32_t imm)
{
	return post_rdma_at(a, wr_id, op, sges, num_sge, b.addr(remote_off),
			    b.mr->rkey, compare_add, swap, imm);
}

int post_rdma_at(endpoint &a, std::uint64_t wr_id, ibv_wr_opcode op,
		 ibv_sge *sges, int num_sge, std::uint64_t raddr,
		 std::uint32_t rkey, std::uint64_t compare_add,
		 std::uint64_t swap, std::uint32_t imm)
{
	ibv_send_wr wr =
		send_wr(wr_id, sges, num_sge, op, IBV_SEND_SIGNALED, imm);

	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return post(a.qp.get(), wr);
}

int post_ud(endpoint &e, std::uint64_t wr_id, ibv_ah *ah, std::uint32_t dqpn,
	    std::uint32_t qkey, std::size_t off, std::uint32_t len,
	    ibv_wr_opcode op, std::uint32_t imm)
{
	ibv_sge sge{e.addr(off), len, e.mr->lkey};
	ibv_send_wr wr = send_wr(wr_id, &sge, len != 0 ? 1 : 0, op,
				 IBV_SEND_SIGNALED, imm);

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = qkey;
	return post(e.qp.get(), wr);
}

} /* namespace verbs_util */
