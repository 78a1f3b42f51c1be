// SPDX-License-Identifier: GPL-2.0
/*
 * comp.c - the completer: acknowledgements, READ responses and atomic
 * replies to send completions, and when the requester goes back.
 *
 * An ACK for PSN p acknowledges every packet up to p (ACKs coalesce); the
 * WQEs whose last packet is acknowledged retire in order, with a
 * completion when they are signalled.  An RDMA READ takes one PSN per
 * response packet: each response, accepted only in order, is scattered
 * into the WQE's local SGEs and acknowledges its own PSN and those before
 * it; an atomic reply writes the original value into the WQE's 8-byte
 * buffer; a READ response of no data completes an atomic write.  An ACK
 * or a response beyond a READ, atomic or atomic write whose responses have
 * not all come shows them lost: the requester asks again for what is
 * missing (a READ request for the rest of the data).  A NAK acknowledges
 * what precedes its PSN and then:
 *  - PSN sequence error: the requester goes back to the NAKed PSN;
 *  - RNR: the requester waits the RNR time the NAK names, then goes back
 *    to the NAKed PSN (rnr_retry times; 7 is forever);
 *  - invalid request, remote access or remote operational error: the WQE
 *    completes with the matching status and the QP enters ERROR.
 * The timeouts are timers.c's: when no ACK comes within the local ACK
 * timeout it probes the tail (sroce_comp_probe()) or goes back to the
 * oldest unacknowledged PSN (go-back-N, sroce_comp_goback()), retry_cnt
 * times, and fails the oldest WQE then (sroce_comp_fail()).  Going back
 * and the congestion window are comp_loss.c's.  The go-back
 * state (struct sroce_goback) is timers.c's too: the completer decides,
 * the timers record.  The completer moves the requester's send position
 * only through sroce_req_seek().
 *
 * Runs in softirq (the receive path and the timer), under the QP lock.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "proto/sroce_proto.h"

/**
 * sroce_comp_retire() - retire the WQEs whose packets are all acknowledged
 * @qp: the QP, lock held
 * @nfy: collects CQs to signal
 */
void sroce_comp_retire(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	struct sroce_cq *cq = sroce_qp_send_cq(qp);

	lockdep_assert_held(&qp->lock);
	while (qp->comp.sq_retire != qp->req.sq_cur) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->comp.sq_retire);

		if (w->state != SROCE_SWQE_SENT ||
		    !sroce_psn_before(w->last_psn, qp->comp.psn_una))
			break;
		struct sroce_cqe cqe = {
			.wr_id = w->wr_id,
			.status = IB_WC_SUCCESS,
			.opcode = sroce_wr_wc_opcode(w->opcode),
			.byte_len = w->length,
		};
		bool signaled = qp->sq_sig_all ||
				(w->send_flags & SROCE_SEND_SIGNALED);

		sroce_req_release_swqe(w);
		/* The slot is free before its completion shows (the uapi). */
		sroce_queue_store_consumer(&qp->sq, ++qp->comp.sq_retire);
		if (signaled)
			sroce_qp_complete(qp, cq, &cqe, false, nfy);
	}
}

/**
 * sroce_comp_sent_unacked() - UD or UC: what was sent is done
 * @qp: the QP, lock held
 * @nfy: collects CQs to signal
 *
 * Nothing acknowledges a datagram or an unreliable message: every PSN
 * sent counts as acknowledged, and the WQEs sent retire.
 */
void sroce_comp_sent_unacked(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	lockdep_assert_held(&qp->lock);
	qp->comp.psn_una = qp->req.psn_next;
	sroce_comp_retire(qp, nfy);
}

/**
 * sroce_comp_flush() - complete the WQEs fetched and not retired with
 *	IB_WC_WR_FLUSH_ERR, in order
 * @qp: a QP in ERROR, lock held
 * @nfy: collects CQs to signal
 */
void sroce_comp_flush(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	struct sroce_cq *cq = sroce_qp_send_cq(qp);
	struct sroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR };

	lockdep_assert_held(&qp->lock);
	while (qp->comp.sq_retire != qp->req.sq_head) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->comp.sq_retire);

		cqe.wr_id = w->wr_id;
		cqe.opcode = sroce_wr_wc_opcode(w->opcode);
		sroce_req_release_swqe(w);
		sroce_queue_store_consumer(&qp->sq, ++qp->comp.sq_retire);
		sroce_qp_complete(qp, cq, &cqe, false, nfy);
	}
}

/**
 * sroce_comp_flushed() - the requester flushed the ring too: nothing is
 *	outstanding
 * @qp: a QP in ERROR, lock held
 */
void sroce_comp_flushed(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->comp.sq_retire = qp->req.sq_head;
	qp->comp.psn_una = qp->req.psn_next;
}

/**
 * sroce_comp_retry_spent() - the local ACK timeout spent a retry
 * @qp: the QP, lock held, a retry left
 */
void sroce_comp_retry_spent(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->comp.retry--;
}

/**
 * sroce_comp_fail_oldest() - retire the oldest WQE, failed
 * @qp: the QP, lock held
 * @status: its completion status
 * @nfy: collects CQs to signal
 *
 * The requester skips it if it had not gone past it (sroce_req_seek()).
 * The caller moves the QP to ERROR.
 */
void sroce_comp_fail_oldest(struct sroce_qp *qp, enum ib_wc_status status,
			    struct sroce_nfy *nfy)
{
	lockdep_assert_held(&qp->lock);
	if (qp->comp.sq_retire != qp->req.sq_head) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->comp.sq_retire);
		struct sroce_cqe cqe = {
			.wr_id = w->wr_id,
			.status = status,
			.opcode = sroce_wr_wc_opcode(w->opcode),
		};

		sroce_req_release_swqe(w);
		sroce_queue_store_consumer(&qp->sq, ++qp->comp.sq_retire);
		if (qp->req.sq_cur < qp->comp.sq_retire)
			sroce_req_seek(qp, qp->comp.sq_retire,
				       qp->req.psn_next);
		sroce_qp_complete(qp, sroce_qp_send_cq(qp), &cqe, false, nfy);
	}
}

/**
 * sroce_comp_fail() - fail the oldest WQE and move the QP to ERROR
 * @qp: the QP, lock held
 * @status: the oldest WQE's completion status
 * @nfy: collects CQs to signal
 */
void sroce_comp_fail(struct sroce_qp *qp, enum ib_wc_status status,
		     struct sroce_nfy *nfy)
{
	lockdep_assert_held(&qp->lock);
	sroce_comp_fail_oldest(qp, status, nfy);
	sroce_timers_stop(qp);
	sroce_qp_error(qp, nfy);
}

static enum ib_wc_status sroce_comp_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_REMOTE_OP:
		return IB_WC_REM_OP_ERR;
	default:
		return IB_WC_REM_INV_REQ_ERR;
	}
}

/*
 * An acknowledgment up to @acked must not pass a READ or atomic whose
 * responses have not come: they were lost (IBTA 9.7.5.1.4, implied NAK).
 * Returns the PSN the acknowledgment really stops at; *@implied is set when
 * it stops before @acked, at the PSN the requester must go back to.
 */
static u32 sroce_comp_clamp(struct sroce_qp *qp, u32 acked, u32 *implied)
{
	u32 i;

	for (i = qp->comp.sq_retire; i != qp->req.sq_head; i++) {
		const struct sroce_swqe *w = sroce_swqe_at(qp, i);
		u32 next;

		if (!w->numbered || w->state == SROCE_SWQE_ERROR)
			break;
		if (sroce_wr_op_is_rd(w->opcode)) {
			/* Its next response: where the ACK must stop. */
			next = w->first_psn;
			if (sroce_psn_before(next, qp->comp.psn_una))
				next = qp->comp.psn_una;
			if (sroce_psn_before(acked, next))
				break;
			*implied = next;
			return sroce_psn_add(next, SROCE_PSN_MASK);
		}
		if (!sroce_psn_before(w->last_psn, acked))
			break;
	}
	return acked;
}

/*
 * May a READ response of WQE @w place @paylen bytes at @off, as a LAST or
 * not (@last)?  Every packet but the READ's last carries exactly a path
 * MTU (the FIRST and MIDDLE checked on receipt), and a LAST ends the READ
 * or a piece it was asked in, at a unit boundary (sroce_req_rd_npsn()).
 */
static bool sroce_comp_rd_fits(const struct sroce_qp *qp,
			       const struct sroce_swqe *w, u32 off, u32 paylen,
			       bool last)
{
	u32 unit = sroce_swqe_rd_unit(w, qp->pmtu) * qp->pmtu;

	if (paylen > w->length - off)
		return false;
	if (paylen == w->length - off)
		return last;
	return !last || ((off + paylen) % unit == 0 && paylen == qp->pmtu);
}

/*
 * Did the READ responses of WQE @w from @from to @to (in order) end a unit
 * of it (sroce_rd_unit())?
 */
static bool sroce_comp_rd_unit_done(const struct sroce_qp *qp,
				    const struct sroce_swqe *w, u32 from,
				    u32 to)
{
	u32 unit;

	if (w->opcode != IB_UVERBS_WR_RDMA_READ)
		return false;
	unit = sroce_swqe_rd_unit(w, qp->pmtu);
	return (sroce_psn_outstanding(to, w->first_psn) + 1) / unit !=
	       sroce_psn_outstanding(from, w->first_psn) / unit;
}

/*
 * PSNs sent at least once and not acknowledged: an acknowledgment may
 * name any of them, also after the requester went back to send them
 * again (psn_next behind).
 */
static u32 sroce_comp_unacked(const struct sroce_qp *qp)
{
	return sroce_psn_outstanding(qp->req.psn_max, qp->comp.psn_una);
}

/*
 * psn_una moved past psn_next: the responder had what the requester went
 * back to send again.  Go forward to psn_una instead of sending it twice.
 */
static void sroce_comp_forward(struct sroce_qp *qp)
{
	u32 i;

	if (!sroce_psn_before(qp->req.psn_next, qp->comp.psn_una))
		return;
	for (i = qp->req.sq_cur; i != qp->req.sq_head; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (!w->numbered || w->state == SROCE_SWQE_ERROR)
			break;
		if (sroce_wr_op_is_local(w->opcode))
			continue;
		if (sroce_psn_before(w->last_psn, qp->comp.psn_una)) {
			w->state = SROCE_SWQE_SENT;
			continue;
		}
		/* psn_una lies in it: a READ asks for the rest only. */
		sroce_req_seek(qp, i, qp->comp.psn_una);
		return;
	}
	/* Not sent, failed, or none: from its first packet. */
	sroce_req_seek(qp, i, qp->comp.psn_una);
}

/**
 * sroce_comp_reset() - the completer back to its state after creation
 * @qp: the QP going to RESET, lock held; its requester reset before
 */
void sroce_comp_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	qp->comp.sq_retire = 0;
	qp->comp.rd_seen = 0;
	qp->comp.cwnd = SROCE_REQ_WINDOW;
	qp->comp.cwnd_acked = 0;
	sroce_req_set_probe(qp, false);
	sroce_comp_sr_reset(qp);
}

/* Acknowledge every PSN up to @acked, if it is outstanding; lock held. */
static void sroce_comp_ack_upto(struct sroce_qp *qp, u32 acked, bool rnr,
				struct sroce_nfy *nfy)
{
	u32 n;

	lockdep_assert_held(&qp->lock);
	if (!sroce_psn_in_range(acked, qp->comp.psn_una,
				sroce_comp_unacked(qp)))
		return;
	n = sroce_psn_outstanding(acked, qp->comp.psn_una) + 1;
	sroce_comp_cwnd_grow(qp, n);
	sroce_timers_rtt_sample(qp, acked);
	/* Progress: the timeouts count from here (the caller rearms). */
	sroce_timers_progress(qp);
	n = sroce_psn_outstanding(acked, qp->comp.psn_una) + 1;
	if (n >= SROCE_RD_SEEN)
		qp->comp.rd_seen = 0;
	for (; qp->comp.rd_seen && n; n--)
		qp->comp.rd_seen &= ~BIT_ULL((acked - n + 1) % SROCE_RD_SEEN);
	qp->comp.psn_una = sroce_psn_add(acked, 1);
	/* The peer is heard from: no probe is owed. */
	sroce_req_set_probe(qp, false);
	sroce_comp_forward(qp);
	qp->comp.retry = qp->attr.retry_cnt;
	if (!rnr)
		qp->comp.rnr_retry_left = qp->attr.rnr_retry;
	sroce_comp_retire(qp, nfy);
}

/*
 * Is an ACK or NAK for @psn of AETH @type and @value one that nothing we
 * sent is answered by: a reserved syndrome or NAK code, or a NAK that ends
 * the QP (any but a sequence NAK) for a PSN not sent or acknowledged
 * already.  Anything else may come from whoever can send to the port with
 * the peer's address; lock held.
 */
static bool sroce_comp_aeth_bogus(const struct sroce_qp *qp, u32 psn,
				  enum sroce_aeth_type type, u8 value)
{
	if (type == SROCE_AETH_RESERVED)
		return true;
	if (type != SROCE_AETH_NAK)
		return false;
	if (value > SROCE_NAK_INVALID_RD_REQ)
		return true;
	return value != SROCE_NAK_PSN_SEQ &&
	       !sroce_psn_in_range(psn, qp->comp.psn_una,
				   sroce_comp_unacked(qp));
}

/* A sequence or RNR NAK: it names the oldest PSN the responder lacks. */
static bool sroce_comp_names_oldest(enum sroce_aeth_type type, u8 value)
{
	return type == SROCE_AETH_RNR_NAK ||
	       (type == SROCE_AETH_NAK && value == SROCE_NAK_PSN_SEQ);
}

/* An ACK or NAK for @psn; lock held.  Returns true to kick the requester. */
static bool sroce_comp_aeth(struct sroce_qp *qp, u32 psn, u8 syndrome,
			    struct sroce_nfy *nfy)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	enum sroce_aeth_type type = sroce_aeth_type(syndrome);
	u8 value = sroce_aeth_value(syndrome);
	u32 acked = psn, implied = 0;
	bool gap = false;

	lockdep_assert_held(&qp->lock);
	/*
	 * Nothing we sent is answered by a reserved syndrome or NAK code, and
	 * a NAK that ends the QP must name a PSN sent and not acknowledged:
	 * anything else may come from whoever can send to the port with the
	 * peer's address, and is dropped before it acknowledges anything.
	 */
	if (sroce_comp_aeth_bogus(qp, psn, type, value)) {
		sroce_stats_inc(stats, SROCE_CNT_BAD_RESPONSES);
		return false;
	}
	/* A NAK acknowledges what precedes its PSN. */
	if (type != SROCE_AETH_ACK)
		acked = sroce_psn_add(psn, SROCE_PSN_MASK);	/* psn - 1 */
	if (sroce_psn_in_range(acked, qp->comp.psn_una,
			       sroce_comp_unacked(qp))) {
		u32 upto = sroce_comp_clamp(qp, acked, &implied);

		gap = upto != acked;
		sroce_comp_ack_upto(qp, upto, type == SROCE_AETH_RNR_NAK, nfy);
	}
	if (gap) {
		/* READ responses or an atomic reply lost: ask again. */
		sroce_timers_arm_ack_timeout(qp);
		if (!sroce_comp_goback(qp, implied, false))
			return false;
		sroce_stats_inc(stats, SROCE_CNT_IMPLIED_NAKS);
		return true;
	}

	/*
	 * A sequence or RNR NAK names the oldest PSN the responder lacks: once
	 * what precedes it is acknowledged, that is psn_una.  One for an
	 * earlier PSN is stale (the requester went back already, or its
	 * packets came through since): going back to it would resend what
	 * was acknowledged.
	 */
	if (sroce_comp_names_oldest(type, value) && psn != qp->comp.psn_una)
		return false;

	switch (type) {
	case SROCE_AETH_ACK:
		sroce_timers_arm_ack_timeout(qp);
		return true;
	case SROCE_AETH_RNR_NAK:
		sroce_stats_inc(stats, SROCE_CNT_RNR_NAK_RCVD);
		if (qp->attr.rnr_retry != 7) {
			if (!qp->comp.rnr_retry_left) {
				sroce_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR,
						nfy);
				return false;
			}
			qp->comp.rnr_retry_left--;
		}
		sroce_comp_rewind(qp, psn);
		sroce_timers_rnr_wait(qp, sroce_rnr_timer_usec(value));
		return false;
	case SROCE_AETH_NAK:
		if (value == SROCE_NAK_PSN_SEQ) {
			sroce_stats_inc(stats, SROCE_CNT_SEQ_NAK_RCVD);
			sroce_timers_arm_ack_timeout(qp);
			return sroce_comp_goback(qp, psn, false);
		}
		ibdev_dbg(qp->ibqp.device, "QP %u: NAK %u for PSN %#x\n",
			  qp->ibqp.qp_num, value, psn);
		sroce_comp_fail(qp, sroce_comp_nak_status(value), nfy);
		return false;
	default:
		return false;
	}
}

/*
 * A selective ACK (comp_sr.c): an ACK up to @psn, which must be the one
 * before its SACK's expected PSN, then its bitmap; refused whole when it
 * names a PSN never sent.  Lock held.  Returns true to kick the
 * requester.
 */
static bool sroce_comp_sack(struct sroce_qp *qp, u32 psn,
			    const struct sroce_hdrs *h, struct sroce_nfy *nfy)
{
	bool kick;

	if (sroce_aeth_type(h->aeth.syndrome) != SROCE_AETH_ACK ||
	    h->sxh.sack.epsn != sroce_psn_add(psn, 1) ||
	    !sroce_comp_sr_credible(qp, &h->sxh.sack)) {
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_SACK_BOGUS);
		return false;
	}
	kick = sroce_comp_aeth(qp, psn, h->aeth.syndrome, nfy);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return kick;
	return sroce_comp_sr_sack(qp, &h->sxh.sack) || kick;
}

/*
 * A READ response or atomic reply; lock held.  Accepted only as the next
 * response the oldest WQE expects (responses come in order); one beyond
 * it shows lost responses, and the requester asks again from the first
 * one missing.  Returns true to kick the requester.
 */
static bool sroce_comp_rd_resp(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt *pkt,
			       const struct sroce_hdrs *h,
			       struct sroce_nfy *nfy)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	u32 psn = pkt->bth.psn, flags = pkt->info->flags, off, npkts;
	u32 i, before, upto, implied;
	const struct sroce_wr_info *wri;
	struct sroce_swqe *w = NULL;
	bool gap = false, early;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (!sroce_psn_in_range(psn, qp->comp.psn_una, sroce_comp_unacked(qp)))
		return false;	/* a duplicate, or beyond what was asked */
	/* The READ or atomic the response belongs to (asked for at least once). */
	for (i = qp->comp.sq_retire; i != qp->req.sq_head; i++) {
		struct sroce_swqe *c = sroce_swqe_at(qp, i);

		if (!c->numbered || c->state == SROCE_SWQE_ERROR)
			break;
		npkts = sroce_psn_outstanding(c->last_psn, c->first_psn) + 1;
		if (sroce_wr_op_is_rd(c->opcode) &&
		    sroce_psn_in_range(psn, c->first_psn, npkts)) {
			w = c;
			break;
		}
		if (!sroce_psn_before(c->last_psn, psn))
			break;
	}
	if (!w)
		goto bad;
	/*
	 * Its responses come once everything before it was executed: they
	 * acknowledge the requests before it, up to a READ or atomic before
	 * it still missing responses (those were lost).
	 */
	if (sroce_psn_before(qp->comp.psn_una, w->first_psn)) {
		before = sroce_psn_add(w->first_psn, SROCE_PSN_MASK);
		upto = sroce_comp_clamp(qp, before, &implied);
		gap = upto != before;
		sroce_comp_ack_upto(qp, upto, false, nfy);
	}
	/*
	 * A READ response beyond psn_una of the READ psn_una lies in, within
	 * SROCE_RD_SEEN PSNs, is placed now (its bytes are undefined until
	 * the READ completes) and remembered: a reordering wire then costs
	 * no READ again.  Anything missing before it is asked for again if it
	 * has not come within a round trip (sroce_comp_gap()).
	 */
	early = !gap && psn != qp->comp.psn_una;
	if (gap ||
	    (early &&
	     (w->opcode != IB_UVERBS_WR_RDMA_READ ||
	      sroce_psn_before(qp->comp.psn_una, w->first_psn) ||
	      sroce_psn_outstanding(psn, qp->comp.psn_una) >= SROCE_RD_SEEN))) {
		sroce_timers_arm_ack_timeout(qp);
		return sroce_comp_gap(qp, psn);
	}
	if (early && (qp->comp.rd_seen & BIT_ULL(psn % SROCE_RD_SEEN)))
		return false;	/* placed already */

	wri = sroce_wr_info(w->opcode);
	if (flags & SROCE_OPF_ATOMIC) {
		if (!(wri->flags & SROCE_WRF_ATOMIC))
			goto bad;
		ret = sroce_sge_copy(w->sge, w->num_sge, 0, (void *)&h->atmack,
				     sizeof(h->atmack), SROCE_MR_FROM_BUF);
	} else if (wri->flags & SROCE_WRF_ATOMIC_WRITE) {
		/* A READ response only, of no data, answers an atomic write. */
		if ((flags & SROCE_OPF_ONLY) != SROCE_OPF_ONLY || pkt->paylen)
			goto bad;
		ret = 0;
	} else {
		if (w->opcode != IB_UVERBS_WR_RDMA_READ)
			goto bad;
		off = sroce_psn_outstanding(psn, w->first_psn) * qp->pmtu;
		if (!sroce_comp_rd_fits(qp, w, off, pkt->paylen,
					flags & SROCE_OPF_LAST))
			goto bad;
		ret = sroce_sge_scatter_skb(w->sge, w->num_sge, off, skb,
					    SROCE_UDP_HLEN + pkt->hdr_len,
					    pkt->paylen);
	}
	if (ret == -EAGAIN && !sroce_odp_failed(qp, SROCE_ODP_COMP)) {
		/*
		 * Pages of an on-demand paging region went since the request
		 * was sent: dropped, faulted in, asked for again (odp.c).
		 */
		sroce_odp_fault_sges(qp, SROCE_ODP_COMP, w->sge, w->num_sge);
		return false;
	}
	if (ret) {
		/* Checked at fetch: cannot happen but for a region gone bad. */
		sroce_comp_fail(qp, IB_WC_LOC_PROT_ERR, nfy);
		return false;
	}
	if (early) {
		qp->comp.rd_seen |= BIT_ULL(psn % SROCE_RD_SEEN);
		sroce_timers_arm_ack_timeout(qp);
		sroce_comp_gap(qp, psn);
		return false;
	}
	/* The responses placed early that follow it are acknowledged too. */
	before = psn;
	while (psn != w->last_psn &&
	       (qp->comp.rd_seen &
		BIT_ULL(sroce_psn_add(psn, 1) % SROCE_RD_SEEN)))
		psn = sroce_psn_add(psn, 1);
	sroce_comp_ack_upto(qp, psn, false, nfy);
	sroce_timers_arm_ack_timeout(qp);
	/*
	 * A READ or atomic retired, or a unit of a READ all answered (a
	 * piece it was asked in may have ended): what waits for it may go.
	 */
	return psn == w->last_psn || sroce_comp_rd_unit_done(qp, w, before, psn);

bad:
	sroce_stats_inc(stats, SROCE_CNT_BAD_RESPONSES);
	return false;
}

/**
 * sroce_comp_rcv() - a response packet for a QP's requester
 * @qp: the QP, with a reference
 * @skb: the packet (not consumed)
 * @pkt: its parsed headers
 */
void sroce_comp_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		    const struct sroce_pkt *pkt)
{
	struct sroce_nfy nfy = {};
	struct sroce_hdrs h;
	unsigned long flags;
	bool kick = false;

	sroce_pkt_hdrs(pkt, &h);

	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->destroyed && (qp->state == IB_QPS_RTS ||
			       qp->state == IB_QPS_SQD ||
			       qp->state == IB_QPS_SQE)) {
		if (pkt->bth.opcode == SROCE_OP_SXH_SACK)
			kick = sroce_comp_sack(qp, pkt->bth.psn, &h, &nfy);
		else if (pkt->info->flags & SROCE_OPF_ACK)
			kick = sroce_comp_aeth(qp, pkt->bth.psn,
					       h.aeth.syndrome, &nfy);
		else
			kick = sroce_comp_rd_resp(qp, skb, pkt, &h, &nfy);
	}
	spin_unlock_irqrestore(&qp->lock, flags);

	sroce_qp_notify(&nfy);
	if (kick)
		sroce_req_kick(qp);
}
