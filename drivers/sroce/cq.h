/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cq.h - completion queues (cq.c).
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "queue.h"

/**
 * struct sroce_cq - a completion queue
 * @ibcq: the core CQ; must stay first
 * @lock: guards @queue (replaced by resize), @producer, @error and, for a
 *	kernel CQ, the consumer index; taken with interrupts off, since the
 *	data path posts from softirq context
 * @queue: the CQE ring; the kernel produces, user space (a user CQ) or
 *	sroce_cq_poll() (a kernel CQ) consumes
 * @producer: the kernel's own copy of the producer index: never read back
 *	from the ring, which user space can write
 * @error: the CQ overflowed; nothing more is posted (IB_EVENT_CQ_ERR was
 *	reported once)
 * @user: created for user space (the ring is mapped there)
 * @stamp: &enum sroce_cq_flags: the clocks sroce_cq_post() reads into
 *	each CQE
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock; /* see @lock above */
	struct sroce_queue queue;
	u32 producer;
	bool error;
	bool user;
	u32 stamp;
};

/* The creation flags of enum sroce_cq_flags this kernel honours. */
#define SROCE_CQ_STAMP_FLAGS (SROCE_CQ_F_TIMESTAMP | SROCE_CQ_F_WALLCLOCK)

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int sroce_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* The data path's producer side. */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);
void sroce_cq_signal(struct sroce_cq *cq);
void sroce_cq_overflow_event(struct sroce_cq *cq);

#endif /* SROCE_CQ_H */
