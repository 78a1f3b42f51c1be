// SPDX-License-Identifier: GPL-2.0
/*
 * odp_copy.c - the engine's copies to and from on-demand paging regions
 * (odp.c): they never fault.
 *
 * The engine runs in softirq.  Each page it copies to or from is looked
 * up and copied under @mr->odp_lock held for reading; invalidation takes
 * it for writing around ib_umem_odp_unmap_dma_pages(), so once the
 * invalidate returns no copy touches the pages it took away.  A page that
 * is not mapped (or mapped read-only for a write) makes the copy fail with
 * -EAGAIN, and the caller defers (odp.c: sroce_odp_fault_async()).
 */
#include <linux/skbuff.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"
#include "qp.h"
#include "odp.h"

/* The user address of @va of @mr. */
u64 sroce_odp_uva(const struct sroce_mr *mr, u64 va)
{
	return va - mr->iova + mr->odp->umem.address;
}

/* The umem of @mr that holds user address @uva; NULL for none yet. */
static struct ib_umem_odp *sroce_odp_umem(struct sroce_mr *mr, u64 uva)
{
	if (!mr->odp_imp)
		return mr->odp;
	return xa_load(&mr->odp_imp->children, uva >> SROCE_ODP_CHILD_SHIFT);
}

/*
 * The kernel address of user address @uva, and in *@room the bytes of its
 * page from there; NULL when the page is not mapped for @write.  Under
 * odp_lock.
 */
static u8 *sroce_odp_kaddr(struct ib_umem_odp *odp, u64 uva, bool write,
			   u64 *room)
{
	u64 need = write ? ODP_WRITE_ALLOWED_BIT : ODP_READ_ALLOWED_BIT;
	unsigned int shift;
	dma_addr_t dma;
	u64 mask;

	if (!odp || uva < ib_umem_start(odp) || uva >= ib_umem_end(odp))
		return NULL;
	shift = odp->page_shift;
	mask = BIT_ULL(shift) - 1;
	dma = READ_ONCE(odp->dma_list[(uva - ib_umem_start(odp)) >> shift]);
	if (!(dma & need))
		return NULL;
	*room = BIT_ULL(shift) - (uva & mask);
	return (u8 *)(uintptr_t)(dma & ODP_DMA_ADDR_MASK) + (uva & mask);
}

/*
 * Call @fn for each piece of [@va, @va + @len) of @mr, one page at a time
 * under odp_lock.  0, -EAGAIN at the first page not mapped for @write
 * (the pieces before it were done), or @fn's error.
 */
static int sroce_odp_walk(struct sroce_mr *mr, u64 va, u64 len, bool write,
			  int (*fn)(u8 *kaddr, u64 n, void *arg), void *arg)
{
	u64 uva = sroce_odp_uva(mr, va), n;
	unsigned long flags;
	u8 *kaddr;
	int ret;

	while (len) {
		read_lock_irqsave(&mr->odp_lock, flags);
		kaddr = sroce_odp_kaddr(sroce_odp_umem(mr, uva), uva, write,
					&n);
		if (!kaddr) {
			read_unlock_irqrestore(&mr->odp_lock, flags);
			return -EAGAIN;
		}
		n = min(n, len);
		ret = fn ? fn(kaddr, n, arg) : 0;
		read_unlock_irqrestore(&mr->odp_lock, flags);
		if (ret)
			return ret;
		uva += n;
		len -= n;
	}
	return 0;
}

struct sroce_odp_buf {
	u8 *buf;
	bool to_mr;
};

static int sroce_odp_copy_one(u8 *kaddr, u64 n, void *arg)
{
	struct sroce_odp_buf *b = arg;

	if (b->to_mr)
		memcpy(kaddr, b->buf, n);
	else
		memcpy(b->buf, kaddr, n);
	b->buf += n;
	return 0;
}

/**
 * sroce_odp_copy() - copy between an on-demand paging region and a buffer
 * @mr: the region, range checked by the caller
 * @va: first address in the region
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: write the region (else read it)
 *
 * Any context; never faults.
 *
 * Return: 0, or -EAGAIN when a page is not mapped for the access (part of
 * the bytes may have been copied): fault it in and copy again.
 */
int sroce_odp_copy(struct sroce_mr *mr, u64 va, void *buf, u64 len,
		   bool to_mr)
{
	struct sroce_odp_buf b = { .buf = buf, .to_mr = to_mr };

	return sroce_odp_walk(mr, va, len, to_mr, sroce_odp_copy_one, &b);
}

struct sroce_odp_skb {
	const struct sk_buff *skb;
	int off;
};

static int sroce_odp_skb_one(u8 *kaddr, u64 n, void *arg)
{
	struct sroce_odp_skb *p = arg;

	if (skb_copy_bits(p->skb, p->off, kaddr, n))
		return -EFAULT;
	p->off += n;
	return 0;
}

/**
 * sroce_odp_copy_from_skb() - write packet bytes into an on-demand paging
 *	region
 * @mr: the region, range checked by the caller
 * @va: first address in the region
 * @skb: the packet
 * @offset: first byte in @skb, from skb->data
 * @len: bytes
 *
 * Return: 0, -EAGAIN as sroce_odp_copy(), -EFAULT (a short packet).
 */
int sroce_odp_copy_from_skb(struct sroce_mr *mr, u64 va,
			    const struct sk_buff *skb, int offset, u32 len)
{
	struct sroce_odp_skb p = { .skb = skb, .off = offset };

	return sroce_odp_walk(mr, va, len, true, sroce_odp_skb_one, &p);
}

static int sroce_odp_store_one(u8 *kaddr, u64 n, void *arg)
{
	if (n < sizeof(u64) || !IS_ALIGNED((uintptr_t)kaddr, sizeof(u64)))
		return -EINVAL;
	/* As sroce_mr_atomic_write(): after the writes before it. */
	smp_store_release((u64 *)kaddr, *(u64 *)arg);
	return 0;
}

/**
 * sroce_odp_atomic_write() - sroce_mr_atomic_write() on an on-demand
 *	paging region
 * @mr: the region, range checked by the caller
 * @va: the address
 * @value: the 8 bytes
 *
 * Return: 0, -EAGAIN as sroce_odp_copy() (nothing stored), -EINVAL when
 * the bytes are not 8-byte aligned in the process's memory.
 */
int sroce_odp_atomic_write(struct sroce_mr *mr, u64 va, u64 value)
{
	return sroce_odp_walk(mr, va, sizeof(value), true, sroce_odp_store_one,
			      &value);
}

/**
 * sroce_odp_present() - are the pages of a range mapped for an access
 * @mr: any region (only an on-demand paging one can lack pages)
 * @va: first address
 * @len: bytes
 * @write: for writing
 *
 * A hint: the pages may go before they are used (the copy then fails).
 *
 * Return: true when every page is mapped.
 */
bool sroce_odp_present(struct sroce_mr *mr, u64 va, u64 len, bool write)
{
	return !mr || !mr->odp || !sroce_odp_walk(mr, va, len, write, NULL,
						   NULL);
}

/**
 * sroce_odp_sges_present() - sroce_odp_present() for validated SGEs
 * @sge: the SGEs
 * @num_sge: their number
 * @write: for writing
 *
 * Return: true when every page they name is mapped.
 */
bool sroce_odp_sges_present(const struct sroce_sge_ref *sge, u32 num_sge,
			    bool write)
{
	u32 i;

	for (i = 0; i < num_sge; i++)
		if (!sroce_odp_present(sge[i].mr, sge[i].addr, sge[i].length,
				       write))
			return false;
	return true;
}
