// SPDX-License-Identifier: GPL-2.0
/*
 * resp_msg.c - SEND and RDMA WRITE at the responder: the receive WQE a
 * SEND (or a WRITE with immediate data) consumes, from the QP's receive
 * queue, its SRQ or the XRC SRQ the request names; the payload placed
 * (scattered across the WQE's SGEs, or where the WRITE's RETH says, after
 * the rkey check of its first packet); the receive completion with the
 * last packet.  Called by sroce_resp_rcv() (resp.c) for the expected
 * packet, under the QP lock, in softirq.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/*
 * Take the receive WQE at the head of the ring, if there is one: false when
 * the ring is empty.  A WQE taken is in use, to complete with *@status
 * (IB_WC_SUCCESS, or the status of a check it failed).
 */
bool sroce_resp_take_rwqe(struct sroce_qp *qp,
			  enum ib_wc_status *status)
{
	u32 prod = sroce_queue_load_producer(&qp->rq);

	lockdep_assert_held(&qp->lock);
	if (prod == qp->resp.rq_cons ||
	    prod - qp->resp.rq_cons > qp->rq.num_entries)
		return false;
	qp->resp.in_msg = true;
	qp->resp.recv_off = 0;
	*status = sroce_rwqe_load(qp, qp->ibqp.pd,
				  sroce_queue_slot(&qp->rq, qp->resp.rq_cons),
				  qp->cap.max_recv_sge, &qp->resp.rwqe);
	return true;
}

/**
 * sroce_resp_rwqe_release() - the receive WQE in use is done with: its
 *	regions' references go, and no message is in progress
 * @qp: the QP, lock held
 */
void sroce_resp_rwqe_release(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	sroce_sge_put(qp->resp.rwqe.sge, qp->resp.rwqe.num_sge);
	qp->resp.rwqe.num_sge = 0;
	qp->resp.in_msg = false;
}

/**
 * sroce_resp_rwqe_drop() - drop the SEND in progress, if any, and the
 *	receive WQE it was filling (no completion)
 * @qp: the QP, lock held
 */
void sroce_resp_rwqe_drop(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->resp.in_msg || qp->resp.rwqe.num_sge)
		sroce_sge_put(qp->resp.rwqe.sge, qp->resp.rwqe.num_sge);
	qp->resp.rwqe.num_sge = 0;
	qp->resp.in_msg = false;
	qp->resp.recv_off = 0;
}

/**
 * sroce_resp_rq_consume() - the receive WQE at the head of the QP's own
 *	ring is taken for good: its slot is free (the ring's consumer moves)
 * @qp: the QP, lock held
 */
void sroce_resp_rq_consume(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	sroce_queue_store_consumer(&qp->rq, ++qp->resp.rq_cons);
}

/* Complete the receive WQE in use with @status, or with its data. */
void sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
			 enum ib_wc_opcode opcode, u32 byte_len,
			 const struct sroce_pkt *pkt, const struct sroce_hdrs *h,
			 struct sroce_nfy *nfy)
{
	struct sroce_cqe cqe = {
		.wr_id = qp->resp.rwqe.wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.src_qp = qp->attr.dest_qp_num,
	};
	bool solicited = false;

	lockdep_assert_held(&qp->lock);
	if (!status && (pkt->info->flags & SROCE_OPF_IMM)) {
		cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
		cqe.imm_data = (__force u32)cpu_to_be32(h->imm);
	} else if (!status && (pkt->info->flags & SROCE_OPF_INV)) {
		cqe.wc_flags |= SROCE_WC_F_WITH_INV;
		cqe.imm_data = h->ieth_rkey;
	}
	if (!status)
		solicited = pkt->bth.flags & SROCE_BTHF_SE;
	sroce_resp_rwqe_release(qp);
	qp->resp.recv_off = 0;
	/* The slot is free before its completion shows (the uapi). */
	if (sroce_qp_has_rq(qp))
		sroce_resp_rq_consume(qp);
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		sroce_xrc_complete(qp, &cqe, solicited, nfy);
	else
		sroce_qp_complete(qp, sroce_qp_recv_cq(qp), &cqe, solicited,
				  nfy);
}

/* End the RDMA WRITE in progress, if any. */
void sroce_resp_end_write(struct sroce_qp *qp)
{
	if (qp->resp.wr_mr)
		sroce_mr_put(qp->resp.wr_mr);
	qp->resp.wr_mr = NULL;
	qp->resp.in_write = false;
}

/*
 * The same from the QP's SRQ, if it has one (srq.c), or from the XRC SRQ
 * the request named (xrc.c).
 */
static bool sroce_resp_take_wqe(struct sroce_qp *qp, enum ib_wc_status *status,
				struct sroce_nfy *nfy)
{
	struct sroce_srq *srq;

	if (sroce_qp_has_rq(qp))
		return sroce_resp_take_rwqe(qp, status);
	srq = qp->ibqp.srq ? to_ssrq(qp->ibqp.srq) : qp->resp.xsrq;
	if (!sroce_srq_take(srq, qp, &qp->resp.rwqe, status, nfy))
		return false;
	qp->resp.xrc_srqn = qp->resp.xsrq ? srq->ibsrq.ext.xrc.srq_num : 0;
	qp->resp.in_msg = true;
	qp->resp.recv_off = 0;
	return true;
}

/* Execute the expected SEND packet; lock held. */
void sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_pkt *pkt, struct sroce_nfy *nfy)
{
	enum ib_wc_status status = IB_WC_SUCCESS;
	u32 flags = pkt->info->flags;
	struct sroce_hdrs h;
	int ret;

	lockdep_assert_held(&qp->lock);
	if ((flags & SROCE_OPF_FIRST) && qp->resp.odp_held) {
		/* Sent again after an ODP fault: the WQE was kept for it. */
		qp->resp.odp_held = false;
		qp->resp.recv_off = 0;
	} else if (flags & SROCE_OPF_FIRST) {
		bool taken = sroce_resp_take_wqe(qp, &status, nfy);

		if (!taken && !sroce_qp_is_rc(qp)) {
			/* UC: the message is dropped (its rest too). */
			sroce_stats_inc(qp->sdev->stats,
					SROCE_CNT_NO_RECV_DROPS);
			sroce_resp_epsn_set(qp, sroce_psn_add(pkt->bth.psn, 1));
			return;
		}
		if (!taken) {
			sroce_resp_rnr_nak(qp, pkt->bth.psn);
			return;
		}
		if (status)
			goto err_local;
	}
	if (pkt->paylen > qp->resp.rwqe.length ||
	    qp->resp.recv_off > qp->resp.rwqe.length - pkt->paylen) {
		status = IB_WC_LOC_LEN_ERR;
		goto err_local;
	}
	ret = sroce_sge_scatter_skb(qp->resp.rwqe.sge, qp->resp.rwqe.num_sge,
				    qp->resp.recv_off, skb,
				    SROCE_UDP_HLEN + pkt->hdr_len,
				    pkt->paylen);
	if (ret == -EAGAIN && sroce_qp_is_rc(qp) &&
	    !sroce_odp_failed(qp, SROCE_ODP_RESP)) {
		/* Pages of the receive buffer missing (odp.c). */
		sroce_odp_fault_sges(qp, SROCE_ODP_RESP, qp->resp.rwqe.sge,
				     qp->resp.rwqe.num_sge);
		qp->resp.odp_held = flags & SROCE_OPF_FIRST;
		sroce_resp_odp_nak(qp, pkt->bth.psn);
		return;
	}
	if (ret) {
		status = IB_WC_LOC_PROT_ERR;
		goto err_local;
	}
	qp->resp.recv_off += pkt->paylen;

	if (flags & SROCE_OPF_LAST) {
		sroce_pkt_hdrs(pkt, &h);
		/* SEND_WITH_INV: the peer's window goes with the message. */
		if ((flags & SROCE_OPF_INV) &&
		    sroce_key_invalidate(qp->sdev, h.ieth_rkey, sroce_resp_pd(qp),
					 qp->ibqp.qp_num)) {
			ibdev_dbg(qp->ibqp.device,
				  "QP %u: cannot invalidate rkey %#x\n",
				  qp->ibqp.qp_num, h.ieth_rkey);
			sroce_resp_invalid(qp, pkt, nfy);
			return;
		}
		sroce_resp_epsn_set(qp, sroce_psn_add(qp->resp.epsn, 1));
		sroce_resp_msn_next(qp);
		sroce_resp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV,
				    qp->resp.recv_off, pkt, &h, nfy);
	} else {
		sroce_resp_epsn_set(qp, sroce_psn_add(qp->resp.epsn, 1));
	}
	if (pkt->bth.flags & SROCE_BTHF_ACKREQ)
		sroce_resp_set_ack(qp, SROCE_RESP_SYN_ACK, pkt->bth.psn);
	return;

err_local:
	/*
	 * The message cannot be placed: a length error is the requester's
	 * (invalid request), a bad receive WQE is ours (operational error).
	 */
	sroce_resp_fail(qp,
			status == IB_WC_LOC_LEN_ERR ? SROCE_NAK_INVALID_REQ :
						      SROCE_NAK_REMOTE_OP,
			status, pkt, nfy);
}

/* Execute the expected RDMA WRITE packet; lock held. */
void sroce_resp_write(struct sroce_qp *qp, struct sk_buff *skb,
		      const struct sroce_pkt *pkt, struct sroce_nfy *nfy)
{
	u32 flags = pkt->info->flags;
	struct sroce_hdrs h;
	int ret;

	lockdep_assert_held(&qp->lock);
	sroce_pkt_hdrs(pkt, &h);
	if (flags & SROCE_OPF_FIRST) {
		if (h.reth.len > SROCE_MAX_MSG_SIZE)
			goto err_invalid;
		ret = sroce_resp_rkey(qp, IB_ACCESS_REMOTE_WRITE, h.reth.rkey,
				      h.reth.va, h.reth.len, &qp->resp.wr_mr);
		if (ret) {
			sroce_resp_refused(qp, ret, pkt, nfy);
			return;
		}
		qp->resp.in_write = true;
		qp->resp.wr_rkey = h.reth.rkey;
		qp->resp.wr_va = h.reth.va;
		qp->resp.wr_len = h.reth.len;
		qp->resp.wr_off = 0;
	}
	/*
	 * With an SXH every packet names its message and its place in it
	 * (protocol.md): held in PSN order (resp_sr.c), it comes in its
	 * place, or it lies.
	 */
	if ((flags & SROCE_OPF_SXH) &&
	    (h.sxh.offset != qp->resp.wr_off || h.reth.va != qp->resp.wr_va ||
	     h.reth.rkey != qp->resp.wr_rkey || h.reth.len != qp->resp.wr_len))
		goto err_invalid;
	/* The packets carry exactly the length the RETH announced. */
	if (pkt->paylen > qp->resp.wr_len - qp->resp.wr_off ||
	    !!(flags & SROCE_OPF_LAST) !=
	    (qp->resp.wr_off + pkt->paylen == qp->resp.wr_len))
		goto err_invalid;
	if (pkt->paylen) {
		u64 va = qp->resp.wr_va + qp->resp.wr_off;
		int copied = 0;

		/* Every packet: its key may have been invalidated since. */
		ret = sroce_mr_remote_begin(qp->sdev, qp->resp.wr_rkey,
					    qp->resp.wr_mr, sroce_resp_pd(qp),
					    qp->ibqp.qp_num,
					    IB_ACCESS_REMOTE_WRITE, va,
					    pkt->paylen);
		if (!ret)
			copied = sroce_mr_copy_from_skb(qp->resp.wr_mr, va, skb,
							SROCE_UDP_HLEN +
							pkt->hdr_len,
							pkt->paylen);
		sroce_mr_remote_end(qp->resp.wr_mr);
		if (ret) {
			sroce_resp_refused(qp, ret, pkt, nfy);
			return;
		}
		if (copied == -EAGAIN && sroce_qp_is_rc(qp)) {
			/* Pages missing (odp.c): this packet on, again. */
			sroce_resp_odp_defer(qp, qp->resp.wr_mr, va,
					     qp->resp.wr_len - qp->resp.wr_off,
					     pkt, nfy);
			if (flags & SROCE_OPF_FIRST)
				sroce_resp_end_write(qp);
			return;
		}
		if (copied) {
			sroce_resp_fail(qp, SROCE_NAK_REMOTE_OP,
					IB_WC_REM_OP_ERR, pkt, nfy);
			return;
		}
	}
	/*
	 * After the data: with no WQE the WRITE comes again (its bytes are
	 * written again), and the data may need pages faulted in first.
	 */
	if (flags & SROCE_OPF_IMM) {
		enum ib_wc_status status;

		if (!sroce_resp_take_wqe(qp, &status, nfy)) {
			if (flags & SROCE_OPF_FIRST)
				sroce_resp_end_write(qp);
			sroce_resp_rnr_nak(qp, pkt->bth.psn);
			return;
		}
		if (status) {
			sroce_resp_fail(qp, SROCE_NAK_REMOTE_OP, status, pkt,
					nfy);
			return;
		}
	}
	qp->resp.wr_off += pkt->paylen;

	sroce_resp_epsn_set(qp, sroce_psn_add(qp->resp.epsn, 1));
	if (flags & SROCE_OPF_LAST) {
		sroce_resp_end_write(qp);
		sroce_resp_msn_next(qp);
		if (flags & SROCE_OPF_IMM)
			sroce_resp_complete(qp, IB_WC_SUCCESS,
					    IB_WC_RECV_RDMA_WITH_IMM,
					    qp->resp.wr_len, pkt, &h, nfy);
	}
	if (pkt->bth.flags & SROCE_BTHF_ACKREQ)
		sroce_resp_set_ack(qp, SROCE_RESP_SYN_ACK, pkt->bth.psn);
	return;

err_invalid:
	sroce_resp_invalid(qp, pkt, nfy);
}

/**
 * sroce_resp_msg_reset() - the receive side back to the ring's start (RESET)
 * @qp: the QP, lock held; the WQE in use dropped (sroce_resp_rwqe_drop())
 */
void sroce_resp_msg_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->resp.odp_held = false;
	qp->resp.rq_cons = 0;
}
