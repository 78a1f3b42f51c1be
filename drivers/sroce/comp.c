// SPDX-License-Identifier: GPL-2.0
/*
 * comp.c - the completer: acknowledgements to send completions, and the
 * local ACK timeout.
 *
 * An ACK for PSN p acknowledges every packet up to p (ACKs coalesce); the
 * WQEs whose last packet is acknowledged retire in order, with a
 * completion when they are signalled.  A NAK acknowledges what precedes
 * its PSN and then:
 *  - PSN sequence error: the requester goes back to the NAKed PSN;
 *  - RNR: the requester waits the RNR time the NAK names, then goes back
 *    to the NAKed PSN (rnr_retry times; 7 is forever);
 *  - invalid request, remote access or remote operational error: the WQE
 *    completes with the matching status and the QP enters ERROR.
 * When no ACK comes within the local ACK timeout the requester goes back
 * to the oldest unacknowledged PSN (go-back-N), retry_cnt times.
 *
 * Runs in softirq (the receive path and the timer), under the QP lock.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "counters.h"
#include "proto/sroce_proto.h"

/* Retire the WQEs whose packets are all acknowledged; lock held. */
static void sroce_comp_retire(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	struct sroce_cq *cq = sroce_qp_send_cq(qp);

	while (qp->sq_retire != qp->sq_cur) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_retire);

		if (w->state != SROCE_SWQE_SENT ||
		    !sroce_psn_before(w->last_psn, qp->psn_una))
			break;
		struct sroce_cqe cqe = {
			.wr_id = w->wr_id,
			.status = IB_WC_SUCCESS,
			.opcode = IB_WC_SEND,
			.byte_len = w->length,
		};
		bool signaled = qp->sq_sig_all ||
				(w->send_flags & SROCE_SEND_SIGNALED);

		sroce_req_release_swqe(w);
		/* The slot is free before its completion shows (the uapi). */
		sroce_queue_store_consumer(&qp->sq, ++qp->sq_retire);
		if (signaled)
			sroce_qp_complete(qp, cq, &cqe, false, nfy);
	}
}

/**
 * sroce_comp_arm_timer() - (re)start the local ACK timeout
 * @qp: the QP, lock held
 *
 * Runs while PSNs are outstanding and the QP's timeout is not 0
 * (infinite); stopped otherwise.
 */
void sroce_comp_arm_timer(struct sroce_qp *qp)
{
	u64 ns = sroce_ack_timeout_ns(qp->attr.timeout);

	lockdep_assert_held(&qp->lock);
	if (qp->rnr_wait)
		return;
	if (!ns || qp->psn_una == qp->psn_next) {
		del_timer(&qp->retrans_timer);
		return;
	}
	mod_timer(&qp->retrans_timer,
		  jiffies + max_t(unsigned long, nsecs_to_jiffies(ns), 1));
}

/*
 * Make the requester send again from @psn, which lies in the outstanding
 * PSNs; lock held.
 */
static void sroce_comp_rewind(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	for (i = qp->sq_retire; i != qp->sq_head; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u32 npkts;

		if (w->state == SROCE_SWQE_ERROR)
			break;
		if (i == qp->sq_cur && !qp->cur_off)
			break;	/* not started: nothing of it was sent */
		npkts = sroce_psn_outstanding(w->last_psn, w->first_psn) + 1;
		if (!sroce_psn_in_range(psn, w->first_psn, npkts))
			continue;
		qp->cur_off = sroce_psn_outstanding(psn, w->first_psn) *
			      qp->pmtu;
		qp->sq_cur = i;
		qp->psn_next = psn;
		for (; i != qp->sq_head; i++) {
			w = sroce_swqe_at(qp, i);
			if (w->state == SROCE_SWQE_SENT)
				w->state = SROCE_SWQE_PENDING;
		}
		return;
	}
}

/* Fail the oldest WQE with @status and move the QP to ERROR; lock held. */
static void sroce_comp_fail(struct sroce_qp *qp, u8 status,
			    struct sroce_nfy *nfy)
{
	if (qp->sq_retire != qp->sq_head) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_retire);
		struct sroce_cqe cqe = {
			.wr_id = w->wr_id,
			.status = status,
			.opcode = IB_WC_SEND,
		};

		sroce_req_release_swqe(w);
		sroce_queue_store_consumer(&qp->sq, ++qp->sq_retire);
		if (qp->sq_cur < qp->sq_retire)
			qp->sq_cur = qp->sq_retire;
		sroce_qp_complete(qp, sroce_qp_send_cq(qp), &cqe, false, nfy);
	}
	del_timer(&qp->retrans_timer);
	sroce_qp_error(qp, nfy);
}

static u8 sroce_comp_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_REMOTE_OP:
		return IB_WC_REM_OP_ERR;
	default:
		return IB_WC_REM_INV_REQ_ERR;
	}
}

/* An ACK or NAK for @psn; lock held.  Returns true to kick the requester. */
static bool sroce_comp_aeth(struct sroce_qp *qp, u32 psn, u8 syndrome,
			    struct sroce_nfy *nfy)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	u8 value = sroce_aeth_value(syndrome);
	u32 acked = psn;

	/* A NAK acknowledges what precedes its PSN. */
	if (sroce_aeth_type(syndrome) != SROCE_AETH_ACK)
		acked = sroce_psn_add(psn, SROCE_PSN_MASK);	/* psn - 1 */
	if (sroce_psn_in_range(acked, qp->psn_una,
			       sroce_psn_outstanding(qp->psn_next,
						     qp->psn_una))) {
		qp->psn_una = sroce_psn_add(acked, 1);
		qp->retry = qp->attr.retry_cnt;
		if (sroce_aeth_type(syndrome) != SROCE_AETH_RNR_NAK)
			qp->rnr_retry_left = qp->attr.rnr_retry;
		sroce_comp_retire(qp, nfy);
	}

	switch (sroce_aeth_type(syndrome)) {
	case SROCE_AETH_ACK:
		sroce_comp_arm_timer(qp);
		return true;
	case SROCE_AETH_RNR_NAK:
		sroce_stats_inc(stats, SROCE_CNT_RNR_NAK_RCVD);
		if (qp->attr.rnr_retry != 7) {
			if (!qp->rnr_retry_left) {
				sroce_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR,
						nfy);
				return false;
			}
			qp->rnr_retry_left--;
		}
		sroce_comp_rewind(qp, psn);
		qp->rnr_wait = true;
		mod_timer(&qp->retrans_timer,
			  jiffies + max_t(unsigned long,
					  usecs_to_jiffies(sroce_rnr_timer_usec(value)),
					  1));
		return false;
	case SROCE_AETH_NAK:
		if (value == SROCE_NAK_PSN_SEQ) {
			sroce_stats_inc(stats, SROCE_CNT_SEQ_NAK_RCVD);
			sroce_comp_rewind(qp, psn);
			sroce_comp_arm_timer(qp);
			return true;
		}
		ibdev_dbg(qp->ibqp.device, "QP %u: NAK %u for PSN %#x\n",
			  qp->ibqp.qp_num, value, psn);
		sroce_comp_fail(qp, sroce_comp_nak_status(value), nfy);
		return false;
	default:
		return false;
	}
}

/**
 * sroce_comp_rcv() - a response packet for a QP's requester
 * @qp: the QP, with a reference
 * @skb: the packet (not consumed)
 * @pkt: its parsed headers
 */
void sroce_comp_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		    const struct sroce_pkt *pkt)
{
	struct sroce_nfy nfy = {};
	struct sroce_hdrs h;
	unsigned long flags;
	bool kick = false;

	if (!(pkt->info->flags & SROCE_OPF_ACK))
		return;	/* READ responses and atomic ACKs: not yet */
	sroce_pkt_hdrs(pkt, &h);

	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->destroyed && (qp->state == IB_QPS_RTS ||
			       qp->state == IB_QPS_SQD ||
			       qp->state == IB_QPS_SQE))
		kick = sroce_comp_aeth(qp, pkt->bth.psn, h.aeth.syndrome, &nfy);
	spin_unlock_irqrestore(&qp->lock, flags);

	sroce_qp_notify(&nfy);
	if (kick)
		sroce_req_kick(qp);
}

/**
 * sroce_comp_timer() - the local ACK timeout, or the end of an RNR wait
 * @t: struct sroce_qp.retrans_timer
 */
void sroce_comp_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retrans_timer);
	struct sroce_nfy nfy = {};
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->destroyed || qp->state != IB_QPS_RTS)
		goto out_unlock;
	if (qp->rnr_wait) {
		qp->rnr_wait = false;
		kick = true;
		goto out_unlock;
	}
	if (qp->psn_una == qp->psn_next)
		goto out_unlock;
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_TIMEOUTS);
	if (!qp->retry) {
		sroce_comp_fail(qp, IB_WC_RETRY_EXC_ERR, &nfy);
		goto out_unlock;
	}
	qp->retry--;
	sroce_comp_rewind(qp, qp->psn_una);
	kick = true;
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_notify(&nfy);
	if (kick)
		sroce_req_kick(qp);
}
