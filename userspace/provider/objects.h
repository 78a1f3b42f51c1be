/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * objects.h - PDs, MRs and CQs of the provider (pd_mr.cpp, cq.cpp): the
 * verbs_context_ops entries context.cpp installs.
 */
#ifndef SROCE_PROVIDER_OBJECTS_H
#define SROCE_PROVIDER_OBJECTS_H

#include <pthread.h>
#include <type_traits>

#include "ring.h"
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

ibv_pd *alloc_pd(ibv_context *ibctx) noexcept;
int dealloc_pd(ibv_pd *pd) noexcept;
ibv_mr *reg_mr(ibv_pd *pd, void *addr, std::size_t length, std::uint64_t hca_va,
	       int access) noexcept;
int dereg_mr(verbs_mr *vmr) noexcept;

ibv_cq *create_cq(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		  int comp_vector) noexcept;
int destroy_cq(ibv_cq *ibcq) noexcept;
int poll_cq(ibv_cq *ibcq, int num_entries, ibv_wc *wc) noexcept;
int req_notify_cq(ibv_cq *ibcq, int solicited_only) noexcept;
int resize_cq(ibv_cq *ibcq, int cqe) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_OBJECTS_H */
