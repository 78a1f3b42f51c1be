// SPDX-License-Identifier: GPL-2.0
/*
 * raw.c - raw packet QPs (IB_QPT_RAW_PACKET): whole Ethernet frames sent
 * on the device's netdev and received through flows (flow.c).
 *
 * Only user space creates them, and uverbs asks for CAP_NET_RAW.  They
 * share the rings, WQE format, requester and completions of the other QP
 * types: the requester (req.c) fetches a SEND WQE as for UD, and its
 * gathered bytes are one frame, Ethernet header included, built here and
 * sent with dev_queue_xmit() on the netdev (and given first to the flows
 * of the device that match it, as a NIC loops it back).  A frame shorter
 * than an Ethernet header or longer than the netdev's MTU plus its
 * Ethernet header (and VLAN tag) completes with IB_WC_LOC_LEN_ERR, and
 * the QP enters ERROR as for every local error.  Nothing acknowledges a
 * frame: its WQE completes once handed to the netdev.
 *
 * A frame that matches a flow of the QP takes the next receive WQE (of the
 * QP's receive queue, or of its SRQ) in RTR and RTS, and completes it with
 * the frame's length; a frame longer than the receive completes it with
 * IB_WC_LOC_LEN_ERR (the QP stays as it is: the sender's doing).  With no
 * receive posted the frame is dropped and counted (raw_rx_drops).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "flow.h"
#include "resp.h"

/**
 * sroce_raw_check_init() - may this raw packet QP be created
 * @init: the creation attributes
 * @udata: the user's data; NULL for a kernel user
 *
 * Return: 0, or -EOPNOTSUPP for a kernel user or an SRQ that is not basic.
 */
int sroce_raw_check_init(const struct ib_qp_init_attr *init,
			 const struct ib_udata *udata)
{
	if (!udata)
		return -EOPNOTSUPP;
	if (init->srq && init->srq->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	return 0;
}

/* The longest frame the netdev takes: its MTU and Ethernet header. */
static u32 sroce_raw_max_frame(const struct sroce_qp *qp, bool vlan)
{
	return READ_ONCE(qp->sdev->ndev->mtu) +
	       (vlan ? VLAN_ETH_HLEN : ETH_HLEN);
}

/**
 * sroce_raw_fetch() - the checks of a fetched raw send WQE
 * @qp: the QP, lock held
 * @w: the WQE's copy, gathered
 *
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_LEN_ERR for a length no frame has
 * (the exact limit depends on a VLAN tag: sroce_raw_build()).
 */
enum ib_wc_status sroce_raw_fetch(struct sroce_qp *qp,
				  const struct sroce_swqe *w)
{
	if (w->length < ETH_HLEN || w->length > sroce_raw_max_frame(qp, true))
		return IB_WC_LOC_LEN_ERR;
	return IB_WC_SUCCESS;
}

/**
 * sroce_raw_build() - the frame of a raw send WQE, onto @list
 * @qp: the QP, lock held
 * @w: the WQE at the requester's position, fetched
 * @list: where the frame goes
 *
 * Return: 0, -ENOMEM, -EAGAIN (pages of its buffers missing, odp.c),
 * -EFAULT (its region changed), -EMSGSIZE (too long for the netdev).
 */
int sroce_raw_build(struct sroce_qp *qp, struct sroce_swqe *w,
		    struct sk_buff_head *list)
{
	struct net_device *ndev = qp->sdev->ndev;
	struct sk_buff *skb;
	const struct ethhdr *eth;
	u8 *data;
	int ret = 0;

	lockdep_assert_held(&qp->lock);
	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + w->length, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev));
	data = skb_put(skb, w->length);
	if (w->send_flags & SROCE_SEND_INLINE)
		memcpy(data, w->sge, w->length);
	else
		ret = sroce_sge_copy(w->sge, w->num_sge, 0, data, w->length,
				     SROCE_MR_TO_BUF);
	if (ret) {
		kfree_skb(skb);
		return ret == -EAGAIN ? -EAGAIN : -EFAULT;
	}
	eth = (const struct ethhdr *)data;
	if (w->length > sroce_raw_max_frame(qp, eth->h_proto ==
					    htons(ETH_P_8021Q))) {
		kfree_skb(skb);
		return -EMSGSIZE;
	}
	skb_reset_mac_header(skb);
	skb->protocol = eth->h_proto;
	skb_set_network_header(skb, eth->h_proto == htons(ETH_P_8021Q) ?
			       VLAN_ETH_HLEN : ETH_HLEN);
	__skb_queue_tail(list, skb);
	/* One PSN per frame, as a datagram (the requester numbers it). */
	return 0;
}

/**
 * sroce_raw_xmit() - send a raw QP's frame
 * @qp: the QP, lock not held
 * @skb: from sroce_raw_build(); consumed
 *
 * The device's flows see the frame first, then the netdev sends it.
 *
 * Return: 0, or a negative errno when the netdev refused it (lost as on
 * a wire).
 */
int sroce_raw_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = qp->sdev;
	int ret;

	local_bh_disable();
	sroce_flow_deliver(sdev, NULL, 0, skb, 0);
	sroce_stats_inc(sdev->stats, SROCE_CNT_RAW_TX);
	local_bh_enable();
	skb->dev = sdev->ndev;
	ret = dev_queue_xmit(skb);
	return net_xmit_eval(ret) ? -ENOBUFS : 0;
}

/* The next receive WQE of the QP, from its RQ or its SRQ; lock held. */
static bool sroce_raw_take(struct sroce_qp *qp, enum ib_wc_status *status,
			   struct sroce_nfy *nfy)
{
	if (!qp->ibqp.srq)
		return sroce_resp_take_rwqe(qp, status);
	return sroce_srq_take(to_ssrq(qp->ibqp.srq), qp, &qp->resp.rwqe,
			      status, nfy);
}

/**
 * sroce_raw_rcv() - a frame for a raw QP whose flow matched it
 * @qp: the QP, with a reference, lock not held
 * @hdr: the frame's first @hlen bytes
 * @hlen: their length (0: all of it is in @skb)
 * @skb: the rest of the frame from @skb_off (not consumed)
 * @skb_off: first byte in @skb, from skb->data
 *
 * Bottom halves off.
 */
void sroce_raw_rcv(struct sroce_qp *qp, const u8 *hdr, u32 hlen,
		   const struct sk_buff *skb, u32 skb_off)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	struct sroce_cqe cqe = { .opcode = IB_WC_RECV };
	u32 len = hlen + skb->len - skb_off;
	struct sroce_rwqe *r = &qp->resp.rwqe;
	enum ib_wc_status status;
	struct sroce_nfy nfy = {};
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->destroyed ||
	    (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS) ||
	    !sroce_raw_take(qp, &status, &nfy)) {
		spin_unlock_irqrestore(&qp->lock, flags);
		sroce_stats_inc(stats, SROCE_CNT_RAW_RX_DROPS);
		sroce_qp_notify(&nfy);
		return;
	}
	if (status)
		cqe.status = status;
	else if (len > r->length)
		cqe.status = IB_WC_LOC_LEN_ERR;
	else if ((hlen && sroce_sge_copy(r->sge, r->num_sge, 0, (void *)hdr,
					 hlen, SROCE_MR_FROM_BUF)) ||
		 sroce_sge_scatter_skb(r->sge, r->num_sge, hlen, skb, skb_off,
				       len - hlen))
		cqe.status = IB_WC_LOC_PROT_ERR;
	cqe.wr_id = r->wr_id;
	if (!cqe.status)
		cqe.byte_len = len;
	sroce_resp_rwqe_release(qp);
	/* The slot is free before its completion shows (the uapi). */
	if (!qp->ibqp.srq)
		sroce_resp_rq_consume(qp);
	sroce_qp_complete(qp, sroce_qp_recv_cq(qp), &cqe, false, &nfy);
	if (cqe.status && cqe.status != IB_WC_LOC_LEN_ERR)
		sroce_qp_error(qp, &nfy);
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_stats_inc(stats, SROCE_CNT_RAW_RX);
	sroce_qp_notify(&nfy);
}
