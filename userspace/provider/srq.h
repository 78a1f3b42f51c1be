/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * srq.h - shared receive queues of the provider (srq.cpp): the
 * verbs_context_ops entries context.cpp installs.
 */
#ifndef SROCE_PROVIDER_SRQ_H
#define SROCE_PROVIDER_SRQ_H

#include <pthread.h>
#include <type_traits>

#include "pd.h"
#include "ring_map.h"
#include "sroce.h"
#include "wqe.h"

namespace sroce {

/*
 * One SRQ.  From obj_alloc() (pd.h), trivially constructible, like struct
 * qp.  lock
 * serialises the posts (the producer side of the ring); the ring memory is
 * shared with the kernel, whose responders (of every QP using the SRQ)
 * consume.
 */
struct srq {
	verbs_srq vsrq; /* first: libibverbs' part (vsrq.srq the ibv_srq) */
	pthread_spinlock_t lock;
	work_queue rq; /* under lock */
	ring_mapping map; /* the mapping of the ring */
	obj_mem mem; /* where this object's memory came from */
};
static_assert(std::is_standard_layout_v<srq>);
static_assert(std::is_trivially_default_constructible_v<srq>);

inline srq *to_srq(ibv_srq *ibsrq) noexcept
{
	return reinterpret_cast<srq *>(ibsrq);
}

ibv_srq *create_srq(ibv_pd *pd, ibv_srq_init_attr *attr) noexcept;

/*
 * After the kernel created s: its ring mapped, its lock, its limits from
 * what the kernel granted (attr, as libibverbs wrote it back).  0, or an
 * errno with nothing left mapped or initialised.
 */
int srq_setup(srq *s, ibv_context *ibctx, const ibv_srq_attr &attr,
	      const sroce_create_srq_resp &drv) noexcept;
int modify_srq(ibv_srq *ibsrq, ibv_srq_attr *attr, int attr_mask) noexcept;
int query_srq(ibv_srq *ibsrq, ibv_srq_attr *attr) noexcept;
int destroy_srq(ibv_srq *ibsrq) noexcept;
int post_srq_recv(ibv_srq *ibsrq, ibv_recv_wr *wr,
		  ibv_recv_wr **bad_wr) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_SRQ_H */
