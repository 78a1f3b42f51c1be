// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xrc_side.cpp - see xrc_side.h.
 */
#include "xrc_side.h"

#include <cstdlib>
#include <endian.h>
#include <fcntl.h>
#include <unistd.h>

#include "ktap.h"

namespace xrctest {

domain::~domain()
{
	xrcd.reset();
	if (fd >= 0)
		close(fd);
}

bool open_domain(domain &dom, ibv_context *ctx)
{
	char path[] = "/tmp/sroce-xrctest-XXXXXX";

	dom.fd = mkstemp(path);
	REQUIRE(dom.fd >= 0);
	unlink(path); /* the inode lives on while the file is open */
	ibv_xrcd_init_attr xa{};
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = dom.fd;
	xa.oflags = O_CREAT;
	dom.xrcd.reset(ibv_open_xrcd(ctx, &xa));
	REQUIRE(dom.xrcd != nullptr);
	return true;
}

bool make_xsrq(xsrq &s, ibv_context *ctx, ibv_pd *pd, ibv_xrcd *xrcd)
{
	s.cq.reset(ibv_create_cq(ctx, 64, nullptr, nullptr, 0));
	REQUIRE(s.cq != nullptr);
	ibv_srq_init_attr_ex a{};
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		      IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	a.srq_type = IBV_SRQT_XRC;
	a.pd = pd;
	a.xrcd = xrcd;
	a.cq = s.cq.get();
	a.attr.max_wr = 16;
	a.attr.max_sge = 1;
	s.srq.reset(ibv_create_srq_ex(ctx, &a));
	REQUIRE(s.srq != nullptr);
	REQUIRE(ibv_get_srq_num(s.srq.get(), &s.num) == 0);
	ktap::note("XRC SRQ number %u", s.num);
	return true;
}

bool make_initiator(initiator &ini, device &d)
{
	ibv_context *ctx = d.ctx.get();

	ini.dev = &d;
	ini.pd.reset(ibv_alloc_pd(ctx));
	ini.cq.reset(ibv_create_cq(ctx, 64, nullptr, nullptr, 0));
	REQUIRE(ini.pd != nullptr && ini.cq != nullptr);
	ini.buf.assign(buf_size, 0);
	ini.mr.reset(ibv_reg_mr(ini.pd.get(), ini.buf.data(), ini.buf.size(),
				acc_lw));
	REQUIRE(ini.mr != nullptr);
	ibv_qp_init_attr_ex a{};
	a.qp_type = IBV_QPT_XRC_SEND;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = ini.pd.get();
	a.send_cq = ini.cq.get();
	a.recv_cq = ini.cq.get();
	a.send_ops_flags =
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	a.cap.max_send_wr = 32;
	a.cap.max_send_sge = 1;
	ini.qp.reset(ibv_create_qp_ex(ctx, &a));
	REQUIRE(ini.qp != nullptr);
	ktap::note("INI QP %#x on %s", ini.qp->qp_num, d.name.c_str());
	return true;
}

ibv_qp *create_tgt_qp(ibv_context *ctx, ibv_xrcd *xrcd)
{
	ibv_qp_init_attr_ex a{};

	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	a.xrcd = xrcd;
	return ibv_create_qp_ex(ctx, &a);
}

bool make_target(target &tgt, device &d, int nsrq)
{
	ibv_context *ctx = d.ctx.get();

	tgt.dev = &d;
	if (!open_domain(tgt.dom, ctx))
		return false;
	tgt.pd.reset(ibv_alloc_pd(ctx));
	REQUIRE(tgt.pd != nullptr);
	tgt.srqs.resize(static_cast<std::size_t>(nsrq));
	for (xsrq &s : tgt.srqs)
		if (!make_xsrq(s, ctx, tgt.pd.get(), tgt.dom.xrcd.get()))
			return false;
	tgt.buf.assign(buf_size, 0);
	tgt.mr.reset(ibv_reg_mr(tgt.pd.get(), tgt.buf.data(), tgt.buf.size(),
				acc_lw | acc_rw | acc_rr | acc_ra));
	REQUIRE(tgt.mr != nullptr);
	tgt.qp.reset(create_tgt_qp(ctx, tgt.dom.xrcd.get()));
	REQUIRE(tgt.qp != nullptr);
	ktap::note("TGT QP %#x on %s", tgt.qp->qp_num, d.name.c_str());
	return true;
}

bool tgt_to_rtr(ibv_qp *tgt, std::uint32_t ini_qpn, const device &t,
		const device &i)
{
	REQUIRE(to_init(tgt, acc_lw | acc_rw | acc_rr | acc_ra) == 0);
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr = roce_av(t, i);
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = ini_qpn;
	a.rq_psn = 0x1234;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	REQUIRE(ibv_modify_qp(tgt, &a, rtr_mask) == 0);
	return true;
}

bool ini_to_rts(ibv_qp *ini, std::uint32_t tgt_qpn, const device &i,
		const device &t, std::uint8_t timeout, std::uint8_t retry_cnt)
{
	REQUIRE(to_init(ini, 0) == 0);
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr = roce_av(i, t);
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = tgt_qpn;
	a.rq_psn = 0x5678;
	REQUIRE(ibv_modify_qp(ini, &a,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN) == 0);
	a = ibv_qp_attr{};
	a.qp_state = IBV_QPS_RTS;
	a.timeout = timeout;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.sq_psn = 0x1234;
	a.max_rd_atomic = 4;
	REQUIRE(ibv_modify_qp(ini, &a, rts_mask) == 0);
	return true;
}

int post_xrecv(target &tgt, xsrq &s, std::uint32_t slot)
{
	ibv_sge sge{tgt.addr(slot * slot_size),
		    static_cast<std::uint32_t>(slot_size), tgt.mr->lkey};
	ibv_recv_wr wr{};
	ibv_recv_wr *bad = nullptr;

	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_srq_recv(s.srq.get(), &wr, &bad);
}

int post_xsend(initiator &ini, std::uint64_t wr_id, ibv_wr_opcode opcode,
	       std::uint32_t srqn, std::uint32_t slot, std::uint32_t len,
	       const target *tgt, std::uint32_t rslot, std::uint32_t imm)
{
	ibv_sge sge{ini.addr(slot * slot_size), len, ini.mr->lkey};
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.opcode = opcode;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.imm_data = htobe32(imm);
	wr.qp_type.xrc.remote_srqn = srqn;
	if (tgt != nullptr) {
		wr.wr.rdma.remote_addr = tgt->addr(rslot * slot_size);
		wr.wr.rdma.rkey = tgt->mr->rkey;
	}
	return ibv_post_send(ini.qp.get(), &wr, &bad);
}

} /* namespace xrctest */
