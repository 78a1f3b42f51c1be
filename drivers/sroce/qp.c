// SPDX-License-Identifier: GPL-2.0
/*
 * qp.c - queue pairs: creation with their rings, the IBTA state machine of
 * modify_qp, query, destruction, lookup by number, entering ERROR (the
 * completions the engine posts: notify.c).
 *
 * A QP's send and receive queues are rings (queue.c) shared with user space
 * for a user QP; a kernel user's post_send/post_recv (post.c) writes the
 * very same WQE format into them (include/uapi/rdma/sroce-abi.h).  The
 * transport engine consumes them: the requester (req.c) turns send WQEs
 * into packets, the completer (comp.c) turns ACKs into completions, the
 * responder (resp.c) turns request packets into received data and ACKs;
 * timers.c holds the requester's timers.
 *
 * Lifetime.  The receive path finds a QP by number in the device's xarray
 * under RCU and takes a reference on its slot (sroce_qp_get()).
 * destroy_qp removes the slot from the xarray, waits for every reference
 * to go (not for a grace period: a lookup that found the slot before reads
 * only the slot, freed after one), stops the timers and the work, then
 * flushes and frees what the engine held.  The core frees the object
 * itself after destroy_qp returns.
 */
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/skbuff.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "net.h"
#include "proto/sroce_proto.h"

/* Entry sizes of the rings for the capabilities asked for. */
static u32 sroce_qp_sq_entry_size(const struct ib_qp_cap *cap)
{
	u32 room = max(cap->max_send_sge * (u32)sizeof(struct sroce_sge),
		       cap->max_inline_data);

	return ALIGN(sizeof(struct sroce_send_wqe) + room, 16);
}

static u32 sroce_qp_rq_entry_size(const struct ib_qp_cap *cap)
{
	return sizeof(struct sroce_recv_wqe) +
	       max(cap->max_recv_sge, 1u) * sizeof(struct sroce_sge);
}

static int sroce_qp_check_init(struct ib_device *ibdev,
			       const struct ib_qp_init_attr *init,
			       const struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;
	int ret;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* The MAD layer's QP1, for kernel users only. */
		if (init->port_num != SROCE_PORT || udata)
			return -EINVAL;
		break;
	case IB_QPT_RAW_PACKET:
		/* User space only: raw.c */
		ret = sroce_raw_check_init(init, udata);
		if (ret)
			return ret;
		break;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		ret = sroce_xrc_check_init(init, udata);
		if (ret)
			return ret;
		break;
	default:
		ibdev_dbg(ibdev, "create_qp: QP type %d not supported\n",
			  init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	/*
	 * SRQs serve RC and raw QPs.  UD and UC drop a message whose receive
	 * they took (no receive is lost from their own queue, which they
	 * take again); from an SRQ the WQE would be lost to every QP.
	 */
	if (init->srq && (init->srq->srq_type != IB_SRQT_BASIC ||
			  (init->qp_type != IB_QPT_RC &&
			   init->qp_type != IB_QPT_RAW_PACKET)))
		return -EOPNOTSUPP;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE) {
		ibdev_dbg(ibdev,
			  "create_qp: caps wr %u/%u sge %u/%u inline %u above the limits\n",
			  cap->max_send_wr, cap->max_recv_wr, cap->max_send_sge,
			  cap->max_recv_sge, cap->max_inline_data);
		return -EINVAL;
	}
	return 0;
}

static int sroce_qp_check_cmd(struct ib_device *ibdev, struct ib_udata *udata)
{
	struct sroce_create_qp_cmd cmd;
	int ret;

	ret = sroce_udata_get_cmd(ibdev, udata, &cmd, sizeof(cmd),
				  sizeof(struct sroce_create_qp_resp),
				  "create_qp");
	if (ret)
		return ret;
	if (cmd.send_wqe_size != sizeof(struct sroce_send_wqe) ||
	    cmd.recv_wqe_size != sizeof(struct sroce_recv_wqe) ||
	    cmd.reserved[0] || cmd.reserved[1]) {
		ibdev_dbg(ibdev, "create_qp: WQE sizes %u/%u\n",
			  cmd.send_wqe_size, cmd.recv_wqe_size);
		return -EINVAL;
	}
	return 0;
}

/* The rings and the kernel's WQE copies, sized by init->cap (updated). */
static int sroce_qp_alloc_queues(struct sroce_qp *qp,
				 struct ib_qp_init_attr *init,
				 struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 sq_entries = roundup_pow_of_two(max(cap->max_send_wr, 1u));
	u32 rq_entries = roundup_pow_of_two(max(cap->max_recv_wr, 1u));
	u32 sq_esize = sroce_qp_sq_entry_size(cap);
	u32 rq_esize = sroce_qp_rq_entry_size(cap);
	int ret;

	/*
	 * With an SRQ (srq.c), or on XRC (xrc.c), there is no receive
	 * queue; else both rings share one buffer, and one mapping.
	 */
	if (!sroce_qp_has_rq(qp))
		ret = sroce_queue_init(&qp->sq, udata, sq_entries, sq_esize);
	else
		ret = sroce_queue_init_pair(&qp->sq, &qp->rq, udata, sq_entries,
					    sq_esize, rq_entries, rq_esize);
	if (ret)
		return ret;

	/* What the entries hold may exceed what was asked for. */
	cap->max_send_wr = sq_entries;
	cap->max_recv_wr = rq_entries;
	cap->max_send_sge = min_t(u32, SROCE_MAX_SGE,
				  (sq_esize - sizeof(struct sroce_send_wqe)) /
				  sizeof(struct sroce_sge));
	cap->max_inline_data = min_t(u32, SROCE_MAX_INLINE,
				     sq_esize - sizeof(struct sroce_send_wqe));
	cap->max_recv_sge = (rq_esize - sizeof(struct sroce_recv_wqe)) /
			    sizeof(struct sroce_sge);
	if (!sroce_qp_has_rq(qp)) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	/* An XRC TGT QP's send queue is never used: it has none. */
	if (qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		memset(cap, 0, sizeof(*cap));
	qp->cap = *cap;

	qp->swqe_size = ALIGN(max(struct_size((struct sroce_swqe *)NULL, sge,
					      cap->max_send_sge),
				  offsetof(struct sroce_swqe, sge) +
				  cap->max_inline_data), 8);
	qp->swqe = kvcalloc(sq_entries, qp->swqe_size, GFP_KERNEL_ACCOUNT);
	if (!qp->swqe) {
		ret = -ENOMEM;
		goto err_destroy_rq;
	}
	return 0;

err_destroy_rq:
	sroce_queue_destroy(&qp->rq);
	sroce_queue_destroy(&qp->sq);
	return ret;
}

static void sroce_qp_free_queues(struct sroce_qp *qp)
{
	kvfree(qp->resp.res);
	qp->resp.res = NULL;
	qp->resp.res_size = 0;
	kvfree(qp->swqe);
	qp->swqe = NULL;
	sroce_queue_destroy(&qp->rq);
	sroce_queue_destroy(&qp->sq);
}

/**
 * sroce_qp_create() - ops.create_qp
 * @ibqp: allocated and zeroed by the core, pd, CQs and handlers set
 * @init: an RC, UC or UD QP, the GSI QP (QP1, kernel only), or an XRC
 *	INI (user only) or TGT QP (xrc.c), without creation flags; an RC QP
 *	may take its receives from an SRQ (then it has no receive queue);
 *	@init->cap is updated to what was granted
 * @udata: a user's struct sroce_create_qp_cmd / _resp, or NULL (also for
 *	the XRC TGT QP of a user: the core creates it without driver data)
 *
 * Return: 0, -EOPNOTSUPP for another QP type, an XRC SRQ or creation flags,
 * -EINVAL for capabilities beyond the limits or a bad command, -ENOMEM
 * (also beyond SROCE_MAX_QP QPs or QP numbers), -EBUSY for a second GSI
 * QP, -EFAULT.
 */
int sroce_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_create_qp_resp resp = {};
	u32 qpn;
	int ret;

	if (init->rwq_ind_tbl)
		return sroce_rss_qp_create(qp, init, udata);
	/* Receives come from SRQs: the receive capabilities do not count. */
	if (!sroce_qp_has_rq(qp)) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
	}
	ret = sroce_qp_check_init(ibqp->device, init, udata);
	if (ret)
		return ret;
	if (udata) {
		ret = sroce_qp_check_cmd(ibqp->device, udata);
		if (ret)
			return ret;
	}
	if (!atomic_add_unless(&sdev->qp_count, 1, SROCE_MAX_QP))
		return -ENOMEM;

	qp->sdev = sdev;
	/* An XRC TGT QP belongs to user space: no kernel posts to it. */
	qp->user = udata || init->qp_type == IB_QPT_XRC_TGT;
	qp->xrcd = init->qp_type == IB_QPT_XRC_TGT ? init->xrcd : NULL;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->pmtu = 1024;
	qp->comp.cwnd = SROCE_REQ_WINDOW;
	spin_lock_init(&qp->lock);
	sroce_cc_qp_init(qp);
	__skb_queue_head_init(&qp->resp.sr_held);
	qp->slot = kmalloc(sizeof(*qp->slot), GFP_KERNEL_ACCOUNT);
	if (!qp->slot) {
		ret = -ENOMEM;
		goto err_dec_count;
	}
	refcount_set(&qp->slot->ref, 1);
	qp->slot->qp = qp;
	init_completion(&qp->released);
	sroce_timers_init(qp);
	INIT_WORK(&qp->req_work, sroce_req_work);
	INIT_DELAYED_WORK(&qp->req_retry, sroce_req_retry);
	INIT_WORK(&qp->resp_work, sroce_resp_work);
	sroce_odp_qp_init(qp);
	INIT_LIST_HEAD(&qp->mcast);

	ret = sroce_qp_alloc_queues(qp, init, udata);
	if (ret)
		goto err_free_slot;

	/* The requester is idle: the first post rings the doorbell. */
	WRITE_ONCE(*qp->sq.notify, SROCE_SQ_NOTIFY_DOORBELL);

	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		ret = xa_insert(&sdev->qp_xa, qpn, NULL, GFP_KERNEL);
	} else {
		ret = sroce_ident_alloc(&sdev->qp_ids, &sdev->qp_xa, &qpn);
	}
	if (ret < 0)
		goto err_free_queues;
	ibqp->qp_num = qpn;

	if (udata) {
		sroce_queue_get_info(&qp->sq, &resp.sq);
		if (sroce_qp_has_rq(qp))
			sroce_queue_get_info(&qp->rq, &resp.rq);
		resp.max_inline_data = qp->cap.max_inline_data;
		ret = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (ret)
			goto err_erase;
	}
	/* Publish the initialised QP (xa_store implies a barrier). */
	xa_store(&sdev->qp_xa, qpn, qp->slot, GFP_KERNEL);
	return 0;

err_erase:
	xa_erase(&sdev->qp_xa, qpn);
err_free_queues:
	sroce_qp_free_queues(qp);
err_free_slot:
	kfree(qp->slot);
	qp->slot = NULL;
err_dec_count:
	atomic_dec(&sdev->qp_count);
	return ret;
}

/**
 * sroce_qp_get() - find a QP by number for the receive path
 * @sdev: the device
 * @qpn: the QP number from a packet
 *
 * Return: the QP with a reference (sroce_qp_put()), or NULL.
 */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp_slot *slot;
	struct sroce_qp *qp = NULL;

	rcu_read_lock();
	slot = xa_load(&sdev->qp_xa, qpn);
	if (slot && refcount_inc_not_zero(&slot->ref))
		qp = slot->qp;
	rcu_read_unlock();
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->slot->ref))
		complete(&qp->released);
}

/**
 * sroce_qp_error() - move a QP to the error state and flush it
 * @qp: the QP, lock held
 * @nfy: collects CQs to signal
 *
 * Every WQE not retired completes with IB_WC_WR_FLUSH_ERR (send WQEs in
 * order after those that already failed); later posts are flushed as
 * they come.  The timer stops.
 */
void sroce_qp_error(struct sroce_qp *qp, struct sroce_nfy *nfy)
{
	lockdep_assert_held(&qp->lock);
	if (qp->state == IB_QPS_RESET)
		return;
	/* Once: the SRQ's WQEs stay, the QP takes none any more (srq.c). */
	if (sroce_qp_takes_srq(qp) && qp->state != IB_QPS_ERR)
		nfy->last_wqe = qp;
	qp->state = IB_QPS_ERR;
	qp->attr.qp_state = IB_QPS_ERR;
	sroce_timers_qp_error(qp);
	/* Posts in ERROR ring the doorbell, and the requester flushes them. */
	WRITE_ONCE(*qp->sq.notify, SROCE_SQ_NOTIFY_DOORBELL);
	sroce_req_flush(qp, nfy);
	sroce_resp_flush(qp, nfy);
}

/* Back to RESET: every index to zero, nothing held. */
static void sroce_qp_reset(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	/* The requester first: it drops the WQEs not retired. */
	sroce_req_reset(qp);
	sroce_comp_reset(qp);
	sroce_timers_reset(qp);
	sroce_resp_reset(qp);
	sroce_odp_reset(qp);
	/* The rings: user space resets its own copies too (the uapi). */
	WRITE_ONCE(*qp->sq.producer, 0);
	WRITE_ONCE(*qp->sq.consumer, 0);
	WRITE_ONCE(*qp->sq.notify, SROCE_SQ_NOTIFY_DOORBELL);
	if (sroce_qp_has_rq(qp)) {
		WRITE_ONCE(*qp->rq.producer, 0);
		WRITE_ONCE(*qp->rq.consumer, 0);
	}
}

/* Attributes sroce accepts in modify_qp at all (on top of the core's table) */
#define SROCE_QP_ATTR_OK						\
	(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY |	\
	 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT |		\
	 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |	\
	 IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC |	\
	 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | \
	 IB_QP_PATH_MIG_STATE | IB_QP_DEST_QPN | IB_QP_QKEY)

/* Every check of modify_qp, before anything changes. */
static int sroce_qp_check_modify(struct sroce_qp *qp,
				 const struct ib_qp_attr *attr, int mask,
				 enum ib_qp_state cur, enum ib_qp_state next)
{
	struct ib_device *ibdev = qp->ibqp.device;
	int ret;

	if (mask & ~SROCE_QP_ATTR_OK) {
		ibdev_dbg(ibdev, "modify_qp: unsupported attributes %#x\n",
			  mask & ~SROCE_QP_ATTR_OK);
		return -EOPNOTSUPP;
	}
	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask)) {
		ibdev_dbg(ibdev,
			  "modify_qp: transition %d -> %d with mask %#x refused\n",
			  cur, next, mask);
		return -EINVAL;
	}
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	/* IB_ACCESS_ON_DEMAND: accepted and ignored, as by hardware. */
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_ON_DEMAND)))
		return -EINVAL;
	if (mask & IB_QP_AV) {
		struct sroce_av av;

		/* The path: a RoCEv2 GID of this port and a GRH (ah.c). */
		ret = sroce_av_from_attr(ibdev, &attr->ah_attr, &av);
		if (ret)
			return ret;
	}
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096 ||
	     attr->path_mtu > READ_ONCE(qp->sdev->active_mtu))) {
		ibdev_dbg(ibdev, "modify_qp: path MTU %d, port offers %d\n",
			  attr->path_mtu, READ_ONCE(qp->sdev->active_mtu));
		return -EINVAL;
	}
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EINVAL;
	return 0;
}

/* Store the checked attributes; lock held. */
static void sroce_qp_apply(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			   int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->lock);
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_AV) {
		/* Checked: sroce_qp_check_modify() */
		sroce_av_from_attr(qp->ibqp.device, &attr->ah_attr, &qp->av);
		/* The core's reference on sgid_attr is not ours to keep. */
		a->ah_attr = attr->ah_attr;
		a->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->pmtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT) {
		a->retry_cnt = attr->retry_cnt;
		qp->comp.retry = attr->retry_cnt;
	}
	if (mask & IB_QP_RNR_RETRY) {
		a->rnr_retry = attr->rnr_retry;
		qp->comp.rnr_retry_left = attr->rnr_retry;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_RQ_PSN) {
		a->rq_psn = attr->rq_psn;
		qp->resp.epsn = attr->rq_psn;
	}
	if (mask & IB_QP_SQ_PSN) {
		a->sq_psn = attr->sq_psn;
		qp->req.psn_next = attr->sq_psn;
		qp->comp.psn_una = attr->sq_psn;
		qp->req.psn_max = attr->sq_psn;
	}
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
}

/**
 * sroce_qp_modify() - ops.modify_qp
 * @ibqp: the QP
 * @attr: new attributes
 * @mask: IB_QP_* attributes to change
 * @udata: no driver data (must be empty)
 *
 * Every attribute is checked against the transition (ib_modify_qp_is_ok())
 * and its range before anything changes: a refused call leaves the QP as
 * it was.  Entering ERROR flushes; entering RESET empties both rings.
 *
 * Return: 0, -EINVAL for a transition, attribute or value refused,
 * -EOPNOTSUPP for attributes sroce does not implement (alternate paths,
 * resizing, rate limits), -ENOMEM without memory for the responder
 * resources of a new max_dest_rd_atomic.
 */
int sroce_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_res *ring = NULL;
	struct sroce_nfy nfy = {};
	struct sroce_ext_hello hello = {};
	enum ib_qp_state cur, next, prev;
	unsigned long flags;
	bool kick = false;

	if (qp->rss)
		return -EOPNOTSUPP;	/* rss.c: it has no states to go through */
	int ret;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	/* Out of range: sroce_qp_check_modify() refuses it below. */
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic <= SROCE_MAX_RD_ATOMIC) {
		ring = sroce_resp_res_alloc(qp, attr->max_dest_rd_atomic);
		if (IS_ERR(ring))
			return PTR_ERR(ring);
	}

	spin_lock_irqsave(&qp->lock, flags);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if ((mask & IB_QP_CUR_STATE) && cur != qp->state &&
	    !(cur == IB_QPS_SQE && qp->state == IB_QPS_RTS)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = sroce_qp_check_modify(qp, attr, mask, qp->state, next);
	if (ret)
		goto out_unlock;

	sroce_qp_apply(qp, attr, mask);
	ring = sroce_resp_res_install(qp, ring);
	prev = qp->state;
	if (mask & IB_QP_STATE) {
		switch (next) {
		case IB_QPS_RESET:
			qp->state = IB_QPS_RESET;
			sroce_qp_reset(qp);
			break;
		case IB_QPS_ERR:
			sroce_qp_error(qp, &nfy);
			break;
		case IB_QPS_RTS:
			/* Work posted in advance goes out now. */
			kick = qp->state != IB_QPS_RTS;
			fallthrough;
		default:
			qp->state = next;
			break;
		}
		qp->attr.qp_state = qp->state;
		sroce_ext_qp_state(qp, prev, &hello);
	}
out_unlock:
	spin_unlock_irqrestore(&qp->lock, flags);
	kvfree(ring);
	sroce_qp_notify(&nfy);
	/* Not under the QP's lock: the MAD layer takes its own. */
	sroce_ext_send_hello(qp->sdev, &hello);
	if (kick)
		sroce_req_kick(qp);
	return ret;
}

/**
 * sroce_qp_query() - ops.query_qp
 * @ibqp: the QP
 * @attr: filled in
 * @mask: ignored: everything is reported
 * @init: filled in with the creation attributes
 *
 * Return: 0.
 */
int sroce_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = qp->cap;
	attr->sq_draining = 0;
	attr->port_num = SROCE_PORT;
	spin_unlock_irqrestore(&qp->lock, flags);

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = SROCE_PORT;
	return 0;
}

/**
 * sroce_qp_destroy() - ops.destroy_qp
 * @ibqp: the QP
 * @udata: unused
 *
 * No packet, timer or work touches the QP once this returns; outstanding
 * work requests are dropped without completions (the CQs may be destroyed
 * next).  Sleeps.
 *
 * Return: 0.
 */
int sroce_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	unsigned long flags;

	if (qp->rss) {
		sroce_rss_qp_destroy(qp);
		return 0;
	}
	/* Before the grace period below: the receive path walks the groups. */
	sroce_mcast_qp_detach_all(qp);
	spin_lock_irqsave(&qp->lock, flags);
	qp->destroyed = true;
	spin_unlock_irqrestore(&qp->lock, flags);

	xa_erase(&sdev->qp_xa, ibqp->qp_num);
	/*
	 * A lookup by number that found the slot reads only the slot (freed
	 * after a grace period, below); the multicast receive path reads
	 * the QP through attachments, which may outlive their detachment by
	 * a grace period: only a QP that was attached waits for one.
	 */
	if (qp->mcast_used)
		synchronize_rcu();
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);
	sroce_timers_shutdown(qp);
	/* The retry kicks the work item: first. */
	cancel_delayed_work_sync(&qp->req_retry);
	cancel_work_sync(&qp->req_work);
	cancel_work_sync(&qp->resp_work);
	/* A requester run in progress (a kernel post) is the caller's bug. */

	spin_lock_irqsave(&qp->lock, flags);
	sroce_qp_reset(qp);
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_free_queues(qp);
	kfree_rcu(qp->slot, rcu);
	qp->slot = NULL;
	atomic_dec(&sdev->qp_count);
	return 0;
}
