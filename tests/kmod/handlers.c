// SPDX-License-Identifier: GPL-2.0
/*
 * handlers.c - posting from completion handlers, as ULPs do: A's send
 * handler (softirq) and receive handler (work queue) post the next work
 * request of a chain themselves.
 */
#include "kvt.h"

/*
 * A's next chained SEND: message @ch->posted, from its own buffer.  Its
 * completion may run before ib_post_send() returns (a device may send,
 * and see the ACK, from within the call): the count moves first.
 */
static int kvt_chain_post_send(struct kvt_chain *ch)
{
	struct kvt_end *a = &ch->ctx->a;
	struct ib_sge sge = kvt_sge(a, ch->posted++ * KVT_CHAIN_LEN,
				    KVT_CHAIN_LEN);
	struct ib_send_wr wr = {
		.wr_cqe = &ch->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	ret = ib_post_send(a->qp, &wr, NULL);
	if (ret)
		ch->posted--;	/* nothing posted: no completion ran */
	return ret;
}

static int kvt_chain_post_recv(struct kvt_chain *ch, u32 slot)
{
	struct kvt_end *a = &ch->ctx->a;
	struct ib_sge sge = kvt_sge(a, 32768 + slot * KVT_CHAIN_LEN,
				    KVT_CHAIN_LEN);
	struct ib_recv_wr wr = {
		.wr_cqe = &ch->rx[slot].cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	ch->posted++;
	ret = ib_post_recv(a->qp, &wr, NULL);
	if (ret)
		ch->posted--;
	return ret;
}

static void kvt_chain_end(struct kvt_chain *ch, enum ib_wc_status status,
			  int err)
{
	if (ch->status == IB_WC_SUCCESS && !ch->err) {
		ch->status = status;
		ch->err = err;
	}
	complete(&ch->done);
}

/* One more completion; at the last the chain is done. */
static bool kvt_chain_last(struct kvt_chain *ch)
{
	if (++ch->completed < KVT_CHAIN_MSGS)
		return false;
	complete(&ch->done);
	return true;
}

/* A's send handler (softirq): post the next SEND of the chain. */
static void kvt_chain_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvt_chain *ch = container_of(wc->wr_cqe, struct kvt_chain,
					    send_cqe);
	int ret;

	if (READ_ONCE(ch->in_post))
		ch->early++;
	if (wc->status != IB_WC_SUCCESS) {
		kvt_chain_end(ch, wc->status, 0);
		return;
	}
	if (kvt_chain_last(ch) || READ_ONCE(ch->stop))
		return;
	ret = kvt_chain_post_send(ch);
	if (ret)
		kvt_chain_end(ch, IB_WC_SUCCESS, ret);
}

/* A's receive handler (work queue): check the message, post again. */
static void kvt_chain_recvd(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvt_chain_rx *rx = container_of(wc->wr_cqe,
					       struct kvt_chain_rx, cqe);
	struct kvt_chain *ch = rx->ch;
	const u8 *p = ch->ctx->a.buf + 32768 + rx->slot * KVT_CHAIN_LEN;
	u32 i;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		kvt_chain_end(ch, wc->status, 0);
		return;
	}
	if (wc->byte_len != KVT_CHAIN_LEN) {
		kvt_chain_end(ch, IB_WC_SUCCESS, -EMSGSIZE);
		return;
	}
	for (i = 0; i < KVT_CHAIN_LEN; i++) {
		if (p[i] != kvt_pat(22, ch->completed * KVT_CHAIN_LEN + i)) {
			kvt_chain_end(ch, IB_WC_SUCCESS, -EBADMSG);
			return;
		}
	}
	if (kvt_chain_last(ch) || ch->posted == KVT_CHAIN_MSGS ||
	    READ_ONCE(ch->stop))
		return;
	ret = kvt_chain_post_recv(ch, rx->slot);
	if (ret)
		kvt_chain_end(ch, IB_WC_SUCCESS, ret);
}

/* Wait for the end of the chain; false (and why) if it went wrong. */
static bool kvt_chain_wait(struct kvt_ctx *ctx, struct kvt_chain *ch,
			   const char *what)
{
	if (!wait_for_completion_timeout(&ch->done, 4 * ctx->timeout)) {
		WRITE_ONCE(ch->stop, true);
		ctx->need_reset = true;
		kvt_diag("%s: %u of %u completions, then none for %u ms\n",
			 what, ch->completed, KVT_CHAIN_MSGS,
			 4 * ctx->timeout_ms);
		return false;
	}
	if (ch->status != IB_WC_SUCCESS || ch->err ||
	    ch->completed != KVT_CHAIN_MSGS) {
		WRITE_ONCE(ch->stop, true);
		ctx->need_reset = true;
		kvt_diag("%s: stopped after %u of %u: status %s, error %d\n",
			 what, ch->completed, KVT_CHAIN_MSGS,
			 ib_wc_status_msg(ch->status), ch->err);
		return false;
	}
	return true;
}

static void kvt_chain_init(struct kvt_ctx *ctx, struct kvt_chain *ch)
{
	u32 i;

	ch->ctx = ctx;
	ch->send_cqe.done = kvt_chain_sent;
	for (i = 0; i < KVT_CHAIN_RECVS; i++) {
		ch->rx[i].cqe.done = kvt_chain_recvd;
		ch->rx[i].ch = ch;
		ch->rx[i].slot = i;
	}
	reinit_completion(&ch->done);
	ch->posted = 0;
	ch->completed = 0;
	ch->status = IB_WC_SUCCESS;
	ch->err = 0;
	WRITE_ONCE(ch->stop, false);
	ch->early = 0;
}

/*
 * Posting from completion handlers, as ULPs do: A's send handler (softirq)
 * posts each next SEND of a chain of 32; then A keeps 4 receives posted,
 * its receive handler (work queue) posting each again once it checked the
 * message, while B sends 32 at once (and meets RNR NAKs).
 */
enum kvt_result kvt_case_handlers(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct kvt_op *op[KVT_CHAIN_MSGS];
	struct kvt_chain *ch = &ctx->chain;
	struct ib_send_wr wr;
	struct ib_sge sge;
	bool ok = true;
	int ret;
	u32 i;

	kvt_fill(a->buf, KVT_CHAIN_MSGS * KVT_CHAIN_LEN, 21, 0);
	for (i = 0; i < KVT_CHAIN_MSGS; i++) {
		sge = kvt_sge(b, i * KVT_CHAIN_LEN, KVT_CHAIN_LEN);
		op[i] = kvt_post_recv(ctx, b, &sge, 1);
		if (!op[i])
			return KVT_FAIL;
	}
	kvt_chain_init(ctx, ch);
	WRITE_ONCE(ch->in_post, true);
	ret = kvt_chain_post_send(ch);
	WRITE_ONCE(ch->in_post, false);
	if (ret) {
		kvt_diag("A: ib_post_send: %d\n", ret);
		return KVT_FAIL;
	}
	if (!kvt_chain_wait(ctx, ch, "SENDs posted from A's send handler"))
		return KVT_FAIL;
	kvt_diag("%u send completions ran before the first ib_post_send() returned\n",
		 ch->early);
	for (i = 0; i < KVT_CHAIN_MSGS; i++)
		if (kvt_reap(ctx, op[i], "B: RECV", IB_WC_SUCCESS, IB_WC_RECV))
			ok = false;
	if (!ok || !kvt_check("B", b->buf, KVT_CHAIN_MSGS * KVT_CHAIN_LEN, 21,
			      0))
		return KVT_FAIL;

	kvt_fill(b->buf, KVT_CHAIN_MSGS * KVT_CHAIN_LEN, 22, 0);
	kvt_chain_init(ctx, ch);
	for (i = 0; i < KVT_CHAIN_RECVS; i++) {
		if (kvt_chain_post_recv(ch, i)) {
			kvt_diag("A: ib_post_recv failed\n");
			ctx->need_reset = true;
			return KVT_FAIL;
		}
	}
	for (i = 0; i < KVT_CHAIN_MSGS; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IB_WR_SEND;
		sge = kvt_sge(b, i * KVT_CHAIN_LEN, KVT_CHAIN_LEN);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		op[i] = kvt_post_send(ctx, b, &wr);
		if (!op[i]) {
			WRITE_ONCE(ch->stop, true);
			ctx->need_reset = true;
			return KVT_FAIL;
		}
	}
	/* B's SENDs wait out RNR NAKs forever if the chain broke. */
	if (!kvt_chain_wait(ctx, ch, "receives posted from A's receive handler"))
		return KVT_FAIL;
	for (i = 0; i < KVT_CHAIN_MSGS; i++)
		if (kvt_reap(ctx, op[i], "B: SEND", IB_WC_SUCCESS, IB_WC_SEND))
			ok = false;
	return ok ? KVT_PASS : KVT_FAIL;
}

