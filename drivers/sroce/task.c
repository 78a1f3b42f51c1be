// SPDX-License-Identifier: GPL-2.0
/*
 * task.c - where the engines of a QP run.
 *
 * The requester (req.c) and the responder's output (resp_out.c) each run
 * in one context at a time per QP: the one that kicks it, unless another
 * context runs it already (which then looks once more), or the QP's work
 * item when the kicker cannot (interrupts off) or when a run in softirq
 * used up its budget.
 */
#include <linux/moduleparam.h>

#include "sroce.h"
#include "engine.h"

/*
 * Where the requester runs: in the context that kicks it (false, the
 * default), or always in the QP's work item.  For measuring the execution
 * model (scripts/bench model); see Documentation/kernel-driver.md.
 */
static bool req_defer;
module_param(req_defer, bool, 0644);
MODULE_PARM_DESC(req_defer,
		 "run the requester in a work item instead of the caller (default: no)");

/*
 * sroce_qp_run_one() - run an engine of a QP in one context at a time
 * @qp: the QP
 * @running_bit: the engine's RUNNING bit of enum sroce_qp_flag; its AGAIN
 *	bit follows it
 * @run: the engine; true when it has nothing more to do, false when it
 *	stopped early (its budget in softirq) and must go on elsewhere
 * @work: where it goes on then: queued once this context let go of
 *	RUNNING, so the work item can take it
 *
 * Runs @run here unless another context runs it; that one then runs it
 * once more, so nothing asked for is missed.
 */
static void sroce_qp_run_one(struct sroce_qp *qp, unsigned int running_bit,
			     bool (*run)(struct sroce_qp *qp),
			     struct work_struct *work)
{
	unsigned int again_bit = running_bit + 1;

	set_bit(again_bit, &qp->flags);
	while (!test_and_set_bit(running_bit, &qp->flags)) {
		bool done = true;

		while (done && test_and_clear_bit(again_bit, &qp->flags))
			done = run(qp);
		clear_bit_unlock(running_bit, &qp->flags);
		if (!done) {
			queue_work(system_highpri_wq, work);
			break;
		}
		/* A kick that saw RUNNING set AGAIN before: see it now. */
		smp_mb__after_atomic();
		if (!test_bit(again_bit, &qp->flags))
			break;
	}
}

/**
 * sroce_req_kick() - make the requester look at its QP
 * @qp: the QP
 *
 * Runs the requester in this context, unless another one runs it (which
 * then looks again), interrupts are off or req_defer is set: then the
 * QP's work item runs it.
 */
void sroce_req_kick(struct sroce_qp *qp)
{
	if (READ_ONCE(req_defer) || in_hardirq() || irqs_disabled()) {
		queue_work(system_highpri_wq, &qp->req_work);
		return;
	}
	sroce_qp_run_one(qp, SROCE_QPF_REQ_RUNNING, sroce_req_run,
			 &qp->req_work);
}

/**
 * sroce_req_work() - the QP's work item: runs the requester
 * @work: struct sroce_qp.req_work
 */
void sroce_req_work(struct work_struct *work)
{
	sroce_qp_run_one(container_of(work, struct sroce_qp, req_work),
			 SROCE_QPF_REQ_RUNNING, sroce_req_run, work);
}

/**
 * sroce_req_retry() - the QP's delayed work item: the requester again
 * @work: struct sroce_qp.req_retry
 */
void sroce_req_retry(struct work_struct *work)
{
	sroce_req_kick(container_of(to_delayed_work(work), struct sroce_qp,
				    req_retry));
}

/**
 * sroce_resp_kick() - send what the responder has to send
 * @qp: the QP, lock not held
 */
void sroce_resp_kick(struct sroce_qp *qp)
{
	sroce_qp_run_one(qp, SROCE_QPF_RESP_RUNNING, sroce_resp_run,
			 &qp->resp_work);
}

/**
 * sroce_resp_work() - the QP's responder work item: long READ responses
 * @work: struct sroce_qp.resp_work
 */
void sroce_resp_work(struct work_struct *work)
{
	sroce_resp_kick(container_of(work, struct sroce_qp, resp_work));
}
