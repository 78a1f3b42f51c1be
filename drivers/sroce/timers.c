// SPDX-License-Identifier: GPL-2.0
/*
 * timers.c - the timers of a QP's requester, one named entry per event
 * that moves them.
 *
 * One timer_list serves four roles (struct sroce_timers):
 *  - the local ACK timeout: nothing acknowledged for a QP timeout's time
 *    since the timer started or the last progress spends a retry and goes
 *    back to the oldest unacknowledged PSN; with no retry left the oldest
 *    WQE fails with IB_WC_RETRY_EXC_ERR (sroce_timer_ack_timeout());
 *  - the retransmission timeout, from the measured round trip (RFC 6298),
 *    doubling with each probe, below the local ACK timeout: without
 *    spending a retry, probes the tail, for a tail loss no NAK will
 *    report (sroce_timer_rto_probe());
 *  - a go-back the completer put off for a round trip, made then unless
 *    what was missing came meanwhile (sroce_timer_goback_due());
 *  - the wait an RNR NAK asks for, after which the requester sends again
 *    (sroce_timer_rnr_wait_over()).
 * The events that arm, move or stop it are the sroce_timers_*() entries
 * below; the expiry runs in softirq and takes the QP lock.  The go-back
 * state (struct sroce_goback: when the requester last went back, a
 * go-back owed and the gap it waits on) is written here only: the
 * completer reports a gap (sroce_timers_gap_seen()) and a go-back
 * (sroce_timers_went_back()).
 *
 * A local ACK timeout while the path to the peer is down (the netdev not
 * running or without carrier, or no route to the peer:
 * sroce_net_path_up()) spends no retry: the timer polls the path
 * instead (sroce_timer_path_down()), and once it is back the requester
 * goes back to the oldest unacknowledged PSN and the local ACK timeout
 * counts from then, with the retries left before the outage
 * (sroce_timer_path_back()).  The path is judged at the timer only, never
 * per packet; packets the requester sends meanwhile are lost as on a dead
 * wire and sent again after the go-back.
 *
 * A timer that fires finds nothing acknowledged, which shows no loss by
 * itself: the requester sends only its last packet again
 * (sroce_comp_probe()), and goes back only at the second local ACK timeout
 * without progress.  And a timer that fires late, long after its time,
 * says that this CPU did not run meanwhile (a vCPU the host did not
 * schedule): the ACKs that came in the meantime wait behind the timer's
 * softirq, so it waits a jiffy for them before it acts.
 */
#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "net.h"
#include "proto/sroce_proto.h"

/*
 * The retransmission timeout: the smoothed round trip and four times its
 * deviation, at least 16 ms (a TCG guest stalls for several ms at times);
 * twice that before a round trip was measured.
 */
#define SROCE_RTO_MIN_US	16000
#define SROCE_RTO_INIT_US	(2 * SROCE_RTO_MIN_US)

/* How often a path found down is asked again, at most (ms). */
#define SROCE_PATH_POLL_MS	100

/* Set the timer to fire at @at (jiffies). */
static void sroce_timers_set(struct sroce_timers *ti, unsigned long at)
{
	ti->set_at = jiffies;
	ti->deferred = false;
	mod_timer(&ti->timer, at);
}

/*
 * Did the timer fire long after its time?  The timer wheel fires up to an
 * eighth of the span late (its granularity) and a tick more; later than
 * that, this CPU was not running.
 */
static bool sroce_timers_late(const struct sroce_timers *ti)
{
	unsigned long span = ti->timer.expires - ti->set_at;

	return time_after(jiffies, ti->timer.expires + 2 + span / 8);
}

/*
 * When the timer should fire next: at the local ACK timeout, or earlier
 * after a retransmission timeout (from the measured round trip, doubled
 * with each probe) to send the oldest packet again without spending a
 * retry.
 */
static unsigned long sroce_timers_expiry(const struct sroce_qp *qp)
{
	const struct sroce_timers *ti = &qp->timers;
	unsigned long at;
	u64 rto_us;

	if (ti->probes > 8)
		return ti->ack_deadline;
	rto_us = ti->srtt_us ?
		 max_t(u64, (u64)ti->srtt_us + 4ULL * ti->rttvar_us,
		       SROCE_RTO_MIN_US) :
		 SROCE_RTO_INIT_US;
	/* A loaded host's round trip must not push the first probe out. */
	rto_us = min_t(u64, rto_us,
		       div_u64(sroce_ack_timeout_ns(qp->attr.timeout), 2000));
	rto_us <<= ti->probes;
	at = jiffies + usecs_to_jiffies(min_t(u64, rto_us, U32_MAX));
	return time_before(at, ti->ack_deadline) ? at : ti->ack_deadline;
}

/* The RNR wait is over: the requester sends again. */
static bool sroce_timer_rnr_wait_over(struct sroce_qp *qp)
{
	qp->timers.rnr_wait = false;
	return true;
}

/* What a go-back was owed for came meanwhile: none is owed any more. */
static void sroce_timer_goback_cancelled(struct sroce_qp *qp)
{
	qp->timers.goback.owed = false;
	sroce_timers_set(&qp->timers, sroce_timers_expiry(qp));
}

/* A go-back put off by sroce_comp_goback() is due. */
static bool sroce_timer_goback_due(struct sroce_qp *qp)
{
	sroce_comp_goback(qp, qp->comp.psn_una, true);
	sroce_timers_set(&qp->timers, sroce_timers_expiry(qp));
	return true;
}

/*
 * Nothing heard for a few round trips: the last packets or their NAK may
 * have been lost.  Probe the tail without waiting for the local ACK
 * timeout, which goes on running.
 */
static bool sroce_timer_rto_probe(struct sroce_qp *qp)
{
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_RTO_PROBES);
	qp->timers.probes++;
	sroce_comp_probe(qp);
	sroce_timers_set(&qp->timers, sroce_timers_expiry(qp));
	return true;
}

/* The local ACK timeout of @qp in jiffies, at least one. */
static unsigned long sroce_timers_ack_jiffies(const struct sroce_qp *qp)
{
	return max_t(unsigned long,
		     nsecs_to_jiffies(sroce_ack_timeout_ns(qp->attr.timeout)), 1);
}

/*
 * A local ACK timeout found the path to the peer down (counted once, as
 * a local ACK timeout): no retry is spent; the timer asks again within
 * SROCE_PATH_POLL_MS (or the local ACK timeout, if shorter).
 */
static bool sroce_timer_path_down(struct sroce_qp *qp)
{
	struct sroce_timers *ti = &qp->timers;

	if (!ti->path_down)
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_TIMEOUTS);
	ti->path_down = true;
	ti->probes = 0;
	sroce_timers_set(ti, jiffies +
			 min_t(unsigned long, sroce_timers_ack_jiffies(qp),
			       max_t(unsigned long,
				     msecs_to_jiffies(SROCE_PATH_POLL_MS), 1)));
	return false;
}

/*
 * The path is back: go back to the oldest unacknowledged PSN now, and the
 * local ACK timeout counts from now.
 */
static bool sroce_timer_path_back(struct sroce_qp *qp)
{
	struct sroce_timers *ti = &qp->timers;

	ti->path_down = false;
	ti->probes = 0;
	ti->ack_deadline = jiffies + sroce_timers_ack_jiffies(qp);
	sroce_comp_goback(qp, qp->comp.psn_una, true);
	sroce_timers_set(ti, sroce_timers_expiry(qp));
	return true;
}

/*
 * The local ACK timeout: spend a retry, or fail the oldest WQE.  The first
 * one since the last progress probes the tail (sroce_comp_probe()): a peer
 * that did not run for a timeout's time has everything still; the next one
 * goes back to the oldest unacknowledged PSN, as IBTA's requester does.
 * With fewer than two retries every one goes back.
 */
static bool sroce_timer_ack_timeout(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	if (qp->timers.path_down)
		return sroce_timer_path_back(qp);
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_TIMEOUTS);
	if (!qp->comp.retry) {
		sroce_comp_fail(qp, IB_WC_RETRY_EXC_ERR, nfy);
		return false;
	}
	if (qp->comp.retry < qp->attr.retry_cnt || qp->attr.retry_cnt < 2)
		sroce_comp_goback(qp, qp->comp.psn_una, true);
	else
		sroce_comp_probe(qp);
	sroce_comp_retry_spent(qp);
	/* The next local ACK timeout counts from now. */
	sroce_timers_arm_ack_timeout(qp);
	return true;
}

/* Is a local ACK timeout due, or a path found down to be asked again */
static bool sroce_timers_ack_due(const struct sroce_qp *qp)
{
	const struct sroce_timers *ti = &qp->timers;

	return !ti->rnr_wait && qp->comp.psn_una != qp->req.psn_max &&
	       (ti->path_down || !time_before(jiffies, ti->ack_deadline));
}

/*
 * The timer fired: the role whose deadline it was acts.  A local ACK
 * timeout first asks whether the path is up, without the QP lock (an
 * IPv6 route lookup enables bottom halves); a timer set again meanwhile
 * (an ACK came) leaves the expiry to that one.
 */
static void sroce_timers_expired(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, timers.timer);
	struct sroce_timers *ti = &qp->timers;
	struct sroce_nfy nfy = {};
	bool kick = false, path_up = true;
	unsigned long flags;
	struct sroce_av av;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->destroyed || qp->state != IB_QPS_RTS)
		goto out_unlock;
	if (!ti->deferred && sroce_timers_late(ti)) {
		/* Receive what came while this CPU did not run, then act. */
		ti->deferred = true;
		mod_timer(&ti->timer, jiffies + 1);
		goto out_unlock;
	}
	ti->deferred = false;
	if (sroce_timers_ack_due(qp)) {
		av = qp->av;
		spin_unlock_irqrestore(&qp->lock, flags);
		path_up = sroce_net_path_up(qp->sdev, &av);
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->destroyed || qp->state != IB_QPS_RTS ||
		    timer_pending(&ti->timer))
			goto out_unlock;
	}
	if (ti->rnr_wait)
		kick = sroce_timer_rnr_wait_over(qp);
	else if (qp->comp.psn_una == qp->req.psn_max)
		ti->goback.owed = false;	/* nothing outstanding */
	else if (ti->goback.owed &&
		 sroce_psn_before(ti->goback.gap_psn, qp->comp.psn_una))
		sroce_timer_goback_cancelled(qp);
	else if (!ti->path_down && time_before(jiffies, ti->ack_deadline))
		kick = ti->goback.owed ? sroce_timer_goback_due(qp) :
					 sroce_timer_rto_probe(qp);
	else if (!path_up)
		kick = sroce_timer_path_down(qp);
	else
		kick = sroce_timer_ack_timeout(qp, &nfy);
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_notify(&nfy);
	if (kick)
		sroce_req_kick(qp);
}

/**
 * sroce_timers_init() - a new QP's timers, stopped
 * @qp: the QP being created
 */
void sroce_timers_init(struct sroce_qp *qp)
{
	timer_setup(&qp->timers.timer, sroce_timers_expired, 0);
}

/**
 * sroce_timers_reset() - the QP went back to RESET: forget what was learnt
 * @qp: the QP, lock held
 */
void sroce_timers_reset(struct sroce_qp *qp)
{
	struct sroce_timers *ti = &qp->timers;

	lockdep_assert_held(&qp->lock);
	ti->rnr_wait = false;
	ti->path_down = false;
	ti->goback.at_ns = 0;
	ti->goback.owed = false;
	ti->probes = 0;
	ti->srtt_us = 0;
	ti->rttvar_us = 0;
	ti->rtt_timing = false;
}

/**
 * sroce_timers_stop() - the QP failed: no timer role acts any more
 * @qp: the QP, lock held
 */
void sroce_timers_stop(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	del_timer(&qp->timers.timer);
}

/**
 * sroce_timers_shutdown() - destroy_qp: wait for a running expiry
 * @qp: the QP, marked destroyed, lock not held
 */
void sroce_timers_shutdown(struct sroce_qp *qp)
{
	del_timer_sync(&qp->timers.timer);
}

/**
 * sroce_timers_arm_ack_timeout() - start the local ACK timeout if it is not
 *	running
 * @qp: the QP, lock held
 *
 * Runs while PSNs sent are unacknowledged and the QP's timeout is not 0
 * (infinite); stopped otherwise.  The local ACK timeout counts from its
 * start or the last progress (sroce_timers_progress()).  An RNR wait keeps
 * the timer to itself.
 */
void sroce_timers_arm_ack_timeout(struct sroce_qp *qp)
{
	u64 ns = sroce_ack_timeout_ns(qp->attr.timeout);
	struct sroce_timers *ti = &qp->timers;
	unsigned long at;

	lockdep_assert_held(&qp->lock);
	if (ti->rnr_wait)
		return;
	if (!ns || qp->comp.psn_una == qp->req.psn_max) {
		del_timer(&ti->timer);
		return;
	}
	if (timer_pending(&ti->timer))
		return;
	ti->ack_deadline = jiffies + sroce_timers_ack_jiffies(qp);
	ti->path_down = false;
	ti->probes = 0;
	at = sroce_timers_expiry(qp);
	/* A go-back put off (sroce_comp_goback()) is due before. */
	if (ti->goback.owed && time_before(ti->goback.owed_at, at))
		at = ti->goback.owed_at;
	sroce_timers_set(ti, at);
}

/**
 * sroce_timers_progress() - PSNs were acknowledged
 * @qp: the QP, lock held
 *
 * The timeouts count from now: the timer stops, and the caller arms it
 * again (sroce_timers_arm_ack_timeout()) if PSNs remain outstanding.  The
 * path is up: an ACK came along it.
 */
void sroce_timers_progress(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->timers.path_down = false;
	del_timer(&qp->timers.timer);
}

/**
 * sroce_timers_rtt_start() - an ACK request goes out for the first time
 * @qp: the QP, lock held
 * @psn: its PSN
 *
 * Its round trip is timed, unless one is being timed already.
 */
void sroce_timers_rtt_start(struct sroce_qp *qp, u32 psn)
{
	struct sroce_timers *ti = &qp->timers;

	lockdep_assert_held(&qp->lock);
	if (ti->rtt_timing)
		return;
	ti->rtt_timing = true;
	ti->rtt_psn = psn;
	ti->rtt_start = ktime_get_ns();
}

/**
 * sroce_timers_rtt_sample() - PSNs up to @acked were acknowledged
 * @qp: the QP, lock held
 * @acked: the last PSN acknowledged
 *
 * Ends the round trip being timed if @acked covers it, and folds it into
 * the smoothed round-trip time.
 */
void sroce_timers_rtt_sample(struct sroce_qp *qp, u32 acked)
{
	struct sroce_timers *ti = &qp->timers;
	u32 us;

	lockdep_assert_held(&qp->lock);
	if (!ti->rtt_timing || sroce_psn_before(acked, ti->rtt_psn))
		return;
	us = div_u64(ktime_get_ns() - ti->rtt_start, 1000);
	if (!ti->srtt_us) {
		ti->srtt_us = us;
		ti->rttvar_us = us / 2;
	} else {
		u32 dev = ti->srtt_us > us ? ti->srtt_us - us :
					       us - ti->srtt_us;

		ti->rttvar_us = (3 * ti->rttvar_us + dev) / 4;
		ti->srtt_us = (7 * ti->srtt_us + us) / 8;
	}
	ti->rtt_timing = false;
}

/**
 * sroce_timers_rtt_forget() - the requester goes back to @psn
 * @qp: the QP, lock held
 * @psn: the first PSN sent again
 *
 * Karn: no sample from a packet sent again.
 */
void sroce_timers_rtt_forget(struct sroce_qp *qp, u32 psn)
{
	struct sroce_timers *ti = &qp->timers;

	lockdep_assert_held(&qp->lock);
	if (ti->rtt_timing && !sroce_psn_before(ti->rtt_psn, psn))
		ti->rtt_timing = false;
}

/**
 * sroce_timers_gap_seen() - a PSN beyond a gap was seen
 * @qp: the QP, lock held
 * @psn: the PSN (a NAK's, or a response's beyond a missing one)
 *
 * Remembered as the gap's end when no go-back is owed yet, or when it lies
 * beyond the one remembered: a go-back owed is cancelled only once the
 * oldest unacknowledged PSN passes it (sroce_timers_expired()).
 */
void sroce_timers_gap_seen(struct sroce_qp *qp, u32 psn)
{
	struct sroce_goback *gb = &qp->timers.goback;

	lockdep_assert_held(&qp->lock);
	if (!gb->owed || sroce_psn_before(gb->gap_psn, psn))
		gb->gap_psn = psn;
}

/**
 * sroce_timers_guard_start() - a gap was seen first: its guard starts
 * @qp: the QP, lock held
 * @guard_ns: how long a go-back guards against another (comp.c)
 *
 * Unless the last go-back is less than @guard_ns ago, the guard starts
 * now, as if the requester had gone back now.
 */
void sroce_timers_guard_start(struct sroce_qp *qp, u64 guard_ns)
{
	struct sroce_goback *gb = &qp->timers.goback;

	lockdep_assert_held(&qp->lock);
	if (!gb->at_ns || ktime_get_ns() - gb->at_ns >= guard_ns)
		gb->at_ns = ktime_get_ns(); /* the guard starts now */
}

/**
 * sroce_timers_went_back() - the requester went back (sroce_comp_goback())
 * @qp: the QP, lock held
 * @now: when (ktime ns)
 *
 * No go-back is owed any more; the next guard counts from @now.
 */
void sroce_timers_went_back(struct sroce_qp *qp, u64 now)
{
	lockdep_assert_held(&qp->lock);
	qp->timers.goback.at_ns = now;
	qp->timers.goback.owed = false;
}

/**
 * sroce_timers_goback_owed() - the completer put a go-back off
 * @qp: the QP, lock held
 * @at: when it is due (jiffies)
 *
 * The timer fires then at the latest, unless an RNR wait holds it.
 */
void sroce_timers_goback_owed(struct sroce_qp *qp, unsigned long at)
{
	struct sroce_timers *ti = &qp->timers;

	lockdep_assert_held(&qp->lock);
	ti->goback.owed = true;
	ti->goback.owed_at = at;
	if (!ti->rnr_wait && (!timer_pending(&ti->timer) ||
			      time_before(at, ti->timer.expires)))
		sroce_timers_set(ti, at);
}

/**
 * sroce_timers_rnr_wait() - an RNR NAK came: wait before sending again
 * @qp: the QP, lock held
 * @usec: the wait it names
 */
void sroce_timers_rnr_wait(struct sroce_qp *qp, u32 usec)
{
	lockdep_assert_held(&qp->lock);
	qp->timers.rnr_wait = true;
	sroce_timers_set(&qp->timers,
			 jiffies + max_t(unsigned long, usecs_to_jiffies(usec),
					 1));
}

/**
 * sroce_timers_qp_error() - the QP entered ERROR: no RNR wait holds the
 *	requester any more (it flushes)
 * @qp: the QP, lock held
 */
void sroce_timers_qp_error(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->timers.rnr_wait = false;
}
