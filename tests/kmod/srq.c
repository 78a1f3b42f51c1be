// SPDX-License-Identifier: GPL-2.0
/*
 * srq.c - a shared receive queue of A as a kernel ULP uses one: its own
 * pair of QPs, A's taking its receives from the SRQ.
 */
#include "kvt.h"

#include <linux/delay.h>

#define KVT_SRQ_WR	8	/* asked for; a device may grant more */
#define KVT_SRQ_POST	16	/* at most this many posted */
#define KVT_SRQ_SLOT	512	/* bytes of A's buffer per receive */
#define KVT_SRQ_MSG	256	/* bytes per message, over both SGEs */

/* What the SRQ case's event handlers saw. */
static struct {
	struct completion limit;
	atomic_t limits;
	atomic_t last_wqe;
} kvt_srq_ev;

static void kvt_srq_event(struct ib_event *ev, void *context)
{
	kvt_diag("SRQ event: %s\n", ib_event_msg(ev->event));
	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED) {
		atomic_inc(&kvt_srq_ev.limits);
		complete(&kvt_srq_ev.limit);
	}
}

static void kvt_srq_qp_event(struct ib_event *ev, void *context)
{
	kvt_diag("A's SRQ QP: QP event: %s\n", ib_event_msg(ev->event));
	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&kvt_srq_ev.last_wqe);
}

/* Post receive @i of the SRQ: 2 SGEs in slot @i of A's buffer. */
static struct kvt_op *kvt_srq_post(struct kvt_ctx *ctx, struct ib_srq *srq,
				   struct ib_qp *qp, u32 i, int *err)
{
	struct kvt_end *a = &ctx->a;
	struct ib_sge sge[2] = {
		kvt_sge(a, i * KVT_SRQ_SLOT, 100),
		kvt_sge(a, i * KVT_SRQ_SLOT + 200, 300),
	};
	struct ib_recv_wr wr = { .sg_list = sge, .num_sge = 2 };
	struct kvt_op *op = kvt_op_get(ctx, a->recv_cq, qp);

	*err = -EIO;
	if (!op)
		return NULL;
	wr.wr_cqe = &op->cqe;
	*err = ib_post_srq_recv(srq, &wr, NULL);
	if (*err) {
		kvt_op_put(op);
		return NULL;
	}
	return op;
}

/* A QP of @e's on @srq (or with its own small RQ), connected later. */
static struct ib_qp *kvt_srq_qp(struct kvt_end *e, struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.event_handler = srq ? kvt_srq_qp_event : kvt_qp_event,
		.qp_context = e,
		.send_cq = e->send_cq,
		.recv_cq = e->recv_cq,
		.srq = srq,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = srq ? 0 : 1,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp = ib_create_qp(e->pd, &init);

	if (IS_ERR(qp)) {
		kvt_diag("%s: ib_create_qp%s: %ld\n", e->role,
			 srq ? " with the SRQ" : "", PTR_ERR(qp));
		return NULL;
	}
	return qp;
}

/*
 * A's new QP takes its receives from an SRQ of A (kernel create_srq and
 * post_srq_recv, 2 SGEs each), B's new QP sends to it: the SRQ takes
 * the max_wr it granted (and no more: -ENOMEM), the QP has no receive
 * queue of its own, a limit above max_wr is refused, the armed limit
 * fires once at the right WQE and reads 0 after, the messages land in
 * the SRQ's WQEs in order, and the QP's ERROR leaves the WQEs left in
 * the SRQ alone (no flush completion).
 */
enum kvt_result kvt_case_srq(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_srq_init_attr sinit = {
		.event_handler = kvt_srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = KVT_SRQ_WR, .max_sge = 2 },
	};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct kvt_op *rop[KVT_SRQ_POST + 1] = {};
	struct ib_qp_attr qattr = { .qp_state = IB_QPS_ERR };
	struct kvt_end ea = *a, eb = *b;
	enum kvt_result res = KVT_FAIL;
	struct ib_srq_attr sattr;
	struct ib_recv_wr rwr = {};
	struct ib_srq *srq;
	struct ib_sge src;
	u32 max_wr, posted, limit, i, taken = 0;
	int ret;

	init_completion(&kvt_srq_ev.limit);
	atomic_set(&kvt_srq_ev.limits, 0);
	atomic_set(&kvt_srq_ev.last_wqe, 0);

	srq = ib_create_srq(a->pd, &sinit);
	if (IS_ERR(srq)) {
		kvt_diag("A: ib_create_srq: %ld\n", PTR_ERR(srq));
		return KVT_FAIL;
	}
	max_wr = sinit.attr.max_wr;
	kvt_diag("A: SRQ of %u WQEs x %u SGEs granted\n", max_wr,
		 sinit.attr.max_sge);
	ea.role = "A (SRQ)";
	ea.qp = kvt_srq_qp(a, srq);
	eb.role = "B (to the SRQ)";
	eb.qp = kvt_srq_qp(b, NULL);
	if (!ea.qp || !eb.qp || max_wr < KVT_SRQ_WR || max_wr > KVT_SRQ_POST)
		goto out;
	ea.psn = 0x111111;
	eb.psn = 0x222222;
	if (kvt_connect_pair(ctx, &ea, &eb))
		goto out;

	for (i = 0; i < max_wr; i++) {
		rop[i] = kvt_srq_post(ctx, srq, ea.qp, i, &ret);
		if (!rop[i]) {
			kvt_diag("A: ib_post_srq_recv %u of %u: %d\n", i,
				 max_wr, ret);
			goto out;
		}
	}
	/*
	 * Full at max_wr.  rdma_rxe of 6.1 reports the max_wr asked for
	 * but its ring holds more (2^n - 1 entries): there, one more post
	 * is only counted.
	 */
	posted = max_wr;
	rop[max_wr] = kvt_srq_post(ctx, srq, ea.qp, max_wr, &ret);
	if (rop[max_wr] && a->dev->ops.driver_id == RDMA_DRIVER_RXE) {
		kvt_diag("A: rdma_rxe took a WQE beyond max_wr %u\n", max_wr);
		posted++;
	} else if (rop[max_wr] || ret != -ENOMEM) {
		kvt_diag("A: post_srq_recv beyond max_wr %u: %d, expected -ENOMEM\n",
			 max_wr, ret);
		goto out;
	}
	ret = ib_post_recv(ea.qp, &rwr, NULL);
	if (!ret) {
		kvt_diag("A: ib_post_recv on a QP with an SRQ succeeded\n");
		goto out;
	}

	/*
	 * Refused above max_wr, nothing changed; then armed.  rdma_rxe
	 * checks against its larger ring: there only an absurd limit.
	 */
	limit = posted - 3;
	for (i = 0; i < 2; i++) {
		sattr.srq_limit = i ? max_wr + 1 : U32_MAX;
		if (i && a->dev->ops.driver_id == RDMA_DRIVER_RXE)
			break;
		ret = ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT);
		if (ret != -EINVAL) {
			kvt_diag("A: SRQ limit %u above max_wr %u: %d, expected -EINVAL\n",
				 sattr.srq_limit, max_wr, ret);
			goto out;
		}
	}
	sattr.srq_limit = limit;
	ret = ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT) ?:
	      ib_query_srq(srq, &sattr);
	/* rdma_rxe reports its ring's size here, more than it granted. */
	if (ret || sattr.srq_limit != limit || sattr.max_wr < max_wr) {
		kvt_diag("A: SRQ limit %u: %d, query says limit %u max_wr %u\n",
			 limit, ret, sattr.srq_limit, sattr.max_wr);
		goto out;
	}

	/* Message i lands in WQE i; the 4th leaves limit - 1 posted. */
	for (i = 0; i < 4; i++) {
		kvt_fill(b->buf, KVT_SRQ_MSG, 40 + i, 0);
		src = kvt_sge(b, 0, KVT_SRQ_MSG);
		wr.sg_list = &src;
		wr.num_sge = 1;
		ret = kvt_send_recv(ctx, &eb, &wr, "B: SEND to the SRQ QP",
				    rop[i], "A: RECV from the SRQ");
		rop[i] = NULL;
		taken++;
		if (ret)
			goto out;
		if (!kvt_check("A's SRQ WQE, SGE 0",
			       a->buf + i * KVT_SRQ_SLOT, 100, 40 + i, 0) ||
		    !kvt_check("A's SRQ WQE, SGE 1",
			       a->buf + i * KVT_SRQ_SLOT + 200,
			       KVT_SRQ_MSG - 100, 40 + i, 100))
			goto out;
		if (i == 2) {
			msleep(100);
			if (atomic_read(&kvt_srq_ev.limits)) {
				kvt_diag("A: SRQ limit event with %u WQEs left, limit %u\n",
					 posted - taken, limit);
				goto out;
			}
		}
	}
	if (!wait_for_completion_timeout(&kvt_srq_ev.limit, ctx->timeout)) {
		kvt_diag("A: no SRQ limit event with %u WQEs left, limit %u\n",
			 posted - taken, limit);
		goto out;
	}
	ret = ib_query_srq(srq, &sattr);
	if (ret || sattr.srq_limit) {
		kvt_diag("A: after the event: query %d, limit %u (expected 0)\n",
			 ret, sattr.srq_limit);
		goto out;
	}

	/* ERROR: the SRQ's WQEs are not the QP's to flush. */
	if (kvt_modify(&ea, &qattr, IB_QP_STATE, "ERR"))
		goto out;
	msleep(200);
	for (i = taken; i < posted; i++) {
		if (completion_done(&rop[i]->done)) {
			kvt_diag("A: SRQ WQE %u completed (status %s) when its QP failed\n",
				 i, ib_wc_status_msg(rop[i]->wc.status));
			goto out;
		}
	}
	if (atomic_read(&kvt_srq_ev.limits) != 1) {
		kvt_diag("A: %d SRQ limit events, expected 1\n",
			 atomic_read(&kvt_srq_ev.limits));
		goto out;
	}
	/* rdma_rxe of 6.1 does not report it; sroce must. */
	kvt_diag("A: %d LAST_WQE_REACHED event(s)\n",
		 atomic_read(&kvt_srq_ev.last_wqe));
	if (a->dev->ops.driver_id != RDMA_DRIVER_RXE &&
	    atomic_read(&kvt_srq_ev.last_wqe) != 1)
		goto out;
	res = KVT_PASS;
out:
	if (res != KVT_PASS)
		kvt_diag("A: SRQ case failed\n");
	/* The QPs first (they use the SRQ), then the SRQ and its WQEs. */
	if (ea.qp)
		ib_destroy_qp(ea.qp);
	if (eb.qp)
		ib_destroy_qp(eb.qp);
	ib_destroy_srq(srq);
	/* Receives the QP never took: gone with the SRQ, never completed. */
	for (i = 0; i <= KVT_SRQ_POST; i++)
		if (rop[i])
			kvt_op_put(rop[i]);
	return res;
}

