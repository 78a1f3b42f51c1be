// SPDX-License-Identifier: GPL-2.0
/*
 * queue.c - rings in kernel memory, shared with user space by mmap().
 *
 * A ring is one vmalloc buffer (zeroed, page-aligned, charged to the memory
 * cgroup of the process that creates it):
 * header lines for the producer index, the consumer index and the
 * notification word, then the entries (queue.h).  For a user context the
 * buffer is published as an rdma_user_mmap_entry; the create response hands
 * its offset to user space (struct sroce_ring_info), which maps it with
 * mmap() on the uverbs file, served by sroce_queue_mmap().  A kernel user
 * gets the very same ring, without an entry.
 *
 * Lifetime of a user ring: sroce_queue_destroy() removes the entry (no new
 * mmap() can find it); the core calls sroce_queue_mmap_free() once no
 * mmap() of it is in progress any more, and that frees the buffer.  A user
 * mapping made before keeps its pages: vm_insert_page() took a page
 * reference for each, dropped at munmap() (or exit).
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

/**
 * sroce_queue_init() - allocate a ring and, for a user context, publish it
 * @q: the queue to fill
 * @udata: the user's udata (publishes the ring to its context), or NULL
 *	for a kernel user
 * @num_entries: capacity, a power of two
 * @entry_size: bytes per entry, a multiple of 8
 *
 * Return: 0, -EINVAL for a bad geometry, -ENOMEM.
 */
int sroce_queue_init(struct sroce_queue *q, struct ib_udata *udata,
		     u32 num_entries, u32 entry_size)
{
	struct sroce_ucontext *suctx =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	size_t bytes;
	int ret;

	if (!num_entries || !is_power_of_2(num_entries) || !entry_size ||
	    entry_size % 8)
		return -EINVAL;
	if (check_mul_overflow((size_t)num_entries, (size_t)entry_size,
			       &bytes) ||
	    check_add_overflow(bytes, (size_t)SROCE_QUEUE_ENTRIES_OFF, &bytes))
		return -EINVAL;
	bytes = PAGE_ALIGN(bytes);
	/* The uapi reports the mapping size in a __u32. */
	if (bytes > U32_MAX)
		return -EINVAL;

	memset(q, 0, sizeof(*q));
	q->buf = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!q->buf)
		return -ENOMEM;
	q->size = bytes;
	q->num_entries = num_entries;
	q->entry_size = entry_size;
	q->producer = q->buf + SROCE_QUEUE_PRODUCER_OFF;
	q->consumer = q->buf + SROCE_QUEUE_CONSUMER_OFF;
	q->notify = q->buf + SROCE_QUEUE_NOTIFY_OFF;

	if (!suctx)
		return 0;

	q->mmap = kzalloc(sizeof(*q->mmap), GFP_KERNEL_ACCOUNT);
	if (!q->mmap) {
		ret = -ENOMEM;
		goto err_free_buf;
	}
	q->mmap->buf = q->buf;
	ret = rdma_user_mmap_entry_insert(&suctx->ibuc, &q->mmap->rdma, bytes);
	if (ret)
		goto err_free_entry;
	/* From here on the entry owns the buffer (sroce_queue_mmap_free()). */
	return 0;

err_free_entry:
	kfree(q->mmap);
	q->mmap = NULL;
err_free_buf:
	vfree(q->buf);
	q->buf = NULL;
	return ret;
}

/**
 * sroce_queue_destroy() - end of a ring for its owner
 * @q: an initialised queue; no one produces into or consumes from it any
 *	more on the kernel side
 *
 * A user ring's memory lives on until the core frees the mmap entry.
 */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->buf = NULL;
	q->mmap = NULL;
}

/**
 * sroce_queue_get_info() - describe a user ring for a create response
 * @q: a queue initialised with a udata
 * @info: filled in, reserved fields zeroed
 */
void sroce_queue_get_info(const struct sroce_queue *q,
			  struct sroce_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	if (q->mmap)
		info->mmap_offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	info->mmap_size = q->size;
	info->num_entries = q->num_entries;
	info->entry_size = q->entry_size;
	info->entries_offset = SROCE_QUEUE_ENTRIES_OFF;
	info->producer_offset = SROCE_QUEUE_PRODUCER_OFF;
	info->consumer_offset = SROCE_QUEUE_CONSUMER_OFF;
	info->notify_offset = SROCE_QUEUE_NOTIFY_OFF;
}

/**
 * sroce_queue_mmap() - ops.mmap: map a ring of the caller's context
 * @ibuc: the context of the uverbs file
 * @vma: offset and length as user space asked
 *
 * The offset must be one a create response handed out, the length exactly
 * the ring's, the mapping shared (a private one would copy on write and the
 * two sides would stop seeing each other); it must not be executable, and
 * can never be made so.
 *
 * Return: 0, -EINVAL for an unknown offset, a wrong length or a private
 * mapping, -EPERM for an executable one, or vm_insert_page()'s error.
 */
int sroce_queue_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct sroce_mmap_entry *entry;
	unsigned long off;
	int ret = 0;

	if (vma->vm_flags & VM_EXEC) {
		ibdev_dbg(ibuc->device, "mmap: executable mapping refused\n");
		return -EPERM;
	}
	if (!(vma->vm_flags & VM_SHARED)) {
		ibdev_dbg(ibuc->device, "mmap: private mapping refused\n");
		return -EINVAL;
	}

	/* Checks the offset and that the length matches the entry's. */
	rdma = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma) {
		ibdev_dbg(ibuc->device,
			  "mmap: no ring at page offset %#lx of %lu bytes\n",
			  vma->vm_pgoff, vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	entry = container_of(rdma, struct sroce_mmap_entry, rdma);

	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	/* Page by page: the buffer is vmalloc memory of the right length. */
	for (off = 0; off < vma->vm_end - vma->vm_start && !ret;
	     off += PAGE_SIZE)
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(entry->buf + off));
	rdma_user_mmap_entry_put(rdma);
	return ret;
}

/**
 * sroce_queue_mmap_free() - ops.mmap_free: the last reference to an entry
 * @rdma: the entry; removed from its context, no mmap() in progress
 */
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct sroce_mmap_entry *entry =
		container_of(rdma, struct sroce_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
