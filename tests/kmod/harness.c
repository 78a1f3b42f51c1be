// SPDX-License-Identifier: GPL-2.0
/*
 * harness.c - the module's parameters, its cases in order, what each needs
 * before it runs, and their KTAP lines on the kernel log (see kvt.h).
 */
#include "kvt.h"

#include <linux/slab.h>

static char *dev_a;
module_param(dev_a, charp, 0444);
MODULE_PARM_DESC(dev_a, "RDMA device of the initiator (A)");

static char *dev_b;
module_param(dev_b, charp, 0444);
MODULE_PARM_DESC(dev_b, "RDMA device of the target (B); may equal dev_a");

static int gid_a = -1;
module_param(gid_a, int, 0444);
MODULE_PARM_DESC(gid_a, "GID index of A (default: its first RoCE v2 IPv4 GID)");

static int gid_b = -1;
module_param(gid_b, int, 0444);
MODULE_PARM_DESC(gid_b, "GID index of B (default: its first RoCE v2 IPv4 GID)");

static unsigned int timeout_ms = 5000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "how long to wait for one completion");

/**
 * struct kvt_case - one case
 * @name: its KTAP description
 * @needs: KVT_QPS, KVT_FRWR...: what kvt_case_start() sees to first
 * @run: the case
 */
struct kvt_case {
	const char *name;
	unsigned int needs;
	enum kvt_result (*run)(struct kvt_ctx *ctx);
};

#define KVT_FR_CASE	(KVT_FRWR | KVT_FR_MR | KVT_QPS)

static const struct kvt_case kvt_cases[] = {
	{ "setup: PDs, CQs (softirq, workqueue, direct), RC QPs to RTS",
	  0, kvt_case_setup },
	{ "SEND of 3 SGEs into a receive of 3 SGEs",
	  KVT_QPS, kvt_case_send_sge },
	{ "SEND_WITH_IMM, with and without payload",
	  KVT_QPS, kvt_case_send_imm },
	{ "posting from completion handlers (softirq, workqueue), RNR",
	  KVT_QPS, kvt_case_handlers },
	{ "RDMA WRITE of 3 SGEs through the unsafe global rkey",
	  KVT_QPS, kvt_case_write },
	{ "RDMA WRITE_WITH_IMM consumes a receive without SGEs",
	  KVT_QPS, kvt_case_write_imm },
	{ "RDMA READ into 3 SGEs through the unsafe global rkey",
	  KVT_RD_ATOM | KVT_QPS, kvt_case_read },
	{ "RDMA WRITE with a wrong rkey variant: REM_ACCESS_ERR, nothing written",
	  KVT_QPS, kvt_case_bad_rkey },
	{ "RDMA WRITE then SEND, posted apart, taken in one receive batch",
	  KVT_QPS, kvt_case_write_send_apart },
	{ "FRWR: alloc_mr(MEM_REG) and ib_map_mr_sg of 4 pages",
	  KVT_FRWR, kvt_case_fr_map },
	{ "FRWR: REG_MR with a new key variant",
	  KVT_FR_CASE, kvt_case_fr_reg },
	{ "FRWR: RDMA WRITE through the new rkey, across pages",
	  KVT_FR_CASE, kvt_case_fr_write },
	{ "FRWR: RDMA READ through the new rkey",
	  KVT_FR_CASE, kvt_case_fr_read },
	{ "FRWR: the key of before REG_MR is refused (REM_ACCESS_ERR)",
	  KVT_FR_CASE, kvt_case_fr_old_key },
	{ "FRWR: a WRITE past the end of the registration is refused",
	  KVT_FR_CASE, kvt_case_fr_bounds },
	{ "FRWR: after LOCAL_INV, WRITE and READ with the rkey fail (REM_ACCESS_ERR)",
	  KVT_FR_CASE | KVT_FR_VALID, kvt_case_fr_local_inv },
	{ "FRWR: REG_MR again after LOCAL_INV, with the next variant",
	  KVT_FR_CASE, kvt_case_fr_rereg },
	{ "SEND_WITH_INV: IB_WC_WITH_INVALIDATE and the rkey at the receiver",
	  KVT_FR_CASE | KVT_FR_VALID, kvt_case_send_inv },
	{ "SEND_WITH_INV: the invalidated rkey is refused (REM_ACCESS_ERR)",
	  KVT_FR_CASE, kvt_case_send_inv_refused },
	{ "atomics: FETCH_ADD and CMP_SWP through an FRWR MR",
	  KVT_FRWR | KVT_ATOMICS | KVT_RD_ATOM | KVT_QPS, kvt_case_atomics },
	{ "ib_drain_qp flushes posted receives and an RNR-waiting SEND",
	  KVT_QPS, kvt_case_drain },
	{ "RESET to RTS again: query_qp, SEND both ways",
	  KVT_RESET | KVT_QPS, kvt_case_reconnect },
	{ "SRQ: post_srq_recv to max_wr, limit event once, no flush on ERROR",
	  KVT_SRQ | KVT_QPS, kvt_case_srq },
	{ "teardown: QPs, MRs, CQs, PDs", 0, kvt_case_teardown },
};

static enum kvt_result kvt_skip(struct kvt_ctx *ctx, const char *why)
{
	ctx->skip = why;
	return KVT_SKIP;
}

/* The one set-up of every case: what @needs asks for, in kvt.h's order. */
static enum kvt_result kvt_case_start(struct kvt_ctx *ctx, unsigned int needs)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;

	if (!needs)
		return KVT_PASS;
	if (!ctx->connected) {
		kvt_diag("the QPs were never connected\n");
		return KVT_FAIL;
	}
	if ((needs & KVT_FRWR) && !kvt_has_frwr(b->dev))
		return kvt_skip(ctx, "B's device does not advertise IB_DEVICE_MEM_MGT_EXTENSIONS");
	if ((needs & KVT_ATOMICS) && (a->dev->attrs.atomic_cap == IB_ATOMIC_NONE ||
				      b->dev->attrs.atomic_cap == IB_ATOMIC_NONE))
		return kvt_skip(ctx, "a device does not advertise atomics (atomic_cap)");
	if ((needs & KVT_RD_ATOM) && !ctx->rd_atom)
		return kvt_skip(ctx, needs & KVT_ATOMICS ?
				"no atomic resources (max_qp_rd_atom 0)" :
				"no RDMA READ resources (max_qp_rd_atom 0)");
	if ((needs & KVT_SRQ) && !a->dev->attrs.max_srq)
		return kvt_skip(ctx, "A's device does not advertise SRQs (max_srq 0)");
	if ((needs & KVT_FR_MR) && !ctx->fr.mr) {
		kvt_diag("no fast-registration MR: an earlier case failed\n");
		return KVT_FAIL;
	}
	if (needs & KVT_RESET)
		ctx->need_reset = true;
	if ((needs & KVT_QPS) && !kvt_ready(ctx))
		return KVT_FAIL;
	if ((needs & KVT_FR_VALID) && !ctx->fr.valid) {
		kvt_diag("the MR is not registered: an earlier case failed\n");
		return KVT_FAIL;
	}
	return KVT_PASS;
}

static int __init kvt_init(void)
{
	int i, passed = 0, failed = 0, skipped = 0;
	struct kvt_ctx *ctx;
	enum kvt_result r;

	if (!dev_a || !dev_b) {
		pr_err("dev_a= and dev_b= name the RDMA devices to test\n");
		return -EINVAL;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->a.role = "A";
	ctx->a.name = dev_a;
	ctx->a.want_gid = gid_a;
	ctx->b.role = "B";
	ctx->b.name = dev_b;
	ctx->b.want_gid = gid_b;
	ctx->timeout_ms = timeout_ms;
	ctx->timeout = msecs_to_jiffies(timeout_ms);
	for (i = 0; i < KVT_OPS; i++)
		init_completion(&ctx->ops[i].done);
	init_completion(&ctx->chain.done);

	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(kvt_cases));
	kvt_diag("A is %s, B is %s\n", dev_a, dev_b);
	for (i = 0; i < ARRAY_SIZE(kvt_cases); i++) {
		ctx->skip = NULL;
		r = kvt_case_start(ctx, kvt_cases[i].needs);
		if (r == KVT_PASS)
			r = kvt_cases[i].run(ctx);
		switch (r) {
		case KVT_PASS:
			pr_info("ok %d %s\n", i + 1, kvt_cases[i].name);
			passed++;
			break;
		case KVT_SKIP:
			pr_info("ok %d %s # SKIP %s\n", i + 1,
				kvt_cases[i].name, ctx->skip);
			skipped++;
			break;
		default:
			pr_info("not ok %d %s\n", i + 1, kvt_cases[i].name);
			failed++;
			break;
		}
	}
	kvt_diag("totals: %d ok, %d not ok, %d skipped\n", passed, failed,
		 skipped);
	kfree(ctx);
	return failed ? -EIO : 0;
}

static void __exit kvt_exit(void)
{
}

module_init(kvt_init);
module_exit(kvt_exit);

MODULE_DESCRIPTION("Kernel verbs selftest for sroce and other RDMA devices");
MODULE_LICENSE("GPL");
