// SPDX-License-Identifier: GPL-2.0
/*
 * comp_loss.c - the completer's loss recovery: the congestion window, and
 * going back (go-back-N) to send again from a lost PSN.
 *
 * A sequence NAK, a READ response or atomic reply beyond a missing one
 * (sroce_comp_gap()) and the local ACK timeout (timers.c) go back to the
 * oldest unacknowledged PSN: the requester sends everything from there
 * again (sroce_comp_goback(), through sroce_req_seek()), and the window
 * shrinks by a quarter (sroce_comp_loss()); it grows again by one PSN per
 * window acknowledged (sroce_comp_cwnd_grow()).  Within a round trip of a
 * go-back, NAKs and gaps are taken for ones its packets caused, and the
 * go-back is owed instead (struct sroce_goback, timers.c's).  A timeout
 * with no sign of a loss probes the tail first (sroce_comp_probe()).
 *
 * Runs in softirq (the receive path and the timer), under the QP lock.
 */
#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "proto/sroce_proto.h"

/**
 * sroce_comp_rewind() - make the requester send again from @psn
 * @qp: the QP, lock held
 * @psn: a PSN in the outstanding ones (anything else is ignored)
 *
 * No loss is taken from it (an RNR NAK's wait, or a go-back).
 */
void sroce_comp_rewind(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	lockdep_assert_held(&qp->lock);
	if (!sroce_psn_in_range(psn, qp->comp.psn_una,
				sroce_psn_outstanding(qp->req.psn_next,
						      qp->comp.psn_una)))
		return;

	for (i = qp->comp.sq_retire; i != qp->req.sq_head; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u32 npkts;

		if (w->state == SROCE_SWQE_ERROR)
			break;
		if (i == qp->req.sq_cur && !qp->req.cur_off)
			break;	/* not started: nothing of it was sent */
		if (sroce_wr_op_is_local(w->opcode))
			continue;	/* no packets; executed once */
		npkts = sroce_psn_outstanding(w->last_psn, w->first_psn) + 1;
		if (!sroce_psn_in_range(psn, w->first_psn, npkts))
			continue;
		sroce_req_seek(qp, i, psn);
		for (; i != qp->req.sq_head; i++) {
			w = sroce_swqe_at(qp, i);
			if (w->state == SROCE_SWQE_SENT &&
			    !sroce_wr_op_is_local(w->opcode))
				w->state = SROCE_SWQE_PENDING;
		}
		return;
	}
}

/**
 * sroce_comp_loss() - a packet was lost: shrink the congestion window
 * @qp: the QP, lock held
 */
void sroce_comp_loss(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->comp.cwnd = max_t(u32, qp->comp.cwnd - qp->comp.cwnd / 4,
			      SROCE_REQ_WINDOW_MIN);
	qp->comp.cwnd_acked = 0;
}

/*
 * How long after a go-back a NAK or an out-of-order response is taken for
 * one the packets sent before it caused: a round trip (a guess before one
 * was measured), at most a quarter of the local ACK timeout.
 */
#define SROCE_GOBACK_GUARD_INIT_US	8000

static u64 sroce_comp_guard_ns(const struct sroce_qp *qp)
{
	u64 ns = (u64)(qp->timers.srtt_us ?: SROCE_GOBACK_GUARD_INIT_US) * 1000;
	u64 ack_ns = sroce_ack_timeout_ns(qp->attr.timeout);

	return ack_ns ? min(ns, ack_ns / 4) : ns;
}

/**
 * sroce_comp_goback() - go back to @psn for retransmission
 * @qp: the QP, lock held
 * @psn: where to go back to (psn_una, or a READ response lost)
 * @force: go back whenever the last go-back was (the timers)
 *
 * Without @force (a sequence NAK or a response beyond a missing one)
 * nothing happens within a round trip of the last go-back: the requester
 * sent everything from psn_una again then, and a NAK or response arriving
 * meanwhile was caused by packets from before it (a reordering wire makes
 * one per reordered packet).  Going back for each would resend the window
 * over and over: the go-back is owed instead (timers.c).
 *
 * Return: true when the requester went back.
 */
bool sroce_comp_goback(struct sroce_qp *qp, u32 psn, bool force)
{
	u64 now = ktime_get_ns(), guard = sroce_comp_guard_ns(qp);
	const struct sroce_goback *gb = &qp->timers.goback;

	lockdep_assert_held(&qp->lock);
	if (!force && gb->at_ns && now - gb->at_ns < guard) {
		sroce_timers_gap_seen(qp, psn);
		/*
		 * Owed once the round trip is over (timers.c): the packets
		 * this one says missing may not come again before.
		 */
		sroce_timers_goback_owed(qp, jiffies +
					 nsecs_to_jiffies(gb->at_ns +
							  guard - now) + 1);
		return false;
	}
	sroce_timers_went_back(qp, now);
	/* The window goes again: a probe would be sent twice. */
	sroce_req_set_probe(qp, false);
	sroce_comp_loss(qp);
	sroce_timers_rtt_forget(qp, psn);
	sroce_comp_rewind(qp, psn);
	return true;
}

/**
 * sroce_comp_probe() - a timer fired: probe the tail
 * @qp: the QP, lock held, PSNs outstanding
 *
 * Nothing acknowledged for a timeout is no proof of a loss: the round trip
 * may be longer than the timeout, or the peer (or this CPU) did not run
 * for a while, and everything sent is still on its way.  Going back would
 * send the window twice then.  So the last packet sent goes again alone,
 * asking for an ACK, and the requester keeps its place (a tail loss
 * probe, as TCP's): if everything came, its ACK acknowledges everything;
 * if packets before it were lost, it is ahead and the responder NAKs the
 * first one missing (go-back-N as for any NAK); if it alone was lost, it
 * completes the tail.  When the responder sent its NAK for that gap
 * already (one per gap) and the NAK was lost, the probe goes unanswered:
 * the local ACK timeout goes back then (timers.c).
 */
void sroce_comp_probe(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->comp.probe_psn = sroce_psn_add(qp->req.psn_max, SROCE_PSN_MASK);
	sroce_req_set_probe(qp, true);
	/* Karn: an ACK may now answer the original or the probe. */
	sroce_timers_rtt_forget(qp, qp->comp.psn_una);
}

/**
 * sroce_comp_gap() - something before @psn is missing
 * @qp: the QP, lock held
 * @psn: a READ response or atomic reply came for it, beyond a missing one
 *
 * Go back, or, within a round trip of the last go-back or of the first
 * sign of the gap, let the timer go back then if psn_una has not passed
 * @psn meanwhile (a reordering wire brings what is missing first).
 *
 * Return: true when the requester went back.
 */
bool sroce_comp_gap(struct sroce_qp *qp, u32 psn)
{
	if (!qp->timers.goback.owed)
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_IMPLIED_NAKS);
	sroce_timers_gap_seen(qp, psn);
	if (qp->timers.goback.owed)
		return false;
	sroce_timers_guard_start(qp, sroce_comp_guard_ns(qp));
	return sroce_comp_goback(qp, qp->comp.psn_una, false);
}

/**
 * sroce_comp_cwnd_grow() - @n more PSNs acknowledged
 * @qp: the QP, lock held
 * @n: the PSNs the acknowledgment covers
 *
 * One more PSN of window per window's worth acknowledged.
 */
void sroce_comp_cwnd_grow(struct sroce_qp *qp, u32 n)
{
	qp->comp.cwnd_acked += n;
	while (qp->comp.cwnd < SROCE_REQ_WINDOW &&
	       qp->comp.cwnd_acked >= qp->comp.cwnd) {
		qp->comp.cwnd_acked -= qp->comp.cwnd;
		qp->comp.cwnd++;
	}
	if (qp->comp.cwnd == SROCE_REQ_WINDOW)
		qp->comp.cwnd_acked = 0;
}
