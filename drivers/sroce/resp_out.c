// SPDX-License-Identifier: GPL-2.0
/*
 * resp_out.c - the responder's output: READ responses, atomic replies and
 * ACK/NAK.
 *
 * Responses leave in PSN order: the READ responses and atomic
 * replies in resource order, then the pending ACK or NAK (ACKs coalesce:
 * each acknowledges every PSN before it, and a READ response or atomic
 * reply acknowledges the requests before its own).  One context at a time
 * sends them (task.c): the receive path, for at most
 * SROCE_RESP_SOFTIRQ_BUDGET packets, then the QP's work item for the rest
 * of a long READ, so a large READ neither holds the softirq nor overruns
 * the receiver's backlog.
 *
 * Packets are built under the QP lock and sent after it is dropped.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "net.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/* Next READ response packet of @r, or its atomic reply. */
static struct sk_buff *sroce_resp_build_res(struct sroce_qp *qp,
					    struct sroce_res *r)
{
	struct sroce_hdrs h = {};
	struct sroce_seg seg = {};
	struct sk_buff *skb;
	u32 hdr_len, off = 0;
	u8 *hdr;

	if (r->type == SROCE_RES_READ) {
		off = sroce_psn_outstanding(r->cur_psn, r->first_psn) *
		      qp->pmtu;
		if (sroce_seg_at(SROCE_TRANSPORT_RC, SROCE_MSG_READ_RESP,
				 r->len, qp->pmtu, off, &seg))
			return NULL;
	} else {
		seg.opcode = SROCE_OP_RC_ATOMIC_ACK;
		seg.last = 1;
	}
	hdr_len = sroce_opcode_lookup(seg.opcode)->hdr_len;
	skb = sroce_net_alloc_skb(qp, hdr_len, seg.paylen, &hdr);
	if (!skb)
		return NULL;
	if (seg.paylen && sroce_mr_copy(r->mr, r->va + off, hdr + hdr_len,
					seg.paylen, SROCE_MR_TO_BUF)) {
		kfree_skb(skb);
		return NULL;
	}
	h.bth.opcode = seg.opcode;
	h.bth.pad = seg.pad;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->attr.dest_qp_num;
	h.bth.psn = r->cur_psn;
	h.aeth.syndrome = SROCE_RESP_SYN_ACK;
	h.aeth.msn = r->msn;
	h.atmack = r->orig;
	sroce_hdrs_build(hdr, hdr_len, &h);

	r->cur_psn = sroce_psn_add(r->cur_psn, 1);
	if (seg.last) {
		if (r->mr)
			sroce_mr_put(r->mr);
		r->mr = NULL;
		qp->resp.res_tail++;
	}
	return skb;
}

static struct sk_buff *sroce_resp_build_ack(struct sroce_qp *qp)
{
	u32 hdr_len = SROCE_BTH_LEN + SROCE_AETH_LEN;
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	u8 *hdr;

	skb = sroce_net_alloc_skb(qp, hdr_len, 0, &hdr);
	if (!skb)
		return NULL;
	h.bth.opcode = SROCE_OP_RC_ACK;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->attr.dest_qp_num;
	h.bth.psn = qp->resp.ack.psn;
	h.aeth.syndrome = qp->resp.ack.syndrome;
	h.aeth.msn = qp->resp.ack.msn;
	sroce_hdrs_build(hdr, hdr_len, &h);
	qp->resp.ack.send = false;
	return skb;
}

/*
 * Build up to SROCE_REQ_BATCH of the responder's packets, in order, onto
 * @list; lock held.  Returns the number built.  Out of memory, it stops:
 * the requester times out and asks again.
 */
static int sroce_resp_build(struct sroce_qp *qp, struct sk_buff_head *list)
{
	struct sroce_resp *rs = &qp->resp;
	struct sk_buff *skb;
	int n = 0;

	lockdep_assert_held(&qp->lock);
	if (qp->destroyed)
		return 0;
	while (n < SROCE_REQ_BATCH) {
		if (rs->res_tail != rs->res_head)
			skb = sroce_resp_build_res(qp, &rs->res[rs->res_tail %
							       SROCE_RES_RING]);
		else if (qp->resp.ack.send)
			skb = sroce_resp_build_ack(qp);
		else
			break;
		if (!skb)
			break;
		__skb_queue_tail(list, skb);
		n++;
	}
	return n;
}

/**
 * sroce_resp_run() - the responder's output engine (see the top)
 * @qp: the QP, lock not held; run by one context at a time (task.c)
 *
 * Return: true when everything is sent, false when its budget in softirq
 * is used up and the work item goes on.
 */
bool sroce_resp_run(struct sroce_qp *qp)
{
	bool task = in_task();
	struct sk_buff_head list;
	struct sk_buff *skb;
	unsigned long flags;
	int n, sent = 0;

	__skb_queue_head_init(&list);
	do {
		if (!task && sent >= SROCE_RESP_SOFTIRQ_BUDGET)
			return false;	/* the work item goes on */
		spin_lock_irqsave(&qp->lock, flags);
		n = sroce_resp_build(qp, &list);
		spin_unlock_irqrestore(&qp->lock, flags);

		while ((skb = __skb_dequeue(&list)))
			sroce_net_qp_xmit(qp, skb);
		sent += n;
		if (task)
			cond_resched();
	} while (n == SROCE_REQ_BATCH);
	return true;
}
