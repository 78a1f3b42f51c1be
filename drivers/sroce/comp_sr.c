// SPDX-License-Identifier: GPL-2.0
/*
 * comp_sr.c - the sender's side of selective repeat (issue #36): what the
 * peer's selective ACKs say arrived, and which lost packets go again.
 *
 * Once the peer's answer to our hello granted selective repeat (ext.h),
 * the requester marks its SENDs and WRITEs with the SXH, and the peer's
 * responder holds what arrives out of order (resp_sr.c) and answers with
 * selective ACKs (0xd8).  The completer takes a selective ACK's AETH as
 * an ACK up to its PSN (comp.c), then gives its bitmap to the scoreboard
 * here (proto/sack.h; struct sroce_comp's @sb, this file its only
 * writer):
 *  - lost, by IRN's rule: sent, not acknowledged, before the highest PSN
 *    acknowledged;
 *  - the requester sends each lost PSN again, one by one
 *    (sroce_comp_sr_next(), through its sr_due), and goes on with new
 *    packets: nothing that arrived is sent twice;
 *  - a round trip after a round of resends began (twice the smoothed
 *    round trip, at least SROCE_SR_ROUND_MIN_US), what is still lost goes
 *    again: a resend lost too costs a round trip, not the local ACK
 *    timeout;
 *  - the congestion window shrinks by a quarter once per loss event
 *    (sroce_comp_loss()), not for each packet lost in one window.
 * The local ACK timeout and IBTA's NAKs keep working as before (comp.c,
 * comp_loss.c), for a tail with nothing after it to show a loss; a READ's
 * and an atomic's responses are the completer's as before.
 *
 * Runs in softirq (the receive path) and in the requester, under the QP
 * lock.
 */
#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "proto/sroce_proto.h"

#define SROCE_SR_ROUND_MIN_US	500

/*
 * The scoreboard @sb at @una (psn_una) and @max (psn_max): what psn_una
 * passed is forgotten; re-anchored when it holds nothing.
 */
static void sroce_comp_sr_sync(struct sroce_sb *sb, u32 una, u32 max)
{
	struct sroce_sack at = { .epsn = una };

	if (!sb->acked[0] && !sb->acked[1]) {
		sroce_sb_init(sb, una);
	} else if (sroce_psn_before(sb->una, una)) {
		sb->next = max;
		if (sroce_sb_apply(sb, &at) != SROCE_SB_APPLIED)
			sroce_sb_init(sb, una);
	}
	if (sroce_psn_before(sb->next, max))
		sb->next = max;
}

/*
 * A mark of the PSNs sent (sr_mark, sr_recover) is within psn_una ..
 * psn_max, or at psn_una: one that psn_una passed (or left from an
 * earlier connection) counts from there.
 */
static void sroce_comp_sr_clamp(const struct sroce_qp *qp, u32 *mark)
{
	if (!sroce_psn_in_range(*mark, qp->comp.psn_una,
				sroce_psn_outstanding(qp->req.psn_max,
						      qp->comp.psn_una) + 1))
		*mark = qp->comp.psn_una;
}

static u64 sroce_comp_sr_round_ns(const struct sroce_qp *qp)
{
	return (u64)max_t(u32, 2 * qp->timers.srtt_us,
			  SROCE_SR_ROUND_MIN_US) * NSEC_PER_USEC;
}

/**
 * sroce_comp_sr_credible() - may a selective ACK be taken at all?
 * @qp: the QP, lock held
 * @sack: its SACK field
 *
 * Checked before its AETH acknowledges anything: one that names a PSN
 * never sent is refused whole (it may come from whoever can send with
 * the peer's address).
 *
 * Return: false when it names a PSN not sent.
 */
bool sroce_comp_sr_credible(const struct sroce_qp *qp,
			    const struct sroce_sack *sack)
{
	struct sroce_sb sb = qp->comp.sb;

	lockdep_assert_held(&qp->lock);
	sroce_comp_sr_sync(&sb, qp->comp.psn_una, qp->req.psn_max);
	return sroce_sb_apply(&sb, sack) != SROCE_SB_BOGUS;
}

/**
 * sroce_comp_sr_sack() - the bitmap of a selective ACK
 * @qp: the QP, lock held; the selective ACK's AETH taken (comp.c)
 * @sack: its SACK field
 *
 * Return: true when packets are to be sent again (the requester is to
 * run).
 */
bool sroce_comp_sr_sack(struct sroce_qp *qp, const struct sroce_sack *sack)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	struct sroce_sb *sb = &qp->comp.sb;
	u64 now = ktime_get_ns();
	u32 lost;

	lockdep_assert_held(&qp->lock);
	sroce_comp_sr_sync(sb, qp->comp.psn_una, qp->req.psn_max);
	switch (sroce_sb_apply(sb, sack)) {
	case SROCE_SB_BOGUS:
		/* It names PSNs never sent: nothing of it is trusted. */
		sroce_stats_inc(stats, SROCE_CNT_SACK_BOGUS);
		return false;
	case SROCE_SB_STALE:
		return false;	/* overtaken by a later one */
	default:
		break;
	}
	sroce_stats_inc(stats, SROCE_CNT_SACK_RCVD);
	sroce_comp_sr_clamp(qp, &qp->comp.sr_mark);
	sroce_comp_sr_clamp(qp, &qp->comp.sr_recover);
	if (!sroce_sb_next_lost(sb, qp->comp.psn_una, &lost))
		return false;
	/* Sent again already and still missing: again after a round trip. */
	if (sroce_psn_before(lost, qp->comp.sr_mark) &&
	    now - qp->comp.sr_round_ns >= sroce_comp_sr_round_ns(qp))
		qp->comp.sr_mark = qp->comp.psn_una;
	if (!sroce_sb_next_lost(sb, qp->comp.sr_mark, &lost))
		return false;
	if (qp->comp.sr_recover == qp->comp.psn_una ||
	    !sroce_psn_before(lost, qp->comp.sr_recover)) {
		/* A new loss event: once per window sent. */
		sroce_comp_loss(qp);
		qp->comp.sr_recover = qp->req.psn_max;
	}
	sroce_req_set_sr_due(qp, true);
	return true;
}

/**
 * sroce_comp_sr_next() - the next lost PSN to send again
 * @qp: the QP, lock held
 * @psn: the PSN, the requester's to send now
 *
 * A PSN within a READ stands for the READ: asked again once from its
 * first PSN not acknowledged (the requester asks for the rest), its
 * other PSNs skipped.
 *
 * Return: false when nothing more is to be sent again in this round.
 */
bool sroce_comp_sr_next(struct sroce_qp *qp, u32 *psn)
{
	struct sroce_sb *sb = &qp->comp.sb;
	u32 i, p;

	lockdep_assert_held(&qp->lock);
	/* READ responses may have moved psn_una since the SACK. */
	sroce_comp_sr_sync(sb, qp->comp.psn_una, qp->req.psn_max);
	sroce_comp_sr_clamp(qp, &qp->comp.sr_mark);
	if (!sroce_sb_next_lost(sb, qp->comp.sr_mark, &p) ||
	    sroce_psn_before(p, qp->comp.psn_una))
		return false;
	if (qp->comp.sr_mark == qp->comp.psn_una)
		qp->comp.sr_round_ns = ktime_get_ns();	/* a round begins */
	qp->comp.sr_mark = sroce_psn_add(p, 1);
	for (i = qp->comp.sq_retire; i != qp->req.sq_head; i++) {
		const struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u32 npkts;

		if (!w->numbered || w->state == SROCE_SWQE_ERROR)
			break;
		if (sroce_wr_op_is_local(w->opcode))
			continue;
		npkts = sroce_psn_outstanding(w->last_psn, w->first_psn) + 1;
		if (!sroce_psn_in_range(p, w->first_psn, npkts))
			continue;
		if (sroce_wr_op_is_rd(w->opcode)) {
			/*
			 * Past the READ, or at psn_max while pieces of it are
			 * still to be asked for: a mark beyond psn_max would
			 * fall back to psn_una, and the READ go again and
			 * again in one run.
			 */
			qp->comp.sr_mark =
				sroce_psn_before(w->last_psn, qp->req.psn_max) ?
				sroce_psn_add(w->last_psn, 1) : qp->req.psn_max;
			p = sroce_psn_before(w->first_psn, qp->comp.psn_una) ?
			    qp->comp.psn_una : w->first_psn;
		}
		break;
	}
	*psn = p;
	return true;
}

/**
 * sroce_comp_sr_reset() - no PSN sent (RESET)
 * @qp: the QP, lock held
 */
void sroce_comp_sr_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	memset(&qp->comp.sb, 0, sizeof(qp->comp.sb));
	qp->comp.sr_mark = 0;
	qp->comp.sr_round_ns = 0;
	qp->comp.sr_recover = 0;
}
