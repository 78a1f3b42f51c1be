/* SPDX-License-Identifier: GPL-2.0 */
/*
 * odp.h - on-demand paging regions (odp.c, and their copies: odp_copy.c).
 */
#ifndef SROCE_ODP_H
#define SROCE_ODP_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

struct mm_struct;
struct sk_buff;
struct sroce_mr;
struct sroce_qp;
struct sroce_sge_ref;

/*
 * The engine that found a page missing, and what the fault work does
 * after it faulted the pages in: kick the requester (SROCE_ODP_REQ) or
 * the responder's output (SROCE_ODP_RESP_OUT); nothing for the responder
 * (its peer sends again after the RNR NAK) and the completer (the
 * requester asks again).  Each has a QP flag the work sets when the fault
 * failed (enum sroce_qp_flag).
 */
enum sroce_odp_engine {
	SROCE_ODP_REQ,
	SROCE_ODP_RESP,
	SROCE_ODP_RESP_OUT,
	SROCE_ODP_COMP,
	SROCE_ODP_ENGINES
};

/**
 * struct sroce_odp_fault - the one page fault an engine of a QP may have
 *	pending (odp.c); a second -EAGAIN meanwhile queues nothing: the
 *	engine runs again after this one (kicked, or asked again by the peer)
 * @work: on sroce_odp_wq
 * @qp: the QP; constant
 * @eng: the engine; constant
 * @busy: bit 0: @work is queued or running; the one who sets it owns
 *	the fields below until the work clears it
 * @mr: the region, with a reference
 * @va: first address to fault in
 * @len: bytes
 * @resets: the QP's @odp_resets when queued: a failure that comes back
 *	after a RESET is not the new connection's
 */
struct sroce_odp_fault {
	struct work_struct work;
	struct sroce_qp *qp;
	enum sroce_odp_engine eng;
	unsigned long busy;
	struct sroce_mr *mr;
	u64 va;
	u64 len;
	u32 resets;
};

/* Bytes of the address space each child of an implicit region covers. */
#define SROCE_ODP_CHILD_SHIFT	21
#define SROCE_ODP_CHILD_SIZE	BIT_ULL(SROCE_ODP_CHILD_SHIFT)

/* Bytes an invalidation unmaps per hold of odp_lock (interrupts off). */
#define SROCE_ODP_UNMAP_CHUNK	(2UL << 20)

/**
 * struct sroce_odp_imp - the children of an implicit region
 * @children: child umems by user address >> SROCE_ODP_CHILD_SHIFT
 * @lock: serializes the region's faults, which create children and drop
 *	the one a failed fault just made
 * @mm: the process's mm, grabbed while the region lives (the root umem
 *	names it without a notifier that would hold it)
 */
struct sroce_odp_imp {
	struct xarray children;
	struct mutex lock; /* see @lock above */
	struct mm_struct *mm;
};

struct ib_mr *sroce_odp_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
				 u64 iova, int access);
void sroce_odp_release(struct sroce_mr *mr);

/* odp_copy.c: the engine's copies, which never fault */
u64 sroce_odp_uva(const struct sroce_mr *mr, u64 va);
int sroce_odp_copy(struct sroce_mr *mr, u64 va, void *buf, u64 len,
		   bool to_mr);
int sroce_odp_copy_from_skb(struct sroce_mr *mr, u64 va,
			    const struct sk_buff *skb, int offset, u32 len);
int sroce_odp_atomic_write(struct sroce_mr *mr, u64 va, u64 value);
bool sroce_odp_present(struct sroce_mr *mr, u64 va, u64 len, bool write);
bool sroce_odp_sges_present(const struct sroce_sge_ref *sge, u32 num_sge,
			    bool write);
/* odp.c: faults, advice, capabilities */
void sroce_odp_fault_async(struct sroce_qp *qp, enum sroce_odp_engine eng,
			   struct sroce_mr *mr, u64 va, u64 len);
u32 sroce_odp_fault_sges(struct sroce_qp *qp, enum sroce_odp_engine eng,
			 const struct sroce_sge_ref *sge, u32 num_sge);
bool sroce_odp_failed(struct sroce_qp *qp, enum sroce_odp_engine eng);
void sroce_odp_reset(struct sroce_qp *qp);
void sroce_odp_qp_init(struct sroce_qp *qp);
int sroce_odp_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
			u32 flags, struct ib_sge *sg_list, u32 num_sge,
			struct uverbs_attr_bundle *attrs);
void sroce_odp_caps(struct ib_device_attr *attr);

#endif /* SROCE_ODP_H */
