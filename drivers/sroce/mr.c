// SPDX-License-Identifier: GPL-2.0
/*
 * mr.c - memory regions: registration and fast registration.  The copies
 * and atomics the data path does through them: mr_copy.c.
 *
 * Lifetime.  Lookups find the region under RCU and take a reference with
 * kref_get_unless_zero(); deregistration removes it from the xarray (no new
 * lookups), drops the registration's reference, waits until the data path
 * has dropped its own, then unpins the pages and frees the object after a
 * grace period.
 *
 * The checks of a lookup by key are key.c's (sroce_mr_lookup_local() /
 * _remote()); sroce_mr_check() holds those that concern the region.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"

/*
 * Access flags a registration may carry.  IB_ACCESS_HUGETLB and the
 * optional range (relaxed ordering) are hints without effect here, but
 * for an on-demand paging region (odp.c), which then maps huge pages.
 * IB_ACCESS_ON_DEMAND only for user regions (sroce_mr_reg_user());
 * zero-based regions only over device memory (dm.c, which takes
 * IB_ZERO_BASED off before the check).
 */
#define SROCE_MR_ACCESS_OK						\
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |		\
	 IB_ACCESS_MW_BIND | IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)

/**
 * sroce_mr_dev_cleanup() - wait until a device's regions are freed
 * @sdev: a device whose MRs the core has all deregistered, and whose QPs
 *	are all destroyed
 *
 * The last references go on sroce_wq.
 */
void sroce_mr_dev_cleanup(struct sroce_dev *sdev)
{
	wait_var_event(&sdev->mr_count, !atomic_read(&sdev->mr_count));
}

/*
 * IBTA 10.6.3.1: remote write and remote atomic access require local write
 * access; anything outside SROCE_MR_ACCESS_OK is refused.
 */
int sroce_mr_check_access(int access)
{
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (access & ~SROCE_MR_ACCESS_OK)
		return -EINVAL;
	return 0;
}

/* The last reference is gone: free the region in process context. */
static void sroce_mr_free_work(struct work_struct *work)
{
	struct sroce_mr *mr = container_of(work, struct sroce_mr, free_work);
	struct sroce_dev *sdev = to_sdev(mr->ibmr.device);

	kfree(mr->fr_map);
	kfree(mr->fr_pages);
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	if (mr->odp)
		sroce_odp_release(mr);
	if (mr->dm)
		sroce_dm_put(mr->dm);
	kfree_rcu(mr, rcu);
	/* Last: the device may be waiting for it (sroce_mr_dev_cleanup()). */
	if (atomic_dec_and_test(&sdev->mr_count))
		wake_up_var(&sdev->mr_count);
}

/* Any context (a QP drops its references in softirq). */
static void sroce_mr_release(struct kref *ref)
{
	queue_work(sroce_wq, &container_of(ref, struct sroce_mr, ref)->free_work);
}

/**
 * sroce_mr_put() - drop a reference a lookup took
 * @mr: the region
 */
void sroce_mr_put(struct sroce_mr *mr)
{
	kref_put(&mr->ref, sroce_mr_release);
}

/*
 * What a user, on-demand or device memory region names: its PD,
 * addresses and rights, in sroce's fields and the core's.
 */
void sroce_mr_set_range(struct sroce_mr *mr, struct ib_pd *ibpd, u64 iova,
			u64 length, int access)
{
	mr->pd = ibpd;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->ibmr.device = ibpd->device;
	mr->ibmr.pd = ibpd;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
}

/*
 * Common tail of every registration (odp.c's and dm.c's too): count, key,
 * publish.  On failure nothing of this is left; the caller still owns @mr,
 * its umem or DM.
 */
int sroce_mr_add(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	int ret;

	if (!atomic_add_unless(&sdev->mr_count, 1, SROCE_MAX_MR))
		return -ENOMEM;

	kref_init(&mr->ref);
	rwlock_init(&mr->inval_lock);
	INIT_WORK(&mr->free_work, sroce_mr_free_work);
	/* Reserve the key first: it must be set before publishing. */
	ret = sroce_key_alloc(sdev, &mr->key);
	if (ret)
		goto err_dec_count;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	sroce_key_publish(sdev, mr->key, mr, NULL);
	return 0;

err_dec_count:
	atomic_dec(&sdev->mr_count);
	return ret;
}

/**
 * sroce_mr_get_dma() - ops.get_dma_mr: a region over all kernel memory
 * @ibpd: a kernel PD
 * @access: IB_ACCESS_* flags
 *
 * With virtual DMA (no DMA device) the addresses kernel users put in their
 * work requests are kernel virtual addresses; the region spans all of them
 * and sroce_mr_copy() dereferences them as given.  A remote flag here is
 * what IB_PD_UNSAFE_GLOBAL_RKEY asks for, and exactly as unsafe.
 *
 * Return: the region, or ERR_PTR(-EINVAL / -ENOMEM).
 */
struct ib_mr *sroce_mr_get_dma(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int ret;

	ret = sroce_mr_check_access(access);
	if (ret)
		return ERR_PTR(ret);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pd = ibpd;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->access = access;
	mr->ibmr.device = ibpd->device;
	mr->ibmr.pd = ibpd;

	ret = sroce_mr_add(sdev, mr);
	if (ret)
		goto err_free_mr;
	return &mr->ibmr;

err_free_mr:
	kfree(mr);
	return ERR_PTR(ret);
}

/* The pinned pages of a user region, in order, into mr->pages. */
static int sroce_mr_fill_pages(struct sroce_mr *mr)
{
	struct sg_table *sgt = &mr->umem->sgt_append.sgt;
	struct sg_page_iter it;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(sgt, &it, 0) {
		if (i == mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&it);
	}
	/* Fewer pages than the region spans: lookups beyond fail. */
	mr->npages = i;
	return 0;
}

/**
 * sroce_mr_reg_user() - ops.reg_user_mr
 * @ibpd: the PD
 * @start: user virtual address of the first byte
 * @length: bytes, 1..SROCE_MAX_MR_SIZE
 * @iova: the address the keys' users name @start by (the core checked
 *	that it has the same offset in its page as @start)
 * @access: IB_ACCESS_* flags, see sroce_mr_check_access(); with
 *	IB_ACCESS_ON_DEMAND the pages are not pinned (odp.c)
 * @udata: no driver data either way
 *
 * Return: the region, or ERR_PTR(): -EINVAL for bad flags, a length of 0,
 * above the maximum, or an @iova range that wraps; ib_umem_get()'s errors
 * (-EFAULT for unmapped memory, -ENOMEM beyond RLIMIT_MEMLOCK); -ENOMEM.
 */
struct ib_mr *sroce_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct ib_umem *umem;
	struct sroce_mr *mr;
	u64 end;
	int ret;

	ret = sroce_mr_check_access(access & ~IB_ACCESS_ON_DEMAND);
	if (ret)
		return ERR_PTR(ret);
	if (access & IB_ACCESS_ON_DEMAND)
		return sroce_odp_reg_user(ibpd, start, length, iova, access);
	if (!length || length > SROCE_MAX_MR_SIZE ||
	    check_add_overflow(iova, length, &end) ||
	    check_add_overflow(start, length, &end))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem)) {
		ret = PTR_ERR(umem);
		ibdev_dbg(ibpd->device, "reg_mr: cannot pin %#llx+%#llx: %d\n",
			  start, length, ret);
		goto err_free_mr;
	}
	mr->umem = umem;
	sroce_mr_set_range(mr, ibpd, iova, length, access);
	ret = sroce_mr_fill_pages(mr);
	if (ret)
		goto err_release_umem;

	ret = sroce_mr_add(sdev, mr);
	if (ret)
		goto err_free_pages;
	return &mr->ibmr;

err_free_pages:
	kvfree(mr->pages);
err_release_umem:
	ib_umem_release(umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(ret);
}

/**
 * sroce_mr_dereg() - ops.dereg_mr
 * @ibmr: a region no QP operation needs any more
 * @udata: unused
 *
 * The key stops working at once: a remote access under way finishes
 * first, none starts after.  The memory stays pinned until the last
 * data-path reference is gone (a QP holds one per fetched WQE naming the
 * region until the WQE retires or the QP is destroyed): never waiting
 * for that here, so a QP stuck on a peer that vanished cannot hang the
 * caller.
 *
 * Return: 0, or -EBUSY while memory windows are bound to the region (it
 * stays registered).
 */
int sroce_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	unsigned long flags;

	spin_lock_irqsave(&sdev->key_lock, flags);
	if (mr->num_mw) {
		spin_unlock_irqrestore(&sdev->key_lock, flags);
		ibdev_dbg(ibmr->device, "dereg_mr: %u windows bound to %#x\n",
			  mr->num_mw, ibmr->lkey);
		return -EBUSY;
	}
	/* After the accesses under way: no later one passes its check. */
	write_lock(&mr->inval_lock);
	mr->dead = true;
	sroce_key_erase(sdev, mr->key);
	write_unlock(&mr->inval_lock);
	spin_unlock_irqrestore(&sdev->key_lock, flags);

	sroce_mr_put(mr);
	return 0;
}

/*
 * Give @mr @pd and @access in place (rereg_user_mr without a new
 * translation), as every change of what keys reach a region is made: under
 * the device's key_lock, so that no window binds meanwhile to the old PD or
 * rights (sroce_mw_bind() checks them under it), with num_mw checked in the
 * same hold, and under the region's inval_lock, so that a remote access
 * checked against the old rights has moved its last byte when this
 * returns.
 *
 * Return: NULL (the region changed), or ERR_PTR(-EBUSY) if a window is
 * bound to it.
 */
static struct ib_mr *sroce_mr_change(struct sroce_dev *sdev,
				     struct sroce_mr *mr, struct ib_pd *pd,
				     int access)
{
	unsigned long flags;
	u32 num_mw;

	spin_lock_irqsave(&sdev->key_lock, flags);
	num_mw = mr->num_mw;
	if (!num_mw) {
		write_lock(&mr->inval_lock);
		WRITE_ONCE(mr->pd, pd);
		WRITE_ONCE(mr->access, access);
		write_unlock(&mr->inval_lock);
	}
	spin_unlock_irqrestore(&sdev->key_lock, flags);
	return num_mw ? ERR_PTR(-EBUSY) : NULL;
}

/**
 * sroce_mr_rereg_user() - ops.rereg_user_mr
 * @ibmr: a user region
 * @flags: IB_MR_REREG_TRANS, _PD and/or _ACCESS
 * @start: with IB_MR_REREG_TRANS: the new user address
 * @length: with IB_MR_REREG_TRANS: the new length
 * @iova: with IB_MR_REREG_TRANS: the new I/O virtual address
 * @access: with IB_MR_REREG_ACCESS: the new access flags
 * @pd: the PD of the region after the call (the old one without _PD)
 * @udata: no driver data either way
 *
 * Without IB_MR_REREG_TRANS the region changes in place and keeps its
 * keys, as applications expect of a change of rights or PD (rdma-core's
 * suite reuses the rkey it had): the new PD and rights are stored with
 * WRITE_ONCE under key_lock and inval_lock (sroce_mr_change()), and every
 * check reads them once (sroce_mr_check()), so an access racing with the
 * change sees the old pair or the new one, and none checked against the
 * old one is still moving bytes once the call returns.  Rights
 * that need a writable pinning the region does not have, and any new
 * translation, make a new registration with new keys of what is asked for
 * and what stays; the core then deregisters the old one.  The old region
 * is untouched when this fails.
 *
 * Return: NULL (changed in place), the new region, or ERR_PTR(): -EINVAL
 * for a kernel region or bad rights, -EBUSY while windows are bound to
 * it, sroce_mr_reg_user()'s errors.
 */
struct ib_mr *sroce_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *pd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	unsigned long irqflags;
	u32 num_mw;

	if (!mr->umem && !mr->odp)
		return ERR_PTR(-EINVAL);
	spin_lock_irqsave(&sdev->key_lock, irqflags);
	num_mw = mr->num_mw;
	spin_unlock_irqrestore(&sdev->key_lock, irqflags);
	if (num_mw)
		return ERR_PTR(-EBUSY);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_TRANS)) {
		if (sroce_mr_check_access(access & ~IB_ACCESS_ON_DEMAND) ||
		    (access ^ mr->access) & IB_ACCESS_ON_DEMAND)
			return ERR_PTR(-EINVAL);
		if (mr->odp) {
			if (ib_access_writable(access) &&
			    !mr->odp->umem.writable)
				return ERR_PTR(-EINVAL);
			return sroce_mr_change(sdev, mr, pd, access);
		}
		if (mr->umem->writable || !ib_access_writable(access))
			return sroce_mr_change(sdev, mr, pd, access);
		start = mr->umem->address;
		length = mr->length;
		iova = mr->iova;
	}
	return sroce_mr_reg_user(pd, start, length, iova, access, udata);
}

/**
 * sroce_mr_check() - checks 2 to 4 of a lookup (key.c) on a region
 * @mr: the region, with a reference
 * @pd: the PD of the QP doing the access
 * @access: the rights asked for
 * @va: first address accessed
 * @len: bytes accessed
 *
 * Return: 0, -EACCES (another PD, a right not granted) or -ERANGE.
 */
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, int access, u64 va,
		   u64 len)
{
	u64 end;

	if (READ_ONCE(mr->pd) != pd ||
	    (access & READ_ONCE(mr->access)) != access)
		return -EACCES;
	if (va < mr->iova || check_add_overflow(va, len, &end) ||
	    end > mr->iova + mr->length)
		return -ERANGE;
	return 0;
}

/**
 * sroce_mr_alloc() - ops.alloc_mr: a fast-registration region
 * @ibpd: a kernel PD
 * @type: IB_MR_TYPE_MEM_REG
 * @max_num_sg: pages it maps at most, 1..SROCE_MAX_FR_PAGES
 *
 * The region is invalid (its key refused) until a REG_MR work request
 * registers the pages ib_map_mr_sg() gave it.
 *
 * Return: the region, or ERR_PTR(-EINVAL / -ENOMEM).
 */
struct ib_mr *sroce_mr_alloc(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > SROCE_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr = true;
	mr->fr_max = max_num_sg;
	mr->fr_map = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	mr->fr_pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->fr_map || !mr->fr_pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	mr->pd = ibpd;
	mr->ibmr.device = ibpd->device;
	mr->ibmr.pd = ibpd;
	ret = sroce_mr_add(to_sdev(ibpd->device), mr);
	if (ret)
		goto err_free;
	return &mr->ibmr;

err_free:
	kfree(mr->fr_map);
	kfree(mr->fr_pages);
	kfree(mr);
	return ERR_PTR(ret);
}

static int sroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->fr_nmap == mr->fr_max)
		return -ENOMEM;
	mr->fr_map[mr->fr_nmap++] = addr;
	return 0;
}

/**
 * sroce_mr_map_sg() - ops.map_mr_sg: stage the pages of a scatterlist
 * @ibmr: a fast-registration region
 * @sg: the list, mapped with ib_dma_map_sg() (kernel addresses: sroce has
 *	no DMA device)
 * @sg_nents: its entries
 * @sg_offset: bytes to skip in the first entry (updated by the core)
 *
 * The pages wait in the region until a REG_MR work request registers them.
 *
 * Return: the number of entries mapped (ib_sg_to_pages()).
 */
int sroce_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (!mr->fr)
		return -EINVAL;
	mr->fr_nmap = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      sroce_mr_set_page);
}

/**
 * sroce_mr_fast_reg() - execute a REG_MR work request
 * @sdev: the device
 * @pd: the PD of the QP posting it
 * @key: the region's new key (its index, and the variant the kernel user
 *	chose with ib_update_fast_reg_key())
 * @access: IB_ACCESS_* flags of the registration
 *
 * Registers the staged pages, with the range and page size ib_map_mr_sg()
 * left in the region.
 *
 * Return: 0, or -EINVAL: not an invalid fast-registration region of @pd,
 * bad access flags, a range the pages do not cover.
 */
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
		      int access)
{
	struct sroce_mr *mr;
	unsigned long flags;
	u32 psize;
	int ret = -EINVAL;

	if (sroce_mr_check_access(access))
		return -EINVAL;
	rcu_read_lock();
	mr = sroce_key_mr(sdev, key);
	if (!mr)
		goto out_unlock_rcu;
	spin_lock_irqsave(&sdev->key_lock, flags);
	psize = mr->ibmr.page_size;
	if (!mr->fr || mr->fr_valid || mr->dead || mr->pd != pd ||
	    psize != PAGE_SIZE || !mr->fr_nmap ||
	    offset_in_page(mr->ibmr.iova) + mr->ibmr.length >
	    (u64)mr->fr_nmap * psize)
		goto out_unlock;
	write_lock(&mr->inval_lock);
	memcpy(mr->fr_pages, mr->fr_map, mr->fr_nmap * sizeof(u64));
	mr->fr_npages = mr->fr_nmap;
	mr->fr_page_size = psize;
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	mr->access = access;
	WRITE_ONCE(mr->key, key);
	mr->fr_valid = true;
	write_unlock(&mr->inval_lock);
	ret = 0;
out_unlock:
	spin_unlock_irqrestore(&sdev->key_lock, flags);
out_unlock_rcu:
	rcu_read_unlock();
	return ret;
}
