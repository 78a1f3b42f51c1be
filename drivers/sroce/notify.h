/* SPDX-License-Identifier: GPL-2.0 */
/*
 * notify.h - what the engine collects under the QP lock and reports once
 * it is dropped (struct sroce_nfy): completions to signal and async
 * events (notify.c).
 */
#ifndef SROCE_NOTIFY_H
#define SROCE_NOTIFY_H

#include <linux/types.h>

struct sroce_cq;
struct sroce_cqe;
struct sroce_qp;
struct sroce_srq;

/*
 * CQs whose completion handler must run once the QP lock is dropped, and
 * the SRQ events to report then (srq.c): collected by the engine while it
 * holds the lock.
 */
struct sroce_nfy {
	struct sroce_cq *cq[2];
	struct sroce_cq *cq_err[2];	/* IB_EVENT_CQ_ERR: it overflowed */
	struct sroce_srq *srq_limit;	/* IB_EVENT_SRQ_LIMIT_REACHED */
	struct sroce_qp *last_wqe;	/* IB_EVENT_QP_LAST_WQE_REACHED */
	struct sroce_qp *qp_fatal;	/* IB_EVENT_QP_FATAL */
	struct sroce_srq *srq_ref;	/* an XRC SRQ held until then */
};

/* notify.c */
void sroce_qp_complete(struct sroce_qp *qp, struct sroce_cq *cq,
		       const struct sroce_cqe *cqe, bool solicited,
		       struct sroce_nfy *nfy);
void sroce_qp_notify(struct sroce_nfy *nfy);

#endif /* SROCE_NOTIFY_H */
