// SPDX-License-Identifier: GPL-2.0
/*
 * dm.c - device memory (ibv_alloc_dm()): memory of the device that user
 * space reaches through a mapping and the wire through DM MRs.
 *
 * A hardware device has a little on-chip memory; sroce's is kernel memory
 * (vmalloc, zeroed, charged to the allocating process's memory cgroup), at
 * most SROCE_MAX_DM_SIZE bytes per device in all of its allocations, each
 * counted in whole pages from ibv_alloc_dm() to ibv_free_dm().  The
 * device advertises that bound as max_dm_size.
 *
 * User space maps a DM as it maps a ring (queue.c): its buffer is published
 * as an mmap entry of the context, found by SROCE_METHOD_DM_QUERY (also by
 * a context that imported the DM's handle), and mapped page by page with
 * vm_insert_page() by sroce_queue_mmap().  ibv_memcpy_to_dm() and
 * ibv_memcpy_from_dm() are plain copies in the provider.
 *
 * A DM MR (ibv_reg_dm_mr(), always zero-based: its addresses run from 0)
 * is a struct sroce_mr whose bytes are a slice of the buffer (mr.c's
 * sroce_mr_map()).  The core refuses to free a DM while a region uses it
 * (ib_dm.usecnt, -EBUSY), and the region holds a reference of the DM
 * (struct sroce_dm.ref) for as long as the data path may still reach it
 * after its deregistration.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/sroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME sroce
#include <rdma/uverbs_named_ioctl.h>

#include "sroce.h"

/* The last reference: free the memory (dealloc_dm gave back the budget). */
static void sroce_dm_release(struct kref *ref)
{
	struct sroce_dm *dm = container_of(ref, struct sroce_dm, ref);

	vfree(dm->buf);
	kfree(dm);
}

/**
 * sroce_dm_put() - drop a reference to device memory
 * @dm: the DM
 *
 * Process context: the last reference frees vmalloc memory.
 */
void sroce_dm_put(struct sroce_dm *dm)
{
	kref_put(&dm->ref, sroce_dm_release);
}

/* Publish @dm's buffer as an mmap entry of @ibuc holding a reference. */
static int sroce_dm_add_mmap(struct sroce_dm *dm, struct ib_ucontext *ibuc)
{
	struct sroce_mmap_entry *entry;
	int ret;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return -ENOMEM;
	entry->buf = dm->buf;
	entry->dm = dm;
	kref_get(&dm->ref);
	ret = rdma_user_mmap_entry_insert(ibuc, &entry->rdma, dm->size);
	if (ret) {
		/* Not the last reference: the caller holds one. */
		kref_put(&dm->ref, sroce_dm_release);
		kfree(entry);
		return ret;
	}
	dm->mmap = entry;
	return 0;
}

/**
 * sroce_dm_alloc() - ops.alloc_dm (UVERBS_METHOD_DM_ALLOC)
 * @ibdev: the device
 * @ibuc: the caller's context
 * @attr: the length (1..max_dm_size bytes), the log2 of the alignment asked
 *	for (up to PAGE_SHIFT: a DM starts on a page), no flags
 * @attrs: no driver attributes
 *
 * Return: the DM, or ERR_PTR(): -EINVAL for a length of 0 or above
 * max_dm_size, an alignment above a page or flags; -ENOMEM when the
 * device's device memory is used up (or for a failed allocation).
 */
struct ib_dm *sroce_dm_alloc(struct ib_device *ibdev, struct ib_ucontext *ibuc,
			     struct ib_dm_alloc_attr *attr,
			     struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct sroce_dm *dm;
	size_t size;
	int ret;

	if (!attr->length || attr->length > SROCE_MAX_DM_SIZE ||
	    attr->alignment > PAGE_SHIFT || attr->flags) {
		ibdev_dbg(ibdev, "alloc_dm: length %llu, log2 alignment %u, flags %#x refused\n",
			  attr->length, attr->alignment, attr->flags);
		return ERR_PTR(-EINVAL);
	}
	size = PAGE_ALIGN(attr->length);
	if (atomic_long_add_return(size, &sdev->dm_used) > SROCE_MAX_DM_SIZE) {
		atomic_long_sub(size, &sdev->dm_used);
		ibdev_dbg(ibdev, "alloc_dm: %zu bytes more than are left\n",
			  size);
		return ERR_PTR(-ENOMEM);
	}

	ret = -ENOMEM;
	dm = kzalloc(sizeof(*dm), GFP_KERNEL_ACCOUNT);
	if (!dm)
		goto err_unaccount;
	dm->buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!dm->buf)
		goto err_free_dm;
	kref_init(&dm->ref);
	dm->size = size;

	ret = sroce_dm_add_mmap(dm, ibuc);
	if (ret)
		goto err_free_buf;
	return &dm->ibdm;

err_free_buf:
	vfree(dm->buf);
err_free_dm:
	kfree(dm);
err_unaccount:
	atomic_long_sub(size, &sdev->dm_used);
	return ERR_PTR(ret);
}

/**
 * sroce_dm_dealloc() - ops.dealloc_dm (UVERBS_METHOD_DM_FREE)
 * @ibdm: a DM no region uses (the core checked its usecnt)
 * @attrs: unused
 *
 * No new mmap() finds the DM; a mapping made before keeps its pages (a
 * page reference each) until it is unmapped.  Its pages go back to the
 * device's budget at once: no region uses the DM any more, so nothing
 * can reach it by a key, and a new ibv_alloc_dm() right after
 * ibv_free_dm() must not fail for want of them.  The memory itself is
 * freed with the last reference, once the last data-path user of a
 * region that used it is gone (a deregistered region is freed
 * asynchronously, mr.c).
 *
 * Return: 0.
 */
int sroce_dm_dealloc(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct sroce_dm *dm = to_sdm(ibdm);

	atomic_long_sub(dm->size, &to_sdev(ibdm->device)->dm_used);
	rdma_user_mmap_entry_remove(&dm->mmap->rdma);
	sroce_dm_put(dm);
	return 0;
}

/**
 * sroce_dm_reg_mr() - ops.reg_dm_mr (UVERBS_METHOD_DM_MR_REG)
 * @ibpd: the PD
 * @ibdm: the DM
 * @attr: offset and length within the DM (the core checked that the range
 *	lies inside @ibdm's length), access flags with IB_ZERO_BASED (the
 *	core refuses a DM MR without it)
 * @attrs: no driver attributes
 *
 * The region's addresses run from 0 to @attr->length; it is a region like
 * any other for local SGEs and for remote access by its rkey.
 *
 * Return: the region, or ERR_PTR(): -EINVAL for a range outside the DM
 * or bad access flags, -ENOMEM.
 */
struct ib_mr *sroce_dm_reg_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			      struct ib_dm_mr_attr *attr,
			      struct uverbs_attr_bundle *attrs)
{
	struct sroce_dm *dm = to_sdm(ibdm);
	int access = attr->access_flags & ~IB_ZERO_BASED;
	struct sroce_mr *mr;
	int ret;

	ret = sroce_mr_check_access(access);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * The core checks the range too; the DM's memory is at stake.  A
	 * region of 0 bytes is allowed (rdma-core's suite registers one):
	 * only accesses of 0 bytes pass its bounds check.
	 */
	if (attr->offset > ibdm->length ||
	    attr->length > ibdm->length - attr->offset)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	sroce_mr_set_range(mr, ibpd, 0, attr->length, access);
	mr->dm = dm;
	mr->dm_buf = (u8 *)dm->buf + attr->offset;

	/* The region's free drops it (mr.c), after its last data-path use. */
	kref_get(&dm->ref);
	ret = sroce_mr_add(to_sdev(ibpd->device), mr);
	if (ret) {
		/* Not the last reference: the DM's handle holds one. */
		kref_put(&dm->ref, sroce_dm_release);
		kfree(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/*
 * SROCE_METHOD_DM_QUERY: where user space maps a DM of its uverbs file
 * (struct sroce_dm_query_resp).  A DM allocated or imported by any context
 * of the file: the handle names it, the mapping is the file's.
 */
static int UVERBS_HANDLER(SROCE_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm =
		uverbs_attr_get_obj(attrs, SROCE_ATTR_QUERY_DM_HANDLE);
	struct sroce_dm_query_resp resp = {};
	struct sroce_dm *dm;

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	dm = to_sdm(ibdm);
	resp.mmap_offset = rdma_user_mmap_get_offset(&dm->mmap->rdma);
	resp.mmap_size = dm->size;
	resp.length = ibdm->length;
	return uverbs_copy_to_struct_or_zero(attrs, SROCE_ATTR_QUERY_DM_RESP,
					     &resp, sizeof(resp));
}

#define SROCE_DM_QUERY_HANDLE_ATTR                                             \
	UVERBS_ATTR_IDR(SROCE_ATTR_QUERY_DM_HANDLE, UVERBS_OBJECT_DM,          \
			UVERBS_ACCESS_READ, UA_MANDATORY)
#define SROCE_DM_QUERY_RESP_ATTR                                               \
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_QUERY_DM_RESP,                          \
			    UVERBS_ATTR_STRUCT(struct sroce_dm_query_resp,     \
					       length),                        \
			    UA_MANDATORY)

DECLARE_UVERBS_NAMED_METHOD(SROCE_METHOD_DM_QUERY, SROCE_DM_QUERY_HANDLE_ATTR,
			    SROCE_DM_QUERY_RESP_ATTR);

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DM,
			      &UVERBS_METHOD(SROCE_METHOD_DM_QUERY));

/* sroce's method of UVERBS_OBJECT_DM, chained into the device's uapi. */
const struct uapi_definition sroce_dm_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DM),
	{},
};
