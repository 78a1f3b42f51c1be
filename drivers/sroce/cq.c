// SPDX-License-Identifier: GPL-2.0
/*
 * cq.c - completion queues.
 *
 * A CQ is one ring of struct sroce_cqe (queue.c), the same for kernel and
 * user consumers.  The kernel side only produces: sroce_cq_post(), called
 * by the data path, writes a CQE, publishes the producer index with
 * release, and signals the completion handler when the CQ is armed.  A user
 * CQ is consumed in user space without system calls (the provider polls the
 * mapped ring) and armed there too, by an atomic OR into the ring's
 * notification word (enum sroce_cq_notify): the uverbs REQ_NOTIFY_CQ and
 * POLL_CQ commands stay disabled.  A kernel CQ is consumed and armed by
 * sroce_cq_poll() and sroce_cq_req_notify() on the same ring.
 *
 * Arming without a lost wake-up: the consumer stores the arm bit (a full
 * barrier) and then polls; the producer publishes the CQE, issues a full
 * barrier and then reads the arm word.  One of the two sees the other.
 */
#include <linux/ktime.h>
#include <linux/log2.h>

#include "sroce.h"
#include "qp.h"

/* Ring capacity for a requested number of CQEs, or 0 if out of range. */
static u32 sroce_cq_entries(unsigned int cqe)
{
	if (cqe < 1 || cqe > SROCE_MAX_CQE)
		return 0;
	return roundup_pow_of_two(cqe);
}

/*
 * Check the provider's CREATE_CQ tail, if any, and return its flags in
 * *flags: no tail is a generic caller; a tail must name the CQE size this
 * kernel writes and no flag but enum sroce_cq_flags; bytes past it must be
 * zero.
 */
static int sroce_cq_check_cmd(struct ib_device *ibdev, struct ib_udata *udata,
			      u32 *flags)
{
	struct sroce_create_cq_cmd cmd;
	int ret;

	if (!udata->inlen)
		return 0;
	ret = sroce_udata_get_cmd(ibdev, udata, &cmd, sizeof(cmd), 0,
				  "create_cq");
	if (ret)
		return ret;
	if (cmd.cqe_size != sizeof(struct sroce_cqe) ||
	    cmd.flags & ~(u32)SROCE_CQ_STAMP_FLAGS) {
		ibdev_dbg(ibdev, "create_cq: CQE size %u, flags %#x\n",
			  cmd.cqe_size, cmd.flags);
		return -EINVAL;
	}
	*flags = cmd.flags;
	return 0;
}

/**
 * sroce_cq_create() - ops.create_cq
 * @ibcq: zeroed by the core, which set device, handlers and context
 * @attr: cqe in 1..SROCE_MAX_CQE (rounded up to a power of two), one
 *	completion vector; of the flags only
 *	IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION (as %SROCE_CQ_F_TIMESTAMP)
 * @udata: a user's struct sroce_create_cq_cmd / _resp, or NULL
 *
 * Return: 0, -EINVAL for a bad size, vector or command, -EOPNOTSUPP for
 * other creation flags, -ENOMEM (also when SROCE_MAX_CQ CQs exist),
 * -EFAULT.
 */
int sroce_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_create_cq_resp resp;
	u32 entries, stamp = 0;
	int ret;

	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	entries = sroce_cq_entries(attr->cqe);
	if (!entries) {
		ibdev_dbg(ibcq->device, "create_cq: %u CQEs (max %u)\n",
			  attr->cqe, SROCE_MAX_CQE);
		return -EINVAL;
	}
	if (udata) {
		ret = sroce_cq_check_cmd(ibcq->device, udata, &stamp);
		if (ret)
			return ret;
	}
	if (attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		stamp |= SROCE_CQ_F_TIMESTAMP;

	if (!atomic_add_unless(&sdev->cq_count, 1, SROCE_MAX_CQ))
		return -ENOMEM;

	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	cq->stamp = stamp;
	ret = sroce_queue_init(&cq->queue, udata, entries,
			       sizeof(struct sroce_cqe));
	if (ret)
		goto err_dec_count;

	if (udata && udata->outlen) {
		sroce_queue_get_info(&cq->queue, &resp.ring);
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_destroy_queue;
	}
	ibcq->cqe = entries;
	return 0;

err_destroy_queue:
	sroce_queue_destroy(&cq->queue);
err_dec_count:
	atomic_dec(&sdev->cq_count);
	return ret;
}

/**
 * sroce_cq_destroy() - ops.destroy_cq
 * @ibcq: a CQ no QP uses any more (the core checks), so nothing posts
 * @udata: unused
 *
 * Return: 0.
 */
int sroce_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	sroce_queue_destroy(&cq->queue);
	atomic_dec(&to_sdev(ibcq->device)->cq_count);
	return 0;
}

/**
 * sroce_cq_resize() - ops.resize_cq
 * @ibcq: the CQ
 * @cqe: new size, 1..SROCE_MAX_CQE, rounded up to a power of two
 * @udata: a user's struct sroce_resize_cq_resp, or NULL
 *
 * The CQEs not consumed yet move to the start of a new ring, in order; the
 * arm state moves with them.  The response describing the new ring is
 * written before the switch (a write that faults leaves the CQ as it was).
 * A user's provider must not poll during the call.
 *
 * Return: 0, -EINVAL for a bad size or a size below the CQEs pending (or a
 * consumer index that makes no sense), -ENOMEM, -EFAULT.
 */
int sroce_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_resize_cq_resp resp;
	struct sroce_queue nq, oq;
	unsigned long flags;
	u32 entries, pending, cons, i;
	int ret;

	entries = cqe > 0 ? sroce_cq_entries(cqe) : 0;
	if (!entries)
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	ret = sroce_queue_init(&nq, udata, entries, sizeof(struct sroce_cqe));
	if (ret)
		return ret;
	if (udata && udata->outlen) {
		sroce_queue_get_info(&nq, &resp.ring);
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_destroy_new;
	}

	spin_lock_irqsave(&cq->lock, flags);
	/* Acquire: the consumer has finished with the slots before cons. */
	cons = smp_load_acquire(cq->queue.consumer);
	pending = cq->producer - cons;
	if (pending > cq->queue.num_entries || pending > entries) {
		spin_unlock_irqrestore(&cq->lock, flags);
		ret = -EINVAL;
		goto err_destroy_new;
	}
	for (i = 0; i < pending; i++)
		memcpy(sroce_queue_slot(&nq, i),
		       sroce_queue_slot(&cq->queue, cons + i),
		       sizeof(struct sroce_cqe));
	WRITE_ONCE(*nq.notify, READ_ONCE(*cq->queue.notify));
	/* Release: the copied CQEs are visible before the index. */
	smp_store_release(nq.producer, pending);
	oq = cq->queue;
	cq->queue = nq;
	cq->producer = pending;
	ibcq->cqe = entries;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_queue_destroy(&oq);
	return 0;

err_destroy_new:
	sroce_queue_destroy(&nq);
	return ret;
}

/* Kernel flags from sroce's CQE flags (include/uapi/rdma/sroce-abi.h). */
static void sroce_cq_cqe_to_wc(struct sroce_cq *cq,
			       const struct sroce_cqe *cqe, struct ib_wc *wc)
{
	struct sroce_qp_slot *slot;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/*
	 * The QP of a completion outlives it in the CQ: a kernel user
	 * destroys a QP only after it has polled its completions.
	 */
	rcu_read_lock();
	slot = xa_load(&to_sdev(cq->ibcq.device)->qp_xa, cqe->qp_num);
	wc->qp = slot ? &slot->qp->ibqp : NULL;
	rcu_read_unlock();
	if (cqe->wc_flags & SROCE_WC_F_WITH_INV) {
		wc->ex.invalidate_rkey = cqe->imm_data;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	} else if (cqe->wc_flags & SROCE_WC_F_WITH_IMM) {
		wc->ex.imm_data = (__force __be32)cqe->imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	}
	if (cqe->wc_flags & SROCE_WC_F_GRH)
		wc->wc_flags |= IB_WC_GRH;
	/* What the GRH holds: the MAD layer builds its reply AH from it. */
	if (cqe->network_hdr_type) {
		wc->network_hdr_type = cqe->network_hdr_type;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = cqe->port_num;
}

/**
 * sroce_cq_poll() - ops.poll_cq, for kernel CQs
 * @ibcq: a kernel CQ
 * @num_entries: at most this many
 * @wc: filled in
 *
 * Return: the number of completions, or -EINVAL for a user CQ (user space
 * polls its mapped ring; the POLL_CQ command is not offered).
 */
int sroce_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	u32 cons;
	int n;

	if (WARN_ON_ONCE(cq->user))
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	cons = *cq->queue.consumer;
	for (n = 0; n < num_entries && cons != cq->producer; n++, cons++)
		sroce_cq_cqe_to_wc(cq, sroce_queue_slot(&cq->queue, cons),
				   &wc[n]);
	/* Release: the slots are read before the producer may reuse them. */
	smp_store_release(cq->queue.consumer, cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * sroce_cq_req_notify() - ops.req_notify_cq, for kernel CQs
 * @ibcq: a kernel CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * An armed IB_CQ_NEXT_COMP is not weakened by a later IB_CQ_SOLICITED.
 *
 * Return: 1 if IB_CQ_REPORT_MISSED_EVENTS was given and CQEs are waiting
 * (the caller must poll again), 0 otherwise, -EINVAL for a user CQ.
 */
int sroce_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	u32 bit, old;
	int ret = 0;

	if (WARN_ON_ONCE(cq->user))
		return -EINVAL;

	bit = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      SROCE_CQ_NOTIFY_SOLICITED : SROCE_CQ_NOTIFY_NEXT_COMP;
	spin_lock_irqsave(&cq->lock, irqflags);
	/* No one else writes a kernel ring's word, and we hold the lock. */
	old = READ_ONCE(*cq->queue.notify);
	WRITE_ONCE(*cq->queue.notify, old | bit);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    *cq->queue.consumer != cq->producer)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * Take the arm if this CQE matches it: NEXT_COMP matches any CQE, SOLICITED
 * a solicited or failed one.  The word may be written by user space at any
 * time, hence cmpxchg; unknown bits are ignored (and cleared with the arm).
 */
static bool sroce_cq_take_arm(struct sroce_cq *cq, bool event)
{
	u32 *word = cq->queue.notify;
	u32 old = READ_ONCE(*word);

	for (;;) {
		u32 seen;

		if (!(old & SROCE_CQ_NOTIFY_NEXT_COMP) &&
		    !((old & SROCE_CQ_NOTIFY_SOLICITED) && event))
			return false;
		seen = cmpxchg(word, old, 0);
		if (seen == old)
			return true;
		old = seen;
	}
}

/**
 * sroce_cq_overflow_event() - report IB_EVENT_CQ_ERR
 * @cq: a CQ whose sroce_cq_post() overflowed; no lock held
 */
void sroce_cq_overflow_event(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	ibdev_warn_ratelimited(cq->ibcq.device, "CQ overflow (%u entries)\n",
			       cq->ibcq.cqe);
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * sroce_cq_post() - add a completion to a CQ (the data path's producer)
 * @cq: the CQ; the caller keeps it alive (a QP using it holds it)
 * @cqe: the completion; copied
 * @solicited: the completion is for a solicited event (a received message
 *	with the SE bit)
 *
 * Any context.  When the ring is full the CQE is dropped and the CQ enters
 * an error state in which every later post fails; nothing in the ring is
 * overwritten.  A CQ created with enum sroce_cq_flags gets the clocks it
 * asked for read here, under the CQ's lock, so that its timestamps never
 * go back from one CQE to the next.  When the CQ is armed for this CQE the
 * arm is consumed and the caller must call sroce_cq_signal() once, after
 * it has dropped its own locks (the handler of a kernel user may post work
 * requests again); likewise sroce_cq_overflow_event() after the post that
 * overflowed.
 *
 * Return: 1 if the caller must signal the CQ, 0 if not, -EOVERFLOW when
 * this post overflowed the CQ, -ENOSPC when the CQ was in error already.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited)
{
	bool event = solicited || cqe->status != IB_WC_SUCCESS;
	unsigned long flags;
	bool overflow, notify = false;
	u32 cons;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->error) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	/*
	 * Acquire: the consumer has read the slots before cons.  A hostile
	 * consumer index only makes the ring look full.
	 */
	cons = smp_load_acquire(cq->queue.consumer);
	overflow = cq->producer - cons >= cq->queue.num_entries;
	if (overflow) {
		cq->error = true;
	} else {
		struct sroce_cqe *slot = sroce_queue_slot(&cq->queue,
							  cq->producer);

		memcpy(slot, cqe, sizeof(*cqe));
		if (cq->stamp & SROCE_CQ_F_TIMESTAMP)
			slot->completion_ts = ktime_get_ns();
		if (cq->stamp & SROCE_CQ_F_WALLCLOCK)
			slot->wallclock_ns = ktime_get_real_ns();
		cq->producer++;
		/* Release: the CQE is visible before the index that shows it. */
		smp_store_release(cq->queue.producer, cq->producer);
		/* Pairs with the consumer's arm store before it polls. */
		smp_mb();
		notify = sroce_cq_take_arm(cq, event);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return overflow ? -EOVERFLOW : notify;
}

/**
 * sroce_cq_signal() - call a CQ's completion handler
 * @cq: a CQ sroce_cq_post() asked to signal
 */
void sroce_cq_signal(struct sroce_cq *cq)
{
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}
