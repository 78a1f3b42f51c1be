// SPDX-License-Identifier: GPL-2.0
/*
 * req.c - the requester: send WQEs to packets.
 *
 * The requester fetches WQEs from the send ring into the kernel's copies
 * (struct sroce_swqe: validated once, region references held until the
 * WQE retires; req_fetch.c), segments each message by the path MTU,
 * numbers the packets with consecutive PSNs and sends them, at most a
 * congestion window of PSNs ahead of the oldest unacknowledged one.  The
 * completer (comp.c) moves the window on and rewinds the requester for
 * retransmission, through sroce_req_seek(): the send position (sq_cur,
 * cur_off, psn_next) is written here only.
 *
 * Where it runs: sroce_req_kick() runs it in the caller's context, at most
 * one context at a time per QP (SROCE_QPF_REQ_RUNNING); a kick while it
 * runs makes the running context look again (SROCE_QPF_REQ_AGAIN).  The
 * callers are the doorbell system call and a kernel user's post_send
 * (process context), the completer when an ACK opens the window and the
 * retransmission timer (softirq).  Packets are built under the QP lock in
 * batches and sent after it is dropped, in order.
 *
 * Idle: when the ring has nothing more, the requester sets the doorbell
 * bit in the ring's notification word, issues a full barrier and looks at
 * the producer index once more; the provider stores its producer index,
 * issues a full barrier and reads the word.  One of the two sees the other
 * (include/uapi/rdma/sroce-abi.h).  An RC QP with packets outstanding does
 * not set the bit: their answer runs the requester, which then sends what
 * was posted meanwhile, a batch at a time, without a system call per post.
 */
#include <linux/skbuff.h>
#include <rdma/ib_user_verbs.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "net.h"
#include "proto/sroce_proto.h"

/**
 * sroce_req_seek() - move the requester's send position
 * @qp: the QP, lock held
 * @index: the WQE the requester sends next
 * @psn: the PSN it sends next
 *
 * The only way the send position (sq_cur, cur_off, psn_next) moves from
 * outside req.c: the completer going back or forward, or skipping a WQE
 * that failed.  When WQE @index was numbered (sent before), is not in
 * error and @psn lies in its PSNs, the requester resumes it at the payload
 * of @psn; otherwise it starts WQE @index (cur_off 0).  psn_max, the PSN
 * after the highest one sent, is raised to @psn if it lies behind.
 */
void sroce_req_seek(struct sroce_qp *qp, u32 index, u32 psn)
{
	struct sroce_req *req = &qp->req;
	u32 cur_off = 0;

	lockdep_assert_held(&qp->lock);
	if (index != req->sq_head) {
		const struct sroce_swqe *w = sroce_swqe_at(qp, index);
		u32 npkts = sroce_psn_outstanding(w->last_psn,
						  w->first_psn) + 1;

		if (w->numbered && w->state != SROCE_SWQE_ERROR &&
		    !sroce_wr_op_is_local(w->opcode) &&
		    sroce_psn_in_range(psn, w->first_psn, npkts))
			cur_off = sroce_psn_outstanding(psn, w->first_psn) *
				  qp->pmtu;
	}
	req->sq_cur = index;
	req->cur_off = cur_off;
	req->psn_next = psn;
	if (sroce_psn_before(req->psn_max, psn))
		req->psn_max = psn;
}

/**
 * sroce_req_set_probe() - ask the requester for a tail loss probe, or not
 * @qp: the QP, lock held
 * @due: send the packet at the completer's probe_psn again, alone
 *	(sroce_comp_probe()); false: none is owed
 */
void sroce_req_set_probe(struct sroce_qp *qp, bool due)
{
	lockdep_assert_held(&qp->lock);
	qp->req.probe_due = due;
}

/**
 * sroce_req_set_sr_due() - selective repeat: lost PSNs to send again, or not
 * @qp: the QP, lock held
 * @due: the requester takes them from sroce_comp_sr_next() first
 */
void sroce_req_set_sr_due(struct sroce_qp *qp, bool due)
{
	lockdep_assert_held(&qp->lock);
	qp->req.sr_due = due;
}

/* Copy @len payload bytes from @off of a WQE's message to @dst. */
static int sroce_req_copy_payload(const struct sroce_swqe *w, u32 off,
				  u8 *dst, u32 len)
{
	if (sroce_wr_info(w->opcode)->flags & SROCE_WRF_ATOMIC_WRITE) {
		memcpy(dst, w->op.atomic_write.data + off, len);
		return 0;
	}
	if (w->send_flags & SROCE_SEND_INLINE) {
		memcpy(dst, (const u8 *)w->sge + off, len);
		return 0;
	}
	return sroce_sge_copy(w->sge, w->num_sge, off, dst, len,
			      SROCE_MR_TO_BUF);
}

/*
 * The packet of WQE @w at the requester's position: its opcode and
 * payload length in @seg, its PSNs counted in @npsn.  A READ request
 * asks for the rest of the data from cur_off on, or a piece of it
 * (sroce_req_rd_npsn()), and takes one PSN per response packet; an atomic
 * takes one.
 */
static int sroce_req_seg(struct sroce_qp *qp, const struct sroce_swqe *w,
			 struct sroce_seg *seg, u32 *npsn)
{
	*npsn = 1;
	switch (w->opcode) {
	case IB_UVERBS_WR_RDMA_READ:
		memset(seg, 0, sizeof(*seg));
		seg->opcode = sroce_rc_opcode(sroce_qp_transport(qp),
					      SROCE_OP_RC_READ_REQUEST);
		*npsn = sroce_req_rd_npsn(qp, w);
		seg->last = qp->req.cur_off + *npsn * qp->pmtu >= w->length;
		return 0;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		memset(seg, 0, sizeof(*seg));
		seg->opcode = sroce_rc_opcode(sroce_qp_transport(qp),
					      w->opcode ==
					      IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ?
					      SROCE_OP_RC_CMP_SWAP :
					      SROCE_OP_RC_FETCH_ADD);
		seg->last = 1;
		return 0;
	default:
		if (sroce_qp_is_ud(qp))
			return sroce_seg_at(SROCE_TRANSPORT_UD,
					    sroce_wr_info(w->opcode)->msg_op,
					    w->length, sroce_req_ud_pmtu(qp), 0,
					    seg);
		return sroce_seg_at(sroce_qp_transport(qp),
				    sroce_wr_info(w->opcode)->msg_op, w->length,
				    qp->pmtu, qp->req.cur_off, seg);
	}
}

/*
 * A packet at @psn asks for an ACK: the gap counts from it, and the round
 * trip of a first transmission (@fresh) is timed (Karn).
 */
static void sroce_req_ackreq_sent(struct sroce_qp *qp, u32 psn, bool fresh)
{
	qp->req.ackreq_gap = 0;
	if (fresh)
		sroce_timers_rtt_start(qp, psn);
}

/* A raw QP's frame of WQE @w went onto the list: one PSN, as a datagram. */
static void sroce_req_raw_sent(struct sroce_qp *qp, struct sroce_swqe *w)
{
	/* It retires once sent. */
	w->first_psn = qp->req.psn_next;
	w->last_psn = qp->req.psn_next;
	w->numbered = true;
	w->state = SROCE_SWQE_SENT;
	qp->req.sq_cur++;
	qp->req.cur_off = 0;
	qp->req.psn_next = sroce_psn_add(qp->req.psn_next, 1);
	qp->req.psn_max = qp->req.psn_next;
}

/* One packet of WQE @w at the requester's position, onto @list. */
static int sroce_req_build_one(struct sroce_qp *qp, struct sroce_swqe *w,
			       struct sk_buff_head *list)
{
	const struct sroce_wr_info *wri = sroce_wr_info(w->opcode);
	const struct sroce_opcode_info *info;
	struct sroce_hdrs h = {};
	struct sroce_seg seg;
	struct sk_buff *skb;
	u32 hdr_len, npsn;
	bool owed = false, sxh;
	u8 *hdr;
	int ret;

	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET) {
		ret = sroce_raw_build(qp, w, list);
		if (!ret)
			sroce_req_raw_sent(qp, w);
		return ret;
	}
	if (sroce_req_seg(qp, w, &seg, &npsn))
		return -EINVAL;
	/* A READ or atomic asks only once its buffer is there (odp.c). */
	if (sroce_wr_op_is_rd(w->opcode) &&
	    !sroce_odp_sges_present(w->sge, w->num_sge, true))
		return -EAGAIN;
	if (!qp->req.cur_off) {
		w->first_psn = qp->req.psn_next;
		w->last_psn = sroce_qp_is_ud(qp) ? qp->req.psn_next :
			      sroce_psn_add(qp->req.psn_next,
					    sroce_seg_npkts(w->length,
							    qp->pmtu) - 1);
		w->numbered = true;
	}
	/*
	 * Selective repeat granted: every request that has an extension
	 * opcode carries the SXH (the atomic write has none), a SEND's and
	 * a WRITE's with its offset in the message (a WRITE's each its RETH
	 * too); the peer holds those when they come out of order
	 * (resp_sr.c).
	 */
	sxh = sroce_qp_sack_tx(qp) &&
	      (sroce_opcode_lookup(sroce_opcode_sxh(seg.opcode))->flags &
	       SROCE_OPF_SXH);
	info = sroce_opcode_lookup(seg.opcode);
	if (sxh) {
		if (info->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE)) {
			h.sxh.flags = SROCE_SXH_OFFSET;
			h.sxh.offset = qp->req.cur_off;
		}
		seg.opcode = sroce_opcode_sxh(seg.opcode);
		info = sroce_opcode_lookup(seg.opcode);
	}
	hdr_len = info->hdr_len +
		  (h.sxh.flags & SROCE_SXH_OFFSET ? SROCE_SXH_OFFSET_LEN : 0);
	skb = sroce_net_alloc_skb(qp, hdr_len, seg.paylen, &hdr);
	if (!skb)
		return -ENOMEM;
	ret = sroce_req_copy_payload(w, qp->req.cur_off, hdr + hdr_len,
				     seg.paylen);
	if (ret) {
		kfree_skb(skb);
		return ret == -EAGAIN ? -EAGAIN : -EFAULT;
	}

	h.bth.opcode = seg.opcode;
	h.bth.pad = seg.pad;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qp->attr.dest_qp_num;
	h.bth.psn = qp->req.psn_next;
	if (seg.last && (w->send_flags & SROCE_SEND_SOLICITED))
		h.bth.flags |= SROCE_BTHF_SE;
	if (sroce_qp_is_ud(qp)) {
		/* A datagram: no acknowledgment, its own destination. */
		h.bth.dqpn = w->dqpn;
		h.deth.qkey = w->qkey;
		h.deth.sqpn = qp->ibqp.qp_num;
		*sroce_skb_av(skb) = w->av;
	} else if (sroce_qp_is_rc(qp) &&
		   (info->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE))) {
		/*
		 * READ and atomic requests are answered by their responses;
		 * others ask for an ACK often enough that the window never
		 * waits for one, and with the last packet of a message, unless
		 * another packet follows it in the batch: one ACK then
		 * acknowledges both (sroce_req_build()).
		 */
		if (qp->req.probe_due ||
		    ++qp->req.ackreq_gap >= min_t(u32, SROCE_REQ_ACK_EVERY,
						  qp->comp.cwnd / 2)) {
			h.bth.flags |= SROCE_BTHF_ACKREQ;
			sroce_req_ackreq_sent(qp, qp->req.psn_next,
					      qp->req.psn_next ==
					      qp->req.psn_max);
		} else {
			owed = seg.last;
		}
	}
	h.imm = be32_to_cpu((__force __be32)w->imm);
	h.ieth_rkey = w->imm;	/* SEND_WITH_INV: the key, host order */
	h.xrc_srqn = w->xrc_srqn;	/* XRC: the SRQ at the target */
	if (wri->flags & SROCE_WRF_ATOMIC) {
		h.atmeth.va = w->op.atomic.remote_addr;
		h.atmeth.rkey = w->op.atomic.rkey;
		h.atmeth.swap_add = w->opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ?
				    w->op.atomic.swap : w->op.atomic.compare_add;
		h.atmeth.compare = w->op.atomic.compare_add;
	} else if (wri->flags & SROCE_WRF_ATOMIC_WRITE) {
		h.reth.va = w->op.atomic_write.remote_addr;
		h.reth.rkey = w->op.atomic_write.rkey;
		h.reth.len = w->length;
	} else if (sxh && (wri->flags & SROCE_WRF_WRITE)) {
		/* Every packet: the RETH of its message, and its offset. */
		h.reth.va = w->op.rdma.remote_addr;
		h.reth.rkey = w->op.rdma.rkey;
		h.reth.len = w->length;
	} else if (wri->flags & (SROCE_WRF_WRITE | SROCE_WRF_READ)) {
		/* The RETH of a WRITE's first packet, of a (resumed) READ. */
		h.reth.va = w->op.rdma.remote_addr + qp->req.cur_off;
		h.reth.rkey = w->op.rdma.rkey;
		h.reth.len = w->length - qp->req.cur_off;
		if (wri->flags & SROCE_WRF_READ)
			sroce_req_rd_piece(qp, w, npsn, &h.reth.len);
	}
	sroce_hdrs_build(hdr, hdr_len, &h);
	__skb_queue_tail(list, skb);
	qp->req.ackreq_owed = owed;
	qp->req.ackreq_owed_fresh = qp->req.psn_next == qp->req.psn_max;

	if (sroce_psn_before(qp->req.psn_next, qp->req.psn_max))
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_RETRANSMITS);
	qp->req.psn_next = sroce_psn_add(qp->req.psn_next, npsn);
	if (sroce_psn_before(qp->req.psn_max, qp->req.psn_next))
		qp->req.psn_max = qp->req.psn_next;
	if (seg.last) {
		w->state = SROCE_SWQE_SENT;
		qp->req.sq_cur++;
		qp->req.cur_off = 0;
	} else if (wri->flags & SROCE_WRF_READ) {
		qp->req.cur_off += npsn * qp->pmtu;	/* its next piece */
	} else {
		qp->req.cur_off += seg.paylen;
	}
	return 0;
}

/*
 * Send the packet at @psn again, alone, built from where it lies; the
 * requester keeps its place.  Lock held.  Returns 1 when a packet went
 * onto @list, 0 when none did (not outstanding, or gone bad: the timer
 * goes back then), -ENOMEM when it must be tried again.
 */
static int sroce_req_resend(struct sroce_qp *qp, u32 psn,
			    struct sk_buff_head *list)
{
	u32 sq_cur = qp->req.sq_cur;
	u32 cur_off = qp->req.cur_off, psn_next = qp->req.psn_next;
	u32 gap = qp->req.ackreq_gap, i;
	bool owed = qp->req.ackreq_owed, owed_fresh = qp->req.ackreq_owed_fresh;
	int ret = -ENOENT;

	lockdep_assert_held(&qp->lock);
	if (!sroce_psn_in_range(psn, qp->comp.psn_una,
				sroce_psn_outstanding(qp->req.psn_max,
						      qp->comp.psn_una)))
		return 0;
	for (i = qp->comp.sq_retire; i != qp->req.sq_head; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u8 state = w->state;
		u32 npkts;

		if (!w->numbered || state == SROCE_SWQE_ERROR)
			break;
		if (sroce_wr_op_is_local(w->opcode))
			continue;
		npkts = sroce_psn_outstanding(w->last_psn, w->first_psn) + 1;
		if (!sroce_psn_in_range(psn, w->first_psn, npkts))
			continue;
		/* Its packet at @psn, built from where it lies. */
		qp->req.sq_cur = i;
		qp->req.cur_off = sroce_psn_outstanding(psn, w->first_psn) *
				  qp->pmtu;
		qp->req.psn_next = psn;
		ret = sroce_req_build_one(qp, w, list);
		w->state = state;
		break;
	}
	qp->req.sq_cur = sq_cur;
	qp->req.cur_off = cur_off;
	qp->req.psn_next = psn_next;
	qp->req.ackreq_gap = gap;
	qp->req.ackreq_owed = owed;
	qp->req.ackreq_owed_fresh = owed_fresh;
	if (ret == -ENOMEM)
		return ret;
	return ret ? 0 : 1;
}

/*
 * Send the packet at the completer's probe_psn again, alone, asking for an
 * ACK (sroce_comp_probe()).  Lock held.  As sroce_req_resend().
 */
static int sroce_req_probe(struct sroce_qp *qp, struct sk_buff_head *list)
{
	int ret = sroce_req_resend(qp, qp->comp.probe_psn, list);

	if (ret != -ENOMEM)
		qp->req.probe_due = false;
	return ret;
}

/*
 * Selective repeat: send the lost PSNs the completer names again, up to
 * @budget packets (sroce_comp_sr_next()).  Lock held.  Returns the
 * packets that went onto @list, or -ENOMEM.
 */
static int sroce_req_sr_resend(struct sroce_qp *qp, struct sk_buff_head *list,
			       int budget)
{
	int n = 0, ret;
	u32 psn;

	lockdep_assert_held(&qp->lock);
	while (n < budget && sroce_comp_sr_next(qp, &psn)) {
		ret = sroce_req_resend(qp, psn, list);
		if (ret < 0)
			return ret;
		n += ret;
	}
	if (n < budget)
		qp->req.sr_due = false;
	if (n)
		sroce_stats_add(qp->sdev->stats, SROCE_CNT_SR_RESENT, n);
	return n;
}

/*
 * Will an answer from the peer run the requester again: an RC QP with
 * packets sent and not acknowledged.  Its last packet of a SEND or WRITE
 * asked for an ACK (sroce_req_build()), a READ or atomic request is
 * answered by its responses, and the timers resend what goes unanswered.
 * Lock held.
 */
static bool sroce_req_answer_due(const struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	return sroce_qp_is_rc(qp) && qp->comp.psn_una != qp->req.psn_next;
}

/*
 * Execute the local operation at sq_cur; lock held.  It completes in
 * order: its "last PSN" is the one before the next packet, so it retires
 * once everything sent before it is acknowledged.
 */
static void sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *w,
			    struct sroce_nfy *nfy)
{
	int ret;

	lockdep_assert_held(&qp->lock);
	switch (w->opcode) {
	case IB_UVERBS_WR_BIND_MW:
		ret = sroce_mw_bind(qp, w);
		break;
	case SROCE_WR_OP_REG_MR:
		ret = sroce_mr_fast_reg(qp->sdev, qp->ibqp.pd, w->op.reg_mr.key,
					(int)w->op.reg_mr.access);
		break;
	default:
		ret = sroce_key_invalidate(qp->sdev, w->imm, qp->ibqp.pd,
					   qp->ibqp.qp_num);
		break;
	}
	if (ret) {
		ibdev_dbg(qp->ibqp.device,
			  "QP %u: local operation %u failed\n",
			  qp->ibqp.qp_num, w->opcode);
		w->state = SROCE_SWQE_ERROR;
		w->status = w->opcode == IB_UVERBS_WR_BIND_MW ?
			    IB_WC_MW_BIND_ERR : IB_WC_LOC_QP_OP_ERR;
		return;	/* sroce_req_build() completes it in its turn */
	}
	w->first_psn = qp->req.psn_next;
	w->last_psn = sroce_psn_add(qp->req.psn_next, SROCE_PSN_MASK);
	w->numbered = true;
	w->state = SROCE_SWQE_SENT;
	qp->req.sq_cur++;
	sroce_comp_retire(qp, nfy);
}

/*
 * Complete the WQE at sq_retire, which failed locally, and move the QP to
 * ERROR; lock held.
 */
static void sroce_req_fail_head(struct sroce_qp *qp,
				struct sroce_nfy *nfy)
{
	const struct sroce_swqe *w = sroce_swqe_at(qp, qp->comp.sq_retire);

	lockdep_assert_held(&qp->lock);
	sroce_comp_fail_oldest(qp, w->status, nfy);
	sroce_qp_error(qp, nfy);
}

/*
 * The completion status of a WQE whose packet could not be built: its
 * region no longer holds what was checked (-EFAULT, -EAGAIN of a region
 * gone bad), a raw frame too long (-EMSGSIZE), anything else.
 */
static enum ib_wc_status sroce_req_build_status(int err)
{
	if (err == -EFAULT || err == -EAGAIN)
		return IB_WC_LOC_PROT_ERR;
	if (err == -EMSGSIZE)
		return IB_WC_LOC_LEN_ERR;
	return IB_WC_LOC_QP_OP_ERR;
}

/* Why sroce_req_build() stopped */
enum sroce_req_stop {
	SROCE_REQ_DONE,		/* nothing more to do now */
	SROCE_REQ_BUDGET,	/* a batch's worth of steps: go on */
	SROCE_REQ_NOMEM,	/* no packet buffer: try again later */
};

/*
 * Take up to SROCE_REQ_BATCH steps, a WQE fetched, executed, skipped or a
 * packet built, the packets onto @list; lock held.  Goes idle (the
 * doorbell bit) when the ring is empty.
 */
static enum sroce_req_stop sroce_req_build(struct sroce_qp *qp,
					   struct sk_buff_head *list,
					   struct sroce_nfy *nfy)
{
	enum sroce_req_stop stop = SROCE_REQ_BUDGET;
	struct sroce_swqe *w;
	int steps, n = 0, ret;

	lockdep_assert_held(&qp->lock);
	if (qp->destroyed)
		return SROCE_REQ_DONE;
	if (qp->state == IB_QPS_ERR) {
		sroce_req_flush(qp, nfy);
		return SROCE_REQ_DONE;
	}
	if (qp->state != IB_QPS_RTS || qp->timers.rnr_wait)
		return SROCE_REQ_DONE;
	if (qp->req.probe_due) {
		ret = sroce_req_probe(qp, list);
		if (ret == -ENOMEM)
			return SROCE_REQ_NOMEM;
		n += ret > 0;
	}
	if (qp->req.sr_due) {
		ret = sroce_req_sr_resend(qp, list, SROCE_REQ_BATCH);
		if (ret == -ENOMEM)
			return SROCE_REQ_NOMEM;
		n += ret;
	}

	for (steps = 0; steps < SROCE_REQ_BATCH; steps++) {
		/* A completion the CQ could not take ended the QP. */
		if (qp->state != IB_QPS_RTS) {
			stop = SROCE_REQ_DONE;
			break;
		}
		if (qp->req.sq_cur == qp->req.sq_head) {
			if (!sroce_req_fetch(qp)) {
				/*
				 * Packets outstanding: their ACK or response
				 * runs the requester again (the completer
				 * kicks it), so what is posted meanwhile
				 * needs no doorbell.
				 */
				if (sroce_req_answer_due(qp)) {
					stop = SROCE_REQ_DONE;
					break;
				}
				/* Idle; then look once more (see the top). */
				WRITE_ONCE(*qp->sq.notify,
					   SROCE_SQ_NOTIFY_DOORBELL);
				/*
				 * Pairs with the provider's fence after it
				 * stores its producer index.
				 */
				smp_mb();
				if (!sroce_req_fetch(qp)) {
					stop = SROCE_REQ_DONE;
					break;
				}
			}
			WRITE_ONCE(*qp->sq.notify, 0);
		}
		w = sroce_swqe_at(qp, qp->req.sq_cur);
		if (w->state == SROCE_SWQE_PENDING &&
		    sroce_wr_op_is_local(w->opcode) &&
		    !sroce_req_rd_blocked(qp, w)) {
			sroce_req_local(qp, w, nfy);
			continue;
		}
		if (w->state == SROCE_SWQE_SENT) {
			qp->req.sq_cur++;	/* executed before a go-back */
			continue;
		}
		if (w->state == SROCE_SWQE_ERROR) {
			/* Its turn comes when everything before it is done. */
			if (qp->req.sq_cur == qp->comp.sq_retire)
				sroce_req_fail_head(qp, nfy);
			stop = SROCE_REQ_DONE;
			break;
		}
		if (!sroce_psn_window_open(qp->req.psn_next, qp->comp.psn_una,
					   sroce_cc_window(qp, qp->comp.cwnd)) ||
		    sroce_req_rd_blocked(qp, w)) {
			stop = SROCE_REQ_DONE;
			break;
		}
		ret = sroce_req_build_one(qp, w, list);
		if (ret == -ENOMEM) {
			stop = SROCE_REQ_NOMEM;
			break;
		}
		/*
		 * Pages of its buffers missing (on-demand paging): it waits
		 * for the fault work, which kicks the requester (odp.c); at
		 * once when they came in the meantime.
		 */
		if (ret == -EAGAIN && !sroce_odp_failed(qp, SROCE_ODP_REQ)) {
			if (!sroce_odp_fault_sges(qp, SROCE_ODP_REQ, w->sge,
						  w->num_sge))
				continue;
			stop = SROCE_REQ_DONE;
			break;
		}
		if (ret) {
			/* Its region no longer holds what was checked. */
			w->state = SROCE_SWQE_ERROR;
			w->status = sroce_req_build_status(ret);
			continue;
		}
		n++;
		if (!sroce_qp_is_rc(qp)) {
			/* Sent is done: nothing acknowledges UD or UC. */
			sroce_comp_sent_unacked(qp, nfy);
		}
	}
	if (qp->req.ackreq_owed) {
		/* The batch ends with a message: its last packet asks. */
		sroce_bth_set_ackreq(skb_peek_tail(list)->data);
		qp->req.ackreq_owed = false;
		sroce_req_ackreq_sent(qp, sroce_psn_add(qp->req.psn_next,
							SROCE_PSN_MASK),
				      qp->req.ackreq_owed_fresh);
	}
	if (n)
		sroce_timers_arm_ack_timeout(qp);
	return stop;
}

/*
 * Batches one run of the requester builds before it lets others run (the
 * work item takes up the rest): a refilled ring, a window that never
 * closes (UD, UC) or a ring of local operations would hold the caller
 * (a system call, the receive softirq) for ever otherwise.
 */
#define SROCE_REQ_RUN_BATCHES	8
/*
 * In softirq (an ACK opened the window) fewer: the softirq would spill
 * into ksoftirqd, which shares the CPU evenly with a process polling its
 * CQ; the QP's work item, on the high-priority workqueue, does not.
 */
#define SROCE_REQ_SOFTIRQ_BATCHES	1

/**
 * sroce_req_run() - the requester: send what the send queue holds
 * @qp: the QP, lock not held; run by one context at a time (task.c)
 *
 * Builds packets in batches under the lock and sends them after it, at
 * most SROCE_REQ_RUN_BATCHES batches in process context and
 * SROCE_REQ_SOFTIRQ_BATCHES in softirq.  Out of packet buffers, it tries
 * again a jiffy later (@qp->req_retry).
 *
 * Return: true when it is done for now, false when its budget ran out
 * (the QP's work item goes on).
 */
bool sroce_req_run(struct sroce_qp *qp)
{
	enum sroce_req_stop stop;
	struct sk_buff_head list;
	struct sroce_nfy nfy;
	unsigned long flags;
	int batches = 0;

	__skb_queue_head_init(&list);
	do {
		memset(&nfy, 0, sizeof(nfy));
		spin_lock_irqsave(&qp->lock, flags);
		stop = sroce_req_build(qp, &list, &nfy);
		spin_unlock_irqrestore(&qp->lock, flags);

		sroce_net_qp_xmit_list(qp, &list);
		sroce_qp_notify(&nfy);
	} while (stop == SROCE_REQ_BUDGET &&
		 ++batches < (in_task() ? SROCE_REQ_RUN_BATCHES :
			      SROCE_REQ_SOFTIRQ_BATCHES));
	if (stop == SROCE_REQ_NOMEM)
		queue_delayed_work(system_highpri_wq, &qp->req_retry, 1);
	return stop != SROCE_REQ_BUDGET;
}

/**
 * sroce_req_reset() - the requester back to its state after creation
 * @qp: the QP going to RESET, lock held
 *
 * Drops the WQEs fetched and not retired; the send PSN is set again by
 * modify_qp before the QP sends.
 */
void sroce_req_reset(struct sroce_qp *qp)
{
	u32 i;

	lockdep_assert_held(&qp->lock);
	for (i = qp->comp.sq_retire; i != qp->req.sq_head; i++)
		sroce_req_release_swqe(sroce_swqe_at(qp, i));
	qp->req.sq_head = 0;
	qp->req.sq_cur = 0;
	qp->req.cur_off = 0;
	qp->req.ackreq_gap = 0;
	qp->req.ackreq_owed = false;
	qp->req.sr_due = false;
}

/**
 * sroce_req_flush() - complete every send WQE with IB_WC_WR_FLUSH_ERR
 * @qp: a QP in ERROR, lock held
 * @nfy: collects CQs to signal
 *
 * The WQEs fetched and those still in the ring, in order.
 */
void sroce_req_flush(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	lockdep_assert_held(&qp->lock);
	sroce_comp_flush(qp, nfy);
	sroce_req_fetch_flush(qp, nfy);
	sroce_comp_flushed(qp);
	qp->req.sq_cur = qp->req.sq_head;
	qp->req.cur_off = 0;
}
