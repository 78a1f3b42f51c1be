/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * cq.h - completion queues on a ring the kernel shares with us (cq.cpp).
 */
#ifndef SROCE_PROVIDER_CQ_H
#define SROCE_PROVIDER_CQ_H

#include <pthread.h>
#include <type_traits>

#include "ring.h"
#include "ring_map.h"
#include "sroce.h"

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
	ring_mapping map; /* the mapping of the ring; under lock */
	bool broken; /* a resize left no usable ring: poll fails */
};
static_assert(std::is_standard_layout_v<cq>);
static_assert(std::is_trivially_default_constructible_v<cq>);

inline cq *to_cq(ibv_cq *ibcq) noexcept
{
	return reinterpret_cast<cq *>(ibcq);
}

ibv_cq *create_cq(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		  int comp_vector) noexcept;
int destroy_cq(ibv_cq *ibcq) noexcept;
int poll_cq(ibv_cq *ibcq, int num_entries, ibv_wc *wc) noexcept;
int req_notify_cq(ibv_cq *ibcq, int solicited_only) noexcept;
int resize_cq(ibv_cq *ibcq, int cqe) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_CQ_H */
