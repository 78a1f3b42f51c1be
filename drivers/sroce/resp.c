// SPDX-License-Identifier: GPL-2.0
/*
 * resp.c - the responder: request packets to received messages and ACKs.
 *
 * Each request packet is classified by its PSN against the expected PSN
 * (IBTA 9.7.5):
 *  - a duplicate is acknowledged again (the last ACK was lost) and
 *    dropped;
 *  - one ahead of it shows a lost packet: a single PSN sequence error NAK
 *    per gap, and the packet is dropped;
 *  - the expected one is executed: a SEND consumes the receive WQE at the
 *    head of the receive ring (taken with its first packet, scattered
 *    across its SGEs) and completes it with its last packet.
 * With no receive WQE posted the packet is refused with an RNR NAK, and
 * the requester sends it again later.  A message that does not fit its
 * receive WQE, or a receive WQE that fails its checks, completes the
 * WQE with the error, NAKs the request, and moves the QP to ERROR.
 *
 * ACKs go out for packets that ask for one (AckReq), which the requester
 * sets on the last packet of every message and at intervals in long ones:
 * every ACK acknowledges all the PSNs before it.
 *
 * Runs in softirq (the receive path), under the QP lock; packets are sent
 * after the lock is dropped.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "counters.h"
#include "net.h"
#include "proto/sroce_proto.h"

/* The ACK syndrome: no end-to-end credits, as rdma_rxe and most NICs. */
#define SROCE_RESP_SYN_ACK	sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID)

/* An ACK or NAK the responder has decided to send. */
struct sroce_resp_ack {
	bool send;
	u8 syndrome;
	u32 psn;
	u32 msn;
};

static void sroce_resp_set_ack(struct sroce_qp *qp, struct sroce_resp_ack *ack,
			       u8 syndrome, u32 psn)
{
	ack->send = true;
	ack->syndrome = syndrome;
	ack->psn = psn;
	ack->msn = qp->msn;
}

static void sroce_resp_xmit_ack(struct sroce_qp *qp,
				const struct sroce_resp_ack *ack)
{
	u32 hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN;
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	u8 *hdr;

	skb = sroce_qp_alloc_skb(qp, hdr_len, 0, &hdr);
	if (!skb)
		return;
	h.bth.opcode = SROCE_OP_RC_ACK;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->attr.dest_qp_num;
	h.bth.psn = ack->psn;
	h.aeth.syndrome = ack->syndrome;
	h.aeth.msn = ack->msn;
	sroce_hdrs_build(hdr, hdr_len, &h);
	sroce_qp_xmit(qp, skb);
}

/* Complete the receive WQE in use with @status, or with its data. */
static void sroce_resp_complete(struct sroce_qp *qp, u8 status,
				const struct sroce_pkt *pkt, u32 imm,
				struct sroce_nfy *nfy)
{
	struct sroce_cqe cqe = {
		.wr_id = qp->rwqe.wr_id,
		.status = status,
		.opcode = IB_WC_RECV,
		.byte_len = qp->recv_off,
		.src_qp = qp->attr.dest_qp_num,
	};
	bool solicited = false;

	if (!status && (pkt->info->flags & SROCE_OPF_IMM)) {
		cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
		cqe.imm_data = (__force u32)cpu_to_be32(imm);
	}
	if (!status)
		solicited = pkt->bth.flags & SROCE_BTHF_SE;
	sroce_sge_put(qp->rwqe.sge, qp->rwqe.num_sge);
	qp->rwqe.num_sge = 0;
	qp->in_msg = false;
	qp->recv_off = 0;
	/* The slot is free before its completion shows (the uapi). */
	sroce_queue_store_consumer(&qp->rq, ++qp->rq_cons);
	sroce_qp_complete(qp, sroce_qp_recv_cq(qp), &cqe, solicited, nfy);
}

/*
 * Take the receive WQE at the head of the ring: 1 when there is one, 0
 * when the ring is empty, or a negative status when it fails its checks
 * (it is then in use, to complete with that status).
 */
static int sroce_resp_take_rwqe(struct sroce_qp *qp)
{
	const void *slot = sroce_queue_slot(&qp->rq, qp->rq_cons);
	const struct sroce_sge *usge = slot + sizeof(struct sroce_recv_wqe);
	struct sroce_rwqe *r = &qp->rwqe;
	struct sroce_recv_wqe u;
	u64 total = 0;
	u32 prod, i;

	prod = sroce_queue_load_producer(&qp->rq);
	if (prod == qp->rq_cons || prod - qp->rq_cons > qp->rq.num_entries)
		return 0;
	memcpy(&u, slot, sizeof(u));
	r->wr_id = u.wr_id;
	r->num_sge = 0;
	r->length = 0;
	qp->in_msg = true;
	qp->recv_off = 0;
	if (u.num_sge > qp->cap.max_recv_sge)
		return -IB_WC_LOC_LEN_ERR;
	for (i = 0; i < u.num_sge; i++) {
		struct sroce_sge sge;
		struct sroce_mr *mr;

		memcpy(&sge, &usge[i], sizeof(sge));
		r->sge[i].addr = sge.addr;
		r->sge[i].length = sge.length;
		r->sge[i].mr = NULL;
		r->num_sge = i + 1;
		total += sge.length;
		if (!sge.length)
			continue;
		mr = sroce_mr_lookup_local(qp->sdev, sge.lkey, qp->ibqp.pd,
					   IB_ACCESS_LOCAL_WRITE, sge.addr,
					   sge.length);
		if (IS_ERR(mr)) {
			ibdev_dbg(qp->ibqp.device,
				  "QP %u: receive SGE %u lkey %#x %#llx+%u: %ld\n",
				  qp->ibqp.qp_num, i, sge.lkey, sge.addr,
				  sge.length, PTR_ERR(mr));
			return -IB_WC_LOC_PROT_ERR;
		}
		r->sge[i].mr = mr;
	}
	r->length = min_t(u64, total, U32_MAX);
	return 1;
}

/* Scatter a packet's payload into the receive WQE in use. */
static int sroce_resp_scatter(struct sroce_qp *qp, struct sk_buff *skb,
			      const struct sroce_pkt *pkt)
{
	struct sroce_rwqe *r = &qp->rwqe;
	int skb_off = SROCE_UDP_HLEN + pkt->info->hdr_len;
	u32 len = pkt->paylen, off = qp->recv_off, i;
	int ret;

	if (len > r->length || off > r->length - len)
		return -IB_WC_LOC_LEN_ERR;
	for (i = 0; i < r->num_sge && len; i++) {
		const struct sroce_sge_ref *s = &r->sge[i];
		u32 n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = min(len, s->length - off);
		ret = sroce_mr_copy_from_skb(s->mr, s->addr + off, skb,
					     skb_off, n);
		if (ret)
			return -IB_WC_LOC_PROT_ERR;
		skb_off += n;
		len -= n;
		off = 0;
	}
	qp->recv_off += pkt->paylen;
	return 0;
}

/* Execute the expected SEND packet; lock held.  Sets the ACK to send. */
static void sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb,
			    const struct sroce_pkt *pkt,
			    struct sroce_resp_ack *ack,
			    struct sroce_nfy *nfy)
{
	u32 flags = pkt->info->flags;
	struct sroce_hdrs h;
	int ret;

	if (!!(flags & SROCE_OPF_FIRST) == qp->in_msg) {
		/* A FIRST/ONLY inside a message, or a MIDDLE/LAST outside. */
		sroce_resp_set_ack(qp, ack,
				   sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ),
				   pkt->bth.psn);
		if (qp->in_msg)
			sroce_resp_complete(qp, IB_WC_REM_INV_REQ_ERR, pkt, 0,
					    nfy);
		sroce_qp_error(qp, nfy);
		return;
	}
	if (flags & SROCE_OPF_FIRST) {
		ret = sroce_resp_take_rwqe(qp);
		if (!ret) {
			sroce_stats_inc(qp->sdev->stats, SROCE_CNT_RNR_NAK_SENT);
			sroce_resp_set_ack(qp, ack,
					   sroce_aeth_syn_rnr(qp->attr.min_rnr_timer),
					   pkt->bth.psn);
			return;
		}
		if (ret < 0)
			goto err_local;
	}
	ret = sroce_resp_scatter(qp, skb, pkt);
	if (ret)
		goto err_local;

	qp->epsn = sroce_psn_add(qp->epsn, 1);
	if (flags & SROCE_OPF_LAST) {
		sroce_pkt_hdrs(pkt, &h);
		qp->msn = (qp->msn + 1) & SROCE_PSN_MASK;
		sroce_resp_complete(qp, IB_WC_SUCCESS, pkt, h.imm, nfy);
	}
	if (pkt->bth.flags & SROCE_BTHF_ACKREQ)
		sroce_resp_set_ack(qp, ack, SROCE_RESP_SYN_ACK, pkt->bth.psn);
	return;

err_local:
	/*
	 * The message cannot be placed: a length error is the requester's
	 * (invalid request), a bad receive WQE is ours (operational error).
	 */
	sroce_resp_set_ack(qp, ack,
			   sroce_aeth_syn_nak(-ret == IB_WC_LOC_LEN_ERR ?
					      SROCE_NAK_INVALID_REQ :
					      SROCE_NAK_REMOTE_OP),
			   pkt->bth.psn);
	sroce_resp_complete(qp, -ret, pkt, 0, nfy);
	sroce_qp_error(qp, nfy);
}

/**
 * sroce_resp_rcv() - a request packet for a QP's responder
 * @qp: the QP, with a reference
 * @skb: the packet, data at the UDP header (not consumed)
 * @pkt: its parsed headers
 */
void sroce_resp_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		    const struct sroce_pkt *pkt)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	struct sroce_nfy nfy = {};
	struct sroce_resp_ack ack = {};
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->destroyed || qp->state < IB_QPS_RTR || qp->state == IB_QPS_ERR)
		goto out_unlock;

	switch (sroce_psn_classify(pkt->bth.psn, qp->epsn)) {
	case SROCE_PSN_DUPLICATE:
		sroce_stats_inc(stats, SROCE_CNT_DUPLICATES);
		/* Acknowledge again everything up to the expected PSN. */
		sroce_resp_set_ack(qp, &ack, SROCE_RESP_SYN_ACK,
				   sroce_psn_add(qp->epsn, SROCE_PSN_MASK));
		break;
	case SROCE_PSN_AHEAD:
		if (qp->nak_sent)
			break;
		qp->nak_sent = true;
		sroce_stats_inc(stats, SROCE_CNT_SEQ_NAK_SENT);
		sroce_resp_set_ack(qp, &ack,
				   sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ),
				   qp->epsn);
		break;
	case SROCE_PSN_EXPECTED:
		qp->nak_sent = false;
		if (pkt->info->flags & SROCE_OPF_SEND) {
			sroce_resp_send(qp, skb, pkt, &ack, &nfy);
		} else {
			/* RDMA and atomics come with their own issue. */
			sroce_resp_set_ack(qp, &ack,
					   sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ),
					   pkt->bth.psn);
			sroce_qp_error(qp, &nfy);
		}
		break;
	}
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	if (ack.send)
		sroce_resp_xmit_ack(qp, &ack);
	sroce_qp_notify(&nfy);
}

/**
 * sroce_resp_flush() - complete every receive WQE with IB_WC_WR_FLUSH_ERR
 * @qp: a QP in ERROR, lock held
 * @nfy: collects CQs to signal
 */
void sroce_resp_flush(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	struct sroce_cq *cq = sroce_qp_recv_cq(qp);
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
	};
	u32 prod;

	lockdep_assert_held(&qp->lock);
	if (qp->in_msg) {
		sroce_sge_put(qp->rwqe.sge, qp->rwqe.num_sge);
		qp->rwqe.num_sge = 0;
		qp->in_msg = false;
	}
	prod = sroce_queue_load_producer(&qp->rq);
	if (prod - qp->rq_cons > qp->rq.num_entries)
		return;
	while (qp->rq_cons != prod) {
		const struct sroce_recv_wqe *u =
			sroce_queue_slot(&qp->rq, qp->rq_cons);

		cqe.wr_id = READ_ONCE(u->wr_id);
		sroce_queue_store_consumer(&qp->rq, ++qp->rq_cons);
		sroce_qp_complete(qp, cq, &cqe, false, nfy);
	}
}
