// SPDX-License-Identifier: GPL-2.0
/*
 * frwr.c - fast registration as NFS/RDMA and NVMe-oF use it: an MR of B
 * from ib_alloc_mr(IB_MR_TYPE_MEM_REG) over partial pages (ib_map_mr_sg),
 * REG_MR with a new key variant, RDMA through it and what it refuses,
 * LOCAL_INV, registering again, SEND_WITH_INV.
 */
#include "kvt.h"

/* What the cases' registrations allow A. */
#define KVT_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_WRITE)

/* Byte @k of a fast-registration MR's mapping, through its pages. */
static u8 *kvt_fr_byte(struct kvt_frwr *fr, u32 k)
{
	int i;

	for (i = 0; i < fr->npages; i++) {
		if (k < fr->sg[i].length)
			return page_address(sg_page(&fr->sg[i])) +
			       fr->sg[i].offset + k;
		k -= fr->sg[i].length;
	}
	return NULL;
}

/* Fill every page of @fr, mapped or not, with pattern @seed. */
static void kvt_fr_fill_pages(struct kvt_frwr *fr, u32 seed)
{
	int i;

	for (i = 0; i < fr->npages; i++)
		kvt_fill(page_address(fr->pages[i]), PAGE_SIZE, seed,
			 i * PAGE_SIZE);
}

static bool kvt_fr_check_pages(struct kvt_frwr *fr, u32 seed)
{
	char what[32];
	int i;

	for (i = 0; i < fr->npages; i++) {
		snprintf(what, sizeof(what), "B's page %d", i);
		if (!kvt_check(what, page_address(fr->pages[i]), PAGE_SIZE,
			       seed, i * PAGE_SIZE))
			return false;
	}
	return true;
}

/* MR bytes [@start, @start + @len) hold pattern @seed from @base. */
static bool kvt_fr_check(struct kvt_frwr *fr, u32 start, u32 len, u32 seed,
			 u32 base)
{
	u32 k;
	u8 *p;

	for (k = 0; k < len; k++) {
		p = kvt_fr_byte(fr, start + k);
		if (*p != kvt_pat(seed, base + k)) {
			kvt_diag("MR byte %u is 0x%02x, expected 0x%02x\n",
				 start + k, *p, kvt_pat(seed, base + k));
			return false;
		}
	}
	return true;
}

bool kvt_has_frwr(struct ib_device *dev)
{
	return dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS;
}

/* Deregister and free @fr; return the number of failures. */
int kvt_frwr_free(struct kvt_end *b, struct kvt_frwr *fr)
{
	int i, ret, failed = 0;

	if (fr->mr) {
		ret = ib_dereg_mr(fr->mr);
		if (ret) {
			kvt_diag("B: ib_dereg_mr: %d\n", ret);
			failed++;
		}
		fr->mr = NULL;
	}
	if (fr->nents)
		ib_dma_unmap_sg(b->dev, fr->sg, fr->npages, DMA_BIDIRECTIONAL);
	fr->nents = 0;
	for (i = 0; i < fr->npages; i++)
		__free_page(fr->pages[i]);
	fr->npages = 0;
	fr->valid = false;
	return failed;
}

/*
 * Pages for @fr: @n of them, the scatterlist over them (the first from
 * @off0, the last up to @last bytes), DMA-mapped, and an MR of
 * KVT_FR_DEPTH pages mapping them with ib_map_mr_sg().
 */
int kvt_frwr_map(struct kvt_ctx *ctx, struct kvt_frwr *fr, int n, u32 off0,
		 u32 last)
{
	struct kvt_end *b = &ctx->b;
	u32 depth = min_t(u32, KVT_FR_DEPTH,
			  b->dev->attrs.max_fast_reg_page_list_len);
	u32 len = 0;
	int i, ret;

	if (depth < n) {
		kvt_diag("B: max_fast_reg_page_list_len %u, %d needed\n",
			 b->dev->attrs.max_fast_reg_page_list_len, n);
		return -EINVAL;
	}
	sg_init_table(fr->sg, n);
	for (i = 0; i < n; i++) {
		fr->pages[i] = alloc_page(GFP_KERNEL);
		if (!fr->pages[i])
			return -ENOMEM;
		fr->npages++;
		sg_set_page(&fr->sg[i], fr->pages[i],
			    (i == n - 1 ? last : PAGE_SIZE) - (i ? 0 : off0),
			    i ? 0 : off0);
		len += fr->sg[i].length;
	}
	fr->nents = ib_dma_map_sg(b->dev, fr->sg, n, DMA_BIDIRECTIONAL);
	if (!fr->nents) {
		kvt_diag("B: ib_dma_map_sg failed\n");
		return -EIO;
	}
	fr->mr = ib_alloc_mr(b->pd, IB_MR_TYPE_MEM_REG, depth);
	if (IS_ERR(fr->mr)) {
		ret = PTR_ERR(fr->mr);
		fr->mr = NULL;
		kvt_diag("B: ib_alloc_mr(IB_MR_TYPE_MEM_REG, %u): %d\n", depth,
			 ret);
		return ret;
	}
	ret = ib_map_mr_sg(fr->mr, fr->sg, fr->nents, NULL, PAGE_SIZE);
	if (ret != fr->nents) {
		kvt_diag("B: ib_map_mr_sg mapped %d of %d entries\n", ret,
			 fr->nents);
		return ret < 0 ? ret : -EIO;
	}
	if (fr->mr->length != len ||
	    fr->mr->iova != sg_dma_address(&fr->sg[0])) {
		kvt_diag("B: the MR maps %llu bytes at 0x%llx; expected %u at 0x%llx\n",
			 fr->mr->length, fr->mr->iova, len,
			 (u64)sg_dma_address(&fr->sg[0]));
		return -EIO;
	}
	if (ib_uses_virt_dma(b->dev) &&
	    fr->mr->iova != (uintptr_t)page_address(fr->pages[0]) + off0) {
		kvt_diag("B: virtual DMA, yet the iova 0x%llx is not the first page's address\n",
			 fr->mr->iova);
		return -EIO;
	}
	kvt_diag("B: MR key 0x%08x maps %d pages: %llu bytes at iova 0x%llx\n",
		 fr->mr->rkey, n, fr->mr->length, fr->mr->iova);
	return 0;
}

/* REG_MR of @fr on B with the next key variant and @access. */
int kvt_frwr_reg(struct kvt_ctx *ctx, struct kvt_frwr *fr, int access)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = fr->mr,
		.access = access,
	};
	u32 old = fr->mr->rkey;
	int ret;

	ib_update_fast_reg_key(fr->mr, ib_inc_rkey(old));
	if ((fr->mr->rkey ^ old) & ~0xffu || fr->mr->rkey == old ||
	    fr->mr->lkey != fr->mr->rkey) {
		kvt_diag("ib_update_fast_reg_key: rkey 0x%08x -> 0x%08x, lkey 0x%08x\n",
			 old, fr->mr->rkey, fr->mr->lkey);
		return -EIO;
	}
	wr.key = fr->mr->rkey;
	ret = kvt_send_wait(ctx, &ctx->b, &wr.wr, "B: REG_MR", IB_WC_SUCCESS,
			    IB_WC_REG_MR);
	if (ret)
		return ret;
	fr->valid = true;
	kvt_diag("B: registered with key 0x%08x (was 0x%08x)\n", fr->mr->rkey,
		 old);
	return 0;
}

int kvt_frwr_local_inv(struct kvt_ctx *ctx, struct kvt_frwr *fr)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = fr->mr->rkey,
	};
	int ret;

	ret = kvt_send_wait(ctx, &ctx->b, &wr, "B: LOCAL_INV", IB_WC_SUCCESS,
			    IB_WC_LOCAL_INV);
	if (!ret)
		fr->valid = false;
	return ret;
}

enum kvt_result kvt_case_fr_map(struct kvt_ctx *ctx)
{
	if (kvt_frwr_map(ctx, &ctx->fr, KVT_FR_PAGES, KVT_FR_OFF0,
			 KVT_FR_LAST)) {
		kvt_frwr_free(&ctx->b, &ctx->fr);
		return KVT_FAIL;
	}
	return KVT_PASS;
}

enum kvt_result kvt_case_fr_reg(struct kvt_ctx *ctx)
{
	ctx->fr_key_old = ctx->fr.mr->rkey;
	if (kvt_frwr_reg(ctx, &ctx->fr, KVT_FR_ACCESS))
		return KVT_FAIL;
	return KVT_PASS;
}

/* A writes the whole registration, then 200 bytes across a page edge. */
enum kvt_result kvt_case_fr_write(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct kvt_end *a = &ctx->a;
	u32 edge = PAGE_SIZE - KVT_FR_OFF0 + PAGE_SIZE;
	struct ib_sge src[2];
	u8 *last;

	kvt_fr_fill_pages(fr, 7);
	memset(page_address(fr->pages[0]), KVT_CANARY, KVT_FR_OFF0);
	last = page_address(fr->pages[KVT_FR_PAGES - 1]);
	memset(last + KVT_FR_LAST, KVT_CANARY, PAGE_SIZE - KVT_FR_LAST);
	kvt_fill(a->buf, KVT_FR_LEN, 8, 0);
	src[0] = kvt_sge(a, 0, 6000);
	src[1] = kvt_sge(a, 6000, KVT_FR_LEN - 6000);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, src, 2, fr->mr->iova,
		     fr->mr->rkey, IB_WC_SUCCESS))
		return KVT_FAIL;
	if (!kvt_fr_check(fr, 0, KVT_FR_LEN, 8, 0) ||
	    !kvt_check_val("B's first page before the MR",
			   page_address(fr->pages[0]), KVT_FR_OFF0,
			   KVT_CANARY) ||
	    !kvt_check_val("B's last page after the MR", last + KVT_FR_LAST,
			   PAGE_SIZE - KVT_FR_LAST, KVT_CANARY))
		return KVT_FAIL;

	/* The last 100 bytes of page 1 and the first 100 of page 2. */
	kvt_fill(a->buf + 20000, 200, 9, 0);
	src[0] = kvt_sge(a, 20000, 200);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, src, 1,
		     fr->mr->iova + edge - 100, fr->mr->rkey, IB_WC_SUCCESS))
		return KVT_FAIL;
	if (!kvt_fr_check(fr, edge - 100, 200, 9, 0) ||
	    !kvt_fr_check(fr, edge - 101, 1, 8, edge - 101) ||
	    !kvt_fr_check(fr, edge + 100, 1, 8, edge + 100))
		return KVT_FAIL;
	return KVT_PASS;
}

/* A reads the whole registration into 2 SGEs. */
enum kvt_result kvt_case_fr_read(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct kvt_end *a = &ctx->a;
	struct ib_sge dst[2];
	u32 k;

	for (k = 0; k < KVT_FR_LEN; k++)
		*kvt_fr_byte(fr, k) = kvt_pat(10, k);
	dst[0] = kvt_sge(a, 20000, 5000);
	dst[1] = kvt_sge(a, 32768, KVT_FR_LEN - 5000);
	if (kvt_rdma(ctx, IB_WR_RDMA_READ, dst, 2, fr->mr->iova,
		     fr->mr->rkey, IB_WC_SUCCESS))
		return KVT_FAIL;
	if (!kvt_check("A SGE 0", a->buf + 20000, 5000, 10, 0) ||
	    !kvt_check("A SGE 1", a->buf + 32768, KVT_FR_LEN - 5000, 10,
		       5000) ||
	    !kvt_check_val("A after SGE 0", a->buf + 25000, 1, KVT_CANARY) ||
	    !kvt_check_val("A after SGE 1", a->buf + 32768 + KVT_FR_LEN - 5000,
			   1, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/*
 * A WRITE of @len bytes at MR offset @off with @rkey fails with
 * REM_ACCESS_ERR, and B's pages are unchanged.  The QPs need a reset
 * after it.
 */
static enum kvt_result kvt_fr_refused(struct kvt_ctx *ctx, u32 rkey, u32 off,
				      u32 len, u32 seed)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct ib_sge src;

	kvt_fr_fill_pages(fr, seed);
	kvt_fill(ctx->a.buf, len, seed + 1, 0);
	src = kvt_sge(&ctx->a, 0, len);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, &src, 1, fr->mr->iova + off, rkey,
		     IB_WC_REM_ACCESS_ERR) ||
	    !kvt_fr_check_pages(fr, seed))
		return KVT_FAIL;
	return KVT_PASS;
}

/* The key the MR had before REG_MR (the old variant) no longer works. */
enum kvt_result kvt_case_fr_old_key(struct kvt_ctx *ctx)
{
	kvt_diag("old key 0x%08x, current 0x%08x\n", ctx->fr_key_old,
		 ctx->fr.mr->rkey);
	return kvt_fr_refused(ctx, ctx->fr_key_old, 0, 64, 11);
}

/* 16 bytes from 8 before the end of the registration: refused whole. */
enum kvt_result kvt_case_fr_bounds(struct kvt_ctx *ctx)
{
	return kvt_fr_refused(ctx, ctx->fr.mr->rkey, KVT_FR_LEN - 8, 16, 13);
}

/* LOCAL_INV; then A's WRITE and READ with the rkey fail. */
enum kvt_result kvt_case_fr_local_inv(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct ib_sge dst;

	if (kvt_frwr_local_inv(ctx, fr))
		return KVT_FAIL;
	kvt_diag("WRITE with the invalidated rkey 0x%08x\n", fr->mr->rkey);
	if (kvt_fr_refused(ctx, fr->mr->rkey, 0, 64, 15) != KVT_PASS)
		return KVT_FAIL;
	kvt_diag("READ with the invalidated rkey 0x%08x\n", fr->mr->rkey);
	if (!kvt_ready(ctx))
		return KVT_FAIL;
	dst = kvt_sge(&ctx->a, 0, 64);
	if (kvt_rdma(ctx, IB_WR_RDMA_READ, &dst, 1, fr->mr->iova,
		     fr->mr->rkey, IB_WC_REM_ACCESS_ERR) ||
	    !kvt_check_val("A", ctx->a.buf, 64, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/* After LOCAL_INV the MR registers again, under the next variant. */
enum kvt_result kvt_case_fr_rereg(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct ib_sge src;

	if (kvt_frwr_reg(ctx, fr, KVT_FR_ACCESS))
		return KVT_FAIL;
	kvt_fr_fill_pages(fr, 16);
	kvt_fill(ctx->a.buf, 5000, 17, 0);
	src = kvt_sge(&ctx->a, 0, 5000);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, &src, 1, fr->mr->iova + 1000,
		     fr->mr->rkey, IB_WC_SUCCESS) ||
	    !kvt_fr_check(fr, 1000, 5000, 17, 0) ||
	    !kvt_fr_check(fr, 999, 1, 16, KVT_FR_OFF0 + 999) ||
	    !kvt_fr_check(fr, 6000, 1, 16, 6000 + KVT_FR_OFF0))
		return KVT_FAIL;
	return KVT_PASS;
}

/* SEND_WITH_INV of the MR's rkey: B's receive reports the invalidation. */
enum kvt_result kvt_case_send_inv(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND_WITH_INV };
	struct kvt_op *rop;

	kvt_fill(a->buf, 100, 18, 0);
	wr.ex.invalidate_rkey = fr->mr->rkey;
	rop = kvt_message(ctx, a, &wr, "A: SEND_WITH_INV", 100, b,
			  kvt_sge(b, 0, 256));
	if (!rop)
		return KVT_FAIL;
	fr->valid = false;
	if (!(rop->wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    rop->wc.ex.invalidate_rkey != fr->mr->rkey ||
	    rop->wc.byte_len != 100) {
		kvt_diag("B: flags 0x%x, rkey 0x%08x, %u B; want WITH_INV, 0x%08x, 100 B\n",
			 rop->wc.wc_flags, rop->wc.ex.invalidate_rkey,
			 rop->wc.byte_len, fr->mr->rkey);
		return KVT_FAIL;
	}
	if (!kvt_check("B", b->buf, 100, 18, 0) ||
	    !kvt_check_val("B after", b->buf + 100, 1, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

enum kvt_result kvt_case_send_inv_refused(struct kvt_ctx *ctx)
{
	if (ctx->fr.valid) {
		kvt_diag("the MR was not invalidated: an earlier case failed\n");
		return KVT_FAIL;
	}
	return kvt_fr_refused(ctx, ctx->fr.mr->rkey, 0, 64, 19);
}

