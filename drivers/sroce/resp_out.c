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
 * of a long READ, SROCE_RESP_RUN_BUDGET packets a run before it queues
 * itself again (resp_yields), so a large READ neither holds the softirq,
 * nor its CPU's workqueue, nor overruns the receiver's backlog.
 *
 * Packets are built under the QP lock and sent after it is dropped.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "net.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/*
 * Decide the ACK or NAK to send for @psn (the last decision counts).  UC
 * acknowledges nothing.
 */
void sroce_resp_set_ack(struct sroce_qp *qp, u8 syndrome, u32 psn)
{
	lockdep_assert_held(&qp->lock);
	if (!sroce_qp_is_rc(qp))
		return;
	qp->resp.ack.send = true;
	qp->resp.ack.syndrome = syndrome;
	qp->resp.ack.psn = psn;
	qp->resp.ack.msn = qp->resp.msn;
}

/**
 * sroce_resp_drop_res() - drop the responses not yet sent
 * @qp: the QP, lock held
 */
void sroce_resp_drop_res(struct sroce_qp *qp)
{
	struct sroce_resp *rs = &qp->resp;

	lockdep_assert_held(&qp->lock);
	for (; rs->res_tail != rs->res_head; rs->res_tail++) {
		struct sroce_res *r = sroce_resp_res_at(qp, rs->res_tail);

		if (r->mr)
			sroce_mr_put(r->mr);
		r->mr = NULL;
		r->type = SROCE_RES_NONE;
	}
}

/**
 * sroce_resp_ack_drop() - no ACK is owed any more (the responses carry it)
 * @qp: the QP, lock held
 */
void sroce_resp_ack_drop(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->resp.ack.send = false;
}

/*
 * The key of READ @r no longer reaches its region for the bytes at @off
 * (invalidated, deregistered or unbound since the READ was accepted): not
 * one more byte of it goes out.  It and the responses after it are
 * dropped, a remote access NAK for its next PSN ends the stream, and the
 * QP enters ERROR.  Lock held.
 */
static void sroce_resp_read_revoked(struct sroce_qp *qp, struct sroce_res *r,
				    struct sroce_nfy *nfy)
{
	u32 psn = r->cur_psn;

	ibdev_dbg(qp->ibqp.device, "QP %u: READ rkey %#x revoked at PSN %#x\n",
		  qp->ibqp.qp_num, r->rkey, psn);
	sroce_resp_drop_res(qp);
	sroce_resp_set_ack(qp, sroce_aeth_syn_nak(SROCE_NAK_REMOTE_ACCESS),
			   psn);
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_ACCESS_NAKS_SENT);
	sroce_qp_error(qp, nfy);
}

/*
 * Next READ response packet of @r, or its atomic reply; NULL without
 * memory or while pages of an on-demand paging region are faulted in (the
 * fault kicks the output again), ERR_PTR(-EACCES) when the READ's key no longer reaches its
 * region (the NAK is the next packet then).
 */
static struct sk_buff *sroce_resp_build_res(struct sroce_qp *qp,
					    struct sroce_res *r,
					    struct sroce_nfy *nfy)
{
	struct sroce_hdrs h = {};
	struct sroce_seg seg = {};
	struct sk_buff *skb;
	u32 hdr_len, off = 0;
	u8 *hdr;
	int ret;

	if (r->type != SROCE_RES_ATOMIC) {
		/* A READ's, or an atomic write's of no data (len 0) */
		off = sroce_psn_outstanding(r->cur_psn, r->first_psn) *
		      qp->pmtu;
		if (sroce_seg_at(sroce_qp_transport(qp), SROCE_MSG_READ_RESP,
				 r->len, qp->pmtu, off, &seg))
			return NULL;
	} else {
		seg.opcode = sroce_rc_opcode(sroce_qp_transport(qp),
					     SROCE_OP_RC_ATOMIC_ACK);
		seg.last = 1;
	}
	hdr_len = sroce_opcode_lookup(seg.opcode)->hdr_len;
	skb = sroce_net_alloc_skb(qp, hdr_len, seg.paylen, &hdr);
	if (!skb)
		return NULL;
	if (seg.paylen) {
		/* Every packet: its key may have been invalidated since. */
		ret = sroce_mr_remote_begin(qp->sdev, r->rkey, r->mr,
					    r->pd, qp->ibqp.qp_num,
					    IB_ACCESS_REMOTE_READ, r->va + off,
					    seg.paylen);
		if (!ret)
			ret = sroce_mr_copy(r->mr, r->va + off, hdr + hdr_len,
					    seg.paylen, SROCE_MR_TO_BUF);
		sroce_mr_remote_end(r->mr);
		if (ret == -EAGAIN &&
		    !sroce_odp_failed(qp, SROCE_ODP_RESP_OUT)) {
			/* Pages gone since the READ was accepted (odp.c). */
			kfree_skb(skb);
			sroce_odp_fault_async(qp, SROCE_ODP_RESP_OUT, r->mr,
					      r->va + off, r->len - off);
			return NULL;
		}
		if (ret) {
			kfree_skb(skb);
			sroce_resp_read_revoked(qp, r, nfy);
			return ERR_PTR(-EACCES);
		}
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

/*
 * The ACK or NAK owed.  With selective repeat (resp_sr.c) an ACK is a
 * selective ACK (0xd8): the PSN it acknowledges up to, then which PSNs
 * after the next one are held.  NAKs stay IBTA's.
 */
static struct sk_buff *sroce_resp_build_ack(struct sroce_qp *qp)
{
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	u32 hdr_len;
	u8 *hdr;

	h.bth.opcode = sroce_rc_opcode(sroce_qp_transport(qp), SROCE_OP_RC_ACK);
	if (qp->resp.sr_on &&
	    sroce_aeth_type(qp->resp.ack.syndrome) == SROCE_AETH_ACK) {
		h.bth.opcode = SROCE_OP_SXH_SACK;
		h.sxh.flags = SROCE_SXH_SACK;
		h.sxh.sack.epsn = sroce_psn_add(qp->resp.ack.psn, 1);
		sroce_resp_sr_map(qp, &h.sxh.sack);
	}
	hdr_len = sroce_hdrs_len(&h);
	skb = sroce_net_alloc_skb(qp, hdr_len, 0, &hdr);
	if (!skb)
		return NULL;
	if (h.bth.opcode == SROCE_OP_SXH_SACK)
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_SACK_SENT);
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
static int sroce_resp_build(struct sroce_qp *qp, struct sk_buff_head *list,
			    struct sroce_nfy *nfy)
{
	struct sroce_resp *rs = &qp->resp;
	struct sk_buff *skb;
	int n = 0;

	lockdep_assert_held(&qp->lock);
	if (qp->destroyed)
		return 0;
	while (n < SROCE_REQ_BATCH) {
		if (rs->res_tail != rs->res_head)
			skb = sroce_resp_build_res(qp,
						   sroce_resp_res_at(qp,
								     rs->res_tail),
						   nfy);
		else if (qp->resp.ack.send)
			skb = sroce_resp_build_ack(qp);
		else
			break;
		if (IS_ERR(skb))
			continue;	/* the NAK goes next */
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
 * Return: true when everything is sent, false when its budget is used up
 * and the work item goes on (queued again behind its CPU's other work).
 */
bool sroce_resp_run(struct sroce_qp *qp)
{
	bool task = in_task();
	int budget = task ? SROCE_RESP_RUN_BUDGET : SROCE_RESP_SOFTIRQ_BUDGET;
	struct sk_buff_head list;
	struct sroce_nfy nfy;
	unsigned long flags;
	int n, sent = 0;

	__skb_queue_head_init(&list);
	do {
		if (sent >= budget) {
			if (task) {
				local_bh_disable();
				sroce_stats_inc(qp->sdev->stats,
						SROCE_CNT_RESP_YIELDS);
				local_bh_enable();
			}
			return false;	/* the work item goes on */
		}
		memset(&nfy, 0, sizeof(nfy));
		spin_lock_irqsave(&qp->lock, flags);
		n = sroce_resp_build(qp, &list, &nfy);
		spin_unlock_irqrestore(&qp->lock, flags);

		sroce_net_qp_xmit_list(qp, &list);
		sroce_qp_notify(&nfy);
		sent += n;
	} while (n == SROCE_REQ_BATCH);
	return true;
}

/**
 * sroce_resp_out_reset() - nothing left to send (RESET)
 * @qp: the QP, lock held; its resources dropped (sroce_resp_drop_res())
 */
void sroce_resp_out_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->resp.res_tail = 0;
	qp->resp.ack.send = false;
}
