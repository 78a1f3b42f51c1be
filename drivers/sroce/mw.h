/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mw.h - memory windows (mw.c).
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_mr;
struct sroce_qp;
struct sroce_swqe;

/**
 * struct sroce_mw - a memory window
 * @ibmw: the core MW; must stay first.  @ibmw.rkey is the current key.
 * @bound: remote accesses may use the window (a type 1 window always is,
 *	with a length of 0 until bound; a type 2 window from its bind to
 *	its invalidation)
 * @mr: the region the window lies in, with a reference and counted in its
 *	num_mw; NULL when unbound
 * @qpn: type 2: the QP the window is bound to; only that QP's peer uses it
 * @addr: first address of the window, in the region's address space
 * @length: bytes
 * @access: IB_ACCESS_REMOTE_* rights the window grants
 *
 * Everything but @ibmw's constant fields is guarded by the device's
 * key_lock, and, while the window is bound, by its region's inval_lock
 * too (written under both, read under either).  The object is in the
 * device's key table (tagged, see key.c) from alloc_mw to dealloc_mw.
 */
struct sroce_mw {
	struct ib_mw ibmw;
	bool bound;
	struct sroce_mr *mr;
	u32 qpn;
	u64 addr;
	u64 length;
	int access;
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

int sroce_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_mw_dealloc(struct ib_mw *ibmw);
int sroce_mw_bind(struct sroce_qp *qp, const struct sroce_swqe *w);
int sroce_mw_invalidate(struct sroce_mw *mw, u32 rkey, struct ib_pd *pd,
			u32 qpn);
int sroce_mw_check(const struct sroce_mw *mw, u32 rkey,
		   const struct sroce_mr *mr, struct ib_pd *pd, u32 qpn,
		   int access, u64 va, u64 len);
struct sroce_mr *sroce_mw_resolve(struct sroce_mw *mw, u32 rkey,
				  struct ib_pd *pd, u32 qpn, int access, u64 va,
				  u64 len);

#endif /* SROCE_MW_H */
