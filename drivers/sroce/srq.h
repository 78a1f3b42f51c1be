/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srq.h - shared receive queues (srq.c).
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

struct sroce_dev;
struct sroce_qp;
struct sroce_rwqe;
struct sroce_nfy;

/**
 * struct sroce_srq - a shared receive queue
 * @ibsrq: the core SRQ; must stay first
 * @sdev: the device; constant
 * @lock: guards @cons, @limit and, for a kernel SRQ, the producer index;
 *	taken with interrupts off (the responders of several QPs take WQEs
 *	from softirq and from their work items, kernel users post from any
 *	context).  Nests inside a QP's lock.
 * @user: created for user space (the ring is mapped there); constant
 * @rq: the receive ring; user space (or sroce_srq_post_recv()) produces,
 *	the responders of the QPs using the SRQ consume
 * @cons: the kernel's copy of the consumer index: never read back from the
 *	ring, which user space can write
 * @limit: the armed limit (IB_SRQ_LIMIT), 0 when disarmed
 * @max_wr: the WQEs the SRQ holds (the ring's entries); constant
 * @max_sge: SGEs a WQE may carry; constant
 * @ref: XRC: lookups by number from the receive path hold one (xrc.c),
 *	plus the SRQ's own
 * @released: XRC: completed when @ref drops to zero
 * @serial: XRC: the SRQ's identity, unique among the device's XRC SRQs
 *	for the device's life (its number may come back after 2^24
 *	creations: ident.c); constant once published
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_dev *sdev;
	spinlock_t lock; /* see @lock above */
	bool user;
	struct sroce_queue rq;
	u32 cons;
	u32 limit;
	u32 max_wr;
	u32 max_sge;
	refcount_t ref;
	struct completion released;
	u64 serial;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* xrc.c: XRC SRQs by number (ibsrq.ext.xrc.srq_num) */
int sroce_xsrq_add(struct sroce_srq *srq);
void sroce_xsrq_remove(struct sroce_srq *srq);
struct sroce_srq *sroce_xsrq_get(struct sroce_dev *sdev, u32 srqn);
void sroce_srq_put(struct sroce_srq *srq);

/* For the responder of a QP created with an SRQ. */
bool sroce_srq_take(struct sroce_srq *srq, struct sroce_qp *qp,
		    struct sroce_rwqe *r, enum ib_wc_status *status,
		    struct sroce_nfy *nfy);
void sroce_srq_limit_event(struct sroce_srq *srq);
void sroce_srq_last_wqe_event(struct sroce_qp *qp);

#endif /* SROCE_SRQ_H */
