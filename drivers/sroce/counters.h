/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - the per-device packet counters behind the port's hw
 * counters (`rdma statistic show link DEV/1`,
 * /sys/class/infiniband/DEV/ports/1/hw_counters/).
 */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>

#include "proto/pkt.h"

/*
 * Every received datagram counts once in SROCE_CNT_RX_PACKETS (and its UDP
 * payload in SROCE_CNT_RX_BYTES) and once in exactly one of the reasons:
 * a validation failure (one counter per enum sroce_rx_reason but
 * SROCE_RX_OK) or, for a valid packet, its fate: delivered to its QP
 * (rx_qp), or dropped for lack of one (rx_drop_no_qp) or because it does
 * not come from the QP's peer (rx_drop_not_peer); a multicast datagram
 * delivered to its group (rx_mcast, once however many QPs are attached),
 * or dropped (rx_drop_mcast: a multicast QPN to a unicast address or the
 * other way round, not UD, no group of that address on the device); a
 * congestion notification (rx_cnp; one from a connected QP's peer slows
 * the QP, cc.c).  So rx_packets is the sum of those six and the
 * rx_err_* counters.
 *
 * The transport counters after SROCE_CNT_TX_PACKETS count events of the
 * RC engine.
 */
enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_RX_BYTES,
	SROCE_CNT_RX_QP,
	SROCE_CNT_RX_DROP_NO_QP,
	SROCE_CNT_RX_DROP_NOT_PEER,
	SROCE_CNT_RX_MCAST,
	SROCE_CNT_RX_DROP_MCAST,
	SROCE_CNT_RX_CNP,
	/* SROCE_CNT_RX_ERR + reason - 1 for reason != SROCE_RX_OK */
	SROCE_CNT_RX_ERR,
	SROCE_CNT_TX_PACKETS = SROCE_CNT_RX_ERR + SROCE_RX_REASON_NR - 1,
	SROCE_CNT_TX_BYTES,		/* their UDP payload, as rx_bytes */
	SROCE_CNT_RETRANSMITS,		/* packets sent again */
	SROCE_CNT_TIMEOUTS,		/* local ACK timeouts */
	SROCE_CNT_RTO_PROBES,		/* resends before the ACK timeout */
	SROCE_CNT_SEQ_NAK_SENT,
	SROCE_CNT_SEQ_NAK_RCVD,
	SROCE_CNT_RNR_NAK_SENT,
	SROCE_CNT_RNR_NAK_RCVD,
	SROCE_CNT_DUPLICATES,		/* duplicate requests received */
	SROCE_CNT_IMPLIED_NAKS,		/* READ/atomic responses found lost */
	SROCE_CNT_ACCESS_NAKS_SENT,	/* remote access errors refused */
	SROCE_CNT_BAD_RESPONSES,	/* responses matching no request */
	SROCE_CNT_QKEY_DROPS,		/* UD packets with a wrong Q_Key */
	SROCE_CNT_NO_RECV_DROPS,	/* UD/UC messages without a receive */
	SROCE_CNT_UC_DROPS,		/* UC packets of broken messages */
	SROCE_CNT_MCAST_SELF_SKIPS,	/* own multicast not given to its sender */
	SROCE_CNT_RAW_TX,		/* frames raw packet QPs sent */
	SROCE_CNT_RAW_RX,		/* frames given to a raw QP's receive */
	SROCE_CNT_RAW_RX_DROPS,		/* frames a flow's QP could not take */
	SROCE_CNT_TX_RUNS,		/* skbs given to the IP layer (net.c) */
	SROCE_CNT_READ_PIECES,		/* READ requests for part of the rest */
	SROCE_CNT_RESP_YIELDS,		/* responder work items requeued */
	/* The negotiation with sroce peers (ext.c) */
	SROCE_CNT_EXT_HELLO_SENT,	/* Get(SroceHello) posted */
	SROCE_CNT_EXT_HELLO_ACCEPTED,	/* ... answered GetResp, status 0 */
	SROCE_CNT_EXT_HELLO_REFUSED,	/* ... answered with an error status */
	SROCE_CNT_EXT_HELLO_TIMEOUTS,	/* ... not answered after the retries */
	SROCE_CNT_EXT_HELLO_REPLIED,	/* peers' Gets answered */
	SROCE_CNT_EXT_HELLO_DROPPED,	/* hellos received and dropped */
	SROCE_CNT_EXT_AGREED,		/* QPs that agreed with their peer */
	/* Congestion control (cc.c) */
	SROCE_CNT_NP_ECN_MARKED,	/* CE-marked packets at connected QPs */
	SROCE_CNT_NP_CNP_SENT,		/* CNPs sent for them */
	SROCE_CNT_RP_RATE_CUTS,		/* QP rates cut by CNPs */
	/* selective repeat (#36) */
	SROCE_CNT_SR_HELD,		/* requests held ahead of the expected PSN */
	SROCE_CNT_SACK_SENT,		/* selective ACKs sent */
	SROCE_CNT_SACK_RCVD,		/* selective ACKs taken */
	SROCE_CNT_SACK_BOGUS,		/* selective ACKs refused: PSNs never sent */
	SROCE_CNT_SR_RESENT,		/* lost packets sent again, one by one */
	SROCE_CNT_NR,
};

static inline enum sroce_counter sroce_counter_rx_err(enum sroce_rx_reason r)
{
	return SROCE_CNT_RX_ERR + r - 1;
}

/**
 * struct sroce_stats - one CPU's share of a device's counters
 * @cnt: the counters, indexed by enum sroce_counter
 * @syncp: lets 32-bit readers see whole values.  Writers run with bottom
 *	halves disabled (receive runs in softirq), so a CPU's writers never
 *	nest; readers sum over all CPUs with u64_stats_fetch_begin/retry.
 */
struct sroce_stats {
	u64_stats_t cnt[SROCE_CNT_NR];
	struct u64_stats_sync syncp;
};

/*
 * sroce_stats_rx() - count a received datagram of @bytes UDP payload
 * bytes under @fate (SROCE_CNT_RX_DROP_NO_QP or sroce_counter_rx_err()).
 * Bottom halves disabled.
 */
static inline void sroce_stats_rx(struct sroce_stats __percpu *stats,
				  enum sroce_counter fate, unsigned int bytes)
{
	struct sroce_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->cnt[SROCE_CNT_RX_PACKETS]);
	u64_stats_add(&s->cnt[SROCE_CNT_RX_BYTES], bytes);
	u64_stats_inc(&s->cnt[fate]);
	u64_stats_update_end(&s->syncp);
}

/* sroce_stats_inc() - add one to counter @c.  Bottom halves disabled. */
static inline void sroce_stats_inc(struct sroce_stats __percpu *stats,
				   enum sroce_counter c)
{
	struct sroce_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->cnt[c]);
	u64_stats_update_end(&s->syncp);
}

/* sroce_stats_add() - add @n to counter @c.  Bottom halves disabled. */
static inline void sroce_stats_add(struct sroce_stats __percpu *stats,
				   enum sroce_counter c, u64 n)
{
	struct sroce_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->cnt[c], n);
	u64_stats_update_end(&s->syncp);
}

struct sroce_dev;
struct rdma_hw_stats;

int sroce_counters_alloc(struct sroce_dev *sdev);
void sroce_counters_free(struct sroce_dev *sdev);
struct rdma_hw_stats *sroce_counters_alloc_port(struct ib_device *ibdev,
						u32 port);
void sroce_counters_sum(struct sroce_dev *sdev, u64 *sum);
int sroce_counters_query(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index);

#endif /* SROCE_COUNTERS_H */
