/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timers.h - the timers of a QP's requester (timers.c).
 */
#ifndef SROCE_TIMERS_H
#define SROCE_TIMERS_H

#include <linux/timer.h>
#include <linux/types.h>

struct sroce_nfy;
struct sroce_qp;

/**
 * struct sroce_goback - the go-back state, under the QP lock; written by
 *	timers.c only (the completer decides, sroce_comp_goback())
 * @at_ns: when the requester last went back to the oldest unacknowledged
 *	PSN, or a gap's guard started (ktime ns, 0 before): a NAK or
 *	out-of-order response within a round trip of it makes no other
 *	go-back
 * @owed: a go-back put off until a round trip is over is owed, unless the
 *	completer's oldest unacknowledged PSN passes @gap_psn meanwhile
 * @owed_at: when it is due (jiffies)
 * @gap_psn: the highest PSN seen beyond a gap while @owed
 */
struct sroce_goback {
	u64 at_ns;
	unsigned long owed_at;
	u32 gap_psn;
	bool owed;
};

/**
 * struct sroce_timers - the requester's timers, under the QP lock
 * @timer: one timer_list for the four roles below: it fires at the
 *	earliest deadline of those armed (an RNR wait stands alone)
 * @set_at: when it was last set (jiffies): how late it fires tells a CPU
 *	that did not run meanwhile (sroce_timers_expired())
 * @deferred: it fired late and was put off once, so that what arrived
 *	while this CPU did not run is received before it acts
 *
 * The local ACK timeout (IBTA 9.7.6.1.1):
 * @ack_deadline: when it expires (jiffies): set when the timer starts and
 *	at each progress
 *
 * The retransmission timeout (RTO), below the local ACK timeout, resends
 * the oldest packet without spending a retry:
 * @probes: probes since the last progress; each doubles the RTO
 * @srtt_us: smoothed round-trip time of an ACK request, 0 before a sample
 * @rttvar_us: its mean deviation (RFC 6298)
 * @rtt_psn: the PSN whose ACK is being timed, while @rtt_timing
 * @rtt_start: when it was sent (ns)
 * @rtt_timing: a round trip is being timed
 *
 * @path_down: a local ACK timeout found the path to the peer down
 *	(sroce_net_path_up()): no retry was spent, the timer polls the path
 *	until it is back, an ACK comes or the timer is armed afresh
 *
 * The go-back state (struct sroce_goback):
 * @goback: when the requester last went back, and a go-back put off
 *
 * The wait an RNR NAK asks for:
 * @rnr_wait: the timer waits it out; the requester sends nothing meanwhile
 *
 * Every field is written by timers.c only; the completer (comp.c) tells
 * it what happened through the sroce_timers_*() entries.
 */
struct sroce_timers {
	struct timer_list timer;
	unsigned long set_at;
	bool deferred;
	unsigned long ack_deadline;
	bool path_down;
	u8 probes;
	u32 srtt_us;
	u32 rttvar_us;
	u32 rtt_psn;
	u64 rtt_start;
	bool rtt_timing;
	bool rnr_wait;
	struct sroce_goback goback;
};

void sroce_timers_init(struct sroce_qp *qp);
void sroce_timers_reset(struct sroce_qp *qp);
void sroce_timers_stop(struct sroce_qp *qp);
void sroce_timers_shutdown(struct sroce_qp *qp);
void sroce_timers_arm_ack_timeout(struct sroce_qp *qp);
void sroce_timers_progress(struct sroce_qp *qp);
void sroce_timers_rtt_start(struct sroce_qp *qp, u32 psn);
void sroce_timers_rtt_sample(struct sroce_qp *qp, u32 acked);
void sroce_timers_rtt_forget(struct sroce_qp *qp, u32 psn);
void sroce_timers_gap_seen(struct sroce_qp *qp, u32 psn);
void sroce_timers_goback_owed(struct sroce_qp *qp, unsigned long at);
void sroce_timers_guard_start(struct sroce_qp *qp, u64 guard_ns);
void sroce_timers_went_back(struct sroce_qp *qp, u64 now);
void sroce_timers_rnr_wait(struct sroce_qp *qp, u32 usec);
void sroce_timers_qp_error(struct sroce_qp *qp);

#endif /* SROCE_TIMERS_H */
