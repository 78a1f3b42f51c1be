// SPDX-License-Identifier: GPL-2.0
/*
 * setup.c - the set-up of the two sides (device, GID, PD, CQs, buffer, RC
 * QP) and their connection: the first case; and the last, the teardown.
 */
#include "kvt.h"

#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

void kvt_qp_event(struct ib_event *ev, void *context)
{
	struct kvt_end *e = context;

	kvt_diag("%s: QP event: %s\n", e->role, ib_event_msg(ev->event));
}

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
static int kvt_setup_end(struct kvt_end *e, bool target)
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
	ret = kvt_find_gid(e, e->want_gid);
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

/*
 * Free one side's CQs, buffer and PD, and put its device (its QP and
 * every MR of its PD are gone: ib_dealloc_pd() cannot fail).
 */
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
	if (e->pd)
		ib_dealloc_pd(e->pd);
	e->pd = NULL;
	if (e->dev)
		ib_device_put(e->dev);
	e->dev = NULL;
}

enum kvt_result kvt_case_setup(struct kvt_ctx *ctx)
{
	struct kvt_end *a = &ctx->a, *b = &ctx->b;
	int ret, n;

	ret = kvt_setup_end(a, false) ?: kvt_setup_end(b, true);
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

enum kvt_result kvt_case_teardown(struct kvt_ctx *ctx)
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
	ctx->connected = false;
	return failed ? KVT_FAIL : KVT_PASS;
}

