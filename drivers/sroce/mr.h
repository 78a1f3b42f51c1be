/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr.h - memory regions (mr.c).
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sk_buff;

/**
 * struct sroce_mr - a memory region
 * @ibmr: the core MR; must stay first
 * @ref: references of data-path users (sroce_mr_lookup_*() takes one,
 *	sroce_mr_put() drops it) plus one of the registration
 * @released: completed when @ref drops to zero; deregistration waits for
 *	it before it releases the pages
 * @rcu: frees the object after a grace period: lookups read it under RCU
 *	before they hold a reference
 * @pd: the owning PD
 * @umem: the pinned user pages, or NULL for the DMA MR (kernel virtual
 *	addresses)
 * @pages: @umem's pages in order, for constant-time lookup by offset
 * @npages: entries of @pages
 * @iova: first address of the region as the key's users name it
 * @length: bytes from @iova; @iova + @length does not overflow
 * @access: IB_ACCESS_* flags of the registration
 *
 * Everything but @ref is constant between registration and
 * deregistration; the object is in @sdev->mr_xa for exactly that time.
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct kref ref;
	struct completion released;
	struct rcu_head rcu;
	struct ib_pd *pd;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	u64 iova;
	u64 length;
	int access;
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

struct ib_mr *sroce_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
int sroce_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);

struct sroce_mr *sroce_mr_lookup_local(struct sroce_dev *sdev, u32 lkey,
				       struct ib_pd *pd, int access, u64 va,
				       u64 len);
struct sroce_mr *sroce_mr_lookup_remote(struct sroce_dev *sdev, u32 rkey,
					struct ib_pd *pd, int access, u64 va,
					u64 len);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u64 len,
		  enum sroce_mr_copy_dir dir);
int sroce_mr_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 swap_add,
		    u64 compare, u64 *orig);
int sroce_mr_copy_from_skb(struct sroce_mr *mr, u64 va,
			   const struct sk_buff *skb, int offset, u32 len);

void sroce_mr_dev_init(struct sroce_dev *sdev);
void sroce_mr_dev_cleanup(struct sroce_dev *sdev);

#endif /* SROCE_MR_H */
