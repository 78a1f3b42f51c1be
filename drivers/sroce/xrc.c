// SPDX-License-Identifier: GPL-2.0
/*
 * xrc.c - eXtended Reliable Connected transport (IBTA annex A14): XRC
 * domains, XRC SRQs by number, the checks of XRC QPs and what an XRC TGT
 * QP's responder does differently.
 *
 * An XRC domain (ops.alloc_xrcd) holds nothing of sroce's own: the core
 * shares it between processes through the inode it was opened with and
 * keeps its XRC TGT QPs (ib_xrcd.tgt_qps).  An XRC SRQ is an SRQ (srq.c)
 * of a domain with a CQ of its own and a number, published in the
 * device's srq_xa once the SRQ is complete.
 *
 * An XRC INI QP is an RC requester without a receive side: its send WQEs
 * name the XRC SRQ at the target (struct sroce_send_wqe.xrc_srqn), which
 * every request packet carries in its XRCETH; its opcodes are RC's with
 * the XRC transport bits (proto/opcode.h).  An XRC TGT QP is an RC
 * responder without queues of its own, created by the core with no
 * driver data and no PD: each request names the XRC SRQ it is for, and
 * the responder (resp.c) finds it here, with a reference held while the
 * packet is executed (struct sroce_resp.xsrq).  IBTA's checks: the SRQ
 * must exist and belong to the TGT QP's domain, and a message continues
 * in the SRQ it began in (its number and its identity, struct
 * sroce_srq.serial, recorded when the message took its WQE: the number of
 * an SRQ destroyed meanwhile may name a new one); otherwise the request
 * is NAKed as invalid (the INI QP's WQE completes with
 * IB_WC_REM_INV_REQ_ERR, both QPs go to ERROR).  Memory the request
 * touches is checked against the SRQ's PD; its receive completes on the
 * SRQ's CQ.
 */
#include <linux/rcupdate.h>

#include "sroce.h"
#include "engine.h"
#include "resp.h"

/**
 * sroce_xrcd_alloc() - ops.alloc_xrcd
 * @ibxrcd: allocated and zeroed by the core
 * @udata: no driver data (must be empty)
 *
 * Return: 0, or -EINVAL for driver data.
 */
int sroce_xrcd_alloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/**
 * sroce_xrcd_dealloc() - ops.dealloc_xrcd
 * @ibxrcd: a domain without SRQs or TGT QPs (the core checks)
 * @udata: unused
 *
 * Return: 0.
 */
int sroce_xrcd_dealloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	return 0;
}

/**
 * sroce_xsrq_add() - give a new XRC SRQ its number and publish it
 * @srq: the SRQ, complete
 *
 * Return: 0, or -ENOMEM (no number left).
 */
int sroce_xsrq_add(struct sroce_srq *srq)
{
	struct sroce_dev *sdev = srq->sdev;
	u32 srqn;
	int ret;

	ret = sroce_ident_alloc(&sdev->srq_ids, &sdev->srq_xa, &srqn);
	if (ret < 0)
		return ret;
	srq->ibsrq.ext.xrc.srq_num = srqn;
	srq->serial = atomic64_inc_return(&sdev->srq_serial);
	/* Publish the initialised SRQ (xa_store implies a barrier). */
	xa_store(&sdev->srq_xa, srqn, srq, GFP_KERNEL);
	return 0;
}

/**
 * sroce_xsrq_remove() - unpublish an XRC SRQ and wait for its users
 * @srq: the SRQ being destroyed
 *
 * Sleeps.  No responder holds the SRQ once this returns.
 */
void sroce_xsrq_remove(struct sroce_srq *srq)
{
	xa_erase(&srq->sdev->srq_xa, srq->ibsrq.ext.xrc.srq_num);
	/* No lookup can still be between xa_load() and its reference. */
	synchronize_rcu();
	sroce_srq_put(srq);
	wait_for_completion(&srq->released);
}

/**
 * sroce_xsrq_get() - find an XRC SRQ by number
 * @sdev: the device
 * @srqn: the number from an XRCETH
 *
 * Any context.
 *
 * Return: the SRQ with a reference (sroce_srq_put()), or NULL.
 */
struct sroce_srq *sroce_xsrq_get(struct sroce_dev *sdev, u32 srqn)
{
	struct sroce_srq *srq;

	rcu_read_lock();
	srq = xa_load(&sdev->srq_xa, srqn);
	if (srq && !refcount_inc_not_zero(&srq->ref))
		srq = NULL;
	rcu_read_unlock();
	return srq;
}

/**
 * sroce_xrc_check_init() - the creation checks of an XRC QP
 * @init: an XRC INI or TGT QP's attributes
 * @udata: the user's data (a TGT QP has none: the core creates it)
 *
 * Return: 0, or -EOPNOTSUPP for a kernel INI QP (kernel work requests
 * cannot name an SRQ), -EINVAL for a TGT QP without a domain or with
 * queues, CQs or an SRQ, an INI QP with an SRQ.
 */
int sroce_xrc_check_init(const struct ib_qp_init_attr *init,
			 const struct ib_udata *udata)
{
	if (init->qp_type == IB_QPT_XRC_INI)
		return !udata ? -EOPNOTSUPP : init->srq ? -EINVAL : 0;
	if (!init->xrcd || init->srq || init->send_cq || init->recv_cq)
		return -EINVAL;
	return 0;
}

/**
 * sroce_xrc_resp_begin() - find the XRC SRQ a request packet names
 * @qp: an XRC TGT QP, lock held
 * @pkt: the request
 *
 * Sets qp->resp.xsrq (with a reference; sroce_resp_rcv() drops it) to the
 * SRQ of the packet's XRCETH when it exists and belongs to the QP's
 * domain, else to NULL.
 *
 * Return: whether the packet may be executed: an SRQ of the domain, the
 * one the message in progress (if any) began in.
 */
bool sroce_xrc_resp_begin(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u32 srqn = sroce_xrceth_get(sroce_pkt_ext(pkt, SROCE_HDR_XRCETH));
	struct sroce_srq *srq;

	lockdep_assert_held(&qp->lock);
	srq = sroce_xsrq_get(qp->sdev, srqn);
	if (srq && srq->ibsrq.ext.xrc.xrcd != qp->xrcd) {
		sroce_srq_put(srq);
		srq = NULL;
	}
	qp->resp.xsrq = srq;
	if (!srq) {
		ibdev_dbg(qp->ibqp.device,
			  "QP %u: no XRC SRQ %u in its domain\n",
			  qp->ibqp.qp_num, srqn);
		return false;
	}
	if (qp->resp.in_msg && (qp->resp.xrc_srqn != srqn ||
				qp->resp.xrc_serial != srq->serial)) {
		ibdev_dbg(qp->ibqp.device,
			  "QP %u: message of XRC SRQ %u goes on in SRQ %u\n",
			  qp->ibqp.qp_num, qp->resp.xrc_srqn, srqn);
		return false;
	}
	return true;
}

/**
 * sroce_xrc_complete() - post a receive completion of an XRC TGT QP
 * @qp: the QP, lock held
 * @cqe: the completion
 * @solicited: a solicited event
 * @nfy: collects the CQ to signal; holds the SRQ (and so its CQ) until
 *	then when the SRQ had to be looked up
 *
 * The completion goes to the CQ of the SRQ the receive WQE came from
 * (qp->resp.xrc_srqn, qp->resp.xrc_serial); if that SRQ is gone, so is its
 * CQ, and nothing is posted, not even when its number was given to a new
 * SRQ since (of another domain, another process's).
 */
void sroce_xrc_complete(struct sroce_qp *qp, const struct sroce_cqe *cqe,
			bool solicited, struct sroce_nfy *nfy)
{
	struct sroce_srq *srq = qp->resp.xsrq;

	lockdep_assert_held(&qp->lock);
	if (!srq || srq->serial != qp->resp.xrc_serial) {
		srq = sroce_xsrq_get(qp->sdev, qp->resp.xrc_srqn);
		if (!srq)
			return;
		if (srq->serial != qp->resp.xrc_serial) {
			sroce_srq_put(srq);
			return;
		}
		if (nfy->srq_ref)
			sroce_srq_put(nfy->srq_ref);
		nfy->srq_ref = srq;
	}
	sroce_qp_complete(qp, container_of(srq->ibsrq.ext.cq, struct sroce_cq,
					   ibcq), cqe, solicited, nfy);
}

/**
 * sroce_xrc_resp_end() - the packet was executed: the XRC SRQ it named
 * @qp: the QP, lock held
 *
 * Return: the SRQ sroce_xrc_resp_begin() held for it, its reference to be
 * dropped once the lock is (NULL if none); the QP holds none any more.
 */
struct sroce_srq *sroce_xrc_resp_end(struct sroce_qp *qp)
{
	struct sroce_srq *srq = qp->resp.xsrq;

	lockdep_assert_held(&qp->lock);
	qp->resp.xsrq = NULL;
	return srq;
}
