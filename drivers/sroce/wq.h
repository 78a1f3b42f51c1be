/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq.h - receive work queues and their indirection tables (wq.c), and the
 * RSS raw packet QPs that spread frames over them (rss.c).
 */
#ifndef SROCE_WQ_H
#define SROCE_WQ_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct sroce_dev;
struct sroce_qp;
struct sroce_rwqe;

/**
 * struct sroce_wq - a receive work queue (IB_WQT_RQ)
 * @ibwq: the core WQ; must stay first.  ibwq.state is the state, written
 *	under @lock (the core reads it as the current state of a modify)
 * @sdev: the device; constant
 * @lock: guards @cons, the state and @rwqe; taken with interrupts off
 *	(frames arrive in softirq, verbs run in process context)
 * @rq: the receive ring; user space produces, frames consume
 * @cons: the kernel's copy of the consumer index: never read back from the
 *	ring, which user space can write
 * @max_wr: the WQEs the WQ holds (the ring's entries); constant
 * @max_sge: SGEs a WQE may carry; constant
 * @rwqe: the WQE a frame is being received into, under @lock
 */
struct sroce_wq {
	struct ib_wq ibwq;
	struct sroce_dev *sdev;
	spinlock_t lock; /* see @lock above */
	struct sroce_queue rq;
	u32 cons;
	u32 max_wr;
	u32 max_sge;
	struct sroce_rwqe *rwqe;
};

static inline struct sroce_wq *to_swq(struct ib_wq *ibwq)
{
	return container_of(ibwq, struct sroce_wq, ibwq);
}

/**
 * struct sroce_rwq_ind_table - an indirection table of receive WQs
 * @ibtbl: the core's table (its ind_tbl array, 2^log_ind_tbl_size WQs,
 *	belongs to the core); must stay first
 */
struct sroce_rwq_ind_table {
	struct ib_rwq_ind_table ibtbl;
};

/**
 * struct sroce_rss - what an RSS QP hashes, and with which key
 * @fields: enum sroce_rx_hash_fields
 * @key: the Toeplitz key
 */
struct sroce_rss {
	u64 fields;
	u8 key[SROCE_RX_HASH_KEY_LEN];
};

/* wq.c */
struct ib_wq *sroce_wq_create(struct ib_pd *ibpd, struct ib_wq_init_attr *init,
			      struct ib_udata *udata);
int sroce_wq_modify(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		    struct ib_udata *udata);
int sroce_wq_destroy(struct ib_wq *ibwq, struct ib_udata *udata);
int sroce_rwq_ind_table_create(struct ib_rwq_ind_table *ibtbl,
			       struct ib_rwq_ind_table_init_attr *init,
			       struct ib_udata *udata);
int sroce_rwq_ind_table_destroy(struct ib_rwq_ind_table *ibtbl);
bool sroce_wq_rcv(struct sroce_wq *wq, struct sroce_qp *qp, const u8 *hdr,
		  u32 hlen, const struct sk_buff *skb, u32 skb_off);

/* rss.c */
int sroce_rss_qp_create(struct sroce_qp *qp, struct ib_qp_init_attr *init,
			struct ib_udata *udata);
void sroce_rss_qp_destroy(struct sroce_qp *qp);
u32 sroce_rss_toeplitz(const u8 *key, const u8 *in, u32 len);

#endif /* SROCE_WQ_H */
