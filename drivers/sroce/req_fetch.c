// SPDX-License-Identifier: GPL-2.0
/*
 * req_fetch.c - the requester's fetch: a send WQE from the ring into the
 * kernel's copy.
 *
 * The send ring is mapped writable into the process, so a WQE is read from
 * its slot once, into struct sroce_swqe, and checked there: the opcode
 * against the QP type and the poster (proto/wr.c's table), the gather list
 * against the PD's regions (references held until the WQE retires), the
 * lengths, a UD send's address handle.  A producer index that is not
 * ahead of the WQEs fetched, or more than a ring ahead of the oldest one
 * not retired, is garbage: nothing was posted.  A WQE that fails a check
 * is fetched anyway and completes with its error in its turn (req.c).
 * In ERROR the WQEs still in the ring, never fetched, are flushed from
 * here (sroce_req_fetch_flush()).
 */
#include <rdma/ib_user_verbs.h>

#include "sroce.h"
#include "engine.h"
#include "proto/sroce_proto.h"

/* The QP type of @qp as a bit of the work-request table's masks */
static u8 sroce_req_qpt(const struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		return SROCE_WR_QPT_RAW;
	if (sroce_qp_is_ud(qp))
		return SROCE_WR_QPT_UD;
	if (qp->ibqp.qp_type == IB_QPT_XRC_INI)
		return SROCE_WR_QPT_XRC;
	return sroce_qp_is_rc(qp) ? SROCE_WR_QPT_RC : SROCE_WR_QPT_UC;
}

/**
 * sroce_req_release_swqe() - drop what a fetched WQE holds
 * @w: the kernel's copy
 */
void sroce_req_release_swqe(struct sroce_swqe *w)
{
	if (!(w->send_flags & SROCE_SEND_INLINE))
		sroce_sge_put(w->sge, w->num_sge);
	w->num_sge = 0;
}

/**
 * sroce_req_ud_pmtu() - the path MTU of a datagram QP: the port's
 * @qp: the QP
 *
 * Return: the MTU in bytes.
 */
u32 sroce_req_ud_pmtu(const struct sroce_qp *qp)
{
	return ib_mtu_enum_to_int(READ_ONCE(qp->sdev->active_mtu));
}

/*
 * The destination of a UD send: the address of its AH (of the QP's PD),
 * the QP and the Q_Key; a message fits one packet.  IB_WC_SUCCESS, or the
 * status to complete it with.
 */
static enum ib_wc_status sroce_req_fetch_ud(struct sroce_qp *qp,
					    struct sroce_swqe *w,
					    const struct sroce_send_wqe *u)
{
	if (w->length > sroce_req_ud_pmtu(qp))
		return IB_WC_LOC_LEN_ERR;
	const struct sroce_wqe_ud *ud = &u->op.ud;

	if (!sroce_ah_lookup(qp->sdev, ud->ah, qp->ibqp.pd, &w->av)) {
		ibdev_dbg(qp->ibqp.device, "QP %u: no AH %u of its PD\n",
			  qp->ibqp.qp_num, ud->ah);
		return IB_WC_LOC_QP_OP_ERR;
	}
	w->dqpn = ud->remote_qpn & SROCE_QPN_MASK;
	/* A Q_Key with the high bit set asks for the QP's own (IBTA 10.2.5). */
	w->qkey = (ud->remote_qkey & BIT(31)) ? qp->attr.qkey : ud->remote_qkey;
	return 0;
}

/**
 * sroce_req_fetch() - fetch the WQE at sq_head into its copy
 * @qp: the QP, its lock held
 *
 * A WQE that fails a check is fetched too, in SROCE_SWQE_ERROR: it
 * completes with its status once everything before it has.
 *
 * Return: false when the ring has none.
 */
bool sroce_req_fetch(struct sroce_qp *qp)
{
	struct sroce_swqe *w = sroce_swqe_at(qp, qp->req.sq_head);
	const void *slot = sroce_queue_slot(&qp->sq, qp->req.sq_head);
	enum ib_wc_status status = IB_WC_SUCCESS;
	const struct sroce_wr_info *info;
	struct sroce_send_wqe u;
	u64 total;
	u32 prod;

	lockdep_assert_held(&qp->lock);
	/* Acquire: the WQE was written before the index. */
	prod = sroce_queue_load_producer(&qp->sq);
	if (prod == qp->req.sq_head)
		return false;
	/*
	 * A producer more than a ring ahead of the oldest WQE not retired, or
	 * behind the WQEs fetched (user space rewound it), is garbage:
	 * nothing was posted.
	 */
	if (prod - qp->comp.sq_retire > qp->sq.num_entries ||
	    prod - qp->comp.sq_retire < qp->req.sq_head - qp->comp.sq_retire)
		return false;

	/* User space may change the slot under us: read it once. */
	memcpy(&u, slot, sizeof(u));
	memset(w, 0, offsetof(struct sroce_swqe, sge));
	w->wr_id = u.wr_id;
	w->opcode = u.opcode;
	w->send_flags = u.send_flags & (SROCE_SEND_SIGNALED |
					SROCE_SEND_SOLICITED |
					SROCE_SEND_INLINE |
					SROCE_SEND_FENCE);
	w->imm = u.imm_data;
	w->state = SROCE_SWQE_PENDING;
	w->op = u.op;
	w->xrc_srqn = u.xrc_srqn & SROCE_QPN_MASK;

	/* Which QP types post what, and who may: the table (proto/wr.c). */
	info = sroce_wr_info(u.opcode);
	if (!info || !(info->qp_types & sroce_req_qpt(qp)) ||
	    (info->flags & (qp->user ? SROCE_WRF_KERNEL : SROCE_WRF_USER))) {
		ibdev_dbg(qp->ibqp.device, "QP %u: send opcode %u\n",
			  qp->ibqp.qp_num, u.opcode);
		status = IB_WC_LOC_QP_OP_ERR;
		goto out;
	}
	if (info->flags & SROCE_WRF_LOCAL) {
		/* No gather list: executed when their turn comes. */
		if (w->send_flags & SROCE_SEND_INLINE)
			status = IB_WC_LOC_QP_OP_ERR;
		goto out;
	}
	/* No responder resources granted: the peer would refuse. */
	if (sroce_wr_is_rd(info) &&
	    (!qp->attr.max_rd_atomic || (w->send_flags & SROCE_SEND_INLINE))) {
		status = IB_WC_LOC_QP_OP_ERR;
		goto out;
	}
	if (info->flags & SROCE_WRF_ATOMIC_WRITE) {
		/* Its 8 bytes are in the header (w->op): no gather list. */
		if (u.num_sge)
			status = IB_WC_LOC_QP_OP_ERR;
		w->length = sizeof(w->op.atomic_write.data);
		goto out;
	}

	if (w->send_flags & SROCE_SEND_INLINE) {
		if (u.inline_len > qp->cap.max_inline_data) {
			status = IB_WC_LOC_LEN_ERR;
			goto out;
		}
		memcpy(w->sge, slot + sizeof(u), u.inline_len);
		w->length = u.inline_len;
	} else {
		if (u.num_sge > qp->cap.max_send_sge) {
			status = IB_WC_LOC_LEN_ERR;
			goto out;
		}
		/* READ responses and atomic results are written locally. */
		status = sroce_sge_load(qp, qp->ibqp.pd, slot + sizeof(u),
					u.num_sge,
					sroce_wr_is_rd(info) ?
					IB_ACCESS_LOCAL_WRITE : 0,
					SROCE_MAX_MSG_SIZE, w->sge, &w->num_sge,
					&total);
		w->length = total;
	}
	if (!status && (info->flags & SROCE_WRF_ATOMIC) &&
	    w->length != sizeof(u64))
		status = IB_WC_LOC_LEN_ERR;	/* an atomic returns 8 bytes */
	if (!status && sroce_qp_is_ud(qp))
		status = sroce_req_fetch_ud(qp, w, &u);
	if (!status && qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		status = sroce_raw_fetch(qp, w);	/* a frame: raw.c */
out:
	if (status) {
		sroce_req_release_swqe(w);
		w->state = SROCE_SWQE_ERROR;
		w->status = status;
	}
	qp->req.sq_head++;
	return true;
}

/**
 * sroce_req_fetch_flush() - complete the WQEs still in the send ring, not
 *	fetched, with IB_WC_WR_FLUSH_ERR, in order
 * @qp: a QP in ERROR, lock held; the WQEs fetched flushed before
 *	(sroce_comp_flush())
 * @nfy: collects CQs to signal
 */
void sroce_req_fetch_flush(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	struct sroce_cq *cq = sroce_qp_send_cq(qp);
	struct sroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR };
	u32 prod;

	lockdep_assert_held(&qp->lock);
	prod = sroce_queue_load_producer(&qp->sq);
	if (prod - qp->req.sq_head > qp->sq.num_entries)
		prod = qp->req.sq_head;	/* garbage: nothing was posted */
	while (qp->req.sq_head != prod) {
		const struct sroce_send_wqe *u =
			sroce_queue_slot(&qp->sq, qp->req.sq_head);

		cqe.wr_id = READ_ONCE(u->wr_id);
		cqe.opcode = sroce_wr_wc_opcode(READ_ONCE(u->opcode));
		qp->req.sq_head++;
		sroce_queue_store_consumer(&qp->sq, qp->req.sq_head);
		sroce_qp_complete(qp, cq, &cqe, false, nfy);
	}
}
