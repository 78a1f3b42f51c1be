/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr.h - memory regions (mr.c).
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/workqueue.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/rwlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct scatterlist;
struct sroce_dev;
struct ib_umem_odp;
struct sroce_odp_imp;
struct sroce_dm;
struct sk_buff;

/**
 * struct sroce_mr - a memory region
 * @ibmr: the core MR; must stay first
 * @ref: references of data-path users (sroce_mr_lookup_*() takes one,
 *	sroce_mr_put() drops it) plus one of the registration
 * @inval_lock: held for reading across each remote access through a key
 *	(a packet's copy, an atomic: sroce_mr_remote_begin()), for writing
 *	by every change of what keys reach the region: deregistration, a
 *	fast registration and its invalidation, the binding and unbinding of
 *	windows onto it.  Once such a change is made, not one more byte of
 *	the region moves from or to the wire under the key it ended.
 *	Innermost lock; writers hold the device's key_lock too
 * @free_work: frees the region (sroce_wq) once @ref drops to zero, which
 *	may be after its deregistration
 * @rcu: frees the object after a grace period: lookups read it under RCU
 *	before they hold a reference
 * @pd: the owning PD
 * @umem: the pinned user pages, or NULL for the DMA MR (kernel virtual
 *	addresses), fast-registration, on-demand paging and device memory
 *	regions
 * @odp: an on-demand paging region's pages (odp.c), or NULL; for an
 *	implicit region (the whole address space) the root of @odp_imp's
 * @odp_imp: an implicit region's children, one umem per chunk of the
 *	address space, created as pages are faulted in (odp.c)
 * @odp_lock: held for reading across each copy to or from a page of @odp,
 *	for writing while the MMU notifier takes pages away (odp.c)
 * @dm: the device memory of a DM MR (ibv_reg_dm_mr(); it holds a reference
 *	to it), else NULL
 * @dm_buf: for a DM MR, the kernel address of its first byte (@iova)
 * @pages: @umem's pages in order, for constant-time lookup by offset
 * @npages: entries of @pages
 * @iova: first address of the region as the key's users name it
 * @length: bytes from @iova; @iova + @length does not overflow
 * @access: IB_ACCESS_* flags of the registration
 * @key: the key lookups accept (@ibmr.lkey and .rkey, which the core lets
 *	a kernel user change for a fast registration before REG_MR)
 * @num_mw: memory windows bound to the region (under the device's key_lock)
 * @dead: deregistration has begun: no window may bind (key_lock), and
 *	no copy through an SGE of a WQE that still holds the region runs
 *	(wqe.c, under @inval_lock: an on-demand paging region would reach
 *	whatever the process maps there later)
 * @fr: a fast-registration region (alloc_mr IB_MR_TYPE_MEM_REG): usable
 *	only between a REG_MR work request and its invalidation
 * @fr_valid: registered by REG_MR and not invalidated (key_lock)
 * @fr_max: entries of @fr_map and @fr_pages; constant
 * @fr_map: kernel addresses of the pages ib_map_mr_sg() staged
 * @fr_nmap: entries of @fr_map in use
 * @fr_pages: the pages of the registration REG_MR made from @fr_map
 *	(key_lock while @fr_valid changes; constant while it is set)
 * @fr_npages: entries of @fr_pages in use
 * @fr_page_size: bytes per entry of @fr_pages
 *
 * Everything but @ref, @num_mw, @dead, @pd, @access and the
 * fast-registration state is constant between registration and
 * deregistration; the object is in @sdev->mr_xa for exactly that time.  A
 * fast-registration region's key variant, @iova, @length and @access
 * change with each REG_MR (key_lock); a user region's @pd and @access with
 * rereg_mr in place (key_lock and @inval_lock, WRITE_ONCE: readers outside
 * them read each once), never while a window is bound to it.
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct kref ref;
	rwlock_t inval_lock; /* see @inval_lock above */
	struct work_struct free_work;
	struct rcu_head rcu;
	struct ib_pd *pd;
	struct ib_umem *umem;
	struct ib_umem_odp *odp;
	struct sroce_odp_imp *odp_imp;
	rwlock_t odp_lock; /* see @odp_lock above */
	struct sroce_dm *dm;
	u8 *dm_buf;
	struct page **pages;
	unsigned long npages;
	u64 iova;
	u64 length;
	int access;
	u32 key;
	u32 num_mw;
	bool dead;
	bool fr;
	bool fr_valid;
	u32 fr_max;
	u64 *fr_map;
	u32 fr_nmap;
	u64 *fr_pages;
	u32 fr_npages;
	u32 fr_page_size;
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/* Direction of sroce_mr_copy(). */
enum sroce_mr_copy_dir {
	SROCE_MR_TO_BUF,	/* read the region */
	SROCE_MR_FROM_BUF,	/* write the region */
};

int sroce_mr_check_access(int access);
void sroce_mr_set_range(struct sroce_mr *mr, struct ib_pd *ibpd, u64 iova,
			u64 length, int access);
int sroce_mr_add(struct sroce_dev *sdev, struct sroce_mr *mr);
struct ib_mr *sroce_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *sroce_mr_alloc(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct ib_pd *pd, u32 key,
		      int access);
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, int access, u64 va,
		   u64 len);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u64 len,
		  enum sroce_mr_copy_dir dir);
int sroce_mr_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 swap_add,
		    u64 compare, u64 *orig);
int sroce_mr_atomic_write(struct sroce_mr *mr, u64 va, u64 value);
int sroce_mr_copy_from_skb(struct sroce_mr *mr, u64 va,
			   const struct sk_buff *skb, int offset, u32 len);

void sroce_mr_dev_cleanup(struct sroce_dev *sdev);

#endif /* SROCE_MR_H */
