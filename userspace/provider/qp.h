/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * qp.h - queue pairs whose send and receive queues are rings the kernel
 * shares with us (qp.cpp; the rings' producer side is wqe.h).
 */
#ifndef SROCE_PROVIDER_QP_H
#define SROCE_PROVIDER_QP_H

#include <pthread.h>
#include <type_traits>

#include "pd.h"
#include "ring_map.h"
#include "sroce.h"
#include "wqe.h"
#include "wr_builder.h"

namespace sroce {

/*
 * One QP.  Zero-filled memory from obj_alloc() (pd.h: the allocator of
 * the parent domain it was created on, if any), trivially constructible,
 * like struct cq.  Each work queue has its own lock: posts to the SQ and
 * to the RQ do not contend.  A QP created on a parent domain with a
 * thread domain takes neither (single_thread).
 * The rings' memory is shared with the kernel, which only consumes (and
 * zeroes the indices when the QP enters RESET).  The state the posts check
 * is libibverbs' vqp.qp.state, which ibv_modify_qp() and ibv_query_qp()
 * keep.  A QP with an SRQ has no RQ: rq_map stays zero; it does too when
 * the RQ lies in the SQ's mapping (the kernel's one buffer for both).
 */
struct qp {
	verbs_qp vqp; /* first: libibverbs' part */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	work_queue sq; /* under sq_lock */
	work_queue rq; /* under rq_lock */
	ring_mapping sq_map; /* the mappings of the rings */
	ring_mapping rq_map;
	/* The ibv_wr_*() batch (qp_ex.cpp); under sq_lock while open. */
	wr_builder wrb;
	obj_mem mem; /* where this object's memory came from */
	bool single_thread; /* no locks: the application serialises */
};
static_assert(std::is_standard_layout_v<qp>);
static_assert(std::is_trivially_default_constructible_v<qp>);

inline qp *to_qp(ibv_qp *ibqp) noexcept
{
	return reinterpret_cast<qp *>(ibqp);
}

/* The work queues' locks, unless the QP is single-threaded. */
inline void qp_lock(const qp *q, pthread_spinlock_t *lock) noexcept
{
	if (!q->single_thread)
		pthread_spin_lock(lock);
}

inline void qp_unlock(const qp *q, pthread_spinlock_t *lock) noexcept
{
	if (!q->single_thread)
		pthread_spin_unlock(lock);
}

/*
 * A zero-filled QP object for a QP created on pd (a PD or a parent
 * domain), or nullptr with errno set; qp_free() frees it.
 */
qp *qp_alloc(ibv_pd *pd) noexcept;
void qp_free(qp *q) noexcept;

ibv_qp *create_qp(ibv_pd *pd, ibv_qp_init_attr *attr) noexcept;

/*
 * After the kernel created q: its rings mapped (the SQ's, and the RQ's
 * unless has_srq), its locks, its limits from what the kernel granted
 * (cap, as libibverbs wrote it back, and the driver response).  0, or an
 * errno with nothing left mapped or initialised.
 */
int qp_setup(qp *q, ibv_context *ibctx, const ibv_qp_cap &cap, bool has_srq,
	     const sroce_create_qp_resp &drv) noexcept;

/*
 * The locks alone, for a QP without rings (an XRC TGT QP, created or
 * opened); 0 or an errno.  qp_teardown() undoes it too.
 */
int qp_setup_locks(qp *q) noexcept;

/* The inverse of a successful qp_setup(). */
void qp_teardown(qp *q) noexcept;

/*
 * The doorbell: POST_SEND for the QP without work requests, written to
 * the uverbs file; 0 or an errno.
 */
int qp_ring_doorbell(ibv_qp *ibqp) noexcept;

/*
 * ibv_create_qp_ex() (qp_ex.cpp): the QP of create_qp(), and with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS the ibv_wr_*() post API for those
 * opcodes.
 */
ibv_qp *create_qp_ex(ibv_context *ibctx, ibv_qp_init_attr_ex *attr) noexcept;

/*
 * What create_qp_ex() accepts: comp_mask IBV_QP_INIT_ATTR_PD (required),
 * _SEND_OPS_FLAGS and _CREATE_FLAGS with no flag; send_ops_flags naming
 * only opcodes the QP type can post (ibv_post_send(3)'s), for RC, UC, UD
 * and XRC INI (XRC_SEND), the atomic write on RC only and only when the
 * context's features (enum sroce_ucontext_features) have
 * SROCE_UCTX_F_ATOMIC_WRITE; _XRCD for an XRC TGT QP (XRC_RECV), which
 * needs no PD and takes no send_ops_flags.  0, EINVAL without a PD (or an
 * XRC TGT QP without a domain), else EOPNOTSUPP (TSO, an atomic write
 * elsewhere, RSS, creation flags).
 */
int check_qp_init_attr(const ibv_qp_init_attr_ex &attr,
		       std::uint64_t features) noexcept;

/* The ibv_qp_ex callbacks for send_ops_flags, and VERBS_QP_EX. */
void set_qp_ex_ops(qp *q, std::uint64_t send_ops_flags) noexcept;
int modify_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int attr_mask) noexcept;
int query_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int attr_mask,
	     ibv_qp_init_attr *init_attr) noexcept;
int destroy_qp(ibv_qp *ibqp) noexcept;
int post_send(ibv_qp *ibqp, ibv_send_wr *wr, ibv_send_wr **bad_wr) noexcept;
int post_recv(ibv_qp *ibqp, ibv_recv_wr *wr, ibv_recv_wr **bad_wr) noexcept;
int attach_mcast(ibv_qp *ibqp, const ibv_gid *gid, std::uint16_t lid) noexcept;
int detach_mcast(ibv_qp *ibqp, const ibv_gid *gid, std::uint16_t lid) noexcept;

/* flow.cpp: flow steering rules of raw packet QPs */
ibv_flow *create_flow(ibv_qp *ibqp, ibv_flow_attr *attr) noexcept;
int destroy_flow(ibv_flow *flow) noexcept;

/* xrc.cpp: XRC domains, XRC SRQs' numbers, opening an XRC TGT QP */
ibv_xrcd *open_xrcd(ibv_context *ibctx, ibv_xrcd_init_attr *attr) noexcept;
int close_xrcd(ibv_xrcd *ibxrcd) noexcept;
ibv_srq *create_srq_ex(ibv_context *ibctx, ibv_srq_init_attr_ex *attr) noexcept;
int get_srq_num(ibv_srq *ibsrq, std::uint32_t *srq_num) noexcept;
ibv_qp *open_qp(ibv_context *ibctx, ibv_qp_open_attr *attr) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_QP_H */
