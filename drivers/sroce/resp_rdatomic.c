// SPDX-License-Identifier: GPL-2.0
/*
 * resp_rdatomic.c - RDMA READ, atomic and atomic write requests at the
 * responder: responder resources, execution, and the replay of duplicates.
 *
 * Responder resources.  A ring (sroce_res_ring_size()) records every
 * READ, atomic and atomic write accepted: what remains to be sent, and,
 * once answered, what a duplicate needs: the PSN range and MSN of a READ
 * (answered again from memory, with the duplicate's RETH checked again),
 * the original value of an atomic (returned again, not executed twice),
 * the MSN of an atomic write (acknowledged again, not executed twice).
 *
 * The atomic write (IBTA 1.5, as Linux 6.2's rdma_rxe has it): an RC
 * request of 8 bytes the responder stores at once where its RETH says,
 * checked as an RDMA WRITE (IB_ACCESS_REMOTE_WRITE on the QP and on the
 * key), answered by an RDMA READ response of no data.  It takes a
 * responder resource as a READ does.
 *
 * A new READ or atomic takes a resource only while fewer than
 * max_dest_rd_atomic new ones wait for their responses, and an answer
 * again to a duplicate only while fewer than max_dest_rd_atomic of any
 * kind wait (sroce_resp_res_granted()).  Under the QP lock, in softirq
 * (the receive path, resp.c).
 *
 * The ring is allocated when modify_qp sets max_dest_rd_atomic, and grows
 * (never shrinks) when it is set higher: a QP that never answers a READ
 * or atomic holds none, one that takes rdma_rxe's 128 holds 256 entries.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "sroce.h"
#include "engine.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/**
 * sroce_resp_res_alloc() - a responder resource ring for a new
 *	max_dest_rd_atomic, before modify_qp takes the QP lock
 * @qp: the QP
 * @max_dest: the max_dest_rd_atomic asked for (checked against
 *	SROCE_MAX_RD_ATOMIC by the caller)
 *
 * Return: a zeroed ring of sroce_res_ring_size(@max_dest) entries for
 * sroce_resp_res_install(), NULL when the QP's ring is large enough
 * already, or ERR_PTR(-ENOMEM).
 */
struct sroce_res *sroce_resp_res_alloc(struct sroce_qp *qp, u32 max_dest)
{
	u32 size = sroce_res_ring_size(max_dest);
	struct sroce_res *ring;

	if (size <= READ_ONCE(qp->resp.res_size))
		return NULL;
	ring = kvcalloc(size, sizeof(*ring), GFP_KERNEL_ACCOUNT);
	return ring ?: ERR_PTR(-ENOMEM);
}

/**
 * sroce_resp_res_install() - make @ring, from sroce_resp_res_alloc() for
 *	the max_dest_rd_atomic just applied, the QP's responder resources
 * @qp: the QP, lock held
 * @ring: the new ring, or NULL
 *
 * The resources recorded move to the same free-running indices of the
 * new ring, their region references with them.  A concurrent modify_qp
 * may have installed a ring as large already: then @ring is not used.
 *
 * Return: the ring to kvfree() once the lock is dropped (the old one, or
 * @ring when unused), or NULL.
 */
struct sroce_res *sroce_resp_res_install(struct sroce_qp *qp,
					 struct sroce_res *ring)
{
	struct sroce_resp *rs = &qp->resp;
	u32 size = sroce_res_ring_size(qp->attr.max_dest_rd_atomic);
	struct sroce_res *old = rs->res;
	u32 i;

	lockdep_assert_held(&qp->lock);
	if (!ring || size <= rs->res_size)
		return ring;
	for (i = rs->res_head - rs->res_size; i != rs->res_head; i++)
		ring[i & (size - 1)] = old[i & (rs->res_size - 1)];
	rs->res = ring;
	WRITE_ONCE(rs->res_size, size);
	return old;
}

/* Responses not all sent. */
static u32 sroce_resp_res_pending(const struct sroce_qp *qp)
{
	return qp->resp.res_head - qp->resp.res_tail;
}

/*
 * The next resource, for a request at @psn that sroce_resp_res_granted()
 * let in (so a slot is free): the oldest answered one makes room.
 */
static struct sroce_res *sroce_resp_res_new(struct sroce_qp *qp, u8 type,
					    u32 psn, u32 msn)
{
	struct sroce_res *r;

	r = sroce_resp_res_at(qp, qp->resp.res_head++);
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->first_psn = psn;
	r->last_psn = psn;
	r->cur_psn = psn;
	r->msn = msn;
	r->pd = sroce_resp_pd(qp);
	return r;
}

/*
 * May a READ or atomic take a resource.  max_dest_rd_atomic bounds the
 * requests waiting for their responses, and, apart, the answers again to
 * duplicates: a requester has no more than that outstanding, so it never
 * needs more of either.  The two are bounded apart because a replay may
 * still stream when the requester, answered by the original responses,
 * legitimately asks for its next READ: that one may not be refused for
 * a replay it no longer needs.  A replay is let in only while fewer than
 * max_dest_rd_atomic of any kind wait: so at most 2 * max_dest_rd_atomic
 * - 1 wait when a resource is granted, and the ring, at least twice
 * max_dest_rd_atomic, always has a slot answered already at its head.
 */
static bool sroce_resp_res_granted(struct sroce_qp *qp, bool replay)
{
	const struct sroce_resp *rs = &qp->resp;
	u32 i, owed = 0;

	if (replay) {
		owed = sroce_resp_res_pending(qp);
	} else {
		for (i = rs->res_tail; i != rs->res_head; i++)
			owed += !sroce_resp_res_at(qp, i)->replay;
	}
	if (owed < qp->attr.max_dest_rd_atomic)
		return true;
	ibdev_dbg(qp->ibqp.device,
		  "QP %u: %s beyond max_dest_rd_atomic %u\n", qp->ibqp.qp_num,
		  replay ? "replay" : "READ/atomic", qp->attr.max_dest_rd_atomic);
	return false;
}

/*
 * The PSNs of an RDMA READ (one per response packet) need no limit of
 * their own, here or in the requester: the largest message at the
 * smallest path MTU (2^31 / 256) takes 2^23, the half of the PSN space
 * before the responder's next expected PSN, where every one of them is
 * still a duplicate (sroce_psn_classify()), and PSN comparisons within
 * the READ hold.  IBTA allows it; rdma_rxe takes it.
 */
static_assert(SROCE_MAX_MSG_SIZE / 256 <= BIT(23));

/* Execute the expected RDMA READ request; lock held. */
void sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt *pkt,
		     struct sroce_nfy *nfy)
{
	struct sroce_hdrs h;
	struct sroce_res *r;
	struct sroce_mr *mr;
	u32 npkts;
	int err;

	lockdep_assert_held(&qp->lock);
	sroce_pkt_hdrs(pkt, &h);
	npkts = sroce_seg_npkts(h.reth.len, qp->pmtu);
	if (!sroce_resp_res_granted(qp, false) ||
	    h.reth.len > SROCE_MAX_MSG_SIZE) {
		sroce_resp_invalid(qp, pkt, nfy);
		return;
	}
	err = sroce_resp_rkey(qp, IB_ACCESS_REMOTE_READ, h.reth.rkey,
			      h.reth.va, h.reth.len, &mr);
	if (err) {
		sroce_resp_refused(qp, err, pkt, nfy);
		return;
	}
	/* Accepted only with its pages there (on-demand paging: odp.c). */
	if (!sroce_odp_present(mr, h.reth.va, h.reth.len, false)) {
		sroce_resp_odp_defer(qp, mr, h.reth.va, h.reth.len, pkt, nfy);
		sroce_mr_put(mr);
		return;
	}
	sroce_resp_msn_next(qp);
	r = sroce_resp_res_new(qp, SROCE_RES_READ, pkt->bth.psn, qp->resp.msn);
	r->last_psn = sroce_psn_add(pkt->bth.psn, npkts - 1);
	r->mr = mr;
	r->va = h.reth.va;
	r->len = h.reth.len;
	r->rkey = h.reth.rkey;
	sroce_resp_epsn_set(qp, sroce_psn_add(r->last_psn, 1));
	/* Its responses acknowledge the requests before it. */
	sroce_resp_ack_drop(qp);
}

/**
 * struct sroce_resp_op8 - an 8-byte operation at the responder
 * @write: an atomic write of @value; else an atomic
 * @cmp_swap: the atomic is a compare and swap (else a fetch and add)
 * @swap_add: its swap or add value
 * @compare: its compare value
 * @value: the atomic write's value
 * @orig: the atomic's original value, once executed
 */
struct sroce_resp_op8 {
	bool write;
	bool cmp_swap;
	u64 swap_add;
	u64 compare;
	u64 value;
	u64 orig;
};

/*
 * Execute @op at @va through @rkey with @access: the key checked
 * (sroce_resp_rkey()), then held while @op executes
 * (sroce_mr_remote_begin()).  Returns false when the request is dealt
 * with already: the key refused it (NAKed), or a page is not there (an
 * on-demand paging fault put it off, odp.c); true with @op's result in
 * *@ret.  Lock held.
 */
static bool sroce_resp_op8(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			   int access, u32 rkey, u64 va,
			   struct sroce_resp_op8 *op, int *ret,
			   struct sroce_nfy *nfy)
{
	struct sroce_mr *mr;
	int err;

	*ret = 0;
	err = sroce_resp_rkey(qp, access, rkey, va, sizeof(u64), &mr);
	if (err) {
		sroce_resp_refused(qp, err, pkt, nfy);
		return false;
	}
	err = sroce_mr_remote_begin(qp->sdev, rkey, mr, sroce_resp_pd(qp),
				    qp->ibqp.qp_num, access, va, sizeof(u64));
	if (!err)
		*ret = op->write ?
		       sroce_mr_atomic_write(mr, va, op->value) :
		       sroce_mr_atomic(mr, va, op->cmp_swap, op->swap_add,
				       op->compare, &op->orig);
	sroce_mr_remote_end(mr);
	if (!err && *ret == -EAGAIN) {
		/* Its page is not there (on-demand paging: odp.c). */
		sroce_resp_odp_defer(qp, mr, va, sizeof(u64), pkt, nfy);
		sroce_mr_put(mr);
		return false;
	}
	sroce_mr_put(mr);
	if (err) {
		sroce_resp_refused(qp, err, pkt, nfy);
		return false;
	}
	return true;
}

/* Execute the expected atomic request; lock held. */
void sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt *pkt,
		       struct sroce_nfy *nfy)
{
	struct sroce_resp_op8 op = {};
	struct sroce_hdrs h;
	struct sroce_res *r;
	int ret;

	lockdep_assert_held(&qp->lock);
	sroce_pkt_hdrs(pkt, &h);
	if (!sroce_resp_res_granted(qp, false) || !IS_ALIGNED(h.atmeth.va, 8)) {
		sroce_resp_invalid(qp, pkt, nfy);
		return;
	}
	/* XRC's opcodes are RC's with the transport bits (opcode.h). */
	op.cmp_swap = (pkt->bth.opcode & ~SROCE_TRANSPORT_MASK) ==
		      SROCE_OP_RC_CMP_SWAP;
	op.swap_add = h.atmeth.swap_add;
	op.compare = h.atmeth.compare;
	if (!sroce_resp_op8(qp, pkt, IB_ACCESS_REMOTE_ATOMIC, h.atmeth.rkey,
			    h.atmeth.va, &op, &ret, nfy))
		return;
	if (ret) {
		sroce_resp_fail(qp, SROCE_NAK_REMOTE_OP, IB_WC_REM_OP_ERR, pkt,
				nfy);
		return;
	}
	sroce_resp_msn_next(qp);
	r = sroce_resp_res_new(qp, SROCE_RES_ATOMIC, pkt->bth.psn,
			       qp->resp.msn);
	r->orig = op.orig;
	sroce_resp_epsn_set(qp, sroce_psn_add(qp->resp.epsn, 1));
	sroce_resp_ack_drop(qp);
}

/**
 * sroce_resp_atomic_write() - execute the expected atomic write
 * @qp: the QP, lock held
 * @skb: the packet, data at the UDP header
 * @pkt: its parsed headers
 * @nfy: collects CQs to signal
 *
 * Its length must be 8, in the RETH and in the payload, and its address
 * 8-byte aligned (invalid request NAK otherwise); its key is checked as an
 * RDMA WRITE's.  Nothing is stored unless every check passes.
 */
void sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt *pkt,
			     struct sroce_nfy *nfy)
{
	struct sroce_resp_op8 op = { .write = true };
	struct sroce_hdrs h;
	int ret;

	lockdep_assert_held(&qp->lock);
	sroce_pkt_hdrs(pkt, &h);
	if (!sroce_resp_res_granted(qp, false) ||
	    h.reth.len != sizeof(op.value) || pkt->paylen != sizeof(op.value) ||
	    pkt->bth.pad || !IS_ALIGNED(h.reth.va, sizeof(op.value)) ||
	    skb_copy_bits(skb, SROCE_UDP_HLEN + pkt->hdr_len, &op.value,
			  sizeof(op.value))) {
		sroce_resp_invalid(qp, pkt, nfy);
		return;
	}
	if (!sroce_resp_op8(qp, pkt, IB_ACCESS_REMOTE_WRITE, h.reth.rkey,
			    h.reth.va, &op, &ret, nfy))
		return;
	if (ret == -EINVAL) {
		/* Aligned as an address, not in the region's memory. */
		sroce_resp_invalid(qp, pkt, nfy);
		return;
	}
	if (ret) {
		sroce_resp_fail(qp, SROCE_NAK_REMOTE_OP, IB_WC_REM_OP_ERR, pkt,
				nfy);
		return;
	}
	sroce_resp_msn_next(qp);
	sroce_resp_res_new(qp, SROCE_RES_ATOMIC_WRITE, pkt->bth.psn,
			   qp->resp.msn);
	sroce_resp_epsn_set(qp, sroce_psn_add(qp->resp.epsn, 1));
	/* Its response acknowledges the requests before it. */
	sroce_resp_ack_drop(qp);
}

/* The resource type that answers a READ, atomic or atomic write request */
static u8 sroce_resp_res_type(const struct sroce_pkt *pkt)
{
	u32 flags = pkt->info->flags;

	if (flags & SROCE_OPF_READ)
		return SROCE_RES_READ;
	return flags & SROCE_OPF_ATOMIC ? SROCE_RES_ATOMIC :
					  SROCE_RES_ATOMIC_WRITE;
}

/* Does the request at @psn lie in @r's PSNs */
static bool sroce_resp_res_covers(const struct sroce_res *r, u32 psn)
{
	return sroce_psn_in_range(psn, r->first_psn,
				  sroce_psn_outstanding(r->last_psn,
							r->first_psn) + 1);
}

/*
 * A duplicate READ, atomic or atomic write: answer it again from the
 * resource that answered it, unless that one is still being answered (then
 * its stream goes back to the PSN asked for); an atomic or atomic write is
 * never executed twice.  A duplicate that no resource answered, or one
 * beyond max_dest_rd_atomic answers at once, is dropped: the requester
 * asks again.  Lock held.
 */
void sroce_resp_replay(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	bool read = pkt->info->flags & SROCE_OPF_READ;
	u8 want = sroce_resp_res_type(pkt);
	const struct sroce_res *old = NULL;
	struct sroce_mr *mr = NULL;
	u32 psn = pkt->bth.psn, i, off, msn, last;
	struct sroce_res *r;
	struct sroce_hdrs h;
	u64 orig;
	u8 type;

	lockdep_assert_held(&qp->lock);
	sroce_pkt_hdrs(pkt, &h);
	/*
	 * The newest resource of that kind that covers @psn.  A READ's
	 * duplicate must ask for the rest of that READ: its RETH names the
	 * same key and the same bytes from the PSN on.
	 */
	for (i = 0; i < qp->resp.res_size; i++) {
		const struct sroce_res *c =
			sroce_resp_res_at(qp, qp->resp.res_head + i);

		if (c->type == want && sroce_resp_res_covers(c, psn))
			old = c;
	}
	if (!old)
		return;
	if (read) {
		off = sroce_psn_outstanding(psn, old->first_psn) * qp->pmtu;
		if (h.reth.va != old->va + off ||
		    h.reth.len != old->len - off || h.reth.rkey != old->rkey)
			return;
	}
	/* Still being answered: one stream of responses per READ. */
	if (old->cur_psn != sroce_psn_add(old->last_psn, 1)) {
		r = (struct sroce_res *)old;
		if (read && sroce_psn_before(psn, r->cur_psn))
			r->cur_psn = psn;
		return;
	}
	if (!sroce_resp_res_granted(qp, true))
		return;
	if (read && sroce_resp_rkey(qp, IB_ACCESS_REMOTE_READ, h.reth.rkey,
				    h.reth.va, h.reth.len, &mr))
		return;
	/* Copied first: the new resource may take the old one's slot. */
	type = old->type;
	msn = old->msn;
	last = old->last_psn;
	orig = old->orig;
	/*
	 * An answer again to an answer again: the new one stands for the old
	 * one, whose slot takes the oldest resource's, the one the new one
	 * fills.  So a READ asked again and again takes one slot more, not
	 * the slots of the READs after it, which the requester may still
	 * need answered again (a requester asks again from its oldest PSN
	 * unacknowledged, which never goes back).
	 */
	if (old->replay) {
		struct sroce_res *head = sroce_resp_res_at(qp, qp->resp.res_head);

		if (head != old)
			*(struct sroce_res *)old = *head;
	}
	r = sroce_resp_res_new(qp, type, psn, msn);
	r->replay = true;
	r->last_psn = last;
	r->orig = orig;
	if (!read)
		return;	/* its answer reads no memory */
	r->mr = mr;
	r->va = h.reth.va;
	r->len = h.reth.len;
	r->rkey = h.reth.rkey;
}

/**
 * sroce_resp_res_reset() - no responder resource any more (RESET)
 * @qp: the QP, lock held
 */
void sroce_resp_res_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	if (qp->resp.res)
		memset(qp->resp.res, 0,
		       qp->resp.res_size * sizeof(*qp->resp.res));
	qp->resp.res_head = 0;
}
