// SPDX-License-Identifier: GPL-2.0
/*
 * srq.c - shared receive queues: creation with their ring, the limit,
 * query, destruction, the kernel users' post verb, and the taking of
 * receive WQEs by the responders of the QPs that share one.
 *
 * An SRQ is a receive ring (queue.c) like a QP's receive queue, mapped by
 * the provider for a user SRQ, written by sroce_srq_post_recv() for a
 * kernel one, in the WQE format of include/uapi/rdma/sroce-abi.h.  Every
 * QP created with the SRQ (it then has no receive queue of its own) takes
 * its receive WQEs from it: the responder of each QP, in softirq or in its
 * work item, under its QP lock, calls sroce_srq_take(), which under the
 * SRQ lock copies and validates the WQE at the consumer index and moves
 * the index past it at once.  The WQE then belongs to that QP: it
 * completes on the QP's receive CQ, or is flushed there if the QP fails
 * first.  A QP entering ERROR leaves the SRQ's other WQEs alone and
 * reports IB_EVENT_QP_LAST_WQE_REACHED (IBTA 10.2.9.4 / 11.6.3).
 *
 * The limit.  MODIFY_SRQ with IB_SRQ_LIMIT arms it; the take that leaves
 * fewer WQEs posted than the limit disarms it (0) and reports
 * IB_EVENT_SRQ_LIMIT_REACHED, once.  Events are reported once the QP lock
 * is dropped (struct sroce_nfy).
 *
 * Lifetime.  The core counts the QPs using an SRQ (ib_srq.usecnt) and
 * refuses to destroy one still in use, and destroys the QPs of a context
 * before its SRQs; the QP's own destruction waits for its responder.  So
 * no responder can be in an SRQ that destroy_srq frees.  An XRC SRQ is
 * different: no QP is created with it, an XRC TGT QP finds it by the
 * number each request carries (xrc.c) and holds a reference while it
 * uses it; destroy_srq unpublishes the number and waits for them.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "notify.h"

/* Entry size of the ring for a WQE of @max_sge SGEs (at least one). */
static u32 sroce_srq_entry_size(u32 max_sge)
{
	return sizeof(struct sroce_recv_wqe) +
	       max(max_sge, 1u) * sizeof(struct sroce_sge);
}

static int sroce_srq_check_cmd(struct ib_device *ibdev,
			       struct ib_udata *udata)
{
	struct sroce_create_srq_cmd cmd;
	int ret;

	ret = sroce_udata_get_cmd(ibdev, udata, &cmd, sizeof(cmd),
				  sizeof(struct sroce_create_srq_resp),
				  "create_srq");
	if (ret)
		return ret;
	if (cmd.recv_wqe_size != sizeof(struct sroce_recv_wqe) ||
	    cmd.reserved) {
		ibdev_dbg(ibdev, "create_srq: WQE size %u\n",
			  cmd.recv_wqe_size);
		return -EINVAL;
	}
	return 0;
}

/**
 * sroce_srq_create() - ops.create_srq
 * @ibsrq: allocated and zeroed by the core; pd, handler, type and, for
 *	XRC, the XRC domain and the CQ set
 * @init: a basic or XRC SRQ; @init->attr.max_wr and .max_sge are updated
 *	to what was granted (srq_limit is ignored, as ibv_create_srq(3) says)
 * @udata: a user's struct sroce_create_srq_cmd / _resp, or NULL
 *
 * An XRC SRQ gets its number (ibsrq->ext.xrc.srq_num), published once the
 * SRQ is complete.
 *
 * Return: 0, -EOPNOTSUPP for a tag-matching SRQ, -EINVAL for a size of 0
 * or beyond the limits, a bad command, an XRC SRQ without a domain or CQ,
 * -ENOMEM (also beyond SROCE_MAX_SRQ SRQs or SRQ numbers), -EFAULT.
 */
int sroce_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	u32 entries, esize;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC && init->srq_type != IB_SRQT_XRC)
		return -EOPNOTSUPP;
	if (init->srq_type == IB_SRQT_XRC &&
	    (!init->ext.xrc.xrcd || !init->ext.cq))
		return -EINVAL;
	if (!init->attr.max_wr || init->attr.max_wr > SROCE_MAX_SRQ_WR ||
	    init->attr.max_sge > SROCE_MAX_SGE) {
		ibdev_dbg(ibsrq->device,
			  "create_srq: %u WQEs of %u SGEs refused\n",
			  init->attr.max_wr, init->attr.max_sge);
		return -EINVAL;
	}
	if (udata) {
		ret = sroce_srq_check_cmd(ibsrq->device, udata);
		if (ret)
			return ret;
	}
	if (!atomic_add_unless(&sdev->srq_count, 1, SROCE_MAX_SRQ))
		return -ENOMEM;

	srq->sdev = sdev;
	srq->user = !!udata;
	spin_lock_init(&srq->lock);
	refcount_set(&srq->ref, 1);
	init_completion(&srq->released);
	entries = roundup_pow_of_two(init->attr.max_wr);
	esize = sroce_srq_entry_size(init->attr.max_sge);
	ret = sroce_queue_init(&srq->rq, udata, entries, esize);
	if (ret)
		goto err_dec_count;
	srq->max_wr = entries;
	srq->max_sge = (esize - sizeof(struct sroce_recv_wqe)) /
		       sizeof(struct sroce_sge);

	if (udata) {
		sroce_queue_get_info(&srq->rq, &resp.rq);
		resp.rq.notify_offset = 0;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_destroy_queue;
	}
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	init->attr.srq_limit = 0;
	if (init->srq_type == IB_SRQT_XRC) {
		ret = sroce_xsrq_add(srq);
		if (ret)
			goto err_destroy_queue;
	}
	return 0;

err_destroy_queue:
	sroce_queue_destroy(&srq->rq);
err_dec_count:
	atomic_dec(&sdev->srq_count);
	return ret;
}

/**
 * sroce_srq_modify() - ops.modify_srq
 * @ibsrq: the SRQ
 * @attr: the new limit (IB_SRQ_LIMIT)
 * @mask: IB_SRQ_LIMIT; IB_SRQ_MAX_WR (resizing) is not supported
 * @udata: no driver data (must be empty)
 *
 * A limit of 0 disarms; any other arms the SRQ_LIMIT_REACHED event.  A
 * refused call changes nothing.
 *
 * Return: 0, -EINVAL for unknown attributes, driver data or a limit above
 * max_wr, -EOPNOTSUPP for a resize.
 */
int sroce_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		ibdev_dbg(ibsrq->device, "modify_srq: resize not supported\n");
		return -EOPNOTSUPP;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr) {
		ibdev_dbg(ibsrq->device, "modify_srq: limit %u above %u\n",
			  attr->srq_limit, srq->max_wr);
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/**
 * sroce_srq_query() - ops.query_srq
 * @ibsrq: the SRQ
 * @attr: filled in: max_wr, max_sge and the armed limit (0: disarmed)
 *
 * Return: 0.
 */
int sroce_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	spin_lock_irqsave(&srq->lock, flags);
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

/**
 * sroce_srq_destroy() - ops.destroy_srq
 * @ibsrq: an SRQ no QP uses any more (the core checks); an XRC SRQ that
 *	XRC TGT QPs may be using
 * @udata: unused
 *
 * WQEs still posted are dropped without completions.  An XRC SRQ's number
 * is gone first (requests naming it are refused from then on) and the
 * responders using the SRQ are waited for.  Sleeps.
 *
 * Return: 0.
 */
int sroce_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (ibsrq->srq_type == IB_SRQT_XRC)
		sroce_xsrq_remove(srq);

	sroce_queue_destroy(&srq->rq);
	atomic_dec(&srq->sdev->srq_count);
	return 0;
}

/**
 * sroce_srq_post_recv() - ops.post_srq_recv, for kernel users
 * @ibsrq: the SRQ
 * @wr: the work requests
 * @bad_wr: the first request not posted
 *
 * User space posts into its mapped ring without a system call (the
 * POST_SRQ_RECV command is not offered).
 *
 * Return: 0, -EINVAL (a user SRQ, too many SGEs), -ENOMEM (SRQ full).
 */
int sroce_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int ret;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	ret = sroce_rwqe_post(&srq->rq, srq->cons, srq->max_sge, &wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/**
 * sroce_srq_take() - take the next receive WQE of an SRQ for a QP
 * @srq: the QP's SRQ
 * @qp: the QP whose responder needs a WQE, lock held
 * @r: filled in with the WQE's copy: its SGEs checked against the SRQ's
 *	PD, for local write
 * @status: set to IB_WC_SUCCESS, or to the status of a check the WQE
 *	failed (@r then holds it, to complete with that status)
 * @nfy: collects the SRQ whose limit event is to be reported
 *
 * The WQE leaves the SRQ whether it is valid or not: it is the QP's to
 * complete from now on.
 *
 * Return: true with a WQE, false when the SRQ is empty (or its producer
 * index is nonsense).
 */
bool sroce_srq_take(struct sroce_srq *srq, struct sroce_qp *qp,
		    struct sroce_rwqe *r, enum ib_wc_status *status,
		    struct sroce_nfy *nfy)
{
	unsigned long flags;
	u32 prod, count;

	lockdep_assert_held(&qp->lock);
	spin_lock_irqsave(&srq->lock, flags);
	prod = sroce_queue_load_producer(&srq->rq);
	count = prod - srq->cons;
	if (!count || count > srq->rq.num_entries) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return false;
	}
	*status = sroce_rwqe_load(qp, srq->ibsrq.pd,
				  sroce_queue_slot(&srq->rq, srq->cons),
				  srq->max_sge, r);
	/* Copied: the slot is free for the producer again (the uapi). */
	sroce_queue_store_consumer(&srq->rq, ++srq->cons);
	if (srq->limit && count - 1 < srq->limit) {
		srq->limit = 0;
		nfy->srq_limit = srq;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return true;
}

/**
 * sroce_srq_limit_event() - report IB_EVENT_SRQ_LIMIT_REACHED
 * @srq: the SRQ whose limit a take crossed; no lock held
 */
void sroce_srq_limit_event(struct sroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/**
 * sroce_srq_last_wqe_event() - report IB_EVENT_QP_LAST_WQE_REACHED
 * @qp: a QP with an SRQ that entered the error state; no lock held
 */
void sroce_srq_last_wqe_event(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_srq_put() - drop a reference to an SRQ
 * @srq: the SRQ (an XRC SRQ from sroce_xsrq_get(), or its own reference)
 *
 * The last one completes @srq->released, which destroy waits for.
 */
void sroce_srq_put(struct sroce_srq *srq)
{
	if (refcount_dec_and_test(&srq->ref))
		complete(&srq->released);
}
