// SPDX-License-Identifier: GPL-2.0
/*
 * resp.c - the responder: request packets to received messages, RDMA
 * READ responses, atomic replies and ACKs.
 *
 * Each request packet is classified by its PSN against the expected PSN
 * (IBTA 9.7.5):
 *  - a duplicate SEND or WRITE is acknowledged again (the last ACK was
 *    lost) and dropped; a duplicate READ, atomic or atomic write is
 *    answered again from its responder resource (below);
 *  - one ahead of it shows a lost packet: a single PSN sequence error NAK
 *    per gap, and the packet is dropped;
 *  - the expected one is executed:
 *    SEND consumes the receive WQE at the head of the receive ring (taken
 *    with its first packet, scattered across its SGEs) and completes it
 *    with its last packet;
 *    RDMA WRITE checks the RETH of its first packet against the rkey and
 *    writes every packet where the RETH says; WRITE with immediate data
 *    consumes and completes a receive WQE with its last packet;
 *    RDMA READ, the atomics and the atomic write take a responder
 *    resource (at most max_dest_rd_atomic waiting for their responses);
 *    an atomic or atomic write executes at once, a READ's responses are
 *    read from memory as they are sent.
 * With no receive WQE posted a packet that needs one is refused with an
 * RNR NAK, and the requester sends it again later.
 *
 * Protection.  Everything a remote request touches is checked before a
 * byte is read or written: the QP's remote access flags, then the rkey
 * against the QP's PD, the access right and the range (mr.c).  A key,
 * right or range failure NAKs the request with a remote access error and
 * moves the QP to ERROR.  An operation the QP does not enable and a
 * malformed request (a length disagreeing with the RETH, an atomic write
 * of another length than 8, a misaligned atomic or atomic write, more
 * READs and atomics than granted) are invalid request NAKs.
 *
 * SEND and RDMA WRITE (the receive WQE, the payload, the completion):
 * resp_msg.c.  Responder resources (READ, atomics, atomic write, their
 * replay): resp_rdatomic.c.
 *
 * Output (READ responses, atomic replies, ACK/NAK in PSN order):
 * resp_out.c.  UD datagrams: resp_ud.c (multicast fan-out: mcast.c).
 *
 * Runs in softirq (the receive path) under the QP lock.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "net.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/**
 * sroce_resp_epsn_set() - the PSN the responder expects next
 * @qp: the QP, lock held
 * @psn: the PSN
 */
void sroce_resp_epsn_set(struct sroce_qp *qp, u32 psn)
{
	lockdep_assert_held(&qp->lock);
	qp->resp.epsn = psn;
}

/**
 * sroce_resp_msn_next() - a message was executed: the MSN counts it
 * @qp: the QP, lock held
 */
void sroce_resp_msn_next(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->resp.msn = (qp->resp.msn + 1) & SROCE_PSN_MASK;
}

/* No receive WQE for the request at @psn: ask for it again later. */
void sroce_resp_rnr_nak(struct sroce_qp *qp, u32 psn)
{
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_RNR_NAK_SENT);
	sroce_resp_set_ack(qp, sroce_aeth_syn_rnr(qp->attr.min_rnr_timer), psn);
}

/*
 * A page of an on-demand paging region is missing for the request at
 * @psn: RNR NAK it, and drop the packets after it quietly (no sequence
 * NAK) until it comes again, after the RNR timer, when the fault work has
 * brought the pages in (odp.c).
 */
void sroce_resp_odp_nak(struct sroce_qp *qp, u32 psn)
{
	sroce_resp_rnr_nak(qp, psn);
	qp->resp.nak_sent = true;
}

/**
 * sroce_resp_odp_defer() - a remote access found pages of an on-demand
 *	paging region missing
 * @qp: the QP, lock held
 * @mr: the region
 * @va: first address the request still needs
 * @len: bytes from there
 * @pkt: the request
 * @nfy: collects CQs to signal
 *
 * Faults them in and asks for the request again (RNR NAK); refuses it
 * with a remote access error when the last fault failed (the range is
 * not mapped in the process).
 */
void sroce_resp_odp_defer(struct sroce_qp *qp, struct sroce_mr *mr, u64 va,
			  u64 len, const struct sroce_pkt *pkt,
			  struct sroce_nfy *nfy)
{
	if (sroce_odp_failed(qp, SROCE_ODP_RESP)) {
		sroce_resp_refused(qp, -EFAULT, pkt, nfy);
		return;
	}
	sroce_odp_fault_async(qp, SROCE_ODP_RESP, mr, va, len);
	sroce_resp_odp_nak(qp, pkt->bth.psn);
}

/*
 * The request at @psn cannot be executed: NAK it with @code, complete the
 * receive WQE in use (if any) with @status, and move the QP to ERROR.
 */
void sroce_resp_fail(struct sroce_qp *qp, enum sroce_nak_code code,
		     enum ib_wc_status status,
			    const struct sroce_pkt *pkt, struct sroce_nfy *nfy)
{
	lockdep_assert_held(&qp->lock);
	if (!sroce_qp_is_rc(qp) && code != SROCE_NAK_REMOTE_OP) {
		/*
		 * UC: the sender learns nothing and the connection stays; the
		 * message is dropped (a receive it was filling completes with
		 * @status).  Only a bad receive WQE, the consumer's own fault,
		 * ends the QP as on RC.
		 */
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_UC_DROPS);
		if (qp->resp.in_msg)
			sroce_resp_complete(qp, status, IB_WC_RECV, 0, pkt,
					    NULL, nfy);
		sroce_resp_end_write(qp);
		qp->resp.epsn = sroce_psn_add(pkt->bth.psn, 1);
		return;
	}
	sroce_resp_set_ack(qp, sroce_aeth_syn_nak(code), pkt->bth.psn);
	if (code == SROCE_NAK_REMOTE_ACCESS)
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_ACCESS_NAKS_SENT);
	if (qp->resp.in_msg)
		sroce_resp_complete(qp, status, IB_WC_RECV, 0, pkt, NULL, nfy);
	sroce_resp_end_write(qp);
	sroce_qp_error(qp, nfy);
}

void sroce_resp_invalid(struct sroce_qp *qp,
			const struct sroce_pkt *pkt,
			       struct sroce_nfy *nfy)
{
	sroce_resp_fail(qp, SROCE_NAK_INVALID_REQ, IB_WC_REM_INV_REQ_ERR,
			pkt, nfy);
}

/*
 * A remote request sroce_resp_rkey() refused: an operation the QP does not
 * enable is an invalid request (ibv_poll_cq(3): "not supported by this
 * receive queue"), a key, right or range violation a remote access error.
 */
void sroce_resp_refused(struct sroce_qp *qp, int err,
			const struct sroce_pkt *pkt,
			       struct sroce_nfy *nfy)
{
	if (err == -EOPNOTSUPP)
		sroce_resp_invalid(qp, pkt, nfy);
	else
		sroce_resp_fail(qp, SROCE_NAK_REMOTE_ACCESS,
				IB_WC_REM_ACCESS_ERR, pkt, nfy);
}

/**
 * sroce_resp_pd() - the PD remote access of a request is checked against
 * @qp: the QP, lock held
 *
 * Return: the QP's PD; for an XRC TGT QP the PD of the XRC SRQ the request
 * named (xrc.c), NULL (no region matches) without one.
 */
struct ib_pd *sroce_resp_pd(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type != IB_QPT_XRC_TGT)
		return qp->ibqp.pd;
	return qp->resp.xsrq ? qp->resp.xsrq->ibsrq.pd : NULL;
}

/*
 * Check a remote request against the QP's remote access flags and, unless
 * it is of length zero (which touches nothing), its rkey: the region with
 * a reference in *@mr (NULL for length zero).  0, -EOPNOTSUPP when the QP
 * does not enable the operation, or the lookup's error.
 */
int sroce_resp_rkey(struct sroce_qp *qp, int access, u32 rkey, u64 va,
		    u64 len, struct sroce_mr **mr)
{
	*mr = NULL;
	if ((qp->attr.qp_access_flags & access) != access) {
		ibdev_dbg(qp->ibqp.device,
			  "QP %u: remote access %#x not enabled on the QP\n",
			  qp->ibqp.qp_num, access);
		return -EOPNOTSUPP;
	}
	if (!len)
		return 0;
	*mr = sroce_mr_lookup_remote(qp->sdev, rkey, sroce_resp_pd(qp),
				     qp->ibqp.qp_num, access, va, len);
	if (IS_ERR(*mr)) {
		int err = PTR_ERR(*mr);

		ibdev_dbg(qp->ibqp.device,
			  "QP %u: rkey %#x %#llx+%#llx access %#x: %d\n",
			  qp->ibqp.qp_num, rkey, va, len, access, err);
		*mr = NULL;
		return err;
	}
	return 0;
}

/*
 * Drop the WRITE and SEND in progress and, with @responses, the responses
 * not yet sent.
 */
static void sroce_resp_drop(struct sroce_qp *qp, bool responses)
{
	lockdep_assert_held(&qp->lock);
	if (responses)
		sroce_resp_drop_res(qp);
	sroce_resp_end_write(qp);
	sroce_resp_rwqe_drop(qp);
	sroce_resp_sr_drop(qp);
}

/*
 * UC: whether to execute a packet; lock held.  Nothing is acknowledged or
 * sent again, so a PSN other than the expected one means packets were
 * lost: the message in progress is dropped whole (a receive it was filling
 * is taken again by the next message, which overwrites it; no completion),
 * and packets are dropped until a message begins.  A packet executed is
 * then the expected one.
 */
static bool sroce_resp_uc_accept(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt)
{
	u32 flags = pkt->info->flags;
	bool inside = (flags & SROCE_OPF_SEND) ? qp->resp.in_msg :
						 qp->resp.in_write;

	lockdep_assert_held(&qp->lock);
	if (pkt->bth.psn != qp->resp.epsn) {
		if (qp->resp.in_msg || qp->resp.in_write)
			sroce_stats_inc(qp->sdev->stats, SROCE_CNT_UC_DROPS);
		sroce_resp_drop(qp, false);
		inside = false;
		qp->resp.epsn = pkt->bth.psn;
	}
	if ((flags & SROCE_OPF_FIRST) &&
	    (qp->resp.in_msg || qp->resp.in_write)) {
		/* The last packet of the message before never came. */
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_UC_DROPS);
		sroce_resp_drop(qp, false);
	} else if (!(flags & SROCE_OPF_FIRST) && !inside) {
		/* The rest of a message whose beginning was lost */
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_UC_DROPS);
		qp->resp.epsn = sroce_psn_add(pkt->bth.psn, 1);
		return false;
	}
	return true;
}

/* A new message inside one, or a continuation outside one */
static bool sroce_resp_out_of_place(const struct sroce_qp *qp, u32 flags)
{
	bool in_msg = qp->resp.in_msg, in_write = qp->resp.in_write;

	/* A SEND sent again after an ODP fault: its WQE waits (odp_held). */
	if ((flags & SROCE_OPF_FIRST) && qp->resp.odp_held)
		return !(flags & SROCE_OPF_SEND) || in_write;
	if (flags & SROCE_OPF_FIRST)
		return in_msg || in_write;
	return !((flags & SROCE_OPF_SEND) ? in_msg : in_write);
}

/* Execute the request at the expected PSN; lock held. */
static void sroce_resp_exec(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_pkt *pkt, bool xrc_ok,
			    struct sroce_nfy *nfy)
{
	u32 flags = pkt->info->flags;

	qp->resp.nak_sent = false;
	if (!xrc_ok || sroce_resp_out_of_place(qp, flags))
		sroce_resp_invalid(qp, pkt, nfy);
	else if (flags & SROCE_OPF_SEND)
		sroce_resp_send(qp, skb, pkt, nfy);
	else if (flags & SROCE_OPF_WRITE)
		sroce_resp_write(qp, skb, pkt, nfy);
	else if (flags & SROCE_OPF_READ)
		sroce_resp_read(qp, pkt, nfy);
	else if (flags & SROCE_OPF_ATOMIC_WRITE)
		sroce_resp_atomic_write(qp, skb, pkt, nfy);
	else
		sroce_resp_atomic(qp, pkt, nfy);
}

/*
 * Selective repeat: run the held requests whose turn came, in PSN order
 * (resp_sr.c), and acknowledge how far they got.  Lock held.
 */
static void sroce_resp_sr_run(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	u8 hdr[SROCE_RX_HDR_BUF];
	struct sroce_pkt pkt;
	struct sk_buff *skb;
	bool ran = false;

	while (qp->state != IB_QPS_ERR && (skb = sroce_resp_sr_next(qp))) {
		/* Checked whole when it came: it parses again. */
		if (!sroce_skb_reparse(skb, &pkt, hdr))
			sroce_resp_exec(qp, skb, &pkt, true, nfy);
		dev_kfree_skb_any(skb);
		ran = true;
	}
	if (ran)
		sroce_resp_sr_ack(qp);
}

/**
 * sroce_resp_rcv() - a request packet for a QP's responder
 * @qp: the QP, with a reference
 * @skb: the packet, data at the UDP header (not consumed)
 * @pkt: its parsed headers
 */
void sroce_resp_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		    const struct sroce_pkt *pkt)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	u32 flags = pkt->info->flags;
	struct sroce_nfy nfy = {};
	struct sroce_srq *xsrq;
	unsigned long irqflags;
	bool out, xrc_ok = true;

	spin_lock_irqsave(&qp->lock, irqflags);
	if (qp->destroyed || qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		goto out_unlock;
	/* XRC: the SRQ the request is for, held while it executes */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		xrc_ok = sroce_xrc_resp_begin(qp, pkt);
	if (sroce_qp_is_ud(qp)) {
		sroce_resp_ud(qp, skb, pkt, &nfy);
		goto out_unlock;
	}
	if (qp->ibqp.qp_type == IB_QPT_UC && !sroce_resp_uc_accept(qp, pkt))
		goto out_unlock;
	sroce_resp_sr_begin(qp, pkt);

	switch (sroce_psn_classify(pkt->bth.psn, qp->resp.epsn)) {
	case SROCE_PSN_DUPLICATE:
		sroce_stats_inc(stats, SROCE_CNT_DUPLICATES);
		if (flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC |
			     SROCE_OPF_ATOMIC_WRITE)) {
			sroce_resp_replay(qp, pkt);
			break;
		}
		/* Acknowledge again everything up to the expected PSN. */
		sroce_resp_set_ack(qp, SROCE_RESP_SYN_ACK,
				   sroce_psn_add(qp->resp.epsn,
						 SROCE_PSN_MASK));
		break;
	case SROCE_PSN_AHEAD:
		/* Held for its turn; the sender learns what is missing. */
		if (qp->resp.sr_on && sroce_resp_sr_hold(qp, skb, pkt)) {
			sroce_resp_sr_ack(qp);
			break;
		}
		if (qp->resp.nak_sent)
			break;
		qp->resp.nak_sent = true;
		sroce_stats_inc(stats, SROCE_CNT_SEQ_NAK_SENT);
		sroce_resp_set_ack(qp, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ),
				   qp->resp.epsn);
		break;
	case SROCE_PSN_EXPECTED:
		sroce_resp_exec(qp, skb, pkt, xrc_ok, &nfy);
		if (!skb_queue_empty(&qp->resp.sr_held))
			sroce_resp_sr_run(qp, &nfy);
		break;
	}
out_unlock:
	out = qp->resp.ack.send || qp->resp.res_tail != qp->resp.res_head;
	xsrq = sroce_xrc_resp_end(qp);
	spin_unlock_irqrestore(&qp->lock, irqflags);
	sroce_qp_notify(&nfy);
	/* After the notification: the CQ signalled may be the SRQ's. */
	if (xsrq)
		sroce_srq_put(xsrq);
	if (out)
		sroce_resp_kick(qp);
}

/*
 * Is the ACK owed an error NAK (one that ends the requester's QP: any NAK
 * but a sequence NAK)?  The responses before it go out first then.
 */
static bool sroce_resp_error_nak_owed(const struct sroce_qp *qp)
{
	const struct sroce_resp_ack *ack = &qp->resp.ack;

	return ack->send && sroce_aeth_type(ack->syndrome) == SROCE_AETH_NAK &&
	       sroce_aeth_value(ack->syndrome) != SROCE_NAK_PSN_SEQ;
}

/**
 * sroce_resp_flush() - complete every receive WQE with IB_WC_WR_FLUSH_ERR
 * @qp: a QP in ERROR, lock held
 * @nfy: collects CQs to signal
 *
 * Responses not yet sent are dropped, unless the responder decided an
 * error NAK: the responses of the requests accepted before the failing
 * one go out, then the NAK (the requester takes the NAK as the end of
 * everything before it).  A QP with an SRQ (an XRC TGT QP too) flushes
 * only the WQE it had taken: the SRQ keeps the others for its other QPs.
 */
void sroce_resp_flush(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
	};
	u32 prod;

	lockdep_assert_held(&qp->lock);
	/* With an SRQ only the WQE the QP took is its own to flush. */
	if (!sroce_qp_has_rq(qp) && qp->resp.in_msg)
		sroce_resp_complete(qp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, NULL,
				    NULL, nfy);
	sroce_resp_drop(qp, !sroce_resp_error_nak_owed(qp));
	if (!sroce_qp_has_rq(qp))
		return;
	prod = sroce_queue_load_producer(&qp->rq);
	if (prod - qp->resp.rq_cons > qp->rq.num_entries)
		return;
	while (qp->resp.rq_cons != prod) {
		const struct sroce_recv_wqe *u =
			sroce_queue_slot(&qp->rq, qp->resp.rq_cons);

		cqe.wr_id = READ_ONCE(u->wr_id);
		sroce_resp_rq_consume(qp);
		sroce_qp_complete(qp, sroce_qp_recv_cq(qp), &cqe, false, nfy);
	}
}

/**
 * sroce_resp_reset() - the responder back to its state after creation
 * @qp: the QP, lock held
 */
void sroce_resp_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	sroce_resp_drop(qp, true);
	sroce_resp_res_reset(qp);
	sroce_resp_out_reset(qp);
	qp->resp.msn = 0;
	qp->resp.nak_sent = false;
	sroce_resp_msg_reset(qp);
	sroce_resp_sr_reset(qp);
}
