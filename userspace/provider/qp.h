/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * qp.h - queue pairs whose send and receive queues are rings the kernel
 * shares with us (qp.cpp; the rings' producer side is wqe.h).
 */
#ifndef SROCE_PROVIDER_QP_H
#define SROCE_PROVIDER_QP_H

#include <pthread.h>
#include <type_traits>

#include "ring_map.h"
#include "sroce.h"
#include "wqe.h"

namespace sroce {

/*
 * One QP.  calloc()ed, trivially constructible, like struct cq.  Each work
 * queue has its own lock: posts to the SQ and to the RQ do not contend.
 * The rings' memory is shared with the kernel, which only consumes (and
 * zeroes the indices when the QP enters RESET).  The state the posts check
 * is libibverbs' vqp.qp.state, which ibv_modify_qp() and ibv_query_qp()
 * keep.  A QP with an SRQ has no RQ: rq_map stays zero.
 */
struct qp {
	verbs_qp vqp; /* first: libibverbs' part */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	work_queue sq; /* under sq_lock */
	work_queue rq; /* under rq_lock */
	ring_mapping sq_map; /* the mappings of the rings */
	ring_mapping rq_map;
};
static_assert(std::is_standard_layout_v<qp>);
static_assert(std::is_trivially_default_constructible_v<qp>);

inline qp *to_qp(ibv_qp *ibqp) noexcept
{
	return reinterpret_cast<qp *>(ibqp);
}

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

#endif /* SROCE_PROVIDER_QP_H */
