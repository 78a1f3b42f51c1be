// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - the completions the engine posts for a QP and what it
 * reports once the QP lock is dropped: CQ signals, CQ overflows, fatal QP
 * errors, SRQ events (struct sroce_nfy, notify.h).
 *
 * The requester, completer and responder post completions under the QP
 * lock (sroce_qp_complete()) and collect in a struct sroce_nfy the CQs to
 * signal and the events to report; sroce_qp_notify() delivers them after
 * the lock is dropped, since a completion handler or an event handler may
 * call back into the QP.  It also drops the reference on an XRC SRQ that
 * the responder looked up for a completion (xrc.c, srq.c): the SRQ's CQ lives
 * until the signal is delivered.
 */
#include "sroce.h"
#include "qp.h"
#include "notify.h"

/*
 * Add @cq to a pair of CQs to report, once.  Two are enough: one
 * collection serves one QP, whose completions go to its send and receive
 * CQs, or, an XRC TGT QP (no CQ of its own), to the CQ of the one SRQ
 * its packet names.  A third CQ would replace the second, whose signal
 * would be lost: a caller must not collect for two QPs in one.
 */
static void sroce_nfy_add_cq(struct sroce_cq **pair, struct sroce_cq *cq)
{
	if (!pair[0])
		pair[0] = cq;
	else if (pair[0] != cq)
		pair[1] = cq;
}

/**
 * sroce_qp_complete() - post a completion of a QP
 * @qp: the QP, lock held
 * @cq: its send or receive CQ
 * @cqe: the completion; qp_num and port are filled in here
 * @solicited: a solicited event
 * @nfy: collects the CQ to signal once the lock is dropped
 *
 * A CQ that overflows takes nothing more (IB_EVENT_CQ_ERR is reported
 * once); a QP whose completion it cannot take enters the error state
 * (IB_EVENT_QP_FATAL), as IBTA 11.4.2.1 has it: no completion is lost
 * while the QP goes on.  Both are reported once the lock is dropped.
 */
void sroce_qp_complete(struct sroce_qp *qp, struct sroce_cq *cq,
		       const struct sroce_cqe *cqe, bool solicited,
		       struct sroce_nfy *nfy)
{
	struct sroce_cqe c = *cqe;
	int ret;

	lockdep_assert_held(&qp->lock);
	c.qp_num = qp->ibqp.qp_num;
	c.port_num = SROCE_PORT;
	ret = sroce_cq_post(cq, &c, solicited);
	if (ret > 0)
		sroce_nfy_add_cq(nfy->cq, cq);
	if (ret == -EOVERFLOW)
		sroce_nfy_add_cq(nfy->cq_err, cq);
	if (ret < 0 && qp->state != IB_QPS_ERR) {
		nfy->qp_fatal = qp;
		sroce_qp_error(qp, nfy);
	}
}

/* IB_EVENT_QP_FATAL: the QP entered the error state on its own */
static void sroce_qp_fatal_event(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_FATAL,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_qp_notify() - signal the CQs and report the events collected
 *	under the QP lock
 * @nfy: what sroce_qp_complete() and the engine collected; the QP lock
 *	is not held
 */
void sroce_qp_notify(struct sroce_nfy *nfy)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(nfy->cq); i++) {
		if (nfy->cq_err[i])
			sroce_cq_overflow_event(nfy->cq_err[i]);
		if (nfy->cq[i])
			sroce_cq_signal(nfy->cq[i]);
	}
	if (nfy->qp_fatal)
		sroce_qp_fatal_event(nfy->qp_fatal);
	if (nfy->srq_limit)
		sroce_srq_limit_event(nfy->srq_limit);
	if (nfy->last_wqe)
		sroce_srq_last_wqe_event(nfy->last_wqe);
	if (nfy->srq_ref)
		sroce_srq_put(nfy->srq_ref);
}
