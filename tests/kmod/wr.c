// SPDX-License-Identifier: GPL-2.0
/*
 * wr.c - work requests and their completions: the pool of struct kvt_op,
 * waiting for and reaping a completion, posting receives and sends.
 */
#include "kvt.h"

#include <linux/delay.h>

static void kvt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvt_op *op = container_of(wc->wr_cqe, struct kvt_op, cqe);

	op->wc = *wc;
	complete(&op->done);
}

struct kvt_op *kvt_op_get(struct kvt_ctx *ctx, struct ib_cq *cq,
			  struct ib_qp *qp)
{
	struct kvt_op *op;
	int i;

	for (i = 0; i < KVT_OPS; i++) {
		op = &ctx->ops[i];
		if (op->busy)
			continue;
		op->busy = true;
		op->cq = cq;
		op->qp = qp;
		op->cqe.done = kvt_done;
		memset(&op->wc, 0, sizeof(op->wc));
		reinit_completion(&op->done);
		return op;
	}
	kvt_diag("no free work request (earlier ones never completed)\n");
	return NULL;
}

void kvt_op_put(struct kvt_op *op)
{
	op->busy = false;
}

bool kvt_ops_busy(struct kvt_ctx *ctx)
{
	int i;

	for (i = 0; i < KVT_OPS; i++)
		if (ctx->ops[i].busy)
			return true;
	return false;
}

/*
 * Wait for @op's completion: through the completion handler, or by polling
 * a direct CQ.  Return: 0 or -ETIMEDOUT (@op stays busy).
 */
int kvt_wait(struct kvt_ctx *ctx, struct kvt_op *op)
{
	unsigned long timeout = ctx->stalled ? 0 : ctx->timeout;
	unsigned long end = jiffies + timeout;

	if (op->cq->poll_ctx != IB_POLL_DIRECT) {
		if (wait_for_completion_timeout(&op->done, timeout))
			return 0;
		ctx->stalled = true;
		return -ETIMEDOUT;
	}
	for (;;) {
		if (completion_done(&op->done))
			return 0;
		ib_process_cq_direct(op->cq, 16);
		if (completion_done(&op->done))
			return 0;
		if (time_after_eq(jiffies, end)) {
			ctx->stalled = true;
			return -ETIMEDOUT;
		}
		usleep_range(20, 100);
	}
}

/*
 * Reap @op: it completes with @status and, on success, @opcode on its own
 * QP.  The op is free again unless it timed out.  Return: 0 or -EIO.
 */
int kvt_reap(struct kvt_ctx *ctx, struct kvt_op *op, const char *what,
	     enum ib_wc_status status, enum ib_wc_opcode opcode)
{
	const struct ib_wc *wc = &op->wc;

	if (kvt_wait(ctx, op)) {
		kvt_diag("%s: no completion within %u ms\n", what,
			 ctx->timeout_ms);
		ctx->need_reset = true;
		return -EIO;
	}
	kvt_op_put(op);
	if (wc->status != IB_WC_SUCCESS)
		ctx->need_reset = true;
	if (wc->status != status) {
		kvt_diag("%s: completion status %s (%d), expected %s\n", what,
			 ib_wc_status_msg(wc->status), wc->status,
			 ib_wc_status_msg(status));
		return -EIO;
	}
	if (status != IB_WC_SUCCESS)
		return 0;
	if (wc->opcode != opcode) {
		kvt_diag("%s: completion opcode %d, expected %d\n", what,
			 wc->opcode, opcode);
		return -EIO;
	}
	if (wc->qp != op->qp) {
		kvt_diag("%s: completion names QP %p, expected %p\n", what,
			 wc->qp, op->qp);
		return -EIO;
	}
	return 0;
}

struct ib_sge kvt_sge(struct kvt_end *e, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = e->dma + off,
		.length = len,
		.lkey = e->pd->local_dma_lkey,
	};

	return sge;
}

/* Post one receive of @n SGEs on @e; NULL if that failed. */
struct kvt_op *kvt_post_recv(struct kvt_ctx *ctx, struct kvt_end *e,
			     struct ib_sge *sge, int n)
{
	struct ib_recv_wr wr = {};
	struct kvt_op *op;
	int ret;

	op = kvt_op_get(ctx, e->recv_cq, e->qp);
	if (!op)
		return NULL;
	wr.wr_cqe = &op->cqe;
	wr.sg_list = sge;
	wr.num_sge = n;
	ret = ib_post_recv(e->qp, &wr, NULL);
	if (ret) {
		kvt_diag("%s: ib_post_recv: %d\n", e->role, ret);
		kvt_op_put(op);
		return NULL;
	}
	return op;
}

/* Post @wr (signaled; its wr_cqe is set here) on @e; NULL if refused. */
struct kvt_op *kvt_post_send(struct kvt_ctx *ctx, struct kvt_end *e,
			     struct ib_send_wr *wr)
{
	struct kvt_op *op;
	int ret;

	op = kvt_op_get(ctx, e->send_cq, e->qp);
	if (!op)
		return NULL;
	wr->wr_cqe = &op->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	wr->next = NULL;
	ret = ib_post_send(e->qp, wr, NULL);
	if (ret) {
		kvt_diag("%s: ib_post_send of opcode %d: %d\n", e->role,
			 wr->opcode, ret);
		kvt_op_put(op);
		return NULL;
	}
	return op;
}

/* Post @wr on @e and reap it with kvt_reap(). */
int kvt_send_wait(struct kvt_ctx *ctx, struct kvt_end *e,
		  struct ib_send_wr *wr, const char *what,
		  enum ib_wc_status status, enum ib_wc_opcode opcode)
{
	struct kvt_op *op = kvt_post_send(ctx, e, wr);

	if (!op)
		return -EIO;
	return kvt_reap(ctx, op, what, status, opcode);
}

/*
 * A message: post @wr (a SEND or an RDMA WRITE_WITH_IMM) on @e, then reap
 * it and the peer's receive @rop, both successful with their opcodes.
 */
int kvt_send_recv(struct kvt_ctx *ctx, struct kvt_end *e,
		  struct ib_send_wr *wr, const char *what, struct kvt_op *rop,
		  const char *rwhat)
{
	bool wimm = wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	int ret;

	ret = kvt_send_wait(ctx, e, wr, what, IB_WC_SUCCESS,
			    wimm ? IB_WC_RDMA_WRITE : IB_WC_SEND);
	return kvt_reap(ctx, rop, rwhat, IB_WC_SUCCESS,
			wimm ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV) ?: ret;
}

/*
 * A message of @len bytes from the start of @e's buffer into a receive
 * posted here on @to, of the one SGE @dst: @wr (a SEND of any kind) gets
 * its SGE for the call; both completions are reaped.  Return: the receive (its
 * completion in ->wc), or NULL.
 */
struct kvt_op *kvt_message(struct kvt_ctx *ctx, struct kvt_end *e,
			   struct ib_send_wr *wr, const char *what, u32 len,
			   struct kvt_end *to, struct ib_sge dst)
{
	struct ib_sge src = kvt_sge(e, 0, len);
	struct kvt_op *rop = kvt_post_recv(ctx, to, &dst, 1);
	int ret;

	if (!rop)
		return NULL;
	wr->sg_list = &src;
	wr->num_sge = 1;
	ret = kvt_send_recv(ctx, e, wr, what, rop,
			    to == &ctx->a ? "A: RECV" : "B: RECV");
	wr->sg_list = NULL;
	return ret ? NULL : rop;
}

/* RDMA WRITE or READ of @n SGEs of A at @raddr/@rkey of B. */
int kvt_rdma(struct kvt_ctx *ctx, enum ib_wr_opcode opcode,
	     struct ib_sge *sge, int n, u64 raddr, u32 rkey,
	     enum ib_wc_status status)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = opcode,
			.sg_list = sge,
			.num_sge = n,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	bool rd = opcode == IB_WR_RDMA_READ;

	return kvt_send_wait(ctx, &ctx->a, &wr.wr,
			     rd ? "RDMA READ" : "RDMA WRITE", status,
			     rd ? IB_WC_RDMA_READ : IB_WC_RDMA_WRITE);
}
