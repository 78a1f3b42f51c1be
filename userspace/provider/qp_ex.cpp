// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp_ex.cpp - ibv_create_qp_ex() and the ibv_wr_*() post API of struct
 * ibv_qp_ex (ibv_wr_post(3)).
 *
 * The QP is the one create_qp() makes, by the same CREATE_QP command with
 * the same driver tail (ibv_cmd_create_qp_ex is the legacy command with
 * the extended attributes) and the same rings.  With
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS it gets the callbacks of the opcodes
 * asked for: ibv_wr_start() takes the SQ lock, each opcode builder and
 * setter goes to the QP's wr_builder, which encodes every request with
 * post_send's encoder; ibv_wr_complete() publishes the batch, releases the
 * lock and rings the doorbell as post_send does.
 */
#include <cerrno>
#include <cstdlib>
#include <unistd.h>

#include "context.h"
#include "qp.h"
#include "uverbs_cmd.h"
#include "wq.h"

namespace sroce {

namespace {

/* IBV_QP_EX_WITH_* and the opcode each one lets the QP post. */
struct send_op {
	std::uint64_t flag;
	ibv_wr_opcode opcode;
};

constexpr send_op send_ops[] = {
	{IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE},
	{IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM},
	{IBV_QP_EX_WITH_SEND, IBV_WR_SEND},
	{IBV_QP_EX_WITH_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM},
	{IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ},
	{IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP},
	{IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD},
	{IBV_QP_EX_WITH_LOCAL_INV, IBV_WR_LOCAL_INV},
	{IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW},
	{IBV_QP_EX_WITH_SEND_WITH_INV, IBV_WR_SEND_WITH_INV},
	{IBV_QP_EX_WITH_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE},
};

constexpr std::uint64_t supported_qp_comp_mask =
	IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
	IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_CREATE_FLAGS;

/*
 * The send_ops_flags a QP of qp_type can honour; the atomic write only
 * when the kernel carries it (features: enum sroce_ucontext_features).
 */
std::uint64_t send_ops_of(ibv_qp_type qp_type, std::uint64_t features)
{
	std::uint64_t out = 0;

	for (const send_op &op : send_ops)
		if (send_opcode_supported(op.opcode, qp_type))
			out |= op.flag;
	if ((features & SROCE_UCTX_F_ATOMIC_WRITE) == 0)
		out &= ~std::uint64_t{IBV_QP_EX_WITH_ATOMIC_WRITE};
	return out;
}

qp *to_qp(ibv_qp_ex *qpx)
{
	return sroce::to_qp(&qpx->qp_base);
}

/* An opcode builder: opens the request in the QP's batch. */
ibv_send_wr &open_wr(ibv_qp_ex *qpx, ibv_wr_opcode opcode)
{
	qp *q = to_qp(qpx);

	wrb_open(q->wrb, q->sq, qpx->qp_base.qp_type, opcode, qpx->wr_id,
		 qpx->wr_flags);
	return q->wrb.wr;
}

void wr_rdma(ibv_qp_ex *qpx, ibv_wr_opcode opcode, std::uint32_t rkey,
	     std::uint64_t remote_addr)
{
	ibv_send_wr &wr = open_wr(qpx, opcode);

	wr.wr.rdma.rkey = rkey;
	wr.wr.rdma.remote_addr = remote_addr;
}

void wr_rdma_write(ibv_qp_ex *qpx, std::uint32_t rkey,
		   std::uint64_t remote_addr) noexcept
{
	wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

void wr_rdma_write_imm(ibv_qp_ex *qpx, std::uint32_t rkey,
		       std::uint64_t remote_addr, __be32 imm_data) noexcept
{
	wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr);
	to_qp(qpx)->wrb.wr.imm_data = imm_data;
}

void wr_rdma_read(ibv_qp_ex *qpx, std::uint32_t rkey,
		  std::uint64_t remote_addr) noexcept
{
	wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr);
}

void wr_atomic(ibv_qp_ex *qpx, ibv_wr_opcode opcode, std::uint32_t rkey,
	       std::uint64_t remote_addr, std::uint64_t compare_add,
	       std::uint64_t swap)
{
	ibv_send_wr &wr = open_wr(qpx, opcode);

	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.remote_addr = remote_addr;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
}

void wr_atomic_cmp_swp(ibv_qp_ex *qpx, std::uint32_t rkey,
		       std::uint64_t remote_addr, std::uint64_t compare,
		       std::uint64_t swap) noexcept
{
	wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr, compare,
		  swap);
}

void wr_atomic_fetch_add(ibv_qp_ex *qpx, std::uint32_t rkey,
			 std::uint64_t remote_addr, std::uint64_t add) noexcept
{
	wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr, add, 0);
}

/* The 8 bytes are copied now: the caller's buffer is free at once. */
void wr_atomic_write(ibv_qp_ex *qpx, std::uint32_t rkey,
		     std::uint64_t remote_addr, const void *atomic_wr) noexcept
{
	wr_rdma(qpx, IBV_WR_ATOMIC_WRITE, rkey, remote_addr);
	wrb_set_atomic_wr(to_qp(qpx)->wrb, atomic_wr);
}

void wr_send(ibv_qp_ex *qpx) noexcept
{
	open_wr(qpx, IBV_WR_SEND);
}

void wr_send_imm(ibv_qp_ex *qpx, __be32 imm_data) noexcept
{
	open_wr(qpx, IBV_WR_SEND_WITH_IMM).imm_data = imm_data;
}

void wr_send_inv(ibv_qp_ex *qpx, std::uint32_t invalidate_rkey) noexcept
{
	open_wr(qpx, IBV_WR_SEND_WITH_INV).invalidate_rkey = invalidate_rkey;
}

void wr_local_inv(ibv_qp_ex *qpx, std::uint32_t invalidate_rkey) noexcept
{
	open_wr(qpx, IBV_WR_LOCAL_INV).invalidate_rkey = invalidate_rkey;
}

/* The encoder checks the window, the key and the region (wqe.h). */
void wr_bind_mw(ibv_qp_ex *qpx, ibv_mw *mw, std::uint32_t rkey,
		const ibv_mw_bind_info *info) noexcept
{
	ibv_send_wr &wr = open_wr(qpx, IBV_WR_BIND_MW);

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info = *info;
}

void wr_set_ud_addr(ibv_qp_ex *qpx, ibv_ah *ah, std::uint32_t remote_qpn,
		    std::uint32_t remote_qkey) noexcept
{
	wrb_set_ud_addr(to_qp(qpx)->wrb, ah, remote_qpn, remote_qkey);
}

void wr_set_xrc_srqn(ibv_qp_ex *qpx, std::uint32_t remote_srqn) noexcept
{
	wrb_set_xrc_srqn(to_qp(qpx)->wrb, remote_srqn);
}

void wr_set_sge(ibv_qp_ex *qpx, std::uint32_t lkey, std::uint64_t addr,
		std::uint32_t length) noexcept
{
	const ibv_sge sge{.addr = addr, .length = length, .lkey = lkey};

	wrb_set_sge_list(to_qp(qpx)->wrb, 1, &sge);
}

void wr_set_sge_list(ibv_qp_ex *qpx, std::size_t num_sge,
		     const ibv_sge *sg_list) noexcept
{
	wrb_set_sge_list(to_qp(qpx)->wrb, num_sge, sg_list);
}

void wr_set_inline_data(ibv_qp_ex *qpx, void *addr, std::size_t length) noexcept
{
	const ibv_data_buf buf{.addr = addr, .length = length};

	wrb_set_inline_list(to_qp(qpx)->wrb, 1, &buf);
}

void wr_set_inline_data_list(ibv_qp_ex *qpx, std::size_t num_buf,
			     const ibv_data_buf *buf_list) noexcept
{
	wrb_set_inline_list(to_qp(qpx)->wrb, num_buf, buf_list);
}

void wr_start(ibv_qp_ex *qpx) noexcept
{
	qp *q = to_qp(qpx);

	qp_lock(q, &q->sq_lock);
	wrb_start(q->wrb, q->sq);
}

/*
 * Posts in the states post_send posts in; the doorbell as post_send rings
 * it, after the lock is released.
 */
int wr_complete(ibv_qp_ex *qpx) noexcept
{
	qp *q = to_qp(qpx);
	ibv_qp *ibqp = &qpx->qp_base;
	std::uint32_t posted = 0;
	int ret;

	if (!sq_state_can_post(ibqp->state)) {
		wrb_abort(q->wrb);
		ret = EINVAL;
	} else {
		ret = wrb_complete(q->wrb, q->sq, ibqp->qp_type, &posted);
	}
	const std::uint32_t prod = q->sq.prod;
	qp_unlock(q, &q->sq_lock);
	if (sq_doorbell_after_post(q->sq.ring, prod, posted))
		ret = qp_ring_doorbell(ibqp);
	return ret;
}

void wr_abort(ibv_qp_ex *qpx) noexcept
{
	qp *q = to_qp(qpx);

	wrb_abort(q->wrb);
	qp_unlock(q, &q->sq_lock);
}

} /* namespace */

int check_qp_init_attr(const ibv_qp_init_attr_ex &attr,
		       std::uint64_t features) noexcept
{
	if ((attr.comp_mask & ~supported_qp_comp_mask) != 0)
		return EOPNOTSUPP;
	/* An XRC TGT QP belongs to a domain, not a PD, and sends nothing. */
	if (attr.qp_type == IBV_QPT_XRC_RECV) {
		if ((attr.comp_mask & IBV_QP_INIT_ATTR_XRCD) == 0 ||
		    attr.xrcd == nullptr)
			return EINVAL;
		return (attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0
			       ? EOPNOTSUPP
			       : 0;
	}
	if ((attr.comp_mask & IBV_QP_INIT_ATTR_PD) == 0 || attr.pd == nullptr)
		return EINVAL;
	if ((attr.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) != 0 &&
	    attr.create_flags != 0)
		return EOPNOTSUPP;
	if ((attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) == 0)
		return 0;
	if (attr.qp_type != IBV_QPT_RC && attr.qp_type != IBV_QPT_UC &&
	    attr.qp_type != IBV_QPT_UD && attr.qp_type != IBV_QPT_XRC_SEND &&
	    attr.qp_type != IBV_QPT_RAW_PACKET)
		return EOPNOTSUPP;
	if ((attr.send_ops_flags & ~send_ops_of(attr.qp_type, features)) != 0)
		return EOPNOTSUPP;
	return 0;
}

void set_qp_ex_ops(qp *q, std::uint64_t flags) noexcept
{
	ibv_qp_ex &x = q->vqp.qp_ex;

	if ((flags & IBV_QP_EX_WITH_RDMA_WRITE) != 0)
		x.wr_rdma_write = wr_rdma_write;
	if ((flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM) != 0)
		x.wr_rdma_write_imm = wr_rdma_write_imm;
	if ((flags & IBV_QP_EX_WITH_SEND) != 0)
		x.wr_send = wr_send;
	if ((flags & IBV_QP_EX_WITH_SEND_WITH_IMM) != 0)
		x.wr_send_imm = wr_send_imm;
	if ((flags & IBV_QP_EX_WITH_RDMA_READ) != 0)
		x.wr_rdma_read = wr_rdma_read;
	if ((flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP) != 0)
		x.wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if ((flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD) != 0)
		x.wr_atomic_fetch_add = wr_atomic_fetch_add;
	if ((flags & IBV_QP_EX_WITH_LOCAL_INV) != 0)
		x.wr_local_inv = wr_local_inv;
	if ((flags & IBV_QP_EX_WITH_BIND_MW) != 0)
		x.wr_bind_mw = wr_bind_mw;
	if ((flags & IBV_QP_EX_WITH_SEND_WITH_INV) != 0)
		x.wr_send_inv = wr_send_inv;
	if ((flags & IBV_QP_EX_WITH_ATOMIC_WRITE) != 0)
		x.wr_atomic_write = wr_atomic_write;
	x.wr_set_ud_addr = wr_set_ud_addr;
	x.wr_set_xrc_srqn = wr_set_xrc_srqn;
	x.wr_set_sge = wr_set_sge;
	x.wr_set_sge_list = wr_set_sge_list;
	x.wr_set_inline_data = wr_set_inline_data;
	x.wr_set_inline_data_list = wr_set_inline_data_list;
	x.wr_start = wr_start;
	x.wr_complete = wr_complete;
	x.wr_abort = wr_abort;
	q->vqp.comp_mask |= VERBS_QP_EX;
}

/*
 * The checks come first, then the command; on any failure after the
 * kernel created the QP it is destroyed again.
 */
ibv_qp *create_qp_ex(ibv_context *ibctx, ibv_qp_init_attr_ex *attr) noexcept
{
	/* An RSS QP (rss.cpp) has no rings. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) != 0)
		return create_rss_qp(ibctx, attr);
	int ret = check_qp_init_attr(*attr, to_ctx(ibctx)->params.features);

	if (ret != 0)
		return null_with_errno(ret);
	qp *q = qp_alloc(attr->pd);
	create_qp_cmd cmd{};
	create_qp_resp resp{};

	if (q == nullptr)
		return nullptr;
	scope_exit free_qp([q] { qp_free(q); });

	/* ibv_cmd_create_qp_ex knows no creation flags, even none. */
	ibv_qp_init_attr_ex cmd_attr = *attr;
	cmd_attr.comp_mask &= ~std::uint32_t{IBV_QP_INIT_ATTR_CREATE_FLAGS};
	cmd.drv.send_wqe_size = sizeof(sroce_send_wqe);
	cmd.drv.recv_wqe_size = sizeof(sroce_recv_wqe);
	ret = ibv_cmd_create_qp_ex(ibctx, &q->vqp, &cmd_attr, cmd.buf(),
				   create_qp_cmd::size, resp.core_ptr(),
				   create_qp_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	attr->cap = cmd_attr.cap;
	scope_exit destroy([q] { ibv_cmd_destroy_qp(&q->vqp.qp); });

	/* An XRC TGT QP has no rings; an XRC INI QP no receive ring. */
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		ret = qp_setup_locks(q);
	else
		ret = qp_setup(q, ibctx, attr->cap,
			       attr->srq != nullptr ||
				       attr->qp_type == IBV_QPT_XRC_SEND,
			       resp.drv);
	if (ret != 0)
		return null_with_errno(ret);
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0) {
		ret = wrb_alloc(q->wrb, attr->cap.max_send_sge,
				q->sq.max_inline, attr->pd);
		if (ret != 0) {
			qp_teardown(q);
			return null_with_errno(ret);
		}
		set_qp_ex_ops(q, attr->send_ops_flags);
	}
	destroy.release();
	free_qp.release();
	return &q->vqp.qp;
}

} /* namespace sroce */
