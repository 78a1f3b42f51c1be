// SPDX-License-Identifier: GPL-2.0
/*
 * queue.c - rings in kernel memory, shared with user space by mmap().
 *
 * A ring is one vmalloc buffer (zeroed, page-aligned, charged to the memory
 * cgroup of the process that creates it):
 * header lines for the producer index, the consumer index and the
 * notification word, then the entries (queue.h).  A QP's send and receive
 * rings share one buffer (sroce_queue_init_pair()), and so one mapping.  For a user context the
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

/* A ring's geometry is sane: a power-of-two capacity, 8-byte entries. */
static bool sroce_queue_geometry_ok(u32 num_entries, u32 entry_size)
{
	return num_entries && is_power_of_2(num_entries) && entry_size &&
	       !(entry_size % 8);
}

/*
 * @q's memory, @bytes (and what rounds them up to pages), and for a user
 * context its mmap entry.  -EINVAL when it would not fit the uapi's
 * __u32 mapping size, -ENOMEM.
 */
static int sroce_queue_alloc(struct sroce_queue *q, struct ib_udata *udata,
			     size_t bytes)
{
	struct sroce_ucontext *suctx =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	int ret;

	bytes = PAGE_ALIGN(bytes);
	/* The uapi reports the mapping size in a __u32. */
	if (bytes > U32_MAX)
		return -EINVAL;

	memset(q, 0, sizeof(*q));
	q->buf = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!q->buf)
		return -ENOMEM;
	q->size = bytes;
	q->owner = true;

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

/* Where @q's entries and index words lie in its buffer (0: no notify). */
static void sroce_queue_place(struct sroce_queue *q, u32 num_entries,
			      u32 entry_size, u32 entries_off, u32 producer_off,
			      u32 consumer_off, u32 notify_off)
{
	q->num_entries = num_entries;
	q->entry_size = entry_size;
	q->entries = q->buf + entries_off;
	q->producer = q->buf + producer_off;
	q->consumer = q->buf + consumer_off;
	q->notify = notify_off ? q->buf + notify_off : NULL;
}

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
	size_t bytes;
	int ret;

	if (!sroce_queue_geometry_ok(num_entries, entry_size))
		return -EINVAL;
	if (check_mul_overflow((size_t)num_entries, (size_t)entry_size,
			       &bytes) ||
	    check_add_overflow(bytes, (size_t)SROCE_QUEUE_ENTRIES_OFF, &bytes))
		return -EINVAL;
	ret = sroce_queue_alloc(q, udata, bytes);
	if (ret)
		return ret;
	sroce_queue_place(q, num_entries, entry_size, SROCE_QUEUE_ENTRIES_OFF,
			  SROCE_QUEUE_PRODUCER_OFF, SROCE_QUEUE_CONSUMER_OFF,
			  SROCE_QUEUE_NOTIFY_OFF);
	return 0;
}

/**
 * sroce_queue_init_pair() - a QP's send and receive rings in one buffer
 * @sq: the send queue to fill; it owns the buffer (and its mmap entry)
 * @rq: the receive queue to fill; it borrows @sq's buffer and has no
 *	notification word
 * @udata: as for sroce_queue_init()
 * @sq_entries: @sq's capacity, a power of two
 * @sq_esize: bytes per @sq entry, a multiple of 8
 * @rq_entries: @rq's capacity, a power of two
 * @rq_esize: bytes per @rq entry, a multiple of 8
 *
 * One allocation (and for a user, one mapping, which user space finds at
 * the same offset in both rings' struct sroce_ring_info) instead of two:
 * an idle QP of small depths takes one page for its rings, not two.
 *
 * Return: 0, -EINVAL for a bad geometry, -ENOMEM.
 */
int sroce_queue_init_pair(struct sroce_queue *sq, struct sroce_queue *rq,
			  struct ib_udata *udata, u32 sq_entries, u32 sq_esize,
			  u32 rq_entries, u32 rq_esize)
{
	size_t sq_bytes, rq_bytes, bytes;
	int ret;

	if (!sroce_queue_geometry_ok(sq_entries, sq_esize) ||
	    !sroce_queue_geometry_ok(rq_entries, rq_esize))
		return -EINVAL;
	if (check_mul_overflow((size_t)sq_entries, (size_t)sq_esize,
			       &sq_bytes) ||
	    check_mul_overflow((size_t)rq_entries, (size_t)rq_esize,
			       &rq_bytes) ||
	    check_add_overflow(ALIGN(sq_bytes, SMP_CACHE_BYTES), rq_bytes,
			       &bytes) ||
	    check_add_overflow(bytes, (size_t)SROCE_QUEUE_PAIR_ENTRIES_OFF,
			       &bytes))
		return -EINVAL;
	ret = sroce_queue_alloc(sq, udata, bytes);
	if (ret)
		return ret;
	sroce_queue_place(sq, sq_entries, sq_esize,
			  SROCE_QUEUE_PAIR_ENTRIES_OFF,
			  SROCE_QUEUE_PAIR_SQ_PRODUCER_OFF,
			  SROCE_QUEUE_PAIR_SQ_CONSUMER_OFF,
			  SROCE_QUEUE_PAIR_SQ_NOTIFY_OFF);

	memset(rq, 0, sizeof(*rq));
	rq->buf = sq->buf;
	rq->size = sq->size;
	rq->mmap = sq->mmap;
	sroce_queue_place(rq, rq_entries, rq_esize,
			  SROCE_QUEUE_PAIR_ENTRIES_OFF +
			  ALIGN(sq_bytes, SMP_CACHE_BYTES),
			  SROCE_QUEUE_PAIR_RQ_PRODUCER_OFF,
			  SROCE_QUEUE_PAIR_RQ_CONSUMER_OFF, 0);
	return 0;
}

/**
 * sroce_queue_destroy() - end of a ring for its owner
 * @q: an initialised queue (or a zeroed one); no one produces into or
 *	consumes from it any more on the kernel side.  Of a QP's pair, the
 *	RQ goes before the SQ.
 *
 * A user ring's memory lives on until the core frees the mmap entry.
 */
void sroce_queue_destroy(struct sroce_queue *q)
{
	if (q->owner) {
		if (q->mmap)
			rdma_user_mmap_entry_remove(&q->mmap->rdma);
		else
			vfree(q->buf);
	}
	q->buf = NULL;
	q->mmap = NULL;
	q->owner = false;
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
	info->entries_offset = q->entries - q->buf;
	info->producer_offset = (void *)q->producer - q->buf;
	info->consumer_offset = (void *)q->consumer - q->buf;
	info->notify_offset = q->notify ? (void *)q->notify - q->buf : 0;
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

	if (entry->dm)
		sroce_dm_put(entry->dm);
	else
		vfree(entry->buf);
	kfree(entry);
}
