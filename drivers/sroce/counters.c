// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - a device's packet counters as the port's hw counters.
 *
 * The hot path adds to per-CPU counters (counters.h); the core asks for
 * values through ops.get_hw_stats when user space reads them (sysfs
 * hw_counters, `rdma statistic show link DEV/1`) and caches them for
 * RDMA_HW_STATS_DEFAULT_LIFESPAN ms.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "counters.h"

/* A new receive reason in the protocol core needs its counter name here. */
static_assert(SROCE_RX_REASON_NR == 19);

#define SROCE_RX_ERR_DESC(reason, cname) \
	[SROCE_CNT_RX_ERR + (reason) - 1] = { .name = "rx_err_" cname }

static const struct rdma_stat_desc sroce_counter_descs[SROCE_CNT_NR] = {
	[SROCE_CNT_RX_PACKETS] = { .name = "rx_packets" },
	[SROCE_CNT_RX_BYTES] = { .name = "rx_bytes" },
	[SROCE_CNT_RX_QP] = { .name = "rx_qp" },
	[SROCE_CNT_RX_DROP_NO_QP] = { .name = "rx_drop_no_qp" },
	[SROCE_CNT_RX_DROP_NOT_PEER] = { .name = "rx_drop_not_peer" },
	[SROCE_CNT_RX_MCAST] = { .name = "rx_mcast" },
	[SROCE_CNT_RX_DROP_MCAST] = { .name = "rx_drop_mcast" },
	[SROCE_CNT_RX_CNP] = { .name = "rx_cnp" },
	SROCE_RX_ERR_DESC(SROCE_RX_TRUNCATED, "truncated"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_IP_VERSION, "ip_version"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_IP_HDR, "ip_hdr"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_IP_LEN, "ip_len"),
	SROCE_RX_ERR_DESC(SROCE_RX_NOT_UDP, "not_udp"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_UDP_PORT, "udp_port"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_UDP_LEN, "udp_len"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_OPCODE, "opcode"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_TVER, "tver"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_PKEY, "pkey"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_LEN, "len"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_PAD, "pad"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_TRANSPORT, "transport"),
	SROCE_RX_ERR_DESC(SROCE_RX_OVER_MTU, "over_mtu"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_SEG_LEN, "seg_len"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_ICRC, "icrc"),
	SROCE_RX_ERR_DESC(SROCE_RX_BAD_SXH, "sxh"),
	SROCE_RX_ERR_DESC(SROCE_RX_SXH_FLAGS, "sxh_flags"),
	[SROCE_CNT_TX_PACKETS] = { .name = "tx_packets" },
	[SROCE_CNT_TX_BYTES] = { .name = "tx_bytes" },
	[SROCE_CNT_RETRANSMITS] = { .name = "retransmits" },
	[SROCE_CNT_TIMEOUTS] = { .name = "ack_timeouts" },
	[SROCE_CNT_RTO_PROBES] = { .name = "rto_probes" },
	[SROCE_CNT_SEQ_NAK_SENT] = { .name = "seq_naks_sent" },
	[SROCE_CNT_SEQ_NAK_RCVD] = { .name = "seq_naks_rcvd" },
	[SROCE_CNT_RNR_NAK_SENT] = { .name = "rnr_naks_sent" },
	[SROCE_CNT_RNR_NAK_RCVD] = { .name = "rnr_naks_rcvd" },
	[SROCE_CNT_DUPLICATES] = { .name = "duplicate_requests" },
	[SROCE_CNT_IMPLIED_NAKS] = { .name = "implied_naks" },
	[SROCE_CNT_ACCESS_NAKS_SENT] = { .name = "access_naks_sent" },
	[SROCE_CNT_BAD_RESPONSES] = { .name = "bad_responses" },
	[SROCE_CNT_QKEY_DROPS] = { .name = "qkey_drops" },
	[SROCE_CNT_NO_RECV_DROPS] = { .name = "no_recv_drops" },
	[SROCE_CNT_UC_DROPS] = { .name = "uc_drops" },
	[SROCE_CNT_MCAST_SELF_SKIPS] = { .name = "mcast_self_skips" },
	[SROCE_CNT_RAW_TX] = { .name = "raw_tx" },
	[SROCE_CNT_RAW_RX] = { .name = "raw_rx" },
	[SROCE_CNT_RAW_RX_DROPS] = { .name = "raw_rx_drops" },
	[SROCE_CNT_TX_RUNS] = { .name = "tx_runs" },
	[SROCE_CNT_READ_PIECES] = { .name = "read_pieces" },
	[SROCE_CNT_RESP_YIELDS] = { .name = "resp_yields" },
	[SROCE_CNT_EXT_HELLO_SENT] = { .name = "ext_hello_sent" },
	[SROCE_CNT_EXT_HELLO_ACCEPTED] = { .name = "ext_hello_accepted" },
	[SROCE_CNT_EXT_HELLO_REFUSED] = { .name = "ext_hello_refused" },
	[SROCE_CNT_EXT_HELLO_TIMEOUTS] = { .name = "ext_hello_timeouts" },
	[SROCE_CNT_EXT_HELLO_REPLIED] = { .name = "ext_hello_replied" },
	[SROCE_CNT_EXT_HELLO_DROPPED] = { .name = "ext_hello_dropped" },
	[SROCE_CNT_EXT_AGREED] = { .name = "ext_agreements" },
	[SROCE_CNT_NP_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[SROCE_CNT_NP_CNP_SENT] = { .name = "np_cnp_sent" },
	[SROCE_CNT_RP_RATE_CUTS] = { .name = "rp_rate_cuts" },
	[SROCE_CNT_SR_HELD] = { .name = "sr_held" },
	[SROCE_CNT_SACK_SENT] = { .name = "sack_sent" },
	[SROCE_CNT_SACK_RCVD] = { .name = "sack_rcvd" },
	[SROCE_CNT_SACK_BOGUS] = { .name = "sack_bogus" },
	[SROCE_CNT_SR_RESENT] = { .name = "sr_resent" },
};

/**
 * sroce_counters_alloc() - allocate a new device's counters, all zero
 * @sdev: the device, not yet registered
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_counters_alloc(struct sroce_dev *sdev)
{
	int cpu;

	sdev->stats = alloc_percpu(struct sroce_stats);
	if (!sdev->stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(sdev->stats, cpu)->syncp);
	return 0;
}

/**
 * sroce_counters_free() - free a device's counters
 * @sdev: the device, unregistered: no receive path can reach it any more
 */
void sroce_counters_free(struct sroce_dev *sdev)
{
	free_percpu(sdev->stats);
	sdev->stats = NULL;
}

/**
 * sroce_counters_alloc_port() - ops.alloc_hw_port_stats
 * @ibdev: the device
 * @port: the port (always SROCE_PORT)
 *
 * Return: the core's counter set, freed by the core.
 */
struct rdma_hw_stats *sroce_counters_alloc_port(struct ib_device *ibdev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * sroce_counters_query() - ops.get_hw_stats: sum the per-CPU counters
 * @ibdev: the device
 * @stats: the set sroce_counters_alloc_port() made
 * @port: the port
 * @index: the counter asked for; all are filled in anyway
 *
 * Return: the number of counters filled in.
 */
int sroce_counters_query(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index)
{
	u64 sum[SROCE_CNT_NR];
	int i;

	sroce_counters_sum(to_sdev(ibdev), sum);
	for (i = 0; i < SROCE_CNT_NR && i < stats->num_counters; i++)
		stats->value[i] = sum[i];
	return i;
}

/**
 * sroce_counters_sum() - every counter of @sdev summed over the CPUs
 * @sdev: the device
 * @sum: SROCE_CNT_NR values, filled in
 */
void sroce_counters_sum(struct sroce_dev *sdev, u64 *sum)
{
	u64 val[SROCE_CNT_NR];
	unsigned int start;
	int cpu, i;

	memset(sum, 0, sizeof(*sum) * SROCE_CNT_NR);
	for_each_possible_cpu(cpu) {
		const struct sroce_stats *s = per_cpu_ptr(sdev->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (i = 0; i < SROCE_CNT_NR; i++)
				val[i] = u64_stats_read(&s->cnt[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < SROCE_CNT_NR; i++)
			sum[i] += val[i];
	}
}
