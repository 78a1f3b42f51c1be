// SPDX-License-Identifier: GPL-2.0
/*
 * odp.c - on-demand paging: regions registered with IB_ACCESS_ON_DEMAND,
 * whose pages are not pinned but faulted in when the engine needs them,
 * and given up when the process's mm unmaps or moves them.
 *
 * Pages.  The core's ib_umem_odp keeps, per page of the region, the
 * address the device uses (dma_list[]: with no DMA device the kernel
 * virtual address, ib_dma_map_page()) and the rights it was mapped with
 * (ODP_READ/WRITE_ALLOWED_BIT).  It is filled by
 * ib_umem_odp_map_dma_and_lock() in process context (hmm_range_fault()
 * under the mm's lock, then the notifier sequence checked under
 * umem_mutex) and emptied by the MMU interval notifier's invalidate
 * (sroce_odp_invalidate()).
 *
 * Copies (odp_copy.c).  The engine runs in softirq: it never faults.
 * Each page it copies to or from is looked up and copied under
 * @mr->odp_lock held for reading; invalidation takes it for writing around
 * ib_umem_odp_unmap_dma_pages(), so once the invalidate returns no copy
 * touches the pages it took away.  A page that is not mapped (or mapped
 * read-only for a write) makes the copy fail with -EAGAIN, and the
 * caller defers: sroce_odp_fault_async() queues a work item that faults
 * the range in (process context), then acts for the engine that asked:
 *  - the responder answers the request with an RNR NAK and does nothing
 *    more for it: the requester sends it again after the RNR timer, and by
 *    then the pages are in (ordering is the requester's go-back: the
 *    responder's expected PSN does not move, later packets are dropped
 *    without a sequence NAK);
 *  - the requester stops before the packet; the work kicks it again;
 *  - the responder's output (READ responses) stops; the work kicks it;
 *  - the completer drops the READ response or atomic reply; the requester
 *    asks again (the gap or the ACK timer).
 * A fault that fails (the range is no longer mapped in the process) sets
 * the engine's ODP error flag of the QP: the next -EAGAIN of that engine
 * ends the operation with an error completion instead of waiting again.
 *
 * Implicit regions (start 0, length U64_MAX: the whole address space of
 * the process) hold an implicit root umem and one child umem per
 * SROCE_ODP_CHILD_SIZE chunk, each with its own MMU interval notifier,
 * created by the fault that first needs a page of it (process context)
 * and kept until the region goes; dropped again when that fault fails, so
 * that a peer naming addresses the process never mapped (or beyond its
 * address space, refused before any child) grows no kernel memory.  A
 * copy finds the child in an xarray (under odp_lock); a chunk without one
 * has no page mapped.
 */
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "odp.h"

/* The QP flag each engine sets when its fault failed. */
static const unsigned int sroce_odp_err_bit[] = {
	[SROCE_ODP_REQ] = SROCE_QPF_ODP_REQ_ERR,
	[SROCE_ODP_RESP] = SROCE_QPF_ODP_RESP_ERR,
	[SROCE_ODP_RESP_OUT] = SROCE_QPF_ODP_RESP_OUT_ERR,
	[SROCE_ODP_COMP] = SROCE_QPF_ODP_COMP_ERR,
};

/* Unmap [@start, @end) of @odp, a umem of @mr, with no copy under way. */
static void sroce_odp_unmap_locked(struct sroce_mr *mr,
				   struct ib_umem_odp *odp, u64 start, u64 end)
{
	unsigned long flags;

	write_lock_irqsave(&mr->odp_lock, flags);
	ib_umem_odp_unmap_dma_pages(odp, start, end);
	write_unlock_irqrestore(&mr->odp_lock, flags);
}

/*
 * The MMU interval notifier: the process unmaps, moves or protects pages
 * of the region.  Runs in process context (a non-blocking range is
 * refused: the core then tries again blocking).
 */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct sroce_mr *mr;
	unsigned long start, end, n;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max(range->start, ib_umem_start(odp));
	end = min(range->end, ib_umem_end(odp));
	/* NULL while sroce_odp_init() has not finished: nothing copies. */
	mr = odp->private;
	/*
	 * SROCE_ODP_UNMAP_CHUNK at a time with interrupts off: a copy may
	 * still use a page of a later chunk, which is fine until we return.
	 * No fault maps one again meanwhile: it needs umem_mutex.
	 */
	for (; start < end; start += n) {
		n = min(end - start, SROCE_ODP_UNMAP_CHUNK);
		if (mr)
			sroce_odp_unmap_locked(mr, odp, start, start + n);
		else
			ib_umem_odp_unmap_dma_pages(odp, start, start + n);
		cond_resched();
	}
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_mni_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * Make @mr an on-demand paging region: nothing is faulted in or pinned.
 * Process context of the registering process (the region follows its
 * mm).  0, or ib_umem_odp_get()'s error.
 */
static int sroce_odp_init(struct sroce_mr *mr, u64 start, u64 length,
			  int access)
{
	struct ib_umem_odp *odp;

	rwlock_init(&mr->odp_lock);
	odp = ib_umem_odp_get(mr->ibmr.device, start, length, access,
			      &sroce_odp_mni_ops);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	mutex_lock(&odp->umem_mutex);
	odp->private = mr;
	mutex_unlock(&odp->umem_mutex);
	mr->odp = odp;
	return 0;
}

/*
 * An implicit region: the whole address space of the process, at I/O
 * virtual address 0 (the user addresses).  Nothing is faulted in.
 */
static struct ib_mr *sroce_odp_reg_implicit(struct ib_pd *ibpd, u64 iova,
					    int access)
{
	struct ib_umem_odp *odp;
	struct sroce_odp_imp *imp;
	struct sroce_mr *mr;
	int ret;

	if (iova)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);
	if (!mr || !imp) {
		ret = -ENOMEM;
		goto err_free;
	}
	odp = ib_umem_odp_alloc_implicit(ibpd->device, access);
	if (IS_ERR(odp)) {
		ret = PTR_ERR(odp);
		goto err_free;
	}
	xa_init(&imp->children);
	mutex_init(&imp->lock);
	imp->mm = current->mm;
	mmgrab(imp->mm);
	rwlock_init(&mr->odp_lock);
	mr->odp = odp;
	mr->odp_imp = imp;
	sroce_mr_set_range(mr, ibpd, 0, U64_MAX, access);
	ret = sroce_mr_add(to_sdev(ibpd->device), mr);
	if (ret) {
		sroce_odp_release(mr);
		kfree(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;

err_free:
	kfree(imp);
	kfree(mr);
	return ERR_PTR(ret);
}

/**
 * sroce_odp_reg_user() - sroce_mr_reg_user() for IB_ACCESS_ON_DEMAND
 * @ibpd: the PD
 * @start: user address of the first byte
 * @length: bytes, 1..SROCE_MAX_ODP_MR_SIZE
 * @iova: the address the keys' users name @start by
 * @access: IB_ACCESS_* flags (checked by the caller), with
 *	IB_ACCESS_ON_DEMAND
 *
 * Nothing is pinned or faulted in: the pages come as they are used.  A
 * @start of 0 and a @length of U64_MAX ask for an implicit region.
 *
 * Return: the region, or ERR_PTR(-EINVAL / -ENOMEM / -EOPNOTSUPP), or
 * ib_umem_odp_get()'s error.
 */
struct ib_mr *sroce_odp_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				 u64 iova, int access)
{
	struct sroce_mr *mr;
	u64 end;
	int ret;

	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return ERR_PTR(-EOPNOTSUPP);
	if (!start && length == U64_MAX)
		return sroce_odp_reg_implicit(ibpd, iova, access);
	if (!length || length > SROCE_MAX_ODP_MR_SIZE ||
	    check_add_overflow(iova, length, &end) ||
	    check_add_overflow(start, length, &end))
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sroce_mr_set_range(mr, ibpd, iova, length, access);
	ret = sroce_odp_init(mr, start, length, access);
	if (ret)
		goto err_free_mr;
	ret = sroce_mr_add(to_sdev(ibpd->device), mr);
	if (ret)
		goto err_release;
	return &mr->ibmr;

err_release:
	sroce_odp_release(mr);
err_free_mr:
	kfree(mr);
	return ERR_PTR(ret);
}

/**
 * sroce_odp_release() - give up the pages and the notifier of a region
 * @mr: an on-demand paging region nothing copies through any more
 */
void sroce_odp_release(struct sroce_mr *mr)
{
	struct sroce_odp_imp *imp = mr->odp_imp;
	struct ib_umem_odp *child;
	unsigned long idx;

	if (imp) {
		xa_for_each(&imp->children, idx, child)
			ib_umem_odp_release(child);
		xa_destroy(&imp->children);
		mmdrop(imp->mm);
		kfree(imp);
		mr->odp_imp = NULL;
	}
	ib_umem_odp_release(mr->odp);
	mr->odp = NULL;
}

/* sroce_odp_fault() within one umem. */
static int sroce_odp_fault_umem(struct ib_umem_odp *odp, u64 uva, u64 len,
				bool fault)
{
	u64 access = ODP_READ_ALLOWED_BIT;
	int ret;

	if (odp->umem.writable)
		access |= ODP_WRITE_ALLOWED_BIT;
	ret = ib_umem_odp_map_dma_and_lock(odp, uva, len, access, fault);
	if (ret < 0)
		return ret;
	mutex_unlock(&odp->umem_mutex);
	return 0;
}

/*
 * The child of implicit region @mr for the chunk of @uva, created (*@made
 * set) if it has none yet.  Process context, imp->lock held.
 */
static struct ib_umem_odp *sroce_odp_child(struct sroce_mr *mr, u64 uva,
					   bool *made)
{
	struct sroce_odp_imp *imp = mr->odp_imp;
	unsigned long idx = uva >> SROCE_ODP_CHILD_SHIFT;
	struct ib_umem_odp *child;
	int ret;

	lockdep_assert_held(&imp->lock);
	*made = false;
	child = xa_load(&imp->children, idx);
	if (child)
		return child;
	child = ib_umem_odp_alloc_child(mr->odp, idx << SROCE_ODP_CHILD_SHIFT,
					SROCE_ODP_CHILD_SIZE,
					&sroce_odp_mni_ops);
	if (IS_ERR(child))
		return child;
	mutex_lock(&child->umem_mutex);
	child->private = mr;
	mutex_unlock(&child->umem_mutex);
	ret = xa_err(xa_store(&imp->children, idx, child, GFP_KERNEL));
	if (ret) {
		ib_umem_odp_release(child);
		return ERR_PTR(ret);
	}
	*made = true;
	return child;
}

/*
 * Take back the child sroce_odp_child() just made for @uva, whose fault
 * failed: what a peer reaches by key must not grow kernel memory.  Copies
 * look children up under odp_lock: once it was held for writing after the
 * erase, none uses this one.  imp->lock held.
 */
static void sroce_odp_child_drop(struct sroce_mr *mr, u64 uva,
				 struct ib_umem_odp *child)
{
	unsigned long flags;

	xa_erase(&mr->odp_imp->children, uva >> SROCE_ODP_CHILD_SHIFT);
	write_lock_irqsave(&mr->odp_lock, flags);
	write_unlock_irqrestore(&mr->odp_lock, flags);
	ib_umem_odp_release(child);
}

/*
 * sroce_odp_fault() of an implicit region, chunk by chunk.  Faults of the
 * region are serialized (imp->lock): a child is never dropped while
 * another fault uses it.  Addresses beyond the process's address space
 * fail at once, with no child.
 */
static int sroce_odp_fault_implicit(struct sroce_mr *mr, u64 uva, u64 len,
				    bool fault)
{
	struct sroce_odp_imp *imp = mr->odp_imp;
	struct ib_umem_odp *child;
	bool made;
	u64 n, end;
	int ret = 0;

	if (check_add_overflow(uva, len, &end) || end > imp->mm->task_size)
		return -EFAULT;
	mutex_lock(&imp->lock);
	while (len) {
		n = SROCE_ODP_CHILD_SIZE - (uva & (SROCE_ODP_CHILD_SIZE - 1));
		n = min(n, len);
		child = sroce_odp_child(mr, uva, &made);
		if (IS_ERR(child)) {
			ret = PTR_ERR(child);
			break;
		}
		ret = sroce_odp_fault_umem(child, uva, n, fault);
		if (ret) {
			if (made)
				sroce_odp_child_drop(mr, uva, child);
			break;
		}
		uva += n;
		len -= n;
	}
	mutex_unlock(&imp->lock);
	return ret;
}

/*
 * Fault [@va, @va + @len) of @mr in (@fault; else map only what the
 * process has mapped already), for writing when the region is writable;
 * an implicit region chunk by chunk.  Process context.  0 or a negative
 * error (-EFAULT: not mapped in the process).
 */
static int sroce_odp_fault(struct sroce_mr *mr, u64 va, u64 len, bool fault)
{
	u64 uva = sroce_odp_uva(mr, va);

	if (!len)
		return 0;
	if (!mr->odp_imp)
		return sroce_odp_fault_umem(mr->odp, uva, len, fault);
	return sroce_odp_fault_implicit(mr, uva, len, fault);
}

static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp_fault *f = container_of(work, struct sroce_odp_fault,
						 work);
	struct sroce_qp *qp = f->qp;
	struct sroce_mr *mr = f->mr;
	unsigned long flags;
	int ret;

	ret = sroce_odp_fault(mr, f->va, f->len, true);
	if (ret) {
		ibdev_dbg(qp->ibqp.device,
			  "QP %u: ODP fault %#llx+%#llx of %#x: %d\n",
			  qp->ibqp.qp_num, f->va, f->len, mr->key, ret);
		spin_lock_irqsave(&qp->lock, flags);
		if (f->resets == qp->odp_resets)
			set_bit(sroce_odp_err_bit[f->eng], &qp->flags);
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	f->mr = NULL;
	/* The engine may ask again from here on; it runs after the kick. */
	clear_bit_unlock(0, &f->busy);
	if (f->eng == SROCE_ODP_REQ)
		sroce_req_kick(qp);
	else if (f->eng == SROCE_ODP_RESP_OUT)
		sroce_resp_kick(qp);
	sroce_mr_put(mr);
	sroce_qp_put(qp);
}

/**
 * sroce_odp_qp_init() - a new QP's engines have no fault pending
 * @qp: the QP, being created
 */
void sroce_odp_qp_init(struct sroce_qp *qp)
{
	unsigned int i;

	for (i = 0; i < SROCE_ODP_ENGINES; i++) {
		INIT_WORK(&qp->odp_fault[i].work, sroce_odp_fault_work);
		qp->odp_fault[i].qp = qp;
		qp->odp_fault[i].eng = i;
	}
}

/**
 * sroce_odp_fault_async() - fault a range in, in process context
 * @qp: the QP whose engine found pages missing
 * @eng: that engine (what the work does after)
 * @mr: the region, with a reference (the work takes its own)
 * @va: first address
 * @len: bytes, within the region
 *
 * Any context.  One fault per engine at a time (its struct
 * sroce_odp_fault): with one pending, nothing more is queued, and the
 * engine finds what is still missing when it runs again after it.  So a
 * QP has at most SROCE_ODP_ENGINES work items on sroce_odp_wq, however
 * many WQEs, SGEs or replayed packets fault.  A region that is not
 * on-demand paging sets the engine's error flag at once.
 */
void sroce_odp_fault_async(struct sroce_qp *qp, enum sroce_odp_engine eng,
			   struct sroce_mr *mr, u64 va, u64 len)
{
	struct sroce_odp_fault *f = &qp->odp_fault[eng];

	if (!mr || !mr->odp) {
		set_bit(sroce_odp_err_bit[eng], &qp->flags);
		return;
	}
	if (test_and_set_bit_lock(0, &f->busy))
		return;
	/* A QP being destroyed: nothing waits for the pages any more. */
	if (!refcount_inc_not_zero(&qp->slot->ref)) {
		clear_bit_unlock(0, &f->busy);
		return;
	}
	kref_get(&mr->ref);
	f->mr = mr;
	f->va = va;
	f->len = len;
	f->resets = READ_ONCE(qp->odp_resets);
	queue_work(sroce_odp_wq, &f->work);
}

/**
 * sroce_odp_fault_sges() - sroce_odp_fault_async() for each on-demand
 *	paging region of validated SGEs whose pages are missing
 * @qp: the QP
 * @eng: the engine
 * @sge: the SGEs
 * @num_sge: their number
 *
 * Return: the SGEs with pages missing (0: every page is there by now).
 */
u32 sroce_odp_fault_sges(struct sroce_qp *qp, enum sroce_odp_engine eng,
			 const struct sroce_sge_ref *sge, u32 num_sge)
{
	u32 i, n = 0;

	for (i = 0; i < num_sge; i++) {
		struct sroce_mr *mr = sge[i].mr;

		if (!mr || !mr->odp ||
		    sroce_odp_present(mr, sge[i].addr, sge[i].length,
				      mr->odp->umem.writable))
			continue;
		sroce_odp_fault_async(qp, eng, mr, sge[i].addr, sge[i].length);
		n++;
	}
	return n;
}

/**
 * sroce_odp_failed() - did a fault of an engine fail since it last asked
 * @qp: the QP
 * @eng: the engine
 *
 * Clears the flag: the caller ends the operation with an error.
 *
 * Return: true when it did.
 */
bool sroce_odp_failed(struct sroce_qp *qp, enum sroce_odp_engine eng)
{
	return test_and_clear_bit(sroce_odp_err_bit[eng], &qp->flags);
}

/**
 * sroce_odp_reset() - a QP back to RESET forgets its engines' failed faults
 * @qp: the QP, lock held
 *
 * A failure of the old connection must not end an operation of the next
 * one.
 */
void sroce_odp_reset(struct sroce_qp *qp)
{
	unsigned int i;

	lockdep_assert_held(&qp->lock);
	/* A fault still running finds the count moved and reports nothing. */
	qp->odp_resets++;
	for (i = 0; i < ARRAY_SIZE(sroce_odp_err_bit); i++)
		clear_bit(sroce_odp_err_bit[i], &qp->flags);
}

/**
 * sroce_odp_advise_mr() - ops.advise_mr: prefetch pages of regions
 * @pd: the PD the regions must belong to
 * @advice: IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH (fault in for reading;
 *	sroce maps a writable region writable either way),
 *	_PREFETCH_WRITE, or _PREFETCH_NO_FAULT (map what the process has
 *	mapped already, fault nothing)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH asks to be done on return;
 *	sroce always is (the prefetch runs in the caller)
 * @sg_list: the ranges, each by lkey
 * @num_sge: their number
 * @attrs: unused
 *
 * Return: 0; -EINVAL for an unknown advice, -ENOENT for an lkey that does
 * not name an on-demand paging region of @pd covering its range (with the
 * right to write for PREFETCH_WRITE), the fault's error (-EFAULT: a range
 * not mapped in the process).
 */
int sroce_odp_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
			u32 flags, struct ib_sge *sg_list, u32 num_sge,
			struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = to_sdev(pd->device);
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	int access = 0, ret = 0;
	u32 i;

	if (advice > IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EINVAL;
	if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE)
		access = IB_ACCESS_LOCAL_WRITE;
	for (i = 0; i < num_sge && !ret; i++) {
		struct sroce_mr *mr;

		mr = sroce_mr_lookup_local(sdev, sg_list[i].lkey, pd, access,
					   sg_list[i].addr, sg_list[i].length);
		if (IS_ERR(mr))
			return -ENOENT;
		if (!mr->odp)
			ret = -ENOENT;
		else
			ret = sroce_odp_fault(mr, sg_list[i].addr,
					      sg_list[i].length, fault);
		sroce_mr_put(mr);
	}
	return ret;
}

/**
 * sroce_odp_caps() - what query_device advertises of on-demand paging
 * @attr: the device's attributes
 *
 * Explicit and implicit regions on every path the engine copies through ODP-aware:
 * RC and XRC sends, receives (a QP's own and an SRQ's), RDMA WRITE, READ
 * and atomics at both ends; UD sends.  Not UD receives (a datagram that
 * finds pages of its receive buffer missing completes the WQE with
 * IB_WC_LOC_PROT_ERR: nothing asks a UD sender again), nor UC.
 */
void sroce_odp_caps(struct ib_device_attr *attr)
{
	u32 rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		 IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		 IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;

	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return;
	attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	attr->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	attr->odp_caps.per_transport_caps.rc_odp_caps = rc;
	attr->odp_caps.per_transport_caps.xrc_odp_caps = rc;
	attr->odp_caps.per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND;
}
