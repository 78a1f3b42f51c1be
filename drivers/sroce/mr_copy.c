// SPDX-License-Identifier: GPL-2.0
/*
 * mr_copy.c - what the data path does with the bytes of a memory region
 * (mr.c): copies to and from kernel buffers and packets, the atomics and
 * the atomic write.
 *
 * The caller holds a reference to the region, found by a lookup that
 * checked the range and the access (key.c), and for a remote access the
 * region's inval_lock (sroce_mr_remote_begin()).  On-demand paging regions
 * go through odp.c, which never faults.
 */
#include <linux/highmem.h>
#include <linux/skbuff.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"

/*
 * The kernel address of @va in @mr, and in *@room the bytes from there on
 * that are contiguous (to the end of its page; to the region's end for a
 * DM MR; without limit for the DMA MR); NULL beyond the region's pages.
 * A user page is kmapped: give the address back to sroce_mr_unmap().
 */
static u8 *sroce_mr_map(struct sroce_mr *mr, u64 va, u64 *room)
{
	u64 off, mask;

	if (mr->fr) {
		mask = mr->fr_page_size - 1;
		off = va - mr->iova + (mr->iova & mask);
		if (off / mr->fr_page_size >= mr->fr_npages)
			return NULL;
		*room = mr->fr_page_size - (off & mask);
		return (u8 *)(uintptr_t)(mr->fr_pages[off / mr->fr_page_size] +
					 (off & mask));
	}
	if (mr->dm) {
		/* vmalloc memory: contiguous to the region's end. */
		*room = mr->iova + mr->length - va;
		return mr->dm_buf + (va - mr->iova);
	}
	if (!mr->umem) {
		*room = U64_MAX;
		return (u8 *)(uintptr_t)va;
	}
	off = va - mr->iova + ib_umem_offset(mr->umem);
	if ((off >> PAGE_SHIFT) >= mr->npages)
		return NULL;
	*room = PAGE_SIZE - offset_in_page(off);
	return (u8 *)kmap_local_page(mr->pages[off >> PAGE_SHIFT]) +
	       offset_in_page(off);
}

static void sroce_mr_unmap(struct sroce_mr *mr, u8 *kaddr)
{
	if (mr->umem)
		kunmap_local(kaddr);
}

/*
 * The checks both copies make: the range (a caller bug: WARN) and a user
 * region pinned read-only when writing.  0, -ERANGE or -EACCES.
 */
static int sroce_mr_check_copy(struct sroce_mr *mr, u64 va, u64 len,
			       bool write)
{
	u64 end;

	if (WARN_ON_ONCE(va < mr->iova || check_add_overflow(va, len, &end) ||
			 end > mr->iova + mr->length))
		return -ERANGE;
	if (write && mr->umem && !mr->umem->writable)
		return -EACCES;
	if (write && mr->odp && !mr->odp->umem.writable)
		return -EACCES;
	return 0;
}

/**
 * sroce_mr_copy() - copy between a region and a kernel buffer
 * @mr: a region the caller holds a reference to, found by a lookup that
 *	checked [@va, @va + @len) and the access
 * @va: first address in the region
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_MR_TO_BUF reads the region, SROCE_MR_FROM_BUF writes it
 *
 * Any context (the user pages are pinned; local kmaps).  The page is found
 * by index in the region's page array: constant time per page.
 *
 * Return: 0, -ERANGE if the range is outside the region (a caller bug),
 * -EACCES when writing pages pinned read-only, -EFAULT if the page list is
 * shorter than the region (cannot happen for a pinned region); -EAGAIN
 * when a page of an on-demand paging region is not mapped (odp.c: fault
 * it in, in process context, and copy again).
 */
int sroce_mr_copy(struct sroce_mr *mr, u64 va, void *buf, u64 len,
		  enum sroce_mr_copy_dir dir)
{
	u8 *p = buf, *kaddr;
	u64 n;
	int ret;

	ret = sroce_mr_check_copy(mr, va, len, dir == SROCE_MR_FROM_BUF);
	if (ret)
		return ret;
	if (mr->odp)
		return sroce_odp_copy(mr, va, buf, len,
				      dir == SROCE_MR_FROM_BUF);
	while (len) {
		kaddr = sroce_mr_map(mr, va, &n);
		if (!kaddr)
			return -EFAULT;
		n = min(n, len);
		if (dir == SROCE_MR_TO_BUF)
			memcpy(p, kaddr, n);
		else
			memcpy(kaddr, p, n);
		sroce_mr_unmap(mr, kaddr);
		p += n;
		va += n;
		len -= n;
	}
	return 0;
}

/**
 * sroce_mr_copy_from_skb() - write bytes of a packet into a region
 * @mr: as for sroce_mr_copy(), with [@va, @va + @len) checked
 * @va: first address in the region
 * @skb: the packet, linear or not
 * @offset: first byte in @skb, from skb->data
 * @len: bytes; @offset + @len within skb->len
 *
 * Return: 0, -ERANGE, -EACCES, -EFAULT or -EAGAIN as sroce_mr_copy().
 */
int sroce_mr_copy_from_skb(struct sroce_mr *mr, u64 va,
			   const struct sk_buff *skb, int offset, u32 len)
{
	u8 *kaddr;
	u64 n;
	int ret;

	ret = sroce_mr_check_copy(mr, va, len, true);
	if (ret)
		return ret;
	if (mr->odp)
		return sroce_odp_copy_from_skb(mr, va, skb, offset, len);
	while (len) {
		kaddr = sroce_mr_map(mr, va, &n);
		if (!kaddr)
			return -EFAULT;
		n = min_t(u64, n, len);
		ret = skb_copy_bits(skb, offset, kaddr, n);
		sroce_mr_unmap(mr, kaddr);
		if (ret)
			return -EFAULT;
		offset += n;
		va += n;
		len -= n;
	}
	return 0;
}

/**
 * sroce_mr_atomic() - execute an atomic operation on 8 bytes of a region
 * @mr: a region the caller holds a reference to, found by a lookup that
 *	checked [@va, @va + 8) for IB_ACCESS_REMOTE_ATOMIC
 * @va: the address, 8-byte aligned
 * @cmp_swap: compare and swap (else fetch and add)
 * @swap_add: the swap value, or the value to add
 * @compare: the compare value
 * @orig: set to the value before the operation
 *
 * Atomic with respect to every other atomic of the device (IB_ATOMIC_HCA):
 * one device-wide lock.  Any context.
 *
 * Return: 0, or sroce_mr_copy()'s error (nothing changed then).
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 va, bool cmp_swap, u64 swap_add,
		    u64 compare, u64 *orig)
{
	struct sroce_dev *sdev = to_sdev(mr->ibmr.device);
	unsigned long flags;
	u64 val;
	int ret;

	spin_lock_irqsave(&sdev->atomic_lock, flags);
	ret = sroce_mr_copy(mr, va, &val, sizeof(val), SROCE_MR_TO_BUF);
	if (ret)
		goto out_unlock;
	*orig = val;
	if (cmp_swap)
		val = val == compare ? swap_add : val;
	else
		val += swap_add;
	ret = sroce_mr_copy(mr, va, &val, sizeof(val), SROCE_MR_FROM_BUF);
out_unlock:
	spin_unlock_irqrestore(&sdev->atomic_lock, flags);
	return ret;
}

/**
 * sroce_mr_atomic_write() - store 8 bytes in a region with one store
 * @mr: a region the caller holds a reference to, found by a lookup that
 *	checked [@va, @va + 8) for IB_ACCESS_REMOTE_WRITE
 * @va: the address, 8-byte aligned
 * @value: the bytes to store, as they are to lie in memory
 *
 * The atomic write of IBTA 1.5: a reader of the region sees the old 8
 * bytes or the new ones, never a mix, and the writes that came before
 * it are visible first (a release store).  Under the device's atomic
 * lock, so no atomic of the device runs between its read and its write.
 * Any context.
 *
 * Return: 0, or (nothing changed) -EINVAL when the 8 bytes are not 8-byte
 * aligned in the region's memory (an address the region maps to a page
 * offset of another alignment), -EACCES (pages pinned read-only), -EFAULT
 * (beyond the page list), -EAGAIN (an on-demand paging region's page is
 * not mapped: odp.c).
 */
int sroce_mr_atomic_write(struct sroce_mr *mr, u64 va, u64 value)
{
	struct sroce_dev *sdev = to_sdev(mr->ibmr.device);
	unsigned long flags;
	u8 *kaddr;
	u64 room;
	int ret;

	ret = sroce_mr_check_copy(mr, va, sizeof(value), true);
	if (ret)
		return ret;
	spin_lock_irqsave(&sdev->atomic_lock, flags);
	if (mr->odp) {
		ret = sroce_odp_atomic_write(mr, va, value);
		goto out_unlock;
	}
	kaddr = sroce_mr_map(mr, va, &room);
	if (!kaddr) {
		ret = -EFAULT;
		goto out_unlock;
	}
	if (IS_ALIGNED((uintptr_t)kaddr, sizeof(value))) {
		/* Release: the writes before it are visible before it. */
		smp_store_release((u64 *)kaddr, value);
	} else {
		ret = -EINVAL;
	}
	sroce_mr_unmap(mr, kaddr);
out_unlock:
	spin_unlock_irqrestore(&sdev->atomic_lock, flags);
	return ret;
}
