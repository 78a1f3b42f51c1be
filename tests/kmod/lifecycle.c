// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle.c - the QPs' life beyond RTS: ib_drain_qp() flushing what is
 * posted, and a return through RESET to RTS.
 */
#include "kvt.h"

#include <linux/delay.h>

/*
 * @op (@what in a diagnostic) completed with IB_WC_WR_FLUSH_ERR before
 * ib_drain_qp() returned: it is free again.
 */
static bool kvt_flushed(struct kvt_op *op, const char *what)
{
	if (completion_done(&op->done) &&
	    op->wc.status == IB_WC_WR_FLUSH_ERR) {
		kvt_op_put(op);
		return true;
	}
	kvt_diag("%s: %s after ib_drain_qp(), expected %s\n", what,
		 completion_done(&op->done) ?
		 ib_wc_status_msg(op->wc.status) : "no completion",
		 ib_wc_status_msg(IB_WC_WR_FLUSH_ERR));
	return false;
}

#define KVT_DRAIN_RECVS	8

/* Post KVT_DRAIN_RECVS receives of 256 bytes on @e, from @off of its buffer. */
static bool kvt_drain_recvs(struct kvt_ctx *ctx, struct kvt_end *e, u32 off,
			    struct kvt_op **rop)
{
	struct ib_sge sge;
	int i;

	for (i = 0; i < KVT_DRAIN_RECVS; i++) {
		sge = kvt_sge(e, off + i * 256, 256);
		rop[i] = kvt_post_recv(ctx, e, &sge, 1);
		if (!rop[i]) {
			ctx->need_reset = true;
			return false;
		}
	}
	return true;
}

/*
 * ib_drain_qp() with receives posted on both QPs and, on A, a SEND that
 * waits out RNR NAKs (B has no receive): every one of them flushes.
 */
enum kvt_result kvt_case_drain(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct kvt_op *sop, *rop[2][KVT_DRAIN_RECVS];
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct ib_sge sge;
	char what[32];
	bool ok;
	int i, j;

	sge = kvt_sge(a, 0, 64);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	sop = kvt_post_send(ctx, a, &wr);
	if (!sop)
		return KVT_FAIL;
	/* Long enough for the SEND to meet an RNR NAK. */
	msleep(50);
	if (!kvt_drain_recvs(ctx, a, 4096, rop[0]))
		return KVT_FAIL;
	ib_drain_qp(a->qp);
	/*
	 * B receives only now, with A in ERROR: the SEND cannot land (a
	 * retransmission still on its way has had time to arrive).
	 */
	msleep(20);
	if (!kvt_drain_recvs(ctx, b, 0, rop[1]))
		return KVT_FAIL;
	ib_drain_qp(b->qp);
	ctx->need_reset = true;

	/* Drained: every completion was consumed before the drain's own. */
	ok = kvt_flushed(sop, "A's SEND");
	for (i = 0; i < 2; i++) {
		for (j = 0; j < KVT_DRAIN_RECVS; j++) {
			snprintf(what, sizeof(what), "%s's receive %d",
				 i ? "B" : "A", j);
			if (!kvt_flushed(rop[i][j], what))
				ok = false;
		}
	}
	return ok ? KVT_PASS : KVT_FAIL;
}

/* Through RESET to RTS again: SEND both ways, query_qp says RTS. */
enum kvt_result kvt_case_reconnect(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct kvt_end *from, *to;
	struct ib_qp_init_attr init;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct ib_qp_attr attr;
	struct kvt_op *rop;
	int i, ret;

	for (i = 0; i < 2; i++) {
		from = i ? b : a;
		to = i ? a : b;
		ret = ib_query_qp(from->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN,
				  &init);
		if (ret || attr.qp_state != IB_QPS_RTS ||
		    attr.sq_psn != from->psn) {
			kvt_diag("%s: ib_query_qp: %d, state %d, SQ PSN 0x%x; expected RTS, 0x%x\n",
				 from->role, ret, attr.qp_state, attr.sq_psn,
				 from->psn);
			return KVT_FAIL;
		}
		kvt_fill(from->buf, 2000, 20 + i, 0);
		rop = kvt_message(ctx, from, &wr, "SEND", 2000, to,
				  kvt_sge(to, 8192, 4096));
		if (!rop || rop->wc.byte_len != 2000 ||
		    !kvt_check(to->role, to->buf + 8192, 2000, 20 + i, 0))
			return KVT_FAIL;
	}
	return KVT_PASS;
}

