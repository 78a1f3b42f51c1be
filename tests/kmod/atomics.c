// SPDX-License-Identifier: GPL-2.0
/*
 * atomics.c - FETCH_ADD and CMP_SWP of A on a word of B, through an FRWR
 * MR of B with remote atomic access.
 */
#include "kvt.h"

/* One atomic of A on B's @raddr: @orig comes back, @now is left there. */
static int kvt_atomic(struct kvt_ctx *ctx, enum ib_wr_opcode opcode,
		      u64 raddr, u32 rkey, u64 compare_add, u64 swap,
		      u64 orig, u64 now, u64 *target)
{
	bool cs = opcode == IB_WR_ATOMIC_CMP_AND_SWP;
	struct ib_atomic_wr wr = {
		.wr = {
			.opcode = opcode,
			.num_sge = 1,
		},
		.remote_addr = raddr,
		.rkey = rkey,
		.compare_add = compare_add,
		.swap = swap,
	};
	struct ib_sge res = kvt_sge(&ctx->a, 64, sizeof(u64));
	u64 *got = (u64 *)(ctx->a.buf + 64);

	*got = 0;
	wr.wr.sg_list = &res;
	if (kvt_send_wait(ctx, &ctx->a, &wr.wr, cs ? "A: CMP_SWP" :
			  "A: FETCH_ADD", IB_WC_SUCCESS,
			  cs ? IB_WC_COMP_SWAP : IB_WC_FETCH_ADD))
		return -EIO;
	if (*got != orig || READ_ONCE(*target) != now) {
		kvt_diag("%s: returned 0x%llx, left 0x%llx; expected 0x%llx, 0x%llx\n",
			 cs ? "CMP_SWP" : "FETCH_ADD", *got, *target, orig,
			 now);
		return -EIO;
	}
	return 0;
}

/* FETCH_ADD and CMP_SWP through an MR with remote atomic access. */
enum kvt_result kvt_case_atomics(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fra = &ctx->fra;
	const u64 v0 = 0x1000000000000005ULL, add = 0x10, v1 = v0 + add;
	const u64 swap = 0xdeadbeefcafef00dULL;
	u64 *target, raddr;

	if (kvt_frwr_map(ctx, fra, 1, 0, PAGE_SIZE) ||
	    kvt_frwr_reg(ctx, fra, IB_ACCESS_LOCAL_WRITE |
			 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_REMOTE_READ |
			 IB_ACCESS_REMOTE_WRITE))
		return KVT_FAIL;
	target = page_address(fra->pages[0]) + 8;
	*target = v0;
	raddr = fra->mr->iova + 8;
	if (kvt_atomic(ctx, IB_WR_ATOMIC_FETCH_AND_ADD, raddr, fra->mr->rkey,
		       add, 0, v0, v1, target) ||
	    kvt_atomic(ctx, IB_WR_ATOMIC_CMP_AND_SWP, raddr, fra->mr->rkey,
		       v1, swap, v1, swap, target) ||
	    /* A compare that does not match leaves the value alone. */
	    kvt_atomic(ctx, IB_WR_ATOMIC_CMP_AND_SWP, raddr, fra->mr->rkey,
		       v1, v0, swap, swap, target) ||
	    kvt_frwr_local_inv(ctx, fra))
		return KVT_FAIL;
	return KVT_PASS;
}

