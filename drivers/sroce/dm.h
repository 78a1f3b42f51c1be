/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dm.h - device memory (dm.c).
 */
#ifndef SROCE_DM_H
#define SROCE_DM_H

#include <linux/kref.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

struct sroce_dev;
struct sroce_mmap_entry;

/**
 * struct sroce_dm - device memory: a buffer of kernel memory
 * @ibdm: the core object; must stay first
 * @ref: one reference of the DM handle (dropped by dealloc_dm), one of
 *	the mmap entry (sroce_queue_mmap_free()), one of each DM MR over it
 *	(dropped when the region is freed, which may be after its
 *	deregistration); the last one frees @buf
 * @buf: the memory, zeroed, @size bytes, virtually contiguous (vmalloc)
 * @size: @ibdm.length rounded up to pages
 * @mmap: the entry user space maps @buf by; removed by dealloc_dm
 */
struct sroce_dm {
	struct ib_dm ibdm;
	struct kref ref;
	void *buf;
	size_t size;
	struct sroce_mmap_entry *mmap;
};

static inline struct sroce_dm *to_sdm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct sroce_dm, ibdm);
}

struct ib_dm *sroce_dm_alloc(struct ib_device *ibdev, struct ib_ucontext *ibuc,
			     struct ib_dm_alloc_attr *attr,
			     struct uverbs_attr_bundle *attrs);
int sroce_dm_dealloc(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct ib_mr *sroce_dm_reg_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			      struct ib_dm_mr_attr *attr,
			      struct uverbs_attr_bundle *attrs);
void sroce_dm_put(struct sroce_dm *dm);

extern const struct uapi_definition sroce_dm_uapi_defs[];

#endif /* SROCE_DM_H */
