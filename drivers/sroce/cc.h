/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cc.h - congestion control: ECN-capable transport, the notification point
 * (a CE mark answered with a CNP) and the DCQCN reaction point (a rate per
 * QP, paced by departure time).  cc.c is the one writer of all of it.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>

/*
 * The device's parameters, /sys/class/infiniband/DEV/cc_params/NAME: the
 * names of mlx5's cc_params (and of NVIDIA's firmware parameters they set),
 * the defaults NVIDIA documents for ConnectX-4 and later (sroce(7)).
 */
enum sroce_cc_param {
	SROCE_CC_RP_ENABLE,		/* ECT(0) on data, react to CNPs */
	SROCE_CC_NP_ENABLE,		/* answer CE marks with CNPs */
	SROCE_CC_DSCP,			/* -1: the address vector's */
	SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS,	/* us, per QP */
	SROCE_CC_NP_CNP_DSCP,
	SROCE_CC_NP_CNP_PRIO,		/* skb priority (802.1p) of a CNP */
	SROCE_CC_RP_DCE_TCP_G,		/* alpha gain, 1/1024 */
	SROCE_CC_RP_DCE_TCP_RTT,	/* alpha update period, us */
	SROCE_CC_RP_INITIAL_ALPHA_VALUE,	/* 1/1024 */
	SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP,	/* Mb/s, 0: line rate */
	SROCE_CC_RP_MIN_DEC_FAC,	/* %: a cut keeps at least this */
	SROCE_CC_RP_MIN_RATE,		/* Mb/s */
	SROCE_CC_RP_GD,			/* cut = rate * alpha / 2^gd */
	SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD,	/* us between cuts */
	SROCE_CC_RP_TIME_RESET,		/* us between timer increase events */
	SROCE_CC_RP_BYTE_RESET,		/* bytes between byte increase events */
	SROCE_CC_RP_THRESHOLD,		/* events of fast recovery */
	SROCE_CC_RP_AI_RATE,		/* Mb/s, additive increase */
	SROCE_CC_RP_HAI_RATE,		/* Mb/s, hyper increase */
	SROCE_CC_RP_MAX_RATE,		/* Mb/s, 0: line rate */
	SROCE_CC_NR,
};

/* The line rate a QP starts at and recovers to: sroce knows no link speed. */
#define SROCE_CC_LINE_RATE	100000	/* Mb/s */

/*
 * A paced QP has at most this much of its rate in flight (and at least
 * SROCE_CC_WINDOW_MIN packets): what waits for its departure time must
 * not outlast a local ACK timeout.
 */
#define SROCE_CC_WINDOW_US	20000
#define SROCE_CC_WINDOW_MIN	4

/**
 * struct sroce_cc_dev - a device's congestion control parameters
 * @param: indexed by enum sroce_cc_param; written by the sysfs store only
 *	(WRITE_ONCE), read anywhere with READ_ONCE
 * @debugfs: its QPs' state, /sys/kernel/debug/sroce/DEV; from registration
 *	to sroce_dev_dealloc()
 */
struct sroce_cc_dev {
	int param[SROCE_CC_NR];
	struct dentry *debugfs;
};

/**
 * struct sroce_cc_qp - a QP's DCQCN state (reaction and notification point)
 * @lock: guards every field but the atomics; taken by the transmit path
 *	(sroce_cc_stamp()) and the receive softirq (sroce_cc_rp_cnp())
 * @paced: a CNP cut the rate and it has not recovered to the line rate;
 *	read without the lock on the transmit fast path
 * @rate: the current rate Rc, Mb/s; also read without the lock by the
 *	requester's window (sroce_cc_window(): a stale value only delays it)
 * @target: the target rate Rt, Mb/s
 * @alpha: DCQCN's alpha, in 1/1024
 * @t_stage: increase events of the timer since the last cut
 * @b_stage: increase events of the byte counter since the last cut
 * @bytes: bytes sent since the byte counter's last event
 * @alpha_at: start of the current alpha update period
 * @cnp_in_period: a CNP arrived in the current alpha period
 * @inc_at: the timer's last increase event (or the last cut)
 * @cut_at: the last rate cut
 * @next_tx: earliest departure time of the next packet, ns (monotonic)
 * @cnps_rcvd: CNPs that named this QP
 * @cuts: rate cuts
 * @cnp_sent_at: the notification point's last CNP (ns), its rate limit;
 *	cmpxchg, written by CE-marked packets on any CPU
 * @cnps_sent: CNPs sent to the peer
 * @ce_seen: CE-marked packets received
 */
struct sroce_cc_qp {
	spinlock_t lock; /* see @lock above */
	bool paced;
	u32 rate;
	u32 target;
	u32 alpha;
	u32 t_stage;
	u32 b_stage;
	u64 bytes;
	u64 alpha_at;
	bool cnp_in_period;
	u64 inc_at;
	u64 cut_at;
	u64 next_tx;
	u64 cnps_rcvd;
	u64 cuts;
	atomic64_t cnp_sent_at;
	atomic64_t cnps_sent;
	atomic64_t ce_seen;
};

struct sroce_dev;
struct sroce_qp;
struct sroce_av;
struct sk_buff;

extern const struct attribute_group sroce_cc_group;

void sroce_cc_init(void);
void sroce_cc_exit(void);
void sroce_cc_dev_init(struct sroce_dev *sdev);
void sroce_cc_dev_add(struct sroce_dev *sdev);
void sroce_cc_dev_remove(struct sroce_dev *sdev);
void sroce_cc_qp_init(struct sroce_qp *qp);
u8 sroce_cc_tclass(struct sroce_dev *sdev, u8 tclass);
void sroce_cc_np_ce(struct sroce_qp *qp);
void sroce_cc_rp_cnp(struct sroce_qp *qp);
void sroce_cc_stamp(struct sroce_qp *qp, struct sk_buff *skb, u32 bytes);
u32 sroce_cc_window(struct sroce_qp *qp, u32 cwnd);

#endif /* SROCE_CC_H */
