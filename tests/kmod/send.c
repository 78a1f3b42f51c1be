// SPDX-License-Identifier: GPL-2.0
/*
 * send.c - SEND and RECV: a message gathered from and scattered into
 * several SGEs; SEND_WITH_IMM with and without a payload.
 */
#include "kvt.h"

/* SEND of 5000 bytes gathered from 3 SGEs, scattered into 3 SGEs. */
enum kvt_result kvt_case_send_sge(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge src[KVT_SGE], dst[KVT_SGE];
	struct ib_send_wr wr = {};
	struct kvt_op *rop;

	kvt_fill(a->buf + 0, 1000, 1, 0);
	kvt_fill(a->buf + 4104, 2500, 1, 1000);
	kvt_fill(a->buf + 12000, 1500, 1, 3500);
	src[0] = kvt_sge(a, 0, 1000);
	src[1] = kvt_sge(a, 4104, 2500);
	src[2] = kvt_sge(a, 12000, 1500);
	dst[0] = kvt_sge(b, 100, 2000);
	dst[1] = kvt_sge(b, 8192, 2000);
	dst[2] = kvt_sge(b, 20000, 2100);

	rop = kvt_post_recv(ctx, b, dst, 3);
	if (!rop)
		return KVT_FAIL;
	wr.opcode = IB_WR_SEND;
	wr.sg_list = src;
	wr.num_sge = 3;
	if (kvt_send_recv(ctx, a, &wr, "A: SEND", rop, "B: RECV"))
		return KVT_FAIL;
	if (rop->wc.byte_len != 5000 || (rop->wc.wc_flags & IB_WC_WITH_IMM)) {
		kvt_diag("B: RECV of %u bytes, wc_flags 0x%x; expected 5000, no immediate\n",
			 rop->wc.byte_len, rop->wc.wc_flags);
		return KVT_FAIL;
	}
	if (!kvt_check("B SGE 0", b->buf + 100, 2000, 1, 0) ||
	    !kvt_check("B SGE 1", b->buf + 8192, 2000, 1, 2000) ||
	    !kvt_check("B SGE 2", b->buf + 20000, 1000, 1, 4000) ||
	    !kvt_check_val("B before SGE 0", b->buf + 99, 1, KVT_CANARY) ||
	    !kvt_check_val("B after SGE 0", b->buf + 2100, 1, KVT_CANARY) ||
	    !kvt_check_val("B after SGE 1", b->buf + 10192, 1, KVT_CANARY) ||
	    !kvt_check_val("B rest of SGE 2", b->buf + 21000, 1100,
			   KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/* SEND_WITH_IMM from B to A: 300 bytes, then none. */
enum kvt_result kvt_case_send_imm(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	static const u32 imm[2] = { 0x1234abcd, 0xfeedf00d };
	static const u32 len[2] = { 300, 0 };
	struct kvt_op *rop[2];
	struct ib_sge src, dst[2];
	struct ib_send_wr wr;
	int i, ret = 0;

	kvt_fill(b->buf, 300, 2, 0);
	for (i = 0; i < 2; i++) {
		dst[i] = kvt_sge(a, i * 4096, 4096);
		rop[i] = kvt_post_recv(ctx, a, &dst[i], 1);
		if (!rop[i])
			return KVT_FAIL;
	}
	for (i = 0; i < 2; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IB_WR_SEND_WITH_IMM;
		wr.ex.imm_data = cpu_to_be32(imm[i]);
		src = kvt_sge(b, 0, len[i]);
		wr.sg_list = &src;
		wr.num_sge = len[i] ? 1 : 0;
		ret = kvt_send_wait(ctx, b, &wr, "B: SEND_WITH_IMM",
				    IB_WC_SUCCESS, IB_WC_SEND) ?: ret;
	}
	for (i = 0; i < 2; i++) {
		if (kvt_reap(ctx, rop[i], "A: RECV", IB_WC_SUCCESS,
			     IB_WC_RECV)) {
			ret = -EIO;
			continue;
		}
		if (!(rop[i]->wc.wc_flags & IB_WC_WITH_IMM) ||
		    be32_to_cpu(rop[i]->wc.ex.imm_data) != imm[i] ||
		    rop[i]->wc.byte_len != len[i]) {
			kvt_diag("A: RECV %d: flags 0x%x, imm 0x%08x, %u B; want 0x%08x, %u B\n",
				 i, rop[i]->wc.wc_flags,
				 be32_to_cpu(rop[i]->wc.ex.imm_data),
				 rop[i]->wc.byte_len, imm[i], len[i]);
			ret = -EIO;
		}
	}
	if (ret || !kvt_check("A", a->buf, 300, 2, 0) ||
	    !kvt_check_val("A after the message", a->buf + 300, 1,
			   KVT_CANARY) ||
	    !kvt_check_val("A's second buffer", a->buf + 4096, 64, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

