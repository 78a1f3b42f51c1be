// SPDX-License-Identifier: GPL-2.0
/*
 * post.c - the post verbs of kernel users: their ib_send_wr and
 * ib_recv_wr lists written as WQEs into the QP's rings, the very format
 * user space writes through its mapping (include/uapi/rdma/sroce-abi.h).
 * User space posts without a system call; its POST_SEND is a doorbell.
 */
#include "sroce.h"
#include "qp.h"
#include "notify.h"
#include "proto/sroce_proto.h"

/**
 * sroce_rwqe_post() - write a kernel user's receive requests into a ring
 * @rq: a receive ring (a QP's RQ or an SRQ), its lock held
 * @cons: the ring's consumer index
 * @max_sge: the most SGEs a request may have
 * @wr: the first request; left at the one refused, if any
 *
 * The requests before a refused one are posted.
 *
 * Return: 0, -EINVAL (too many SGEs) or -ENOMEM (the ring is full).
 */
int sroce_rwqe_post(struct sroce_queue *rq, u32 cons, u32 max_sge,
		    const struct ib_recv_wr **wr)
{
	const struct ib_recv_wr *r;
	u32 prod = *rq->producer;
	int ret = 0, i;

	for (r = *wr; r; r = r->next, prod++) {
		struct sroce_recv_wqe *w = sroce_queue_slot(rq, prod);
		struct sroce_sge *sge = (void *)(w + 1);

		if (r->num_sge < 0 || r->num_sge > max_sge) {
			ret = -EINVAL;
			break;
		}
		if (prod - cons >= rq->num_entries) {
			ret = -ENOMEM;
			break;
		}
		w->wr_id = r->wr_id;
		w->num_sge = r->num_sge;
		w->reserved = 0;
		for (i = 0; i < r->num_sge; i++) {
			sge[i].addr = r->sg_list[i].addr;
			sge[i].length = r->sg_list[i].length;
			sge[i].lkey = r->sg_list[i].lkey;
		}
	}
	sroce_queue_store_producer(rq, prod);
	*wr = r;
	return ret;
}

/*
 * The work-request table (proto/wr.h) is keyed by the uverbs opcodes, which
 * the kernel's IB_WR_* share; REG_MR is the kernel's own.
 */
static_assert((int)SROCE_WR_OP_RDMA_WRITE == (int)IB_WR_RDMA_WRITE &&
	      (int)SROCE_WR_OP_RDMA_WRITE_IMM == (int)IB_WR_RDMA_WRITE_WITH_IMM &&
	      (int)SROCE_WR_OP_SEND == (int)IB_WR_SEND &&
	      (int)SROCE_WR_OP_SEND_IMM == (int)IB_WR_SEND_WITH_IMM &&
	      (int)SROCE_WR_OP_RDMA_READ == (int)IB_WR_RDMA_READ &&
	      (int)SROCE_WR_OP_CMP_SWAP == (int)IB_WR_ATOMIC_CMP_AND_SWP &&
	      (int)SROCE_WR_OP_FETCH_ADD == (int)IB_WR_ATOMIC_FETCH_AND_ADD &&
	      (int)SROCE_WR_OP_LOCAL_INV == (int)IB_WR_LOCAL_INV &&
	      (int)SROCE_WR_OP_BIND_MW == (int)IB_UVERBS_WR_BIND_MW &&
	      (int)SROCE_WR_OP_SEND_INV == (int)IB_WR_SEND_WITH_INV &&
	      (int)SROCE_WR_OP_REG_MR == (int)IB_WR_REG_MR);
static_assert((int)SROCE_WR_OP_REG_MR == (int)SROCE_WR_REG_MR);
static_assert(sizeof(struct sroce_send_wqe) == 80);
static_assert((int)SROCE_WC_OP_SEND == (int)IB_WC_SEND &&
	      (int)SROCE_WC_OP_RDMA_WRITE == (int)IB_WC_RDMA_WRITE &&
	      (int)SROCE_WC_OP_RDMA_READ == (int)IB_WC_RDMA_READ &&
	      (int)SROCE_WC_OP_COMP_SWAP == (int)IB_WC_COMP_SWAP &&
	      (int)SROCE_WC_OP_FETCH_ADD == (int)IB_WC_FETCH_ADD &&
	      (int)SROCE_WC_OP_BIND_MW == (int)IB_WC_BIND_MW &&
	      (int)SROCE_WC_OP_LOCAL_INV == (int)IB_WC_LOCAL_INV &&
	      (int)SROCE_WC_OP_REG_MR == (int)IB_WC_REG_MR);

/* Kernel post_send: an ib_send_wr as a WQE in the ring. */
static int sroce_qp_write_swqe(struct sroce_qp *qp,
			       const struct ib_send_wr *wr, void *slot)
{
	struct sroce_send_wqe *w = slot;
	struct sroce_sge *sge = slot + sizeof(*w);
	const struct sroce_wr_info *info = sroce_wr_info(wr->opcode);
	u32 opcode = wr->opcode;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	/* Which QP type may post it, the requester checks (req.c). */
	if (!info || (info->flags & SROCE_WRF_USER))
		return -EOPNOTSUPP;
	if (wr->send_flags & IB_SEND_INLINE)
		return -EINVAL; /* kernel users pass addresses, not data */
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = opcode;
	if (wr->send_flags & IB_SEND_SIGNALED)
		w->send_flags |= SROCE_SEND_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		w->send_flags |= SROCE_SEND_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		w->send_flags |= SROCE_SEND_FENCE;
	w->num_sge = wr->num_sge;
	if (info->flags & SROCE_WRF_INV)
		w->invalidate_rkey = wr->ex.invalidate_rkey;
	else
		w->imm_data = (__force u32)wr->ex.imm_data;
	if (info->flags & SROCE_WRF_ATOMIC) {
		w->op.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->op.atomic.rkey = atomic_wr(wr)->rkey;
		w->op.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->op.atomic.swap = atomic_wr(wr)->swap;
	} else if (info->flags & (SROCE_WRF_WRITE | SROCE_WRF_READ)) {
		w->op.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->op.rdma.rkey = rdma_wr(wr)->rkey;
	} else if (opcode == SROCE_WR_OP_REG_MR) {
		w->op.reg_mr.key = reg_wr(wr)->key;
		w->op.reg_mr.access = reg_wr(wr)->access;
	} else if (sroce_qp_is_ud(qp)) {
		w->op.ud.ah = to_sah(ud_wr(wr)->ah)->num;
		w->op.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->op.ud.remote_qkey = ud_wr(wr)->remote_qkey;
	}
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/**
 * sroce_qp_post_send() - ops.post_send
 * @ibqp: the QP
 * @wr: a kernel user's work requests; NULL from user space (the doorbell)
 * @bad_wr: the first request not posted
 *
 * User space posts into its mapped ring and calls POST_SEND without work
 * requests as a doorbell; it may not pass any.  A kernel user's requests
 * go into the same ring.
 *
 * Return: 0, -EINVAL (wrong state, bad request, work requests from user
 * space), -EOPNOTSUPP (an operation sroce does not carry), -ENOMEM
 * (queue full).
 */
int sroce_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int ret = 0;
	u32 prod;

	if (qp->user) {
		if (wr || qp->rss) {
			*bad_wr = wr;
			return -EINVAL;
		}
		sroce_req_kick(qp);
		return 0;
	}

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state < IB_QPS_RTS) {
		ret = -EINVAL;
		goto out_unlock;
	}
	prod = *qp->sq.producer;
	for (; wr; wr = wr->next, prod++) {
		if (prod - qp->comp.sq_retire >= qp->sq.num_entries) {
			ret = -ENOMEM;
			break;
		}
		ret = sroce_qp_write_swqe(qp, wr, sroce_queue_slot(&qp->sq,
								   prod));
		if (ret)
			break;
	}
	sroce_queue_store_producer(&qp->sq, prod);
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	if (ret)
		*bad_wr = wr;
	sroce_req_kick(qp);
	return ret;
}

/**
 * sroce_qp_post_recv() - ops.post_recv, for kernel users
 * @ibqp: the QP
 * @wr: the work requests
 * @bad_wr: the first request not posted
 *
 * User space posts into its mapped ring without a system call (the
 * POST_RECV command is not offered).  In the ERROR state the requests
 * complete at once with IB_WC_WR_FLUSH_ERR (ib_drain_rq() relies on it).
 *
 * Return: 0, -EINVAL (RESET state, a QP with an SRQ, too many SGEs),
 * -ENOMEM (queue full).
 */
int sroce_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_nfy nfy = {};
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == IB_QPS_RESET || qp->user || !sroce_qp_has_rq(qp)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = sroce_rwqe_post(&qp->rq, qp->resp.rq_cons, qp->cap.max_recv_sge,
			      &wr);
	if (qp->state == IB_QPS_ERR)
		sroce_resp_flush(qp, &nfy);
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_notify(&nfy);
	if (ret)
		*bad_wr = wr;
	return ret;
}
