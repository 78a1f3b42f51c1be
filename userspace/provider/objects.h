/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * objects.h - PDs, MRs, MWs, AHs, CQs and QPs of the provider (pd_mr.cpp,
 * mw.cpp, ah.cpp, cq.cpp, qp.cpp): the verbs_context_ops entries
 * context.cpp installs.
 */
#ifndef SROCE_PROVIDER_OBJECTS_H
#define SROCE_PROVIDER_OBJECTS_H

#include <pthread.h>
#include <type_traits>

#include "ring.h"
#include "sroce.h"
#include "wqe.h"

namespace sroce {

/*
 * One CQ.  calloc()ed (the provider links no C++ runtime), so it must stay
 * trivially constructible.  lock serialises poll, arm and resize (a resize
 * replaces the mapping under it); the ring memory itself is shared with the
 * kernel, which only produces.
 */
struct cq {
	verbs_cq vcq; /* first: libibverbs' part */
	pthread_spinlock_t lock;
	ring_view ring; /* under lock */
	void *map; /* the mapping of the ring, map_size bytes; under lock */
	std::size_t map_size;
	bool broken; /* a resize left no usable ring: poll fails */
};
static_assert(std::is_standard_layout_v<cq>);
static_assert(std::is_trivially_default_constructible_v<cq>);

inline cq *to_cq(ibv_cq *ibcq) noexcept
{
	return reinterpret_cast<cq *>(ibcq);
}

/*
 * One QP.  calloc()ed, trivially constructible, like struct cq.  Each work
 * queue has its own lock: posts to the SQ and to the RQ do not contend.
 * The rings' memory is shared with the kernel, which only consumes (and
 * zeroes the indices when the QP enters RESET).  The state the posts check
 * is libibverbs' vqp.qp.state, which ibv_modify_qp() and ibv_query_qp()
 * keep.
 */
struct qp {
	verbs_qp vqp; /* first: libibverbs' part */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	work_queue sq; /* under sq_lock */
	work_queue rq; /* under rq_lock */
	void *sq_map; /* the mappings of the rings */
	std::size_t sq_map_size;
	void *rq_map;
	std::size_t rq_map_size;
};
static_assert(std::is_standard_layout_v<qp>);
static_assert(std::is_trivially_default_constructible_v<qp>);

inline qp *to_qp(ibv_qp *ibqp) noexcept
{
	return reinterpret_cast<qp *>(ibqp);
}

ibv_pd *alloc_pd(ibv_context *ibctx) noexcept;
int dealloc_pd(ibv_pd *pd) noexcept;
ibv_mr *reg_mr(ibv_pd *pd, void *addr, std::size_t length, std::uint64_t hca_va,
	       int access) noexcept;
int dereg_mr(verbs_mr *vmr) noexcept;
int rereg_mr(verbs_mr *vmr, int flags, ibv_pd *pd, void *addr,
	     std::size_t length, int access) noexcept;

/*
 * The parts of rereg_mr() that need no kernel.  rereg_mr_check: 0, or
 * EINVAL for unknown flags, IBV_REREG_MR_CHANGE_PD without a PD or with one
 * of another context, IBV_REREG_MR_CHANGE_TRANSLATION without an address
 * or length.  rereg_mr_update: the MR after a successful REREG_MR: the
 * response's keys (the kernel may change them), and the PD, address and
 * length the flags changed.
 */
int rereg_mr_check(const ibv_mr &mr, int flags, const ibv_pd *pd,
		   const void *addr, std::size_t length) noexcept;
void rereg_mr_update(ibv_mr *mr, int flags, ibv_pd *pd, void *addr,
		     std::size_t length,
		     const ib_uverbs_rereg_mr_resp &resp) noexcept;

ibv_mw *alloc_mw(ibv_pd *pd, ibv_mw_type type) noexcept;
int dealloc_mw(ibv_mw *mw) noexcept;
int bind_mw(ibv_qp *ibqp, ibv_mw *mw, ibv_mw_bind *mw_bind) noexcept;

ibv_ah *create_ah(ibv_pd *pd, ibv_ah_attr *attr) noexcept;
int destroy_ah(ibv_ah *ibah) noexcept;

ibv_cq *create_cq(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		  int comp_vector) noexcept;
int destroy_cq(ibv_cq *ibcq) noexcept;
int poll_cq(ibv_cq *ibcq, int num_entries, ibv_wc *wc) noexcept;
int req_notify_cq(ibv_cq *ibcq, int solicited_only) noexcept;
int resize_cq(ibv_cq *ibcq, int cqe) noexcept;

ibv_qp *create_qp(ibv_pd *pd, ibv_qp_init_attr *attr) noexcept;
int modify_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int attr_mask) noexcept;
int query_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int attr_mask,
	     ibv_qp_init_attr *init_attr) noexcept;
int destroy_qp(ibv_qp *ibqp) noexcept;
int post_send(ibv_qp *ibqp, ibv_send_wr *wr, ibv_send_wr **bad_wr) noexcept;
int post_recv(ibv_qp *ibqp, ibv_recv_wr *wr, ibv_recv_wr **bad_wr) noexcept;
int attach_mcast(ibv_qp *ibqp, const ibv_gid *gid, std::uint16_t lid) noexcept;
int detach_mcast(ibv_qp *ibqp, const ibv_gid *gid, std::uint16_t lid) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_OBJECTS_H */
