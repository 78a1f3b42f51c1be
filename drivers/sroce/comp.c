// SPDX-License-Identifier: GPL-2.0
/*
 * comp.c - the completer: acknowledgements, READ responses and atomic
 * replies to send completions, and the local ACK timeout.
 *
 * An ACK for PSN p acknowledges every packet up to p (ACKs coalesce); the
 * WQEs whose last packet is acknowledged retire in order, with a
 * completion when they are signalled.  An RDMA READ takes one PSN per
 * response packet: each response, accepted only in order, is scattered
 * into the WQE's local SGEs and acknowledges its own PSN and those before
 * it; an atomic reply writes the original value into the WQE's 8-byte
 * buffer.  An ACK or a response beyond a READ or atomic whose responses
 * have not all come shows them lost: the requester asks again for what is
 * missing (a READ request for the rest of the data).  A NAK acknowledges
 * what precedes its PSN and then:
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

/**
 * sroce_comp_retire() - retire the WQEs whose packets are all acknowledged
 * @qp: the QP, lock held
 * @nfy: collects CQs to signal
 */
void sroce_comp_retire(struct sroce_qp *qp, struct sroce_nfy *nfy)
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
			.opcode = sroce_req_wc_opcode(w->opcode),
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

/*
 * The retransmission timeout: a few round trips, at least 16 ms (a TCG
 * guest stalls for several ms at times: a shorter one resends for nothing).
 */
#define SROCE_RTO_MIN_US	16000

/*
 * When the timer should fire next: at the local ACK timeout, or earlier
 * after a retransmission timeout (from the measured round trip, doubled
 * with each probe) to send the oldest packet again without spending a
 * retry (sroce_comp_timer()).
 */
static unsigned long sroce_comp_expiry(const struct sroce_qp *qp)
{
	unsigned long at;
	u64 rto_us;

	if (!qp->srtt_us || qp->probes > 8)
		return qp->ack_deadline;
	rto_us = max_t(u64, 4ULL * qp->srtt_us, SROCE_RTO_MIN_US) << qp->probes;
	at = jiffies + usecs_to_jiffies(min_t(u64, rto_us, U32_MAX));
	return time_before(at, qp->ack_deadline) ? at : qp->ack_deadline;
}

/**
 * sroce_comp_arm_timer() - start the local ACK timeout if it is not running
 * @qp: the QP, lock held
 *
 * Runs while PSNs sent are unacknowledged and the QP's timeout is not 0
 * (infinite); stopped otherwise.  The local ACK timeout counts from its
 * start or the last progress (sroce_comp_ack_upto() stops the timer).
 */
void sroce_comp_arm_timer(struct sroce_qp *qp)
{
	u64 ns = sroce_ack_timeout_ns(qp->attr.timeout);

	lockdep_assert_held(&qp->lock);
	if (qp->rnr_wait)
		return;
	if (!ns || qp->psn_una == qp->psn_max) {
		del_timer(&qp->retrans_timer);
		return;
	}
	if (timer_pending(&qp->retrans_timer))
		return;
	qp->ack_deadline = jiffies + max_t(unsigned long,
					   nsecs_to_jiffies(ns), 1);
	qp->probes = 0;
	mod_timer(&qp->retrans_timer, sroce_comp_expiry(qp));
}

/*
 * Make the requester send again from @psn, which lies in the outstanding
 * PSNs (anything else is ignored); lock held.
 */
static void sroce_comp_rewind(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	if (!sroce_psn_in_range(psn, qp->psn_una,
				sroce_psn_outstanding(qp->psn_next,
						      qp->psn_una)))
		return;

	for (i = qp->sq_retire; i != qp->sq_head; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u32 npkts;

		if (w->state == SROCE_SWQE_ERROR)
			break;
		if (i == qp->sq_cur && !qp->cur_off)
			break;	/* not started: nothing of it was sent */
		if (sroce_req_is_local(w->opcode))
			continue;	/* no packets; executed once */
		npkts = sroce_psn_outstanding(w->last_psn, w->first_psn) + 1;
		if (!sroce_psn_in_range(psn, w->first_psn, npkts))
			continue;
		qp->cur_off = sroce_psn_outstanding(psn, w->first_psn) *
			      qp->pmtu;
		qp->sq_cur = i;
		qp->psn_next = psn;
		for (; i != qp->sq_head; i++) {
			w = sroce_swqe_at(qp, i);
			if (w->state == SROCE_SWQE_SENT &&
			    !sroce_req_is_local(w->opcode))
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
			.opcode = sroce_req_wc_opcode(w->opcode),
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

/*
 * An acknowledgment up to @acked must not pass a READ or atomic whose
 * responses have not come: they were lost (IBTA 9.7.5.1.4, implied NAK).
 * Returns the PSN the acknowledgment really stops at; *@implied is set when
 * it stops before @acked, at the PSN the requester must go back to.
 */
static u32 sroce_comp_clamp(struct sroce_qp *qp, u32 acked, u32 *implied)
{
	u32 i;

	for (i = qp->sq_retire; i != qp->sq_head; i++) {
		const struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u32 next;

		if (!w->numbered || w->state == SROCE_SWQE_ERROR)
			break;
		if (sroce_req_is_rd(w->opcode)) {
			/* Its next response: where the ACK must stop. */
			next = sroce_psn_before(w->first_psn, qp->psn_una) ?
			       qp->psn_una : w->first_psn;
			if (sroce_psn_before(acked, next))
				break;
			*implied = next;
			return sroce_psn_add(next, SROCE_PSN_MASK);
		}
		if (!sroce_psn_before(w->last_psn, acked))
			break;
	}
	return acked;
}

/*
 * PSNs sent at least once and not acknowledged: an acknowledgment may
 * name any of them, also after the requester went back to send them
 * again (psn_next behind).
 */
static u32 sroce_comp_unacked(const struct sroce_qp *qp)
{
	return sroce_psn_outstanding(qp->psn_max, qp->psn_una);
}

/*
 * psn_una moved past psn_next: the responder had what the requester went
 * back to send again.  Go forward to psn_una instead of sending it twice.
 */
static void sroce_comp_forward(struct sroce_qp *qp)
{
	u32 i;

	if (!sroce_psn_before(qp->psn_next, qp->psn_una))
		return;
	for (i = qp->sq_cur; i != qp->sq_head; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (!w->numbered || w->state == SROCE_SWQE_ERROR)
			break;
		if (sroce_req_is_local(w->opcode))
			continue;
		if (sroce_psn_before(w->last_psn, qp->psn_una)) {
			w->state = SROCE_SWQE_SENT;
			continue;
		}
		/* psn_una lies in it: a READ asks for the rest only. */
		qp->sq_cur = i;
		qp->cur_off = sroce_psn_outstanding(qp->psn_una, w->first_psn) *
			      qp->pmtu;
		qp->psn_next = qp->psn_una;
		return;
	}
	qp->sq_cur = i;
	qp->cur_off = 0;
	qp->psn_next = qp->psn_una;
}

/**
 * sroce_comp_loss() - a packet was lost: shrink the congestion window
 * @qp: the QP, lock held
 */
void sroce_comp_loss(struct sroce_qp *qp)
{
	qp->cwnd = max_t(u32, qp->cwnd - qp->cwnd / 4, SROCE_REQ_WINDOW_MIN);
	qp->cwnd_acked = 0;
	qp->rtt_timing = false;	/* its packet goes again: no sample */
}

/* @n more PSNs acknowledged: one more PSN of window per window's worth. */
static void sroce_comp_cwnd_grow(struct sroce_qp *qp, u32 n)
{
	qp->cwnd_acked += n;
	while (qp->cwnd < SROCE_REQ_WINDOW && qp->cwnd_acked >= qp->cwnd) {
		qp->cwnd_acked -= qp->cwnd;
		qp->cwnd++;
	}
	if (qp->cwnd == SROCE_REQ_WINDOW)
		qp->cwnd_acked = 0;
}

/* Acknowledge every PSN up to @acked, if it is outstanding; lock held. */
static void sroce_comp_ack_upto(struct sroce_qp *qp, u32 acked, bool rnr,
				struct sroce_nfy *nfy)
{
	if (!sroce_psn_in_range(acked, qp->psn_una, sroce_comp_unacked(qp)))
		return;
	sroce_comp_cwnd_grow(qp, sroce_psn_outstanding(acked, qp->psn_una) + 1);
	if (qp->rtt_timing && !sroce_psn_before(acked, qp->rtt_psn)) {
		u32 us = div_u64(ktime_get_ns() - qp->rtt_start, 1000);

		qp->srtt_us = qp->srtt_us ? (7 * qp->srtt_us + us) / 8 : us;
		qp->rtt_timing = false;
	}
	/* Progress: the timeouts count from here (the caller rearms). */
	del_timer(&qp->retrans_timer);
	qp->psn_una = sroce_psn_add(acked, 1);
	sroce_comp_forward(qp);
	qp->retry = qp->attr.retry_cnt;
	qp->rd_gap = false;
	if (!rnr)
		qp->rnr_retry_left = qp->attr.rnr_retry;
	sroce_comp_retire(qp, nfy);
}

/* An ACK or NAK for @psn; lock held.  Returns true to kick the requester. */
static bool sroce_comp_aeth(struct sroce_qp *qp, u32 psn, u8 syndrome,
			    struct sroce_nfy *nfy)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	u8 value = sroce_aeth_value(syndrome);
	u32 acked = psn, implied = 0;
	bool gap = false;

	/* A NAK acknowledges what precedes its PSN. */
	if (sroce_aeth_type(syndrome) != SROCE_AETH_ACK)
		acked = sroce_psn_add(psn, SROCE_PSN_MASK);	/* psn - 1 */
	if (sroce_psn_in_range(acked, qp->psn_una, sroce_comp_unacked(qp))) {
		u32 upto = sroce_comp_clamp(qp, acked, &implied);

		gap = upto != acked;
		sroce_comp_ack_upto(qp, upto, sroce_aeth_type(syndrome) ==
					      SROCE_AETH_RNR_NAK, nfy);
	}
	if (gap) {
		/* READ responses or an atomic reply lost: ask again. */
		sroce_stats_inc(stats, SROCE_CNT_IMPLIED_NAKS);
		sroce_comp_loss(qp);
		sroce_comp_rewind(qp, implied);
		sroce_comp_arm_timer(qp);
		return true;
	}

	/*
	 * A sequence or RNR NAK names the oldest PSN the responder lacks: once
	 * what precedes it is acknowledged, that is psn_una.  One for an
	 * earlier PSN is stale (the requester went back already, or its
	 * packets came through since): going back to it would resend what
	 * was acknowledged.
	 */
	if ((sroce_aeth_type(syndrome) == SROCE_AETH_RNR_NAK ||
	     (sroce_aeth_type(syndrome) == SROCE_AETH_NAK &&
	      value == SROCE_NAK_PSN_SEQ)) && psn != qp->psn_una)
		return false;

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
			sroce_comp_loss(qp);
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

/*
 * A READ response or atomic reply; lock held.  Accepted only as the next
 * response the oldest WQE expects (responses come in order); one beyond
 * it shows lost responses, and the requester asks again from the first
 * one missing.  Returns true to kick the requester.
 */
static bool sroce_comp_rd_resp(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt *pkt,
			       const struct sroce_hdrs *h,
			       struct sroce_nfy *nfy)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	u32 psn = pkt->bth.psn, flags = pkt->info->flags, off, npkts;
	u32 i, before, upto, implied;
	struct sroce_swqe *w = NULL;
	bool gap = false;
	int ret;

	if (!sroce_psn_in_range(psn, qp->psn_una, sroce_comp_unacked(qp)))
		return false;	/* a duplicate, or beyond what was asked */
	/* The READ or atomic the response belongs to (asked for at least once). */
	for (i = qp->sq_retire; i != qp->sq_head; i++) {
		struct sroce_swqe *c = sroce_swqe_at(qp, i);

		if (!c->numbered || c->state == SROCE_SWQE_ERROR)
			break;
		npkts = sroce_psn_outstanding(c->last_psn, c->first_psn) + 1;
		if (sroce_req_is_rd(c->opcode) &&
		    sroce_psn_in_range(psn, c->first_psn, npkts)) {
			w = c;
			break;
		}
		if (!sroce_psn_before(c->last_psn, psn))
			break;
	}
	if (!w)
		goto bad;
	/*
	 * Its responses come once everything before it was executed: they
	 * acknowledge the requests before it, up to a READ or atomic before
	 * it still missing responses (those were lost).
	 */
	if (sroce_psn_before(qp->psn_una, w->first_psn)) {
		before = sroce_psn_add(w->first_psn, SROCE_PSN_MASK);
		upto = sroce_comp_clamp(qp, before, &implied);
		gap = upto != before;
		sroce_comp_ack_upto(qp, upto, false, nfy);
	}
	if (gap || psn != qp->psn_una) {
		/* Responses missing before this one: ask again, once. */
		if (!qp->rd_gap) {
			qp->rd_gap = true;
			sroce_stats_inc(stats, SROCE_CNT_IMPLIED_NAKS);
			sroce_comp_loss(qp);
			sroce_comp_rewind(qp, qp->psn_una);
			sroce_comp_arm_timer(qp);
			return true;
		}
		return false;
	}

	if (flags & SROCE_OPF_ATOMIC) {
		if (w->opcode == IB_UVERBS_WR_RDMA_READ)
			goto bad;
		ret = sroce_sge_scatter_buf(w->sge, w->num_sge, 0, &h->atmack,
					    sizeof(h->atmack));
	} else {
		if (w->opcode != IB_UVERBS_WR_RDMA_READ)
			goto bad;
		/* Every packet but the last carries exactly a path MTU. */
		off = sroce_psn_outstanding(psn, w->first_psn) * qp->pmtu;
		if (off + pkt->paylen > w->length ||
		    !!(flags & SROCE_OPF_LAST) !=
		    (off + pkt->paylen == w->length))
			goto bad;
		ret = sroce_sge_scatter_skb(w->sge, w->num_sge, off, skb,
					    SROCE_UDP_HLEN +
					    pkt->info->hdr_len,
					    pkt->paylen);
	}
	if (ret) {
		/* Checked at fetch: cannot happen but for a region gone bad. */
		sroce_comp_fail(qp, IB_WC_LOC_PROT_ERR, nfy);
		return false;
	}
	sroce_comp_ack_upto(qp, psn, false, nfy);
	sroce_comp_arm_timer(qp);
	/* A READ or atomic retired: one waiting for it may go. */
	return flags & SROCE_OPF_LAST;

bad:
	sroce_stats_inc(stats, SROCE_CNT_BAD_RESPONSES);
	return false;
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

	sroce_pkt_hdrs(pkt, &h);

	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->destroyed && (qp->state == IB_QPS_RTS ||
			       qp->state == IB_QPS_SQD ||
			       qp->state == IB_QPS_SQE)) {
		if (pkt->info->flags & SROCE_OPF_ACK)
			kick = sroce_comp_aeth(qp, pkt->bth.psn,
					       h.aeth.syndrome, &nfy);
		else
			kick = sroce_comp_rd_resp(qp, skb, pkt, &h, &nfy);
	}
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
	if (qp->psn_una == qp->psn_max)
		goto out_unlock;
	if (time_before(jiffies, qp->ack_deadline)) {
		/*
		 * Nothing heard for a few round trips: the last packets or
		 * their NAK were lost.  Send again from the oldest without
		 * waiting for the local ACK timeout, which goes on running.
		 */
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_RTO_PROBES);
		qp->probes++;
		sroce_comp_loss(qp);
		sroce_comp_rewind(qp, qp->psn_una);
		mod_timer(&qp->retrans_timer, sroce_comp_expiry(qp));
		kick = true;
		goto out_unlock;
	}
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_TIMEOUTS);
	if (!qp->retry) {
		sroce_comp_fail(qp, IB_WC_RETRY_EXC_ERR, &nfy);
		goto out_unlock;
	}
	qp->retry--;
	sroce_comp_loss(qp);
	sroce_comp_rewind(qp, qp->psn_una);
	kick = true;
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_notify(&nfy);
	if (kick)
		sroce_req_kick(qp);
}
