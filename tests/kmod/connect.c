// SPDX-License-Identifier: GPL-2.0
/*
 * connect.c - the two RC QPs through INIT, RTR and RTS by ib_modify_qp()
 * alone, back through ERROR and RESET, and kvt_ready(): connected with
 * nothing outstanding at the start of a case.
 */
#include "kvt.h"

int kvt_modify(struct kvt_end *e, struct ib_qp_attr *attr, int mask,
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
 * The QPs of @a and @b (both in RESET) to RTS, each to the other, from
 * their sides' PSNs.
 */
int kvt_connect_pair(struct kvt_ctx *ctx, struct kvt_end *a,
		     struct kvt_end *b)
{
	return kvt_to_init(a) ?: kvt_to_init(b) ?:
	       kvt_to_rtr(ctx, a, b) ?: kvt_to_rtr(ctx, b, a) ?:
	       kvt_to_rts(ctx, a) ?: kvt_to_rts(ctx, b);
}

/*
 * Connect the two QPs (both in RESET).  The first connection starts A's
 * PSNs 3 below the 24-bit wrap, so the first long message wraps them.
 */
int kvt_connect(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	int ret;

	a->psn = (0xfffffd + ctx->generation * 0x10101) & 0xffffff;
	b->psn = (0x123456 + ctx->generation * 0x20202) & 0xffffff;
	ctx->generation++;
	ret = kvt_connect_pair(ctx, a, b);
	if (ret)
		return ret;
	ctx->connected = true;
	ctx->need_reset = false;
	return 0;
}

/* Both QPs to @state (@name in a diagnostic). */
static int kvt_both_to(struct kvt_ctx *ctx, enum ib_qp_state state,
		       const char *name)
{
	struct ib_qp_attr attr = { .qp_state = state };

	if (kvt_modify(&ctx->a, &attr, IB_QP_STATE, name) ||
	    kvt_modify(&ctx->b, &attr, IB_QP_STATE, name))
		return -EIO;
	return 0;
}

/*
 * Both QPs to ERROR, every outstanding work request flushed (and reaped),
 * then RESET and a new connection.
 */
static int kvt_reset(struct kvt_ctx *ctx)
{
	struct kvt_op *op;
	int i, ret = 0;

	if (kvt_both_to(ctx, IB_QPS_ERR, "ERR"))
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
	if (kvt_both_to(ctx, IB_QPS_RESET, "RESET"))
		return -EIO;
	return kvt_connect(ctx);
}

/*
 * Connected, nothing outstanding (reset first if need be), both buffers
 * filled with KVT_CANARY: the start of a case that moves data, and of a
 * part of one after an expected error.
 */
bool kvt_ready(struct kvt_ctx *ctx)
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
