// SPDX-License-Identifier: GPL-2.0
/*
 * mw.c - memory windows: allocation, binding, invalidation, and the rkey
 * checks of a window.
 *
 * A window grants remote access to part of a memory region, with its own
 * rkey and rights, without registering anything.  Its rkey comes from the
 * regions' key table (mr.c), tagged, so the responder's rkey lookup finds
 * either.  Two types (IBTA 10.6.7):
 *  - type 1: bound with ibv_bind_mw() (the provider posts a BIND_MW work
 *    request); always valid, a bind of length 0 unbinds it; not
 *    invalidated;
 *  - type 2 (2B): bound with a BIND_MW work request to the QP that posts
 *    it and used only by that QP's peer; bound once, then invalidated
 *    (LOCAL_INV, or SEND_WITH_INV from the peer) before it binds again.
 * Every bind gives the window a new rkey: the one in the work request,
 * whose index must be the window's (the low byte is the consumer's).
 *
 * A bind needs: the window and the region in the QP's PD, a live region
 * registered with IB_ACCESS_MW_BIND, the window inside it, and local
 * write access of the region for a window granting remote write or
 * atomics; zero-based windows are not offered.  A bound region counts its
 * windows (num_mw) and refuses deregistration while any is bound.
 *
 * Locking: the binding of every window of a device is guarded by the
 * device's key_lock, taken with interrupts off: binds and invalidations run
 * in the requester and responder under a QP lock, checks in the
 * responder's softirq.  The core frees the object right after dealloc_mw
 * returns, so dealloc_mw waits for a grace period after removing it from
 * the key table: lookups reach it only under RCU.
 */
#include <linux/xarray.h>

#include "sroce.h"
#include "qp.h"

#define SROCE_MW_ACCESS_OK						\
	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_ATOMIC)
/*
 * Local write is no right of a window (its region has it or not), but
 * applications pass it with the remote rights (rdma-core's own suite
 * does, and rdma_rxe and mlx5 accept it): accepted and ignored.
 */
#define SROCE_MW_ACCESS_IGNORED IB_ACCESS_LOCAL_WRITE

/**
 * sroce_mw_alloc() - ops.alloc_mw
 * @ibmw: allocated by the core, device, PD and type set
 * @udata: no driver data either way
 *
 * Return: 0, -EINVAL for driver data, -ENOMEM (also beyond SROCE_MAX_MW).
 */
int sroce_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	int ret;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (!atomic_add_unless(&sdev->mw_count, 1, SROCE_MAX_MW))
		return -ENOMEM;
	ret = sroce_key_alloc(sdev, &ibmw->rkey);
	if (ret) {
		atomic_dec(&sdev->mw_count);
		return ret == -EBUSY ? -ENOMEM : ret;
	}
	/* A type 1 window is valid from the start, over nothing. */
	mw->bound = ibmw->type == IB_MW_TYPE_1;
	sroce_key_publish(sdev, ibmw->rkey, NULL, mw);
	return 0;
}

/* No binding: the window reaches nothing. */
static void sroce_mw_clear(struct sroce_mw *mw)
{
	mw->mr = NULL;
	mw->length = 0;
	mw->access = 0;
	mw->bound = false;
}

/*
 * Drop the window's region; key_lock held.  Under the region's inval_lock:
 * a remote access through the window under way finishes first, none
 * starts after (sroce_mr_remote_begin()).
 */
static void sroce_mw_unbind(struct sroce_mw *mw)
{
	struct sroce_mr *mr = mw->mr;

	lockdep_assert_held(&to_sdev(mw->ibmw.device)->key_lock);
	if (!mr) {
		sroce_mw_clear(mw);
		return;
	}
	write_lock(&mr->inval_lock);
	sroce_mw_clear(mw);
	write_unlock(&mr->inval_lock);
	mr->num_mw--;
	sroce_mr_put(mr);
}

/**
 * sroce_mw_dealloc() - ops.dealloc_mw
 * @ibmw: the window
 *
 * Unbinds it; sleeps for an RCU grace period.
 *
 * Return: 0.
 */
int sroce_mw_dealloc(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	unsigned long flags;

	sroce_key_erase(sdev, ibmw->rkey);
	/* No responder looks at it any more once this returns. */
	synchronize_rcu();
	spin_lock_irqsave(&sdev->key_lock, flags);
	sroce_mw_unbind(mw);
	spin_unlock_irqrestore(&sdev->key_lock, flags);
	atomic_dec(&sdev->mw_count);
	return 0;
}

/*
 * The checks of a bind that need key_lock; 0 or -EINVAL.  The region's PD
 * and rights are checked here, under it, too: rereg_mr changes them in
 * place under key_lock (sroce_mr_change()), so no window binds to a region
 * whose PD or rights have just changed under it.
 */
static int sroce_mw_check_bind(struct sroce_qp *qp, struct sroce_mw *mw,
			       struct sroce_mr *mr, u64 len, int access)
{
	if (mw->ibmw.pd != qp->ibqp.pd)
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_2 && (mw->bound || !len))
		return -EINVAL;	/* invalidate first; length 0 is no bind */
	if (!mr)
		return 0;
	if (mr->dead || mr->pd != qp->ibqp.pd ||
	    !(mr->access & IB_ACCESS_MW_BIND))
		return -EINVAL;
	/* Remote write and atomic rights need a locally writable region. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/* The binding of @b, onto @mr (NULL: a type 1 window over nothing). */
static void sroce_mw_set(struct sroce_mw *mw, const struct sroce_wqe_bind *b,
			 const struct sroce_qp *qp, struct sroce_mr *mr)
{
	mw->mr = mr;
	mw->ibmw.rkey = b->rkey;
	mw->qpn = qp->ibqp.qp_num;
	mw->addr = b->addr;
	mw->length = b->length;
	mw->access = (int)b->access;
	mw->bound = true;
}

/**
 * sroce_mw_bind() - execute a BIND_MW work request
 * @qp: the QP posting it, lock held
 * @w: the WQE; its op.bind holds the window's new rkey, the region's lkey,
 *	the window's start and length and its IB_ACCESS_REMOTE_* rights
 *
 * Return: 0, or -EINVAL when any check of the top fails (nothing changes).
 */
int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	const struct sroce_wqe_bind *b = &w->op.bind;
	u64 addr = b->addr, len = b->length;
	struct sroce_dev *sdev = qp->sdev;
	int access = (int)(b->access & SROCE_MW_ACCESS_OK);
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	unsigned long flags;
	int ret;

	lockdep_assert_held(&qp->lock);
	if (b->access & ~(SROCE_MW_ACCESS_OK | SROCE_MW_ACCESS_IGNORED))
		return -EINVAL;
	if (len) {
		mr = sroce_mr_lookup_local(sdev, b->mr_lkey, qp->ibqp.pd, 0,
					   addr, len);
		if (IS_ERR(mr))
			return -EINVAL;
	}

	rcu_read_lock();
	mw = sroce_key_mw(sdev, b->rkey);
	if (!mw) {
		rcu_read_unlock();
		if (mr)
			sroce_mr_put(mr);
		return -EINVAL;
	}
	spin_lock_irqsave(&sdev->key_lock, flags);
	ret = sroce_mw_check_bind(qp, mw, mr, len, access);
	if (!ret) {
		sroce_mw_unbind(mw);
		/* The region's reference from the lookup is the window's. */
		if (mr) {
			mr->num_mw++;
			write_lock(&mr->inval_lock);
			sroce_mw_set(mw, b, qp, mr);
			write_unlock(&mr->inval_lock);
			mr = NULL;
		} else {
			sroce_mw_set(mw, b, qp, NULL);
		}
	}
	spin_unlock_irqrestore(&sdev->key_lock, flags);
	rcu_read_unlock();
	if (mr)
		sroce_mr_put(mr);
	return ret;
}

/**
 * sroce_mw_invalidate() - invalidate a window's rkey
 * @mw: the window the key's index names; RCU read side held
 * @rkey: the full key
 * @pd: the PD of the QP asking
 * @qpn: that QP
 *
 * Only a bound type 2 window of the same PD, bound to that QP, is
 * invalidated; it is then unbound and may bind again.
 *
 * Return: 0, or -EINVAL (nothing changes).
 */
int sroce_mw_invalidate(struct sroce_mw *mw, u32 rkey, struct ib_pd *pd,
			u32 qpn)
{
	struct sroce_dev *sdev = to_sdev(mw->ibmw.device);
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&sdev->key_lock, flags);
	if (mw->ibmw.rkey == rkey && mw->ibmw.type == IB_MW_TYPE_2 &&
	    mw->bound && mw->ibmw.pd == pd && mw->qpn == qpn) {
		sroce_mw_unbind(mw);
		ret = 0;
	}
	spin_unlock_irqrestore(&sdev->key_lock, flags);
	return ret;
}

/**
 * sroce_mw_check() - the checks of a remote access through a window
 * @mw: the window the rkey's index names; RCU read side held
 * @rkey: the full rkey
 * @mr: the region the access expects the window in, or NULL for any
 * @pd: the PD of the QP the request arrived on
 * @qpn: that QP
 * @access: IB_ACCESS_REMOTE_* rights needed
 * @va: first address accessed
 * @len: bytes
 *
 * The caller holds the device's key_lock, or the inval_lock of @mr (the
 * window cannot change on it then).
 *
 * Return: 0 (the access lies inside the window and so inside its region),
 * -ENOENT (another key, not bound, bound to another region), -EACCES
 * (another PD or QP, a right not granted), -ERANGE (outside the window).
 */
int sroce_mw_check(const struct sroce_mw *mw, u32 rkey,
		   const struct sroce_mr *mr, struct ib_pd *pd, u32 qpn,
		   int access, u64 va, u64 len)
{
	u64 end;

	if (mw->ibmw.rkey != rkey || !mw->bound || !mw->mr ||
	    (mr && mw->mr != mr))
		return -ENOENT;
	if (mw->ibmw.pd != pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != qpn) ||
	    (access & mw->access) != access)
		return -EACCES;
	if (va < mw->addr || check_add_overflow(va, len, &end) ||
	    end > mw->addr + mw->length)
		return -ERANGE;
	return 0;
}

/**
 * sroce_mw_resolve() - check a remote access through a window
 * @mw: the window the rkey's index names; RCU read side held
 * @rkey: the full rkey
 * @pd: the PD of the QP the request arrived on
 * @qpn: that QP
 * @access: IB_ACCESS_REMOTE_* rights needed
 * @va: first address accessed
 * @len: bytes
 *
 * Return: the region the window lies in, with a reference (the access lies
 * inside it), or ERR_PTR() of sroce_mw_check()'s error.
 */
struct sroce_mr *sroce_mw_resolve(struct sroce_mw *mw, u32 rkey,
				  struct ib_pd *pd, u32 qpn, int access, u64 va,
				  u64 len)
{
	struct sroce_dev *sdev = to_sdev(mw->ibmw.device);
	struct sroce_mr *mr;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&sdev->key_lock, flags);
	ret = sroce_mw_check(mw, rkey, NULL, pd, qpn, access, va, len);
	mr = ret ? ERR_PTR(ret) : mw->mr;
	if (!ret)
		kref_get(&mr->ref);
	spin_unlock_irqrestore(&sdev->key_lock, flags);
	return mr;
}
