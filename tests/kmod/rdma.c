// SPDX-License-Identifier: GPL-2.0
/*
 * rdma.c - RDMA WRITE, WRITE_WITH_IMM and READ with kernel buffers through
 * B's unsafe global rkey, and a WRITE with a wrong variant of it.
 */
#include "kvt.h"

/* RDMA WRITE of 7000 bytes from 3 SGEs to B's unsafe global rkey. */
enum kvt_result kvt_case_write(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge src[KVT_SGE];

	kvt_fill(a->buf + 0, 2000, 3, 0);
	kvt_fill(a->buf + 8192, 3000, 3, 2000);
	kvt_fill(a->buf + 16385, 2000, 3, 5000);
	src[0] = kvt_sge(a, 0, 2000);
	src[1] = kvt_sge(a, 8192, 3000);
	src[2] = kvt_sge(a, 16385, 2000);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, src, 3, b->dma + 3000,
		     b->pd->unsafe_global_rkey, IB_WC_SUCCESS))
		return KVT_FAIL;
	if (!kvt_check("B", b->buf + 3000, 7000, 3, 0) ||
	    !kvt_check_val("B before", b->buf + 2999, 1, KVT_CANARY) ||
	    !kvt_check_val("B after", b->buf + 10000, 1, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/* RDMA WRITE_WITH_IMM: 3000 bytes written, B's receive gets the data. */
enum kvt_result kvt_case_write_imm(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
			.ex.imm_data = cpu_to_be32(0xc0ffee42),
			.num_sge = 1,
		},
	};
	struct ib_sge src;
	struct kvt_op *rop;

	wr.rkey = b->pd->unsafe_global_rkey;
	kvt_fill(a->buf, 3000, 4, 0);
	src = kvt_sge(a, 0, 3000);
	wr.wr.sg_list = &src;
	wr.remote_addr = b->dma + 32768;
	/* The immediate consumes a receive; it needs no SGE. */
	rop = kvt_post_recv(ctx, b, NULL, 0);
	if (!rop)
		return KVT_FAIL;
	if (kvt_send_recv(ctx, a, &wr.wr, "A: RDMA WRITE_WITH_IMM", rop,
			  "B: RECV"))
		return KVT_FAIL;
	if (!(rop->wc.wc_flags & IB_WC_WITH_IMM) ||
	    be32_to_cpu(rop->wc.ex.imm_data) != 0xc0ffee42 ||
	    rop->wc.byte_len != 3000) {
		kvt_diag("B: flags 0x%x, imm 0x%08x, %u B; want 0xc0ffee42, 3000 B\n",
			 rop->wc.wc_flags, be32_to_cpu(rop->wc.ex.imm_data),
			 rop->wc.byte_len);
		return KVT_FAIL;
	}
	if (!kvt_check("B", b->buf + 32768, 3000, 4, 0) ||
	    !kvt_check_val("B after", b->buf + 35768, 1, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/* RDMA READ of 9000 bytes of B into 3 SGEs of A (9 responses at 1024). */
enum kvt_result kvt_case_read(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge dst[KVT_SGE];

	kvt_fill(b->buf + 40000, 9000, 5, 0);
	dst[0] = kvt_sge(a, 1000, 4000);
	dst[1] = kvt_sge(a, 20000, 3000);
	dst[2] = kvt_sge(a, 30001, 2000);
	if (kvt_rdma(ctx, IB_WR_RDMA_READ, dst, 3, b->dma + 40000,
		     b->pd->unsafe_global_rkey, IB_WC_SUCCESS))
		return KVT_FAIL;
	if (!kvt_check("A SGE 0", a->buf + 1000, 4000, 5, 0) ||
	    !kvt_check("A SGE 1", a->buf + 20000, 3000, 5, 4000) ||
	    !kvt_check("A SGE 2", a->buf + 30001, 2000, 5, 7000) ||
	    !kvt_check_val("A before SGE 0", a->buf + 999, 1, KVT_CANARY) ||
	    !kvt_check_val("A after SGE 0", a->buf + 5000, 1, KVT_CANARY) ||
	    !kvt_check_val("A after SGE 1", a->buf + 23000, 1, KVT_CANARY) ||
	    !kvt_check_val("A after SGE 2", a->buf + 32001, 1, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/*
 * A storage target's reply as nfsd and nvmet post it: an RDMA WRITE of the
 * data, then, in a post of its own, the SEND that reports it.  Bottom
 * halves are off around both posts, so both packets wait in the receiving
 * CPU's backlog and B's receive softirq takes them in one batch, each
 * asking for an ACK.  The data of both and their order are checked.
 */
enum kvt_result kvt_case_write_send_apart(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.num_sge = 1,
		},
		.rkey = b->pd->unsafe_global_rkey,
	};
	struct ib_send_wr send = {
		.opcode = IB_WR_SEND,
		.num_sge = 1,
	};
	struct ib_sge data = kvt_sge(a, 0, KVT_APART_DATA);
	struct ib_sge msg = kvt_sge(a, KVT_APART_DATA, KVT_APART_MSG);
	struct ib_sge dst = kvt_sge(b, KVT_APART_DATA, KVT_APART_MSG);
	struct kvt_op *wop, *sop, *rop;
	int i, ret;

	wr.wr.sg_list = &data;
	wr.remote_addr = b->dma;
	send.sg_list = &msg;
	for (i = 0; i < KVT_APART_PAIRS; i++) {
		kvt_fill(a->buf, KVT_APART_DATA + KVT_APART_MSG, 20 + i, 0);
		memset(b->buf, KVT_CANARY, KVT_APART_DATA + KVT_APART_MSG + 1);
		rop = kvt_post_recv(ctx, b, &dst, 1);
		if (!rop)
			return KVT_FAIL;
		local_bh_disable();
		wop = kvt_post_send(ctx, a, &wr.wr);
		sop = wop ? kvt_post_send(ctx, a, &send) : NULL;
		local_bh_enable();
		ret = wop ? kvt_reap(ctx, wop, "A: RDMA WRITE", IB_WC_SUCCESS,
				     IB_WC_RDMA_WRITE) : -EIO;
		ret = (sop ? kvt_reap(ctx, sop, "A: SEND", IB_WC_SUCCESS,
				      IB_WC_SEND) : -EIO) ?: ret;
		ret = kvt_reap(ctx, rop, "B: RECV", IB_WC_SUCCESS,
			       IB_WC_RECV) ?: ret;
		if (ret)
			return KVT_FAIL;
		if (rop->wc.byte_len != KVT_APART_MSG) {
			kvt_diag("B: RECV of %u B, want %u\n", rop->wc.byte_len,
				 KVT_APART_MSG);
			return KVT_FAIL;
		}
		if (!kvt_check("B", b->buf, KVT_APART_DATA + KVT_APART_MSG,
			       20 + i, 0) ||
		    !kvt_check_val("B after", b->buf + KVT_APART_DATA +
				   KVT_APART_MSG, 1, KVT_CANARY))
			return KVT_FAIL;
	}
	return KVT_PASS;
}

/* A WRITE with B's global rkey of another variant byte is refused. */
enum kvt_result kvt_case_bad_rkey(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge src;

	kvt_fill(a->buf, 64, 6, 0);
	src = kvt_sge(a, 0, 64);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, &src, 1, b->dma,
		     b->pd->unsafe_global_rkey ^ 0x80, IB_WC_REM_ACCESS_ERR))
		return KVT_FAIL;
	if (!kvt_check_val("B", b->buf, 64, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

