// SPDX-License-Identifier: GPL-2.0
/*
 * wq.c - receive work queues (ops.create_wq, modify_wq, destroy_wq), their
 * indirection tables (ops.create_rwq_ind_table, destroy_rwq_ind_table),
 * and the receive of a frame into a WQ.
 *
 * A WQ is a receive ring (queue.c) like an SRQ's, mapped by the provider
 * (user space only: kernel users have no WQ verbs to post with), in the
 * WQE format of include/uapi/rdma/sroce-abi.h, with a CQ of its own.  RSS
 * QPs (rss.c) choose a WQ of their indirection table for each frame, and
 * sroce_wq_rcv() takes the WQE at the consumer index under the WQ's lock,
 * copies the frame into it and completes it on the WQ's CQ.
 *
 * States.  A WQ is created in RESET; only a WQ in RDY receives (a frame
 * for another is dropped and counted, as mlx5 drops what reaches an RQ
 * that is not ready).  Transitions, as mlx5's RQs take them: RESET->RDY,
 * RDY->RDY, RDY->ERR, ERR->ERR, and any state->RESET; others are refused.
 * Entering ERR (also from ERR: WQEs posted since) flushes the WQEs posted
 * with IB_WC_WR_FLUSH_ERR; entering RESET discards them without
 * completions.  A WQE whose buffers fail the checks (or a frame that does
 * not fit) completes with its error; a protection error also moves the WQ
 * to ERR, as it does a QP.
 *
 * Lifetime.  The core counts the indirection tables using a WQ (and the
 * QPs using a table) and refuses to destroy one still used (-EBUSY); an
 * RSS QP's destruction waits for its frames in flight (qp.c), so no frame
 * reaches a WQ that destroy_wq frees.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"

static DEFINE_IDA(sroce_wq_ida);
static DEFINE_IDA(sroce_ind_tbl_ida);

static int sroce_wq_check_cmd(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct sroce_create_wq_cmd cmd;
	int ret;

	ret = sroce_udata_get_cmd(ibdev, udata, &cmd, sizeof(cmd),
				  sizeof(struct sroce_create_wq_resp),
				  "create_wq");
	if (ret)
		return ret;
	if (cmd.recv_wqe_size != sizeof(struct sroce_recv_wqe) ||
	    cmd.reserved) {
		ibdev_dbg(ibdev, "create_wq: WQE size %u\n", cmd.recv_wqe_size);
		return -EINVAL;
	}
	return 0;
}

static int sroce_wq_init(struct sroce_wq *wq, struct ib_wq_init_attr *init,
			 struct ib_udata *udata)
{
	struct sroce_create_wq_resp resp = {};
	u32 entries = roundup_pow_of_two(init->max_wr);
	u32 esize = sizeof(struct sroce_recv_wqe) +
		    max(init->max_sge, 1u) * sizeof(struct sroce_sge);
	int ret;

	wq->rwqe = kzalloc(sizeof(*wq->rwqe), GFP_KERNEL_ACCOUNT);
	if (!wq->rwqe)
		return -ENOMEM;
	ret = sroce_queue_init(&wq->rq, udata, entries, esize);
	if (ret)
		goto err_free;
	wq->max_wr = entries;
	wq->max_sge = (esize - sizeof(struct sroce_recv_wqe)) /
		      sizeof(struct sroce_sge);
	sroce_queue_get_info(&wq->rq, &resp.rq);
	resp.rq.notify_offset = 0;
	ret = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (ret)
		goto err_queue;
	init->max_wr = wq->max_wr;
	init->max_sge = wq->max_sge;
	return 0;

err_queue:
	sroce_queue_destroy(&wq->rq);
err_free:
	kfree(wq->rwqe);
	return ret;
}

/**
 * sroce_wq_create() - ops.create_wq
 * @ibpd: the PD the WQEs' buffers belong to
 * @init: an IB_WQT_RQ WQ without creation flags; max_wr and max_sge are
 *	updated to what was granted (the core sets the CQ and PD after
 *	this returns: init->cq is the WQ's CQ)
 * @udata: a user's struct sroce_create_wq_cmd / _resp
 *
 * Return: the WQ in RESET, or ERR_PTR of -EOPNOTSUPP (a kernel user,
 * another type, creation flags), -EINVAL (a size of 0 or beyond the
 * limits, a bad command), -ENOMEM (also beyond SROCE_MAX_WQ WQs), -EFAULT.
 */
struct ib_wq *sroce_wq_create(struct ib_pd *ibpd, struct ib_wq_init_attr *init,
			      struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_wq *wq;
	int ret;

	if (!udata || init->wq_type != IB_WQT_RQ || init->create_flags)
		return ERR_PTR(-EOPNOTSUPP);
	if (!init->max_wr || init->max_wr > SROCE_MAX_WQ_WR ||
	    init->max_sge > SROCE_MAX_SGE) {
		ibdev_dbg(ibpd->device, "create_wq: %u WQEs of %u SGEs refused\n",
			  init->max_wr, init->max_sge);
		return ERR_PTR(-EINVAL);
	}
	ret = sroce_wq_check_cmd(ibpd->device, udata);
	if (ret)
		return ERR_PTR(ret);
	if (!atomic_add_unless(&sdev->wq_count, 1, SROCE_MAX_WQ))
		return ERR_PTR(-ENOMEM);

	wq = kzalloc(sizeof(*wq), GFP_KERNEL_ACCOUNT);
	if (!wq) {
		ret = -ENOMEM;
		goto err_dec_count;
	}
	wq->sdev = sdev;
	spin_lock_init(&wq->lock);
	ret = ida_alloc_range(&sroce_wq_ida, 1, SROCE_QPN_MAX, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	wq->ibwq.wq_num = ret;
	wq->ibwq.state = IB_WQS_RESET;
	/* uverbs sets neither (ib_create_wq() does): sroce_wq_fatal() */
	wq->ibwq.event_handler = init->event_handler;
	wq->ibwq.wq_context = init->wq_context;
	ret = sroce_wq_init(wq, init, udata);
	if (ret)
		goto err_free_num;
	return &wq->ibwq;

err_free_num:
	ida_free(&sroce_wq_ida, wq->ibwq.wq_num);
err_free:
	kfree(wq);
err_dec_count:
	atomic_dec(&sdev->wq_count);
	return ERR_PTR(ret);
}

/* Complete @wr_id on the WQ's CQ; lock held.  Return: as sroce_cq_post(). */
static int sroce_wq_complete(struct sroce_wq *wq, u64 wr_id,
			     enum ib_wc_status status, u32 byte_len)
{
	struct sroce_cqe cqe = {
		.wr_id = wr_id,
		.status = status,
		.opcode = IB_WC_RECV,
		.byte_len = status ? 0 : byte_len,
		.qp_num = wq->ibwq.wq_num,
		.port_num = SROCE_PORT,
	};

	lockdep_assert_held(&wq->lock);
	return sroce_cq_post(to_scq(wq->ibwq.cq), &cqe, false);
}

/* Signal the WQ's CQ after sroce_wq_complete() returned @ret; no lock. */
static void sroce_wq_signal(struct sroce_wq *wq, int ret)
{
	if (ret > 0)
		sroce_cq_signal(to_scq(wq->ibwq.cq));
	else if (ret == -EOVERFLOW)
		sroce_cq_overflow_event(to_scq(wq->ibwq.cq));
}

/* Report IB_EVENT_WQ_FATAL: the WQ entered ERR on its own; no lock. */
static void sroce_wq_fatal(struct sroce_wq *wq)
{
	struct ib_event ev = {
		.device = wq->ibwq.device,
		.element.wq = &wq->ibwq,
		.event = IB_EVENT_WQ_FATAL,
	};

	if (wq->ibwq.event_handler)
		wq->ibwq.event_handler(&ev, wq->ibwq.wq_context);
}

/*
 * Flush the WQEs posted with IB_WC_WR_FLUSH_ERR; lock held.  Return: the
 * last sroce_cq_post() result that asks for a signal or an event.
 */
static int sroce_wq_flush(struct sroce_wq *wq)
{
	u32 prod = sroce_queue_load_producer(&wq->rq);
	int ret = 0, r;

	lockdep_assert_held(&wq->lock);
	if (prod - wq->cons > wq->rq.num_entries)
		return 0;	/* nonsense from user space: nothing to flush */
	for (; wq->cons != prod; ) {
		struct sroce_recv_wqe u;

		memcpy(&u, sroce_queue_slot(&wq->rq, wq->cons), sizeof(u));
		sroce_queue_store_consumer(&wq->rq, ++wq->cons);
		r = sroce_wq_complete(wq, u.wr_id, IB_WC_WR_FLUSH_ERR, 0);
		if (r > 0 || r == -EOVERFLOW)
			ret = r;
	}
	return ret;
}

static bool sroce_wq_transition_ok(enum ib_wq_state cur, enum ib_wq_state next)
{
	switch (next) {
	case IB_WQS_RESET:
		return true;
	case IB_WQS_RDY:
		return cur == IB_WQS_RESET || cur == IB_WQS_RDY;
	case IB_WQS_ERR:
		return cur == IB_WQS_RDY || cur == IB_WQS_ERR;
	default:
		return false;
	}
}

/**
 * sroce_wq_modify() - ops.modify_wq
 * @ibwq: the WQ
 * @attr: the new state; curr_wq_state (the core fills it in with the
 *	state it knows when the caller gave none) must be the WQ's
 * @mask: IB_WQ_STATE, IB_WQ_CUR_STATE; IB_WQ_FLAGS with a flag is refused
 * @udata: no driver data
 *
 * Return: 0, -EINVAL (another current state, a transition not allowed,
 * driver data), -EOPNOTSUPP (WQ flags).
 */
int sroce_wq_modify(struct ib_wq *ibwq, struct ib_wq_attr *attr, u32 mask,
		    struct ib_udata *udata)
{
	struct sroce_wq *wq = to_swq(ibwq);
	unsigned long flags;
	int ret = 0, sig = 0;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (mask & ~(IB_WQ_STATE | IB_WQ_CUR_STATE | IB_WQ_FLAGS))
		return -EINVAL;
	if ((mask & IB_WQ_FLAGS) && attr->flags_mask)
		return -EOPNOTSUPP;
	if (!(mask & IB_WQ_STATE))
		return 0;

	spin_lock_irqsave(&wq->lock, flags);
	if (attr->curr_wq_state != ibwq->state ||
	    !sroce_wq_transition_ok(ibwq->state, attr->wq_state)) {
		ibdev_dbg(ibwq->device, "modify_wq %u: %d (not %d) to %d\n",
			  ibwq->wq_num, ibwq->state, attr->curr_wq_state,
			  attr->wq_state);
		ret = -EINVAL;
		goto out_unlock;
	}
	if (attr->wq_state == IB_WQS_ERR) {
		sig = sroce_wq_flush(wq);
	} else if (attr->wq_state == IB_WQS_RESET) {
		/* Discarded: their slots are free again. */
		wq->cons = sroce_queue_load_producer(&wq->rq);
		sroce_queue_store_consumer(&wq->rq, wq->cons);
	}
	ibwq->state = attr->wq_state;
out_unlock:
	spin_unlock_irqrestore(&wq->lock, flags);
	sroce_wq_signal(wq, sig);
	return ret;
}

/**
 * sroce_wq_destroy() - ops.destroy_wq
 * @ibwq: a WQ no indirection table uses (the core checks)
 * @udata: unused
 *
 * WQEs still posted are dropped without completions.
 *
 * Return: 0.
 */
int sroce_wq_destroy(struct ib_wq *ibwq, struct ib_udata *udata)
{
	struct sroce_wq *wq = to_swq(ibwq);
	struct sroce_dev *sdev = wq->sdev;

	sroce_queue_destroy(&wq->rq);
	ida_free(&sroce_wq_ida, ibwq->wq_num);
	kfree(wq->rwqe);
	kfree(wq);
	atomic_dec(&sdev->wq_count);
	return 0;
}

/*
 * Receive a frame into the WQE at the consumer index; lock held.  Return:
 * the sroce_cq_post() result (negative: the CQ overflowed, the WQ is in
 * ERR now), or -ENOENT with no WQE (dropped).
 */
static int sroce_wq_take(struct sroce_wq *wq, struct sroce_qp *qp,
			 const u8 *hdr, u32 hlen, const struct sk_buff *skb,
			 u32 skb_off)
{
	u32 len = hlen + skb->len - skb_off;
	struct sroce_rwqe *r = wq->rwqe;
	enum ib_wc_status status;
	u32 prod, count;
	int ret;

	prod = sroce_queue_load_producer(&wq->rq);
	count = prod - wq->cons;
	if (!count || count > wq->rq.num_entries)
		return -ENOENT;
	status = sroce_rwqe_load(qp, wq->ibwq.pd,
				 sroce_queue_slot(&wq->rq, wq->cons),
				 wq->max_sge, r);
	if (!status && len > r->length)
		status = IB_WC_LOC_LEN_ERR;
	else if (!status &&
		 ((hlen && sroce_sge_copy(r->sge, r->num_sge, 0, (void *)hdr,
					  hlen, SROCE_MR_FROM_BUF)) ||
		  sroce_sge_scatter_skb(r->sge, r->num_sge, hlen, skb, skb_off,
					len - hlen)))
		status = IB_WC_LOC_PROT_ERR;
	sroce_sge_put(r->sge, r->num_sge);
	r->num_sge = 0;
	/* The slot is free before its completion shows (the uapi). */
	sroce_queue_store_consumer(&wq->rq, ++wq->cons);
	ret = sroce_wq_complete(wq, r->wr_id, status, len);
	if (ret < 0) {
		/*
		 * The CQ overflowed (or had): this completion is lost, and so
		 * would every later one be.  The WQ takes no more WQEs: ERR,
		 * with IB_EVENT_WQ_FATAL (sroce_wq_rcv()), as a QP enters
		 * ERROR.  Its WQEs stay unflushed: the CQ holds no more.
		 */
		wq->ibwq.state = IB_WQS_ERR;
		return ret;
	}
	if (status && status != IB_WC_LOC_LEN_ERR) {
		int r2;

		wq->ibwq.state = IB_WQS_ERR;
		r2 = sroce_wq_flush(wq);
		if (r2)
			ret = r2;
	}
	return ret;
}

/**
 * sroce_wq_rcv() - a frame an RSS QP steered to a WQ of its table
 * @wq: the WQ
 * @qp: the RSS QP, with a reference (its PD is not the WQ's: the WQE's
 *	buffers are checked against the WQ's)
 * @hdr: the frame's first @hlen bytes
 * @hlen: their length (0: all of it is in @skb)
 * @skb: the rest of the frame from @skb_off (not consumed)
 * @skb_off: first byte in @skb, from skb->data
 *
 * Bottom halves off.
 *
 * Return: true when the frame completed a WQE, false when it was dropped
 * (the WQ not ready, no WQE posted, or its completion lost to a CQ
 * overflow).
 */
bool sroce_wq_rcv(struct sroce_wq *wq, struct sroce_qp *qp, const u8 *hdr,
		  u32 hlen, const struct sk_buff *skb, u32 skb_off)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&wq->lock, flags);
	if (wq->ibwq.state != IB_WQS_RDY) {
		spin_unlock_irqrestore(&wq->lock, flags);
		return false;
	}
	ret = sroce_wq_take(wq, qp, hdr, hlen, skb, skb_off);
	spin_unlock_irqrestore(&wq->lock, flags);
	if (ret == -ENOENT)
		return false;
	sroce_wq_signal(wq, ret);
	if (ret < 0) {
		sroce_wq_fatal(wq);
		return false;	/* its completion is lost: a drop */
	}
	return true;
}

/**
 * sroce_rwq_ind_table_create() - ops.create_rwq_ind_table
 * @ibtbl: allocated by the core, its ind_tbl and log_ind_tbl_size set
 * @init: 2^log_ind_tbl_size WQs of the caller's context (the core looked
 *	them up by handle)
 * @udata: no driver data
 *
 * Return: 0, -EINVAL (a table above 2^SROCE_MAX_LOG_IND_TBL_SIZE WQs, a
 * WQ of another type, driver data), -ENOMEM (also beyond
 * SROCE_MAX_RWQ_IND_TABLES tables).
 */
int sroce_rwq_ind_table_create(struct ib_rwq_ind_table *ibtbl,
			       struct ib_rwq_ind_table_init_attr *init,
			       struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibtbl->device);
	u32 i, n;
	int ret;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (init->log_ind_tbl_size > SROCE_MAX_LOG_IND_TBL_SIZE) {
		ibdev_dbg(ibtbl->device, "create_rwq_ind_table: 2^%u WQs\n",
			  init->log_ind_tbl_size);
		return -EINVAL;
	}
	n = 1U << init->log_ind_tbl_size;
	for (i = 0; i < n; i++)
		if (!init->ind_tbl[i] || init->ind_tbl[i]->wq_type != IB_WQT_RQ ||
		    init->ind_tbl[i]->device != ibtbl->device)
			return -EINVAL;
	if (!atomic_add_unless(&sdev->rwq_ind_table_count, 1,
			       SROCE_MAX_RWQ_IND_TABLES))
		return -ENOMEM;
	ret = ida_alloc_range(&sroce_ind_tbl_ida, 1, SROCE_QPN_MAX, GFP_KERNEL);
	if (ret < 0) {
		atomic_dec(&sdev->rwq_ind_table_count);
		return ret;
	}
	ibtbl->ind_tbl_num = ret;
	return 0;
}

/**
 * sroce_rwq_ind_table_destroy() - ops.destroy_rwq_ind_table
 * @ibtbl: a table no QP uses (the core checks)
 *
 * Return: 0.
 */
int sroce_rwq_ind_table_destroy(struct ib_rwq_ind_table *ibtbl)
{
	ida_free(&sroce_ind_tbl_ida, ibtbl->ind_tbl_num);
	atomic_dec(&to_sdev(ibtbl->device)->rwq_ind_table_count);
	return 0;
}
