/* SPDX-License-Identifier: GPL-2.0 */
/*
 * queue.h - rings shared with user space (see queue.c and the ring section
 * of include/uapi/rdma/sroce-abi.h).
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/types.h>
#include <asm/barrier.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_dm;

/*
 * Layout of a ring alone (a CQ, an SRQ, the SQ of a QP with an SRQ): the
 * producer index, the consumer index and the notification word each on a
 * cache line pair of its own (adjacent-line prefetchers fetch 128 bytes),
 * then the entries.  User space learns these offsets from struct
 * sroce_ring_info, never from here.
 */
#define SROCE_QUEUE_PRODUCER_OFF	0
#define SROCE_QUEUE_CONSUMER_OFF	128
#define SROCE_QUEUE_NOTIFY_OFF		256
#define SROCE_QUEUE_ENTRIES_OFF		512

/*
 * Layout of a QP's two rings in one buffer (sroce_queue_init_pair()): the
 * two producer indices (both written by the producer) on one cache line
 * pair, the two consumer indices (both written by the kernel) on the next,
 * the SQ's notification word on the third (the RQ has none), then the SQ's
 * entries, then the RQ's from the next cache line.
 */
#define SROCE_QUEUE_PAIR_SQ_PRODUCER_OFF	0
#define SROCE_QUEUE_PAIR_RQ_PRODUCER_OFF	64
#define SROCE_QUEUE_PAIR_SQ_CONSUMER_OFF	128
#define SROCE_QUEUE_PAIR_RQ_CONSUMER_OFF	192
#define SROCE_QUEUE_PAIR_SQ_NOTIFY_OFF		256
#define SROCE_QUEUE_PAIR_ENTRIES_OFF		384

/**
 * struct sroce_mmap_entry - a ring's memory as an mmap entry of a context
 * @rdma: the core entry, in the context's mmap_xa
 * @buf: the vmalloc_user() memory; freed by sroce_queue_mmap_free() when
 *	the core drops the last reference to @rdma (after the queue removed
 *	it and no mmap() of it is in progress)
 * @dm: for device memory (dm.c), the DM that owns @buf: the entry holds a
 *	reference to it instead of owning @buf
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	struct sroce_dm *dm;
};

/**
 * struct sroce_queue - one ring
 * @buf: the memory the ring lies in (vmalloc, zeroed, @size bytes); a QP's
 *	SQ and RQ share one (sroce_queue_init_pair())
 * @entries: slot 0 in @buf
 * @producer: the producer index in @buf
 * @consumer: the consumer index in @buf
 * @notify: the notification word in @buf (NULL for a QP's RQ in a pair)
 * @mmap: the mmap entry of @buf when the ring belongs to a user context
 *	(it then owns @buf), NULL for a kernel user's ring
 * @size: bytes of @buf, a multiple of PAGE_SIZE (at most U32_MAX: the
 *	uapi's mapping size)
 * @num_entries: capacity, a power of two
 * @entry_size: bytes per entry
 * @owner: this ring frees @buf (or removes @mmap); the RQ of a pair does not
 *
 * Constant from sroce_queue_init() to sroce_queue_destroy(); the owner of
 * the queue (a CQ, a QP, an SRQ) guards the indices.  Everything in @buf
 * that user space can write must be treated as hostile input.  Kept small:
 * a QP holds two, and its size decides the slab size class of every QP.
 */
struct sroce_queue {
	void *buf;
	void *entries;
	u32 *producer;
	u32 *consumer;
	u32 *notify;
	struct sroce_mmap_entry *mmap;
	u32 size;
	u32 num_entries;
	u32 entry_size;
	bool owner;
};

int sroce_queue_init(struct sroce_queue *q, struct ib_udata *udata,
		     u32 num_entries, u32 entry_size);
int sroce_queue_init_pair(struct sroce_queue *sq, struct sroce_queue *rq,
			  struct ib_udata *udata, u32 sq_entries, u32 sq_esize,
			  u32 rq_entries, u32 rq_esize);
void sroce_queue_destroy(struct sroce_queue *q);
void sroce_queue_get_info(const struct sroce_queue *q,
			  struct sroce_ring_info *info);

/* The slot of a free-running index. */
static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 index)
{
	return q->entries +
	       (size_t)(index & (q->num_entries - 1)) * q->entry_size;
}

/*
 * Index accesses of the rings' data path (the ordering rules are those of
 * the uapi header).  The producer index is loaded with acquire: the
 * entries before it were written before it was stored.
 */
static inline u32 sroce_queue_load_producer(const struct sroce_queue *q)
{
	/* Pairs with the producer's release store of the index. */
	return smp_load_acquire(q->producer);
}

/* Release: the entries before @index are written before it is seen. */
static inline void sroce_queue_store_producer(struct sroce_queue *q,
					      u32 index)
{
	/* Pairs with the consumer's acquire load of the index. */
	smp_store_release(q->producer, index);
}

/* Release: the slots before @index are read before they may be reused. */
static inline void sroce_queue_store_consumer(struct sroce_queue *q,
					      u32 index)
{
	/* Pairs with the producer's acquire load of the index. */
	smp_store_release(q->consumer, index);
}

/* ops.mmap and ops.mmap_free */
int sroce_queue_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sroce_queue_mmap_free(struct rdma_user_mmap_entry *rdma);

#endif /* SROCE_QUEUE_H */
