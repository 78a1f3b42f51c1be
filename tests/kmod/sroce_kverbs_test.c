// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_kverbs_test.c - the kernel verbs, used between two RDMA devices the
 * way a kernel ULP (NFS/RDMA, NVMe-oF) uses them, with every result checked.
 *
 *	insmod sroce_kverbs_test.ko dev_a=sroce0 dev_b=sroce1 [gid_a=N gid_b=N]
 *
 * The cases run from module init, in order, on one RC QP on each device,
 * connected by ib_modify_qp() alone (no RDMA CM):
 *
 *   A (dev_a): the initiator.  A PD without a global rkey (its SGEs use
 *	pd->local_dma_lkey), a send CQ polled in softirq and a receive CQ
 *	polled from a work queue (both through the completion handler).
 *   B (dev_b): the target.  A PD with IB_PD_UNSAFE_GLOBAL_RKEY (the target
 *	of RDMA WRITE and READ with kernel buffers), one CQ for both queues
 *	polled directly (IB_POLL_DIRECT: the device must never call its
 *	completion handler, which is not armed), the fast-registration MRs.
 *
 * dev_a and dev_b may name the same device (a loopback of its own).
 * Buffers are kmalloc'ed and pages alloc_page'd; their addresses are the
 * ib_dma_map_*() results (the kernel virtual addresses on a device with
 * virtual DMA, as sroce and rdma_rxe are).
 *
 * Every case is reported on the kernel log in KTAP form, prefixed with
 * "sroce_kverbs: ": "ok N name", "ok N name # SKIP why", "not ok N name",
 * with "# ..." diagnostics before the result line.  A case is skipped only
 * when a device does not advertise what it needs (IB_DEVICE_MEM_MGT_EXTENSIONS
 * for fast registration, an atomic_cap for atomics).  The load fails with
 * -EIO if a case failed; either way nothing of the test is left allocated
 * when init returns.
 *
 * A case that sees an error completion (the negative cases, or a failure)
 * leaves the QPs to be reset: the next case moves both to ERROR, waits for
 * every outstanding work request to flush, then takes them through RESET,
 * INIT, RTR and RTS again.  Work requests and buffers stay allocated until
 * the end, so a completion that comes late never touches freed memory.
 */
#define pr_fmt(fmt) "sroce_kverbs: " fmt

#include <linux/module.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

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

#define KVT_PORT	1
#define KVT_BUF_SIZE	SZ_64K
#define KVT_QP_WR	32
#define KVT_CQE		128
#define KVT_SGE		3
#define KVT_OPS		96
#define KVT_CANARY	0x5c
/* Fast registration: a 4-page list, the first and last pages partial. */
#define KVT_FR_PAGES	4
#define KVT_FR_OFF0	512
#define KVT_FR_LAST	1024
#define KVT_FR_LEN	(KVT_FR_PAGES * PAGE_SIZE - KVT_FR_OFF0 - \
			 (PAGE_SIZE - KVT_FR_LAST))
#define KVT_FR_DEPTH	16

#define kvt_diag(fmt, ...) pr_info("# " fmt, ##__VA_ARGS__)

enum kvt_result {
	KVT_PASS,
	KVT_SKIP,
	KVT_FAIL,
};

/**
 * struct kvt_op - one posted work request and its completion
 * @cqe: the work request's wr_cqe
 * @wc: a copy of the completion
 * @done: completed by kvt_done()
 * @cq: the CQ the completion arrives on
 * @qp: the QP it was posted on
 * @busy: posted and not reaped by the test (or never reaped: it then
 *	stays busy until the QPs are reset)
 */
struct kvt_op {
	struct ib_cqe cqe;
	struct ib_wc wc;
	struct completion done;
	struct ib_cq *cq;
	struct ib_qp *qp;
	bool busy;
};

/**
 * struct kvt_end - one side
 * @role: "A" or "B"
 * @name: the device name asked for
 * @dev: the device, with a reference
 * @gid_index: the source GID index of the path
 * @gid: that GID
 * @mac: the MAC address of its netdev (the peer's destination MAC)
 * @mtu: the port's active MTU
 * @pd: the PD
 * @send_cq: completions of the send queue
 * @recv_cq: completions of the receive queue (may be @send_cq)
 * @qp: the RC QP
 * @psn: the first PSN of its send queue in the current connection
 * @buf: KVT_BUF_SIZE bytes of kernel memory
 * @dma: @buf mapped for @dev
 */
struct kvt_end {
	const char *role;
	const char *name;
	struct ib_device *dev;
	int gid_index;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	enum ib_mtu mtu;
	struct ib_pd *pd;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct ib_qp *qp;
	u32 psn;
	u8 *buf;
	u64 dma;
};

/**
 * struct kvt_frwr - a fast-registration MR of B and its pages
 * @mr: from ib_alloc_mr(IB_MR_TYPE_MEM_REG)
 * @pages: the pages
 * @npages: entries of @pages and @sg
 * @sg: the scatterlist over the pages
 * @nents: entries mapped by ib_dma_map_sg() (0: not mapped)
 * @valid: registered and not invalidated (as far as the test knows)
 */
struct kvt_frwr {
	struct ib_mr *mr;
	struct page *pages[KVT_FR_PAGES];
	int npages;
	struct scatterlist sg[KVT_FR_PAGES];
	int nents;
	bool valid;
};

#define KVT_CHAIN_MSGS	32
#define KVT_CHAIN_RECVS	4
#define KVT_CHAIN_LEN	256

struct kvt_chain;

/**
 * struct kvt_chain_rx - a receive of A that its completion handler posts
 *	again
 * @cqe: its wr_cqe
 * @ch: the chain
 * @slot: which of A's receive buffers it uses
 */
struct kvt_chain_rx {
	struct ib_cqe cqe;
	struct kvt_chain *ch;
	u32 slot;
};

/**
 * struct kvt_chain - messages posted from completion handlers
 * @ctx: the test
 * @send_cqe: wr_cqe of A's chained SENDs
 * @rx: A's receives
 * @done: completed by a handler at the end of the chain or at an error
 * @posted: work requests posted so far
 * @completed: completions seen so far
 * @status: the first bad completion status (IB_WC_SUCCESS: none)
 * @err: the first error of a post or of the data (0: none)
 * @stop: the case gave up: handlers post nothing more
 * @in_post: the case is inside its first ib_post_send()
 * @early: send completions handled before that call returned
 *
 * The handlers of one CQ never run concurrently, and the case reads the
 * counters only after @done: they need no lock.
 */
struct kvt_chain {
	struct kvt_ctx *ctx;
	struct ib_cqe send_cqe;
	struct kvt_chain_rx rx[KVT_CHAIN_RECVS];
	struct completion done;
	u32 posted;
	u32 completed;
	enum ib_wc_status status;
	int err;
	bool stop;
	bool in_post;
	u32 early;
};

/**
 * struct kvt_ctx - the test
 * @a: the initiator
 * @b: the target
 * @ops: the work requests, reused once reaped
 * @timeout: how long one completion may take, in jiffies
 * @generation: connections made so far (each starts at other PSNs)
 * @rd_atom: RDMA READ / atomic requests in flight allowed each way
 * @connected: both QPs reached RTS (and may since have failed)
 * @need_reset: an error completion was seen: reset before the next case
 * @stalled: a completion did not come: until the reset, waits give up at
 *	once instead of taking their time out each
 * @skip: why the current case is skipped
 * @fr: the MR of the fast-registration cases
 * @fr_key_old: its key before its last registration
 * @fra: the MR of the atomics case
 * @chain: the completion-handler case
 */
struct kvt_ctx {
	struct kvt_end a;
	struct kvt_end b;
	struct kvt_op ops[KVT_OPS];
	unsigned long timeout;
	u32 generation;
	u8 rd_atom;
	bool connected;
	bool need_reset;
	bool stalled;
	const char *skip;
	struct kvt_frwr fr;
	u32 fr_key_old;
	struct kvt_frwr fra;
	struct kvt_chain chain;
};

/* --- data patterns ------------------------------------------------------ */

/* Byte @i of pattern @seed: no period a transfer bug could hide in. */
static u8 kvt_pat(u32 seed, u32 i)
{
	return (u8)(((seed << 16) + i) * 2654435761u >> 24);
}

static void kvt_fill(u8 *p, u32 len, u32 seed, u32 base)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = kvt_pat(seed, base + i);
}

/* @p holds bytes @base.. of pattern @seed; else say where not. */
static bool kvt_check(const char *what, const u8 *p, u32 len, u32 seed,
		      u32 base)
{
	u32 i;

	for (i = 0; i < len; i++) {
		if (p[i] != kvt_pat(seed, base + i)) {
			kvt_diag("%s: byte %u of %u is 0x%02x, expected 0x%02x\n",
				 what, i, len, p[i], kvt_pat(seed, base + i));
			return false;
		}
	}
	return true;
}

/* Every byte of @p is @val (memory that must not have been written). */
static bool kvt_check_val(const char *what, const u8 *p, u32 len, u8 val)
{
	u32 i;

	for (i = 0; i < len; i++) {
		if (p[i] != val) {
			kvt_diag("%s: byte %u of %u is 0x%02x, expected 0x%02x (untouched)\n",
				 what, i, len, p[i], val);
			return false;
		}
	}
	return true;
}

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

/* --- work requests and completions ---------------------------------------- */

static void kvt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvt_op *op = container_of(wc->wr_cqe, struct kvt_op, cqe);

	op->wc = *wc;
	complete(&op->done);
}

static struct kvt_op *kvt_op_get(struct kvt_ctx *ctx, struct ib_cq *cq,
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

static void kvt_op_put(struct kvt_op *op)
{
	op->busy = false;
}

/*
 * Wait for @op's completion: through the completion handler, or by polling
 * a direct CQ.  Return: 0 or -ETIMEDOUT (@op stays busy).
 */
static int kvt_wait(struct kvt_ctx *ctx, struct kvt_op *op)
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
static int kvt_reap(struct kvt_ctx *ctx, struct kvt_op *op, const char *what,
		    enum ib_wc_status status, enum ib_wc_opcode opcode)
{
	const struct ib_wc *wc = &op->wc;

	if (kvt_wait(ctx, op)) {
		kvt_diag("%s: no completion within %u ms\n", what, timeout_ms);
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

static struct ib_sge kvt_sge(struct kvt_end *e, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = e->dma + off,
		.length = len,
		.lkey = e->pd->local_dma_lkey,
	};

	return sge;
}

/* Post one receive of @n SGEs on @e; NULL if that failed. */
static struct kvt_op *kvt_post_recv(struct kvt_ctx *ctx, struct kvt_end *e,
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
static struct kvt_op *kvt_post_send(struct kvt_ctx *ctx, struct kvt_end *e,
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
static int kvt_send_wait(struct kvt_ctx *ctx, struct kvt_end *e,
			 struct ib_send_wr *wr, const char *what,
			 enum ib_wc_status status, enum ib_wc_opcode opcode)
{
	struct kvt_op *op = kvt_post_send(ctx, e, wr);

	if (!op)
		return -EIO;
	return kvt_reap(ctx, op, what, status, opcode);
}

/* RDMA WRITE or READ of @n SGEs of A at @raddr/@rkey of B. */
static int kvt_rdma(struct kvt_ctx *ctx, enum ib_wr_opcode opcode,
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

static void kvt_qp_event(struct ib_event *ev, void *context)
{
	struct kvt_end *e = context;

	kvt_diag("%s: QP event: %s\n", e->role, ib_event_msg(ev->event));
}

/* --- connection ------------------------------------------------------------ */

static int kvt_modify(struct kvt_end *e, struct ib_qp_attr *attr, int mask,
		      const char *state)
{
	int ret = ib_modify_qp(e->qp, attr, mask);

	if (ret)
		kvt_diag("%s: ib_modify_qp to %s: %d\n", e->role, state, ret);
	return ret;
}

static int kvt_to_init(struct kvt_end *e)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = KVT_PORT,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};

	if (e->dev->attrs.atomic_cap != IB_ATOMIC_NONE)
		attr.qp_access_flags |= IB_ACCESS_REMOTE_ATOMIC;
	return kvt_modify(e, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_ACCESS_FLAGS, "INIT");
}

/* RTR: the path to @peer (RoCE v2, GRH from our GID to the peer's). */
static int kvt_to_rtr(struct kvt_ctx *ctx, struct kvt_end *e,
		      struct kvt_end *peer)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = min(e->mtu, peer->mtu),
		.dest_qp_num = peer->qp->qp_num,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = ctx->rd_atom,
		.min_rnr_timer = IB_RNR_TIMER_001_28,
	};

	attr.ah_attr.type = rdma_ah_find_type(e->dev, KVT_PORT);
	rdma_ah_set_port_num(&attr.ah_attr, KVT_PORT);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, e->gid_index, 64, 0);
	/* Kernel users pass a resolved destination MAC (no ARP here). */
	ether_addr_copy(attr.ah_attr.roce.dmac, peer->mac);
	return kvt_modify(e, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			  IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER,
			  "RTR");
}

static int kvt_to_rts(struct kvt_ctx *ctx, struct kvt_end *e)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTS,
		.sq_psn = e->psn,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = ctx->rd_atom,
	};

	return kvt_modify(e, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			  IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			  IB_QP_MAX_QP_RD_ATOMIC, "RTS");
}

/*
 * Connect the two QPs (both in RESET).  The first connection starts A's
 * PSNs 3 below the 24-bit wrap, so the first long message wraps them.
 */
static int kvt_connect(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	int ret;

	a->psn = (0xfffffd + ctx->generation * 0x10101) & 0xffffff;
	b->psn = (0x123456 + ctx->generation * 0x20202) & 0xffffff;
	ctx->generation++;
	ret = kvt_to_init(a) ?: kvt_to_init(b) ?:
	      kvt_to_rtr(ctx, a, b) ?: kvt_to_rtr(ctx, b, a) ?:
	      kvt_to_rts(ctx, a) ?: kvt_to_rts(ctx, b);
	if (ret)
		return ret;
	ctx->connected = true;
	ctx->need_reset = false;
	return 0;
}

static bool kvt_ops_busy(struct kvt_ctx *ctx)
{
	int i;

	for (i = 0; i < KVT_OPS; i++)
		if (ctx->ops[i].busy)
			return true;
	return false;
}

/*
 * Both QPs to ERROR, every outstanding work request flushed (and reaped),
 * then RESET and a new connection.
 */
static int kvt_reset(struct kvt_ctx *ctx)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct kvt_op *op;
	int i, ret = 0;

	if (kvt_modify(&ctx->a, &attr, IB_QP_STATE, "ERR") ||
	    kvt_modify(&ctx->b, &attr, IB_QP_STATE, "ERR"))
		return -EIO;
	/* Flushing is quick: the first op that does not flush stalls. */
	ctx->stalled = false;
	for (i = 0; i < KVT_OPS; i++) {
		op = &ctx->ops[i];
		if (!op->busy)
			continue;
		if (kvt_wait(ctx, op)) {
			kvt_diag("a work request of %s was not flushed in the ERROR state\n",
				 op->qp == ctx->a.qp ? "A" : "B");
			ret = -EIO;
			continue;
		}
		kvt_op_put(op);
	}
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RESET;
	if (kvt_modify(&ctx->a, &attr, IB_QP_STATE, "RESET") ||
	    kvt_modify(&ctx->b, &attr, IB_QP_STATE, "RESET"))
		return -EIO;
	return kvt_connect(ctx);
}

/* Start of a case that moves data: connected, nothing outstanding. */
static bool kvt_ready(struct kvt_ctx *ctx)
{
	if (!ctx->connected) {
		kvt_diag("the QPs were never connected\n");
		return false;
	}
	if (ctx->need_reset || kvt_ops_busy(ctx)) {
		if (kvt_reset(ctx)) {
			kvt_diag("the QPs could not be reset and connected again\n");
			return false;
		}
	}
	memset(ctx->a.buf, KVT_CANARY, KVT_BUF_SIZE);
	memset(ctx->b.buf, KVT_CANARY, KVT_BUF_SIZE);
	return true;
}

/* --- set-up and teardown -------------------------------------------------- */

/* The GID of @e: the index asked for, else its first RoCE v2 IPv4 GID. */
static int kvt_find_gid(struct kvt_end *e, int want)
{
	const struct ib_gid_attr *attr, *found = NULL;
	struct ib_port_attr pattr;
	int i, ret;

	ret = ib_query_port(e->dev, KVT_PORT, &pattr);
	if (ret) {
		kvt_diag("%s: ib_query_port: %d\n", e->name, ret);
		return ret;
	}
	if (pattr.state != IB_PORT_ACTIVE) {
		kvt_diag("%s: port %d is not active (state %d)\n", e->name,
			 KVT_PORT, pattr.state);
		return -ENETDOWN;
	}
	e->mtu = pattr.active_mtu;

	for (i = want < 0 ? 0 : want; i < pattr.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(e->dev, KVT_PORT, i);
		if (IS_ERR(attr)) {
			if (want >= 0)
				break;
			continue;
		}
		if (want >= 0 ||
		    (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		     ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw))) {
			found = attr;
			break;
		}
		rdma_put_gid_attr(attr);
	}
	if (!found) {
		kvt_diag("%s: no GID %s\n", e->name,
			 want < 0 ? "of type RoCE v2 with an IPv4 address" :
			 "at the index asked for");
		return -ENOENT;
	}
	if (found->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		kvt_diag("%s: GID %u is not a RoCE v2 GID\n", e->name,
			 found->index);
		rdma_put_gid_attr(found);
		return -EINVAL;
	}
	e->gid_index = found->index;
	e->gid = found->gid;
	ret = rdma_read_gid_l2_fields(found, NULL, e->mac);
	rdma_put_gid_attr(found);
	if (ret) {
		kvt_diag("%s: no netdev behind GID %d: %d\n", e->name,
			 e->gid_index, ret);
		return ret;
	}
	kvt_diag("%s (%s): GID %d %pI6, MAC %pM, active MTU %d\n", e->role,
		 e->name, e->gid_index, e->gid.raw, e->mac,
		 ib_mtu_enum_to_int(e->mtu));
	return 0;
}

static int kvt_alloc_cq(struct kvt_end *e, struct ib_cq **cqp,
			enum ib_poll_context poll)
{
	struct ib_cq *cq = ib_alloc_cq(e->dev, e, KVT_CQE, 0, poll);

	if (IS_ERR(cq)) {
		kvt_diag("%s: ib_alloc_cq(poll context %d): %ld\n", e->name,
			 poll, PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	*cqp = cq;
	return 0;
}

/* Device, GID, PD, CQs, buffer and QP of one side; undone by teardown. */
static int kvt_setup_end(struct kvt_end *e, bool target, int want_gid)
{
	struct ib_qp_init_attr init = {};
	const struct ib_device_attr *da;
	int ret;

	e->dev = ib_device_get_by_name(e->name, RDMA_DRIVER_UNKNOWN);
	if (!e->dev) {
		kvt_diag("no RDMA device %s\n", e->name);
		return -ENODEV;
	}
	da = &e->dev->attrs;
	kvt_diag("%s: SGEs %d/%d, rd_atom %d/%d, atomic_cap %d, cap flags 0x%llx\n",
		 e->name, da->max_send_sge, da->max_recv_sge,
		 da->max_qp_init_rd_atom, da->max_qp_rd_atom, da->atomic_cap,
		 da->device_cap_flags);
	kvt_diag("%s: fast-reg list %u, %s\n", e->name,
		 da->max_fast_reg_page_list_len,
		 ib_uses_virt_dma(e->dev) ? "virtual DMA" : "a DMA device");
	if (!rdma_protocol_roce_udp_encap(e->dev, KVT_PORT)) {
		kvt_diag("%s: port %d does not speak RoCE v2\n", e->name,
			 KVT_PORT);
		return -EINVAL;
	}
	if (da->max_send_sge < KVT_SGE || da->max_recv_sge < KVT_SGE ||
	    da->max_qp_wr < KVT_QP_WR + 1) {
		kvt_diag("%s: too small for the test (%d SGEs, %d WRs needed)\n",
			 e->name, KVT_SGE, KVT_QP_WR + 1);
		return -EINVAL;
	}
	ret = kvt_find_gid(e, want_gid);
	if (ret)
		return ret;

	e->pd = ib_alloc_pd(e->dev, target ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(e->pd)) {
		ret = PTR_ERR(e->pd);
		e->pd = NULL;
		kvt_diag("%s: ib_alloc_pd: %d\n", e->name, ret);
		return ret;
	}
	kvt_diag("%s: local_dma_lkey 0x%x%s%s\n", e->role,
		 e->pd->local_dma_lkey, target ? ", unsafe global rkey " : "",
		 target ? "set" : "");

	if (target) {
		ret = kvt_alloc_cq(e, &e->send_cq, IB_POLL_DIRECT);
		e->recv_cq = e->send_cq;
	} else {
		ret = kvt_alloc_cq(e, &e->send_cq, IB_POLL_SOFTIRQ) ?:
		      kvt_alloc_cq(e, &e->recv_cq, IB_POLL_WORKQUEUE);
	}
	if (ret)
		return ret;

	e->buf = kmalloc(KVT_BUF_SIZE, GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	e->dma = ib_dma_map_single(e->dev, e->buf, KVT_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(e->dev, e->dma)) {
		kvt_diag("%s: ib_dma_map_single failed\n", e->name);
		kfree(e->buf);
		e->buf = NULL;
		return -EIO;
	}
	if (ib_uses_virt_dma(e->dev) && e->dma != (uintptr_t)e->buf) {
		kvt_diag("%s: virtual DMA, yet the buffer's DMA address is not its address\n",
			 e->name);
		return -EINVAL;
	}

	init.event_handler = kvt_qp_event;
	init.qp_context = e;
	init.send_cq = e->send_cq;
	init.recv_cq = e->recv_cq;
	/* One more for the drain work request of ib_drain_qp(). */
	init.cap.max_send_wr = KVT_QP_WR + 1;
	init.cap.max_recv_wr = KVT_QP_WR + 1;
	init.cap.max_send_sge = KVT_SGE;
	init.cap.max_recv_sge = KVT_SGE;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	e->qp = ib_create_qp(e->pd, &init);
	if (IS_ERR(e->qp)) {
		ret = PTR_ERR(e->qp);
		e->qp = NULL;
		kvt_diag("%s: ib_create_qp: %d\n", e->name, ret);
		return ret;
	}
	kvt_diag("%s: QP %u (send WRs %u, receive WRs %u, SGEs %u/%u)\n",
		 e->role, e->qp->qp_num, init.cap.max_send_wr,
		 init.cap.max_recv_wr, init.cap.max_send_sge,
		 init.cap.max_recv_sge);
	return 0;
}

static bool kvt_has_frwr(struct ib_device *dev)
{
	return dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS;
}

/* Deregister and free @fr; return the number of failures. */
static int kvt_frwr_free(struct kvt_end *b, struct kvt_frwr *fr)
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

/* Destroy one side's QP; return the number of failures. */
static int kvt_destroy_qp(struct kvt_end *e)
{
	int ret;

	if (!e->qp)
		return 0;
	ret = ib_destroy_qp(e->qp);
	e->qp = NULL;
	if (ret)
		kvt_diag("%s: ib_destroy_qp: %d\n", e->role, ret);
	return !!ret;
}

/* Free one side's CQs and buffer (its QP is gone). */
static void kvt_free_end(struct kvt_end *e)
{
	if (e->recv_cq && e->recv_cq != e->send_cq)
		ib_free_cq(e->recv_cq);
	if (e->send_cq)
		ib_free_cq(e->send_cq);
	e->send_cq = NULL;
	e->recv_cq = NULL;
	if (e->buf) {
		ib_dma_unmap_single(e->dev, e->dma, KVT_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
		kfree(e->buf);
		e->buf = NULL;
	}
}

/* --- the cases ------------------------------------------------------------ */

static enum kvt_result kvt_case_setup(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	int ret, n;

	ret = kvt_setup_end(a, false, gid_a) ?: kvt_setup_end(b, true, gid_b);
	if (ret)
		return KVT_FAIL;
	/* Each side both initiates and answers READs and atomics. */
	n = min3(4, a->dev->attrs.max_qp_init_rd_atom,
		 a->dev->attrs.max_qp_rd_atom);
	n = min3(n, b->dev->attrs.max_qp_init_rd_atom,
		 b->dev->attrs.max_qp_rd_atom);
	ctx->rd_atom = max(n, 0);
	if (kvt_connect(ctx))
		return KVT_FAIL;
	kvt_diag("connected: A QP %u PSN 0x%06x, B QP %u PSN 0x%06x\n",
		 a->qp->qp_num, a->psn, b->qp->qp_num, b->psn);
	kvt_diag("path MTU %d, %u READs/atomics in flight\n",
		 ib_mtu_enum_to_int(min(a->mtu, b->mtu)), ctx->rd_atom);
	return KVT_PASS;
}

/* SEND of 5000 bytes gathered from 3 SGEs, scattered into 3 SGEs. */
static enum kvt_result kvt_case_send_sge(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge src[KVT_SGE], dst[KVT_SGE];
	struct ib_send_wr wr = {};
	struct kvt_op *rop;
	int ret;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
	ret = kvt_send_wait(ctx, a, &wr, "A: SEND", IB_WC_SUCCESS,
			    IB_WC_SEND);
	ret = kvt_reap(ctx, rop, "B: RECV", IB_WC_SUCCESS, IB_WC_RECV) ?: ret;
	if (ret)
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
static enum kvt_result kvt_case_send_imm(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	static const u32 imm[2] = { 0x1234abcd, 0xfeedf00d };
	static const u32 len[2] = { 300, 0 };
	struct kvt_op *rop[2];
	struct ib_sge src, dst[2];
	struct ib_send_wr wr;
	int i, ret = 0;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
	if (++ch->completed == KVT_CHAIN_MSGS) {
		complete(&ch->done);
		return;
	}
	if (READ_ONCE(ch->stop))
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
	if (++ch->completed == KVT_CHAIN_MSGS) {
		complete(&ch->done);
		return;
	}
	if (ch->posted == KVT_CHAIN_MSGS || READ_ONCE(ch->stop))
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
			 what, ch->completed, KVT_CHAIN_MSGS, 4 * timeout_ms);
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
static enum kvt_result kvt_case_handlers(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct kvt_op *op[KVT_CHAIN_MSGS];
	struct kvt_chain *ch = &ctx->chain;
	struct ib_send_wr wr;
	struct ib_sge sge;
	bool ok = true;
	int ret;
	u32 i;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
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

/* RDMA WRITE of 7000 bytes from 3 SGEs to B's unsafe global rkey. */
static enum kvt_result kvt_case_write(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge src[KVT_SGE];

	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
static enum kvt_result kvt_case_write_imm(struct kvt_ctx *ctx)
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
	int ret;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
	wr.rkey = b->pd->unsafe_global_rkey;
	kvt_fill(a->buf, 3000, 4, 0);
	src = kvt_sge(a, 0, 3000);
	wr.wr.sg_list = &src;
	wr.remote_addr = b->dma + 32768;
	/* The immediate consumes a receive; it needs no SGE. */
	rop = kvt_post_recv(ctx, b, NULL, 0);
	if (!rop)
		return KVT_FAIL;
	ret = kvt_send_wait(ctx, a, &wr.wr, "A: RDMA WRITE_WITH_IMM",
			    IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	ret = kvt_reap(ctx, rop, "B: RECV", IB_WC_SUCCESS,
		       IB_WC_RECV_RDMA_WITH_IMM) ?: ret;
	if (ret)
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
static enum kvt_result kvt_case_read(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge dst[KVT_SGE];

	if (!kvt_ready(ctx))
		return KVT_FAIL;
	if (!ctx->rd_atom) {
		ctx->skip = "no RDMA READ resources (max_qp_rd_atom 0)";
		return KVT_SKIP;
	}
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

/* A WRITE with B's global rkey of another variant byte is refused. */
static enum kvt_result kvt_case_bad_rkey(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct ib_sge src;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
	kvt_fill(a->buf, 64, 6, 0);
	src = kvt_sge(a, 0, 64);
	if (kvt_rdma(ctx, IB_WR_RDMA_WRITE, &src, 1, b->dma,
		     b->pd->unsafe_global_rkey ^ 0x80, IB_WC_REM_ACCESS_ERR))
		return KVT_FAIL;
	if (!kvt_check_val("B", b->buf, 64, KVT_CANARY))
		return KVT_FAIL;
	return KVT_PASS;
}

/* Fast registration is there (B's device advertises it); else skip. */
static enum kvt_result kvt_need_frwr(struct kvt_ctx *ctx, bool need_mr)
{
	if (!ctx->connected) {
		kvt_diag("the QPs were never connected\n");
		return KVT_FAIL;
	}
	if (!kvt_has_frwr(ctx->b.dev)) {
		ctx->skip = "B's device does not advertise IB_DEVICE_MEM_MGT_EXTENSIONS";
		return KVT_SKIP;
	}
	if (need_mr && !ctx->fr.mr) {
		kvt_diag("no fast-registration MR: an earlier case failed\n");
		return KVT_FAIL;
	}
	return KVT_PASS;
}

/*
 * Pages for @fr: @n of them, the scatterlist over them (the first from
 * @off0, the last up to @last bytes), DMA-mapped, and an MR of
 * KVT_FR_DEPTH pages mapping them with ib_map_mr_sg().
 */
static int kvt_frwr_map(struct kvt_ctx *ctx, struct kvt_frwr *fr, int n,
			u32 off0, u32 last)
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
static int kvt_frwr_reg(struct kvt_ctx *ctx, struct kvt_frwr *fr, int access)
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

static int kvt_frwr_local_inv(struct kvt_ctx *ctx, struct kvt_frwr *fr)
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

static enum kvt_result kvt_case_fr_map(struct kvt_ctx *ctx)
{
	enum kvt_result r = kvt_need_frwr(ctx, false);

	if (r != KVT_PASS)
		return r;
	if (kvt_frwr_map(ctx, &ctx->fr, KVT_FR_PAGES, KVT_FR_OFF0,
			 KVT_FR_LAST)) {
		kvt_frwr_free(&ctx->b, &ctx->fr);
		return KVT_FAIL;
	}
	return KVT_PASS;
}

static enum kvt_result kvt_case_fr_reg(struct kvt_ctx *ctx)
{
	enum kvt_result r = kvt_need_frwr(ctx, true);

	if (r != KVT_PASS)
		return r;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
	ctx->fr_key_old = ctx->fr.mr->rkey;
	if (kvt_frwr_reg(ctx, &ctx->fr, IB_ACCESS_LOCAL_WRITE |
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE))
		return KVT_FAIL;
	return KVT_PASS;
}

/* A writes the whole registration, then 200 bytes across a page edge. */
static enum kvt_result kvt_case_fr_write(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct kvt_end *a = &ctx->a;
	u32 edge = PAGE_SIZE - KVT_FR_OFF0 + PAGE_SIZE;
	enum kvt_result r = kvt_need_frwr(ctx, true);
	struct ib_sge src[2];
	u8 *last;

	if (r != KVT_PASS)
		return r;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
static enum kvt_result kvt_case_fr_read(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct kvt_end *a = &ctx->a;
	enum kvt_result r = kvt_need_frwr(ctx, true);
	struct ib_sge dst[2];
	u32 k;

	if (r != KVT_PASS)
		return r;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
 * REM_ACCESS_ERR, and B's pages are unchanged.
 */
static enum kvt_result kvt_fr_refused(struct kvt_ctx *ctx, u32 rkey, u32 off,
				      u32 len, u32 seed)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct ib_sge src;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
static enum kvt_result kvt_case_fr_old_key(struct kvt_ctx *ctx)
{
	enum kvt_result r = kvt_need_frwr(ctx, true);

	if (r != KVT_PASS)
		return r;
	kvt_diag("old key 0x%08x, current 0x%08x\n", ctx->fr_key_old,
		 ctx->fr.mr->rkey);
	return kvt_fr_refused(ctx, ctx->fr_key_old, 0, 64, 11);
}

/* 16 bytes from 8 before the end of the registration: refused whole. */
static enum kvt_result kvt_case_fr_bounds(struct kvt_ctx *ctx)
{
	enum kvt_result r = kvt_need_frwr(ctx, true);

	if (r != KVT_PASS)
		return r;
	return kvt_fr_refused(ctx, ctx->fr.mr->rkey, KVT_FR_LEN - 8, 16, 13);
}

/* LOCAL_INV; then A's WRITE and READ with the rkey fail. */
static enum kvt_result kvt_case_fr_local_inv(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	enum kvt_result r = kvt_need_frwr(ctx, true);
	struct ib_sge dst;

	if (r != KVT_PASS)
		return r;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
	if (!fr->valid) {
		kvt_diag("the MR is not registered: an earlier case failed\n");
		return KVT_FAIL;
	}
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
static enum kvt_result kvt_case_fr_rereg(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	enum kvt_result r = kvt_need_frwr(ctx, true);
	struct ib_sge src;

	if (r != KVT_PASS)
		return r;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
	if (kvt_frwr_reg(ctx, fr, IB_ACCESS_LOCAL_WRITE |
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE))
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
static enum kvt_result kvt_case_send_inv(struct kvt_ctx *ctx)
{
	struct kvt_frwr *fr = &ctx->fr;
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	enum kvt_result r = kvt_need_frwr(ctx, true);
	struct ib_send_wr wr = { .opcode = IB_WR_SEND_WITH_INV };
	struct ib_sge src, dst;
	struct kvt_op *rop;
	int ret;

	if (r != KVT_PASS)
		return r;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
	if (!fr->valid) {
		kvt_diag("the MR is not registered: an earlier case failed\n");
		return KVT_FAIL;
	}
	kvt_fill(a->buf, 100, 18, 0);
	dst = kvt_sge(b, 0, 256);
	rop = kvt_post_recv(ctx, b, &dst, 1);
	if (!rop)
		return KVT_FAIL;
	src = kvt_sge(a, 0, 100);
	wr.sg_list = &src;
	wr.num_sge = 1;
	wr.ex.invalidate_rkey = fr->mr->rkey;
	ret = kvt_send_wait(ctx, a, &wr, "A: SEND_WITH_INV", IB_WC_SUCCESS,
			    IB_WC_SEND);
	ret = kvt_reap(ctx, rop, "B: RECV", IB_WC_SUCCESS, IB_WC_RECV) ?: ret;
	if (ret)
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

static enum kvt_result kvt_case_send_inv_refused(struct kvt_ctx *ctx)
{
	enum kvt_result r = kvt_need_frwr(ctx, true);

	if (r != KVT_PASS)
		return r;
	if (ctx->fr.valid) {
		kvt_diag("the MR was not invalidated: an earlier case failed\n");
		return KVT_FAIL;
	}
	return kvt_fr_refused(ctx, ctx->fr.mr->rkey, 0, 64, 19);
}

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
static enum kvt_result kvt_case_atomics(struct kvt_ctx *ctx)
{
	enum kvt_result r = kvt_need_frwr(ctx, false);
	struct kvt_frwr *fra = &ctx->fra;
	const u64 v0 = 0x1000000000000005ULL, add = 0x10, v1 = v0 + add;
	const u64 swap = 0xdeadbeefcafef00dULL;
	u64 *target, raddr;

	if (r != KVT_PASS)
		return r;
	if (ctx->a.dev->attrs.atomic_cap == IB_ATOMIC_NONE ||
	    ctx->b.dev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		ctx->skip = "a device does not advertise atomics (atomic_cap)";
		return KVT_SKIP;
	}
	if (!ctx->rd_atom) {
		ctx->skip = "no atomic resources (max_qp_rd_atom 0)";
		return KVT_SKIP;
	}
	if (!kvt_ready(ctx))
		return KVT_FAIL;
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

/*
 * ib_drain_qp() with receives posted on both QPs and, on A, a SEND that
 * waits out RNR NAKs (B has no receive): every one of them flushes.
 */
static enum kvt_result kvt_case_drain(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct kvt_op *sop, *rop[2][8];
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct ib_sge sge;
	bool ok = true;
	int i, j;

	if (!kvt_ready(ctx))
		return KVT_FAIL;
	sge = kvt_sge(a, 0, 64);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	sop = kvt_post_send(ctx, a, &wr);
	if (!sop)
		return KVT_FAIL;
	/* Long enough for the SEND to meet an RNR NAK. */
	msleep(50);
	for (i = 0; i < 8; i++) {
		sge = kvt_sge(a, 4096 + i * 256, 256);
		rop[0][i] = kvt_post_recv(ctx, a, &sge, 1);
		if (!rop[0][i]) {
			ctx->need_reset = true;
			return KVT_FAIL;
		}
	}
	ib_drain_qp(a->qp);
	/*
	 * B receives only now, with A in ERROR: the SEND cannot land (a
	 * retransmission still on its way has had time to arrive).
	 */
	msleep(20);
	for (i = 0; i < 8; i++) {
		sge = kvt_sge(b, i * 256, 256);
		rop[1][i] = kvt_post_recv(ctx, b, &sge, 1);
		if (!rop[1][i]) {
			ctx->need_reset = true;
			return KVT_FAIL;
		}
	}
	ib_drain_qp(b->qp);
	ctx->need_reset = true;

	/* Drained: every completion was consumed before the drain's own. */
	if (!completion_done(&sop->done) ||
	    sop->wc.status != IB_WC_WR_FLUSH_ERR) {
		kvt_diag("A's SEND: %s after ib_drain_qp(), expected %s\n",
			 completion_done(&sop->done) ?
			 ib_wc_status_msg(sop->wc.status) : "no completion",
			 ib_wc_status_msg(IB_WC_WR_FLUSH_ERR));
		ok = false;
	} else {
		kvt_op_put(sop);
	}
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 8; j++) {
			struct kvt_op *op = rop[i][j];

			if (completion_done(&op->done) &&
			    op->wc.status == IB_WC_WR_FLUSH_ERR) {
				kvt_op_put(op);
				continue;
			}
			kvt_diag("%s's receive %d: %s after ib_drain_qp(), expected %s\n",
				 i ? "B" : "A", j,
				 completion_done(&op->done) ?
				 ib_wc_status_msg(op->wc.status) :
				 "no completion",
				 ib_wc_status_msg(IB_WC_WR_FLUSH_ERR));
			ok = false;
		}
	}
	return ok ? KVT_PASS : KVT_FAIL;
}

/* --- shared receive queue ------------------------------------------------- */

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
static enum kvt_result kvt_case_srq(struct kvt_ctx *ctx)
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

	if (!a->dev->attrs.max_srq) {
		ctx->skip = "A's device does not advertise SRQs (max_srq 0)";
		return KVT_SKIP;
	}
	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
	if (kvt_to_init(&ea) || kvt_to_init(&eb) ||
	    kvt_to_rtr(ctx, &ea, &eb) || kvt_to_rtr(ctx, &eb, &ea) ||
	    kvt_to_rts(ctx, &ea) || kvt_to_rts(ctx, &eb))
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
		ret = kvt_send_wait(ctx, &eb, &wr, "B: SEND to the SRQ QP",
				    IB_WC_SUCCESS, IB_WC_SEND);
		ret = kvt_reap(ctx, rop[i], "A: RECV from the SRQ",
			       IB_WC_SUCCESS, IB_WC_RECV) ?: ret;
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

/* Through RESET to RTS again: SEND both ways, query_qp says RTS. */
static enum kvt_result kvt_case_reconnect(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	struct kvt_end *from, *to;
	struct ib_qp_init_attr init;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct ib_qp_attr attr;
	struct ib_sge src, dst;
	struct kvt_op *rop;
	int i, ret;

	if (!ctx->connected)
		return KVT_FAIL;
	ctx->need_reset = true;
	if (!kvt_ready(ctx))
		return KVT_FAIL;
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
		dst = kvt_sge(to, 8192, 4096);
		rop = kvt_post_recv(ctx, to, &dst, 1);
		if (!rop)
			return KVT_FAIL;
		src = kvt_sge(from, 0, 2000);
		wr.sg_list = &src;
		wr.num_sge = 1;
		ret = kvt_send_wait(ctx, from, &wr, "SEND", IB_WC_SUCCESS,
				    IB_WC_SEND);
		ret = kvt_reap(ctx, rop, "RECV", IB_WC_SUCCESS, IB_WC_RECV) ?:
		      ret;
		if (ret || rop->wc.byte_len != 2000 ||
		    !kvt_check(to->role, to->buf + 8192, 2000, 20 + i, 0))
			return KVT_FAIL;
	}
	return KVT_PASS;
}

static enum kvt_result kvt_case_teardown(struct kvt_ctx *ctx)
{
	int failed = 0;

	if (ctx->connected && kvt_ops_busy(ctx))
		kvt_diag("work requests still outstanding at teardown\n");
	/* QPs first: no work request uses an MR or a CQ any more. */
	failed += kvt_destroy_qp(&ctx->a);
	failed += kvt_destroy_qp(&ctx->b);
	failed += kvt_frwr_free(&ctx->b, &ctx->fr);
	failed += kvt_frwr_free(&ctx->b, &ctx->fra);
	kvt_free_end(&ctx->a);
	kvt_free_end(&ctx->b);
	/* Every MR of a PD is gone: ib_dealloc_pd() cannot fail. */
	if (ctx->a.pd)
		ib_dealloc_pd(ctx->a.pd);
	if (ctx->b.pd)
		ib_dealloc_pd(ctx->b.pd);
	ctx->a.pd = NULL;
	ctx->b.pd = NULL;
	if (ctx->a.dev)
		ib_device_put(ctx->a.dev);
	if (ctx->b.dev)
		ib_device_put(ctx->b.dev);
	ctx->a.dev = NULL;
	ctx->b.dev = NULL;
	ctx->connected = false;
	return failed ? KVT_FAIL : KVT_PASS;
}

struct kvt_case {
	const char *name;
	enum kvt_result (*run)(struct kvt_ctx *ctx);
};

static const struct kvt_case kvt_cases[] = {
	{ "setup: PDs, CQs (softirq, workqueue, direct), RC QPs to RTS",
	  kvt_case_setup },
	{ "SEND of 3 SGEs into a receive of 3 SGEs", kvt_case_send_sge },
	{ "SEND_WITH_IMM, with and without payload", kvt_case_send_imm },
	{ "posting from completion handlers (softirq, workqueue), RNR",
	  kvt_case_handlers },
	{ "RDMA WRITE of 3 SGEs through the unsafe global rkey",
	  kvt_case_write },
	{ "RDMA WRITE_WITH_IMM consumes a receive without SGEs",
	  kvt_case_write_imm },
	{ "RDMA READ into 3 SGEs through the unsafe global rkey",
	  kvt_case_read },
	{ "RDMA WRITE with a wrong rkey variant: REM_ACCESS_ERR, nothing written",
	  kvt_case_bad_rkey },
	{ "FRWR: alloc_mr(MEM_REG) and ib_map_mr_sg of 4 pages",
	  kvt_case_fr_map },
	{ "FRWR: REG_MR with a new key variant", kvt_case_fr_reg },
	{ "FRWR: RDMA WRITE through the new rkey, across pages",
	  kvt_case_fr_write },
	{ "FRWR: RDMA READ through the new rkey", kvt_case_fr_read },
	{ "FRWR: the key of before REG_MR is refused (REM_ACCESS_ERR)",
	  kvt_case_fr_old_key },
	{ "FRWR: a WRITE past the end of the registration is refused",
	  kvt_case_fr_bounds },
	{ "FRWR: after LOCAL_INV, WRITE and READ with the rkey fail (REM_ACCESS_ERR)",
	  kvt_case_fr_local_inv },
	{ "FRWR: REG_MR again after LOCAL_INV, with the next variant",
	  kvt_case_fr_rereg },
	{ "SEND_WITH_INV: IB_WC_WITH_INVALIDATE and the rkey at the receiver",
	  kvt_case_send_inv },
	{ "SEND_WITH_INV: the invalidated rkey is refused (REM_ACCESS_ERR)",
	  kvt_case_send_inv_refused },
	{ "atomics: FETCH_ADD and CMP_SWP through an FRWR MR",
	  kvt_case_atomics },
	{ "ib_drain_qp flushes posted receives and an RNR-waiting SEND",
	  kvt_case_drain },
	{ "RESET to RTS again: query_qp, SEND both ways",
	  kvt_case_reconnect },
	{ "SRQ: post_srq_recv to max_wr, limit event once, no flush on ERROR",
	  kvt_case_srq },
	{ "teardown: QPs, MRs, CQs, PDs", kvt_case_teardown },
};

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
	ctx->b.role = "B";
	ctx->b.name = dev_b;
	ctx->timeout = msecs_to_jiffies(timeout_ms);
	for (i = 0; i < KVT_OPS; i++)
		init_completion(&ctx->ops[i].done);
	init_completion(&ctx->chain.done);

	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(kvt_cases));
	kvt_diag("A is %s, B is %s\n", dev_a, dev_b);
	for (i = 0; i < ARRAY_SIZE(kvt_cases); i++) {
		ctx->skip = NULL;
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
