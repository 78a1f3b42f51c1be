/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wq.h - receive work queues, their indirection tables (wq.cpp) and RSS
 * raw packet QPs (rss.cpp): the verbs_context_ops entries context.cpp
 * installs.
 */
#ifndef SROCE_PROVIDER_WQ_H
#define SROCE_PROVIDER_WQ_H

#include <pthread.h>
#include <type_traits>

#include "ring_map.h"
#include "sroce.h"
#include "wqe.h"

namespace sroce {

/*
 * One receive WQ.  calloc()ed, trivially constructible.  lock serialises
 * the posts (the producer side of the ring); the ring memory is shared
 * with the kernel, which consumes as frames arrive.
 */
struct wq {
	ibv_wq ibwq; /* first: libibverbs' part */
	pthread_spinlock_t lock;
	work_queue rq; /* under lock */
	ring_mapping map; /* the mapping of the ring */
};
static_assert(std::is_standard_layout_v<wq>);
static_assert(std::is_trivially_default_constructible_v<wq>);

inline wq *to_wq(ibv_wq *ibwq) noexcept
{
	return reinterpret_cast<wq *>(ibwq);
}

ibv_wq *create_wq(ibv_context *ibctx, ibv_wq_init_attr *attr) noexcept;
int modify_wq(ibv_wq *ibwq, ibv_wq_attr *attr) noexcept;
int destroy_wq(ibv_wq *ibwq) noexcept;
ibv_rwq_ind_table *
create_rwq_ind_table(ibv_context *ibctx,
		     ibv_rwq_ind_table_init_attr *attr) noexcept;
int destroy_rwq_ind_table(ibv_rwq_ind_table *tbl) noexcept;

/*
 * rss.cpp: ibv_create_qp_ex() of a raw packet QP with an indirection
 * table (IBV_QP_INIT_ATTR_IND_TABLE and _RX_HASH, with _PD): it has no
 * rings.  EOPNOTSUPP for another QP type, hash function or field, send
 * ops; EINVAL without a hash or with another key length.
 */
ibv_qp *create_rss_qp(ibv_context *ibctx, ibv_qp_init_attr_ex *attr) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_WQ_H */
