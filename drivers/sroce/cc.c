// SPDX-License-Identifier: GPL-2.0
/*
 * cc.c - congestion control as ConnectX NICs do it (DCQCN, Zhu et al.,
 * SIGCOMM 2015), with mlx5's parameter names and NVIDIA's defaults.
 *
 * ECN-capable transport: while rp_enable is set, every packet of a QP's
 * path leaves ECT(0) (net.c asks sroce_cc_tclass()), with the device's
 * DSCP if one is set.
 *
 * Notification point: a CE-marked packet arriving at a connected QP
 * (recv.c) makes the device send a CNP (IBTA Annex A17.9.3) to the QP's
 * peer QP, at most one per QP per np_min_time_between_cnps.
 *
 * Reaction point: a CNP from a connected QP's peer cuts the QP's rate by
 * alpha/2; alpha moves every rp_dce_tcp_rtt towards 1 when a CNP came in
 * the period and towards 0 when none did.  The rate recovers in steps
 * driven by a timer (rp_time_reset) and by a byte counter
 * (rp_byte_reset): rp_threshold steps of fast recovery (halfway to the
 * target), then additive (the target grows by rp_ai_rate) and hyper
 * increase (by rp_hai_rate times the steps past the threshold).  The
 * timer is not a kernel timer: its events are counted when the QP next
 * sends (an idle QP needs no rate), and alpha's periods when the next CNP
 * comes.
 *
 * Pacing: a paced QP's packets get an earliest departure time
 * (skb->tstamp, as TCP's pacing gives its packets), each one its length
 * at the rate after the one before; the fq qdisc on the egress netdev
 * holds each until then (Documentation/kernel-driver.md says why).
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "cc.h"
#include "net.h"
#include "proto/sroce_proto.h"

/* Loops of lazily counted periods and events stop here. */
#define SROCE_CC_MAX_CATCHUP	1024

/* A parameter's default and range (its name: the sysfs files below) */
struct sroce_cc_desc {
	int def, min, max;
};

static const struct sroce_cc_desc sroce_cc_descs[SROCE_CC_NR] = {
	[SROCE_CC_RP_ENABLE] = { 1, 0, 1 },
	[SROCE_CC_NP_ENABLE] = { 1, 0, 1 },
	[SROCE_CC_DSCP] = { -1, -1, 63 },
	[SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS] = { 4, 0, 4095 },
	[SROCE_CC_NP_CNP_DSCP] = { 48, 0, 63 },
	[SROCE_CC_NP_CNP_PRIO] = { 6, 0, 7 },
	[SROCE_CC_RP_DCE_TCP_G] = { 1019, 0, 1023 },
	[SROCE_CC_RP_DCE_TCP_RTT] = { 1, 1, 131071 },
	[SROCE_CC_RP_INITIAL_ALPHA_VALUE] = { 1023, 0, 1023 },
	[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = { 0, 0, SROCE_CC_LINE_RATE },
	[SROCE_CC_RP_MIN_DEC_FAC] = { 50, 0, 100 },
	[SROCE_CC_RP_MIN_RATE] = { 1, 1, SROCE_CC_LINE_RATE },
	[SROCE_CC_RP_GD] = { 11, 10, 11 },
	[SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD] = { 4, 0, 1000000 },
	[SROCE_CC_RP_TIME_RESET] = { 300, 1, 1000000 },
	[SROCE_CC_RP_BYTE_RESET] = { 32767, 0, INT_MAX },
	[SROCE_CC_RP_THRESHOLD] = { 5, 1, 31 },
	[SROCE_CC_RP_AI_RATE] = { 5, 1, SROCE_CC_LINE_RATE },
	[SROCE_CC_RP_HAI_RATE] = { 50, 1, SROCE_CC_LINE_RATE },
	[SROCE_CC_RP_MAX_RATE] = { 0, 0, SROCE_CC_LINE_RATE },
};

static int sroce_cc_get(struct sroce_dev *sdev, enum sroce_cc_param p)
{
	return READ_ONCE(sdev->cc.param[p]);
}

/**
 * sroce_cc_dev_init() - a new device's parameters, the defaults
 * @sdev: the device, before registration
 */
void sroce_cc_dev_init(struct sroce_dev *sdev)
{
	int i;

	for (i = 0; i < SROCE_CC_NR; i++)
		sdev->cc.param[i] = sroce_cc_descs[i].def;
}

/**
 * sroce_cc_qp_init() - a new QP sends at the line rate
 * @qp: the QP, being created
 */
void sroce_cc_qp_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->cc.lock);
}

/**
 * sroce_cc_tclass() - the TOS / traffic class a QP's packet leaves with
 * @sdev: the device
 * @tclass: the address vector's
 *
 * Return: the device's DSCP in place of the address vector's if it has one,
 * and ECT(0) in the ECN field while rp_enable is set (else the address
 * vector's ECN bits).
 */
u8 sroce_cc_tclass(struct sroce_dev *sdev, u8 tclass)
{
	int dscp = sroce_cc_get(sdev, SROCE_CC_DSCP);

	if (dscp >= 0)
		tclass = (u8)(dscp << 2) | (tclass & SROCE_ECN_MASK);
	if (sroce_cc_get(sdev, SROCE_CC_RP_ENABLE))
		tclass = (tclass & ~SROCE_ECN_MASK) | SROCE_ECN_ECT0;
	return tclass;
}

/* Send a CNP to @qp's peer QP along its path (softirq). */
static void sroce_cc_send_cnp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	u32 len = SROCE_BTH_LEN + SROCE_CNP_RSVD_LEN;
	struct sk_buff_head list;
	struct sroce_hdrs h;
	struct sk_buff *skb;
	unsigned long flags;
	struct sroce_av av;
	u32 dqpn;
	u8 *hdr;

	spin_lock_irqsave(&qp->lock, flags);
	av = qp->av;
	dqpn = qp->attr.dest_qp_num;
	skb = sroce_net_alloc_skb(qp, len, 0, &hdr);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!skb)
		return;
	sroce_cnp_hdrs(&h, dqpn);
	sroce_hdrs_build(hdr, len, &h);
	/* As ConnectX: np_cnp_dscp, not ECN-capable, np_cnp_prio. */
	av.tclass = (u8)(sroce_cc_get(sdev, SROCE_CC_NP_CNP_DSCP) << 2);
	skb->priority = sroce_cc_get(sdev, SROCE_CC_NP_CNP_PRIO);
	__skb_queue_head_init(&list);
	__skb_queue_tail(&list, skb);
	sroce_net_xmit_list(sdev, &list, &av, qp->ibqp.qp_num, NULL);
	atomic64_inc(&qp->cc.cnps_sent);
	sroce_stats_inc(sdev->stats, SROCE_CNT_NP_CNP_SENT);
}

/**
 * sroce_cc_np_ce() - a CE-marked packet arrived at a connected QP
 * @qp: the QP it was valid for (from its peer)
 *
 * Counts the mark; sends a CNP to the peer QP unless np_enable is off or
 * the QP sent one less than np_min_time_between_cnps ago.
 *
 * Context: the receive softirq.
 */
void sroce_cc_np_ce(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	u64 gap, now, last;

	atomic64_inc(&qp->cc.ce_seen);
	sroce_stats_inc(sdev->stats, SROCE_CNT_NP_ECN_MARKED);
	if (!sroce_cc_get(sdev, SROCE_CC_NP_ENABLE) || sroce_qp_is_ud(qp))
		return;
	gap = (u64)sroce_cc_get(sdev, SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS) *
	      NSEC_PER_USEC;
	now = ktime_get_ns();
	last = atomic64_read(&qp->cc.cnp_sent_at);
	if (last && now - last < gap)
		return;
	if (atomic64_cmpxchg(&qp->cc.cnp_sent_at, last, now) != last)
		return;		/* another CPU sends this one */
	sroce_cc_send_cnp(qp);
}

static u32 sroce_cc_line(struct sroce_dev *sdev)
{
	int max = sroce_cc_get(sdev, SROCE_CC_RP_MAX_RATE);

	return max ? max : SROCE_CC_LINE_RATE;
}

/* Close the alpha periods that ended before @now; lock held. */
static void sroce_cc_alpha_roll(struct sroce_dev *sdev, struct sroce_cc_qp *cc,
				u64 now)
{
	u64 period = (u64)sroce_cc_get(sdev, SROCE_CC_RP_DCE_TCP_RTT) *
		     NSEC_PER_USEC;
	u32 g = sroce_cc_get(sdev, SROCE_CC_RP_DCE_TCP_G);
	u64 n = div64_u64(now - cc->alpha_at, period), quiet;

	if (!n)
		return;
	/* The period the last CNP came in raised alpha then; the rest decay. */
	quiet = n - cc->cnp_in_period;
	if (quiet > SROCE_CC_MAX_CATCHUP)
		cc->alpha = 0;
	for (; quiet && cc->alpha; quiet--)
		cc->alpha = cc->alpha * g >> 10;
	cc->alpha_at += n * period;
	cc->cnp_in_period = false;
}

/**
 * sroce_cc_rp_cnp() - a CNP named this QP (from its peer)
 * @qp: the QP
 *
 * Raises alpha once per alpha period and cuts the rate, at most once per
 * rp_rate_reduce_monitor_period.  The first CNP of an unpaced QP starts
 * it at rp_rate_to_set_on_first_cnp (0: the line rate) with
 * rp_initial_alpha_value.  Nothing while rp_enable is off or the QP is
 * not connected.
 *
 * Context: the receive softirq.
 */
void sroce_cc_rp_cnp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_cc_qp *cc = &qp->cc;
	u32 g = sroce_cc_get(sdev, SROCE_CC_RP_DCE_TCP_G);
	u64 now = ktime_get_ns(), monitor;
	u32 line = sroce_cc_line(sdev);
	u32 floor, cut, first;
	unsigned long flags;

	if (!sroce_cc_get(sdev, SROCE_CC_RP_ENABLE) || sroce_qp_is_ud(qp) ||
	    qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		return;
	spin_lock_irqsave(&cc->lock, flags);
	cc->cnps_rcvd++;
	if (!cc->paced) {
		first = sroce_cc_get(sdev, SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP);
		cc->rate = first ? min(first, line) : line;
		cc->target = cc->rate;
		cc->alpha = sroce_cc_get(sdev, SROCE_CC_RP_INITIAL_ALPHA_VALUE);
		cc->alpha_at = now;
		cc->cnp_in_period = true;
		cc->cut_at = 0;
		cc->next_tx = now;
		WRITE_ONCE(cc->paced, true);
	} else {
		sroce_cc_alpha_roll(sdev, cc, now);
		if (!cc->cnp_in_period) {
			cc->alpha = (cc->alpha * g >> 10) + (1024 - g);
			cc->alpha = min(cc->alpha, 1023u);
			cc->cnp_in_period = true;
		}
	}
	monitor = (u64)sroce_cc_get(sdev,
				    SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD) *
		  NSEC_PER_USEC;
	if (!cc->cut_at || now - cc->cut_at >= monitor) {
		cc->target = cc->rate;
		cut = (u32)((u64)cc->rate * cc->alpha >>
			    sroce_cc_get(sdev, SROCE_CC_RP_GD));
		floor = (u32)div_u64((u64)cc->rate *
				     sroce_cc_get(sdev, SROCE_CC_RP_MIN_DEC_FAC),
				     100);
		cc->rate = max3(cc->rate - min(cut, cc->rate), floor,
				(u32)sroce_cc_get(sdev, SROCE_CC_RP_MIN_RATE));
		cc->t_stage = 0;
		cc->b_stage = 0;
		cc->bytes = 0;
		cc->inc_at = now;
		cc->cut_at = now;
		cc->cuts++;
		sroce_stats_inc(sdev->stats, SROCE_CNT_RP_RATE_CUTS);
	}
	spin_unlock_irqrestore(&cc->lock, flags);
}

/* One increase event of the timer or the byte counter; lock held. */
static void sroce_cc_increase(struct sroce_dev *sdev, struct sroce_cc_qp *cc,
			      u32 line)
{
	u32 f = sroce_cc_get(sdev, SROCE_CC_RP_THRESHOLD);
	u32 lo = min(cc->t_stage, cc->b_stage);
	u32 hi = max(cc->t_stage, cc->b_stage);
	u64 target = cc->target;

	if (lo > f)		/* hyper increase */
		target += (u64)sroce_cc_get(sdev, SROCE_CC_RP_HAI_RATE) *
			  (lo - f);
	else if (hi >= f)	/* additive increase */
		target += sroce_cc_get(sdev, SROCE_CC_RP_AI_RATE);
	/* else fast recovery: towards the target as it is */
	cc->target = (u32)min_t(u64, target, line);
	cc->rate = cc->rate / 2 + cc->target / 2 + (cc->rate & cc->target & 1);
	if (cc->rate + 1 >= line)
		WRITE_ONCE(cc->paced, false);	/* recovered */
}

/**
 * sroce_cc_stamp() - the departure time of a QP's packet (a run of them)
 * @qp: the QP sending
 * @skb: the packet, about to go to the IP layer
 * @bytes: its bytes on the wire (every packet of a run)
 *
 * An unpaced QP's packets leave at once.  A paced QP's first count the
 * increase events due (the timer's since the last, the byte counter's
 * for @bytes), then leave at the later of now and the previous one's
 * departure plus its length at the rate.
 *
 * Context: process or softirq, QP lock not held.
 */
void sroce_cc_stamp(struct sroce_qp *qp, struct sk_buff *skb, u32 bytes)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_cc_qp *cc = &qp->cc;
	u64 now, period, reset, at;
	unsigned long flags;
	u32 line, n;

	if (!READ_ONCE(cc->paced))
		return;
	line = sroce_cc_line(sdev);
	now = ktime_get_ns();
	period = (u64)sroce_cc_get(sdev, SROCE_CC_RP_TIME_RESET) *
		 NSEC_PER_USEC;
	reset = sroce_cc_get(sdev, SROCE_CC_RP_BYTE_RESET);
	spin_lock_irqsave(&cc->lock, flags);
	if (!cc->paced)
		goto out;
	for (n = 0; cc->paced && now - cc->inc_at >= period; n++) {
		if (n == SROCE_CC_MAX_CATCHUP) {
			cc->inc_at = now;
			break;
		}
		cc->inc_at += period;
		cc->t_stage++;
		sroce_cc_increase(sdev, cc, line);
	}
	cc->bytes += bytes;
	while (cc->paced && reset && cc->bytes >= reset) {
		cc->bytes -= reset;
		cc->b_stage++;
		sroce_cc_increase(sdev, cc, line);
	}
	if (!cc->paced)
		goto out;
	at = max(cc->next_tx, now);
	cc->next_tx = at + div_u64((u64)bytes * 8 * NSEC_PER_USEC, cc->rate);
	skb_set_delivery_time(skb, ns_to_ktime(at), true);
out:
	spin_unlock_irqrestore(&cc->lock, flags);
}

/*
 * Each QP's state: /sys/kernel/debug/sroce/DEV (one line per QP, an unpaced
 * QP at rate 0).  The directory lives as long as the module.
 */
static struct dentry *sroce_cc_debugfs;

static int sroce_cc_qps_show(struct seq_file *m, void *unused)
{
	struct sroce_dev *sdev = m->private;
	struct sroce_qp *qp;
	unsigned long qpn, flags;
	void *slot;

	seq_puts(m, "qpn rate_mbps target_mbps alpha cnps_rcvd rate_cuts cnps_sent ce_seen\n");
	xa_for_each(&sdev->qp_xa, qpn, slot) {
		struct sroce_cc_qp *cc;

		qp = sroce_qp_get(sdev, qpn);
		if (!qp)
			continue;
		cc = &qp->cc;
		spin_lock_irqsave(&cc->lock, flags);
		seq_printf(m, "%lu %u %u %u %llu %llu", qpn,
			   cc->paced ? cc->rate : 0, cc->paced ? cc->target : 0,
			   cc->alpha, cc->cnps_rcvd, cc->cuts);
		spin_unlock_irqrestore(&cc->lock, flags);
		seq_printf(m, " %lld %lld\n", atomic64_read(&cc->cnps_sent),
			   atomic64_read(&cc->ce_seen));
		sroce_qp_put(qp);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_cc_qps);

/**
 * sroce_cc_init() - module init: the debugfs directory (none without debugfs)
 */
void sroce_cc_init(void)
{
	sroce_cc_debugfs = debugfs_create_dir("sroce", NULL);
}

/**
 * sroce_cc_exit() - module exit, after the last device is gone
 */
void sroce_cc_exit(void)
{
	debugfs_remove(sroce_cc_debugfs);
}

/**
 * sroce_cc_dev_add() - a registered device's QP file in debugfs
 * @sdev: the device, just registered
 */
void sroce_cc_dev_add(struct sroce_dev *sdev)
{
	sdev->cc.debugfs = debugfs_create_file(dev_name(&sdev->ibdev.dev), 0400,
					       sroce_cc_debugfs, sdev,
					       &sroce_cc_qps_fops);
}

/**
 * sroce_cc_dev_remove() - the device's debugfs file goes (its readers done)
 * @sdev: the device, being freed
 */
void sroce_cc_dev_remove(struct sroce_dev *sdev)
{
	debugfs_remove(sdev->cc.debugfs);
	sdev->cc.debugfs = NULL;
}

/**
 * sroce_cc_window() - the requester's window under the QP's rate
 * @qp: the QP, lock held (its rate is read as it is)
 * @cwnd: the window of the loss recovery (comp_loss.c), in PSNs
 *
 * Return: @cwnd, or fewer PSNs for a paced QP: SROCE_CC_WINDOW_US of its
 * rate in path MTU packets, at least SROCE_CC_WINDOW_MIN.
 */
u32 sroce_cc_window(struct sroce_qp *qp, u32 cwnd)
{
	u64 win;

	if (!READ_ONCE(qp->cc.paced))
		return cwnd;
	/* Mb/s times us: bits */
	win = (u64)READ_ONCE(qp->cc.rate) * SROCE_CC_WINDOW_US / 8 / qp->pmtu;
	return min_t(u64, max_t(u64, win, SROCE_CC_WINDOW_MIN), cwnd);
}

/* The parameters in sysfs: one file each, range-checked. */
struct sroce_cc_attr {
	struct device_attribute attr;
	enum sroce_cc_param p;
};

static ssize_t sroce_cc_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	struct sroce_dev *sdev = rdma_device_to_drv_device(dev, struct sroce_dev,
							   ibdev);
	struct sroce_cc_attr *ca = container_of(a, struct sroce_cc_attr, attr);

	return sysfs_emit(buf, "%d\n", sroce_cc_get(sdev, ca->p));
}

static ssize_t sroce_cc_store(struct device *dev, struct device_attribute *a,
			      const char *buf, size_t count)
{
	struct sroce_dev *sdev = rdma_device_to_drv_device(dev, struct sroce_dev,
							   ibdev);
	struct sroce_cc_attr *ca = container_of(a, struct sroce_cc_attr, attr);
	const struct sroce_cc_desc *d = &sroce_cc_descs[ca->p];
	int val, ret;

	ret = kstrtoint(buf, 0, &val);
	if (ret)
		return ret;
	if (val < d->min || val > d->max)
		return -ERANGE;
	WRITE_ONCE(sdev->cc.param[ca->p], val);
	return count;
}

#define SROCE_CC_ATTR(id, fname)					\
	static struct sroce_cc_attr sroce_cc_attr_##fname = {		\
		.attr = __ATTR(fname, 0644, sroce_cc_show, sroce_cc_store), \
		.p = (id),						\
	}

SROCE_CC_ATTR(SROCE_CC_RP_ENABLE, rp_enable);
SROCE_CC_ATTR(SROCE_CC_NP_ENABLE, np_enable);
SROCE_CC_ATTR(SROCE_CC_DSCP, dscp);
SROCE_CC_ATTR(SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS, np_min_time_between_cnps);
SROCE_CC_ATTR(SROCE_CC_NP_CNP_DSCP, np_cnp_dscp);
SROCE_CC_ATTR(SROCE_CC_NP_CNP_PRIO, np_cnp_prio);
SROCE_CC_ATTR(SROCE_CC_RP_DCE_TCP_G, rp_dce_tcp_g);
SROCE_CC_ATTR(SROCE_CC_RP_DCE_TCP_RTT, rp_dce_tcp_rtt);
SROCE_CC_ATTR(SROCE_CC_RP_INITIAL_ALPHA_VALUE, rp_initial_alpha_value);
SROCE_CC_ATTR(SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP,
	      rp_rate_to_set_on_first_cnp);
SROCE_CC_ATTR(SROCE_CC_RP_MIN_DEC_FAC, rp_min_dec_fac);
SROCE_CC_ATTR(SROCE_CC_RP_MIN_RATE, rp_min_rate);
SROCE_CC_ATTR(SROCE_CC_RP_GD, rp_gd);
SROCE_CC_ATTR(SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD,
	      rp_rate_reduce_monitor_period);
SROCE_CC_ATTR(SROCE_CC_RP_TIME_RESET, rp_time_reset);
SROCE_CC_ATTR(SROCE_CC_RP_BYTE_RESET, rp_byte_reset);
SROCE_CC_ATTR(SROCE_CC_RP_THRESHOLD, rp_threshold);
SROCE_CC_ATTR(SROCE_CC_RP_AI_RATE, rp_ai_rate);
SROCE_CC_ATTR(SROCE_CC_RP_HAI_RATE, rp_hai_rate);
SROCE_CC_ATTR(SROCE_CC_RP_MAX_RATE, rp_max_rate);

static struct attribute *sroce_cc_attrs[] = {
	&sroce_cc_attr_rp_enable.attr.attr,
	&sroce_cc_attr_np_enable.attr.attr,
	&sroce_cc_attr_dscp.attr.attr,
	&sroce_cc_attr_np_min_time_between_cnps.attr.attr,
	&sroce_cc_attr_np_cnp_dscp.attr.attr,
	&sroce_cc_attr_np_cnp_prio.attr.attr,
	&sroce_cc_attr_rp_dce_tcp_g.attr.attr,
	&sroce_cc_attr_rp_dce_tcp_rtt.attr.attr,
	&sroce_cc_attr_rp_initial_alpha_value.attr.attr,
	&sroce_cc_attr_rp_rate_to_set_on_first_cnp.attr.attr,
	&sroce_cc_attr_rp_min_dec_fac.attr.attr,
	&sroce_cc_attr_rp_min_rate.attr.attr,
	&sroce_cc_attr_rp_gd.attr.attr,
	&sroce_cc_attr_rp_rate_reduce_monitor_period.attr.attr,
	&sroce_cc_attr_rp_time_reset.attr.attr,
	&sroce_cc_attr_rp_byte_reset.attr.attr,
	&sroce_cc_attr_rp_threshold.attr.attr,
	&sroce_cc_attr_rp_ai_rate.attr.attr,
	&sroce_cc_attr_rp_hai_rate.attr.attr,
	&sroce_cc_attr_rp_max_rate.attr.attr,
	NULL,
};

static_assert(ARRAY_SIZE(sroce_cc_attrs) == SROCE_CC_NR + 1);

const struct attribute_group sroce_cc_group = {
	.name = "cc_params",
	.attrs = sroce_cc_attrs,
};
