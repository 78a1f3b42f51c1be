/* SPDX-License-Identifier: GPL-2.0 */
/*
 * param.h - the device's limits, in one place (as rdma_rxe's rxe_param.h):
 * what query_device reports and the verbs enforce.
 *
 * Only limits of this device model live here.  The wire facts of IBTA and
 * RoCEv2 (header lengths, the largest path MTU, SROCE_MAX_HDR_LEN and the
 * like) stay in proto/: they hold for every peer, and proto/ builds on the
 * host with no kernel headers, which this file needs (BIT()).  The engine's
 * tuning constants (windows, batches) are engine.h's.
 */
#ifndef SROCE_PARAM_H
#define SROCE_PARAM_H

#include <linux/bits.h>

/* GID table size per port; the core's RoCE GID manager fills it. */
#define SROCE_GID_TBL_LEN	1024

/* One P_Key, the default full-membership key; RoCE has no partitions. */
#define SROCE_PKEY_TBL_LEN	1

/* Live protection domains per device, over all contexts. */
#define SROCE_MAX_PD		0x10000

/* Live completion queues per device, and entries per CQ (max_cqe). */
#define SROCE_MAX_CQ		0x40000
#define SROCE_MAX_CQE		0x10000

/*
 * Live memory regions per device (keys are 24-bit indices, see mr.c), and
 * the largest region (max_mr_size): 1 TiB.
 */
#define SROCE_MAX_MR		0x100000
#define SROCE_MAX_MR_SIZE	BIT_ULL(40)

/*
 * The largest explicit on-demand paging region: 16 GiB.  The core keeps
 * two arrays of 8 bytes per page of it (ib_umem_odp_get(): 64 MiB here,
 * kernel memory charged to nobody); a larger one is refused with EINVAL.
 * An implicit region (odp.c) covers more, 2 MiB at a time.
 */
#define SROCE_MAX_ODP_MR_SIZE	BIT_ULL(34)

/* Pages a fast-registration region maps at most. */
#define SROCE_MAX_FR_PAGES	512

/* Memory windows a device holds at most. */
#define SROCE_MAX_MW		0x10000

/* Bytes of device memory a device hands out in all, in whole pages. */
#define SROCE_MAX_DM_SIZE	(256 * 1024)

/* Address handles a device holds at most (query_device: max_ah). */
#define SROCE_MAX_AH		0x10000

/* Capabilities of a QP (query_device reports them). */
#define SROCE_MAX_QP		0x40000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_SGE		32
#define SROCE_MAX_INLINE	512
/*
 * READ and atomic requests in flight per QP, as initiator and as
 * responder: rdma_rxe's figure, which perftest hands sroce's QPs.
 */
#define SROCE_MAX_RD_ATOMIC	128
/* The largest message: IBTA's 2^31 bytes. */
#define SROCE_MAX_MSG_SIZE	BIT(31)

/* QP numbers 0 and 1 are the special QPs; ordinary ones start here. */
#define SROCE_QPN_MIN		16
#define SROCE_QPN_MAX		0xffffff

/* Capabilities of an SRQ (query_device reports them). */
#define SROCE_MAX_SRQ		0x10000
#define SROCE_MAX_SRQ_WR	0x4000

/* Receive work queues and their indirection tables (query_device). */
#define SROCE_MAX_WQ			0x10000
#define SROCE_MAX_WQ_WR			0x4000
#define SROCE_MAX_RWQ_IND_TABLES	0x1000
#define SROCE_MAX_LOG_IND_TBL_SIZE	8

/*
 * Multicast (query_device, all enforced): groups per device, QPs per
 * group, attachments per device.  The last binds before the product of
 * the first two: 16 QPs in every group at once, or fewer groups with more.
 */
#define SROCE_MAX_MCAST_GRP		1024
#define SROCE_MAX_MCAST_QP_ATTACH	64
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	16384

/* Flows per device: bounds the work of every frame's lookup. */
#define SROCE_MAX_FLOWS		256

#endif /* SROCE_PARAM_H */
