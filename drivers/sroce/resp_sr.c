// SPDX-License-Identifier: GPL-2.0
/*
 * resp_sr.c - the responder's side of selective repeat (issue #36).
 *
 * A peer that sends with selective repeat marks its requests with the
 * extension header (SXH, opcodes 0xc0 and up); recv.c lets them through
 * only to a QP whose answer to the peer's hello granted it (ext.h).
 * While the requests come so (sr_on: the last one did; a requester
 * connected again after its hello failed sends IBTA's, and is answered
 * so):
 *  - a SEND or WRITE packet ahead of the expected PSN, within the
 *    SROCE_SACK_BITS after it, is held (a reference on its skb) in PSN
 *    order instead of being dropped behind a sequence NAK;
 *  - when the expected PSN comes and is executed, the held packets that
 *    follow it run, in order, through the same code as any request
 *    (resp.c): a SEND's segments land in PSN order and READs, atomics and
 *    completions stay in order, as RC promises;
 *  - a READ or atomic request ahead is held too, and executed once, in
 *    its turn; a READ's PSNs are those of all its responses;
 *  - ACKs are selective ACKs (0xd8): the expected PSN and a bitmap of the
 *    held PSNs after it (resp_out.c builds them from sroce_resp_sr_map()),
 *    sent for every packet out of order, so the sender resends what is
 *    missing and only that;
 *  - a request ahead beyond the bitmap's reach is not held: a sequence
 *    NAK then says what is missing, as IBTA's responder does.
 * Held packets are dropped on RESET, on ERROR and when the QP is
 * destroyed.  A peer that lies in an SXH (a held packet that no longer
 * fits when its turn comes) meets the same checks as any request.
 *
 * Runs in softirq (the receive path) under the QP lock.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "net.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/* The PSNs of a held packet, in its skb's control buffer */
struct sroce_sr_cb {
	u32 psn;
	u32 npsn;	/* a READ's: its responses'; any other's: 1 */
};

static u32 sroce_sr_psn(const struct sk_buff *skb)
{
	return ((const struct sroce_sr_cb *)skb->cb)->psn;
}

/**
 * sroce_resp_sr_begin() - a request arrived: selective repeat is on while
 *	the requests come with the SXH
 * @qp: the QP, lock held
 * @pkt: the request
 */
void sroce_resp_sr_begin(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	lockdep_assert_held(&qp->lock);
	qp->resp.sr_on = pkt->info->flags & SROCE_OPF_SXH;
}

/**
 * sroce_resp_sr_hold() - hold a request ahead of the expected PSN
 * @qp: the QP, lock held, sr_on
 * @skb: the packet (a reference is taken when it is held)
 * @pkt: its headers
 *
 * Return: true when it is held or was held already; false when it is
 * beyond the bitmap's reach: dropped.
 */
bool sroce_resp_sr_hold(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt *pkt)
{
	struct sk_buff_head *q = &qp->resp.sr_held;
	u32 psn = pkt->bth.psn, npsn = 1;
	struct sroce_sr_cb *cb;
	struct sroce_hdrs h;
	struct sk_buff *p;

	lockdep_assert_held(&qp->lock);
	if (sroce_psn_outstanding(psn, qp->resp.epsn) > SROCE_SACK_BITS)
		return false;
	if (pkt->info->flags & SROCE_OPF_READ) {
		sroce_pkt_hdrs(pkt, &h);
		npsn = sroce_seg_npkts(h.reth.len, qp->pmtu);
	}
	/* Most come in order: look from the highest held down. */
	skb_queue_reverse_walk(q, p) {
		s32 d = sroce_psn_diff(psn, sroce_sr_psn(p));

		if (!d) {
			sroce_stats_inc(qp->sdev->stats,
					SROCE_CNT_DUPLICATES);
			return true;
		}
		if (d > 0)
			break;
	}
	skb = skb_get(skb);
	cb = (struct sroce_sr_cb *)skb->cb;
	cb->psn = psn;
	cb->npsn = npsn;
	/* After the last one before it; at the head (p is q) if none is. */
	__skb_queue_after(q, p, skb);
	sroce_stats_inc(qp->sdev->stats, SROCE_CNT_SR_HELD);
	return true;
}

/**
 * sroce_resp_sr_next() - the held packet whose turn it is
 * @qp: the QP, lock held
 *
 * Held packets the expected PSN passed (a READ's responses took their
 * PSNs: a lying sender) are dropped on the way.
 *
 * Return: the packet at the expected PSN, off the queue, with the
 * reference held; NULL when none is.
 */
struct sk_buff *sroce_resp_sr_next(struct sroce_qp *qp)
{
	struct sk_buff_head *q = &qp->resp.sr_held;
	struct sk_buff *skb;

	lockdep_assert_held(&qp->lock);
	while ((skb = skb_peek(q))) {
		s32 d = sroce_psn_diff(sroce_sr_psn(skb), qp->resp.epsn);

		if (d > 0)
			return NULL;
		__skb_unlink(skb, q);
		if (!d)
			return skb;
		dev_kfree_skb_any(skb);
	}
	return NULL;
}

/**
 * sroce_resp_sr_ack() - acknowledge up to the expected PSN, selectively
 * @qp: the QP, lock held, sr_on
 *
 * Not over a NAK owed (an RNR NAK: the sender must wait, not resend).
 */
void sroce_resp_sr_ack(struct sroce_qp *qp)
{
	const struct sroce_resp_ack *ack = &qp->resp.ack;

	lockdep_assert_held(&qp->lock);
	if (ack->send && sroce_aeth_type(ack->syndrome) != SROCE_AETH_ACK)
		return;
	if (qp->resp.nak_sent)
		return;	/* an ODP fault's RNR NAK went: quiet till it comes */
	sroce_resp_set_ack(qp, SROCE_RESP_SYN_ACK,
			   sroce_psn_add(qp->resp.epsn, SROCE_PSN_MASK));
}

/**
 * sroce_resp_sr_map() - the held PSNs after @epsn, as a SACK's bitmap
 * @qp: the QP, lock held
 * @sack: its epsn set; its map filled
 */
void sroce_resp_sr_map(struct sroce_qp *qp, struct sroce_sack *sack)
{
	struct sk_buff *skb;

	lockdep_assert_held(&qp->lock);
	memset(sack->map, 0, sizeof(sack->map));
	skb_queue_walk(&qp->resp.sr_held, skb) {
		const struct sroce_sr_cb *cb = (void *)skb->cb;
		s32 d = sroce_psn_diff(cb->psn, sack->epsn);
		u32 i;

		/* A READ held: none of its PSNs is to be sent again. */
		for (i = 0; i < cb->npsn && d > 0 && d <= SROCE_SACK_BITS;
		     i++, d++)
			sack->map[(d - 1) / 64] |= 1ULL << ((d - 1) % 64);
	}
}

/**
 * sroce_resp_sr_drop() - drop every held packet
 * @qp: the QP, lock held
 */
void sroce_resp_sr_drop(struct sroce_qp *qp)
{
	struct sk_buff *skb;

	lockdep_assert_held(&qp->lock);
	/* Interrupts are off: freed where that is allowed. */
	while ((skb = __skb_dequeue(&qp->resp.sr_held)))
		dev_kfree_skb_any(skb);
}

/**
 * sroce_resp_sr_reset() - the connection is over (RESET)
 * @qp: the QP, lock held
 */
void sroce_resp_sr_reset(struct sroce_qp *qp)
{
	sroce_resp_sr_drop(qp);
	qp->resp.sr_on = false;
}
