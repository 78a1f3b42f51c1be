/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * cq.h - completion queues on a ring the kernel shares with us (cq.cpp).
 */
#ifndef SROCE_PROVIDER_CQ_H
#define SROCE_PROVIDER_CQ_H

#include <pthread.h>
#include <type_traits>

#include "pd.h"
#include "ring.h"
#include "ring_map.h"
#include "sroce.h"

namespace sroce {

/*
 * One CQ.  Zero-filled memory from obj_alloc() (pd.h: the allocator of
 * the parent domain of ibv_create_cq_ex(), if any; the provider links no
 * C++ runtime), so it must stay trivially constructible.  lock serialises poll, arm and resize (a resize
 * replaces the mapping under it); the ring memory itself is shared with the
 * kernel, which only produces.
 */
struct cq {
	verbs_cq vcq; /* first: libibverbs' part */
	pthread_spinlock_t lock;
	ring_view ring; /* under lock */
	ring_mapping map; /* the mapping of the ring; under lock */
	bool broken; /* a resize left no usable ring: poll fails */
	/*
	 * The extended poll (cq_ex.cpp): from start_poll to end_poll the
	 * lock is held, cons is the consumer index start_poll found, cur
	 * the index of the CQE being read, wc that CQE as a work
	 * completion and completion_ts, wallclock_ns its timestamps (0 when
	 * the CQ was created without them), which the ibv_wc_read_*()
	 * accessors read.
	 */
	std::uint32_t cons;
	std::uint32_t cur;
	ibv_wc wc;
	std::uint64_t completion_ts;
	std::uint64_t wallclock_ns;
	obj_mem mem; /* where this object's memory came from */
};
static_assert(std::is_standard_layout_v<cq>);
static_assert(std::is_trivially_default_constructible_v<cq>);

inline cq *to_cq(ibv_cq *ibcq) noexcept
{
	return reinterpret_cast<cq *>(ibcq);
}

ibv_cq *create_cq(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		  int comp_vector) noexcept;
/*
 * create_cq() with the object's memory from parent_domain's allocator and
 * stamp (enum sroce_cq_flags) in the command: the clocks the kernel reads
 * into each CQE.
 */
ibv_cq *create_cq_on(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		     int comp_vector, ibv_pd *parent_domain,
		     std::uint32_t stamp) noexcept;
int destroy_cq(ibv_cq *ibcq) noexcept;
int poll_cq(ibv_cq *ibcq, int num_entries, ibv_wc *wc) noexcept;
int req_notify_cq(ibv_cq *ibcq, int solicited_only) noexcept;
int resize_cq(ibv_cq *ibcq, int cqe) noexcept;

/*
 * The extended CQ (cq_ex.cpp): the same CQ and ring, polled through
 * ibv_start_poll() and the ibv_wc_read_*() accessors.
 */
ibv_cq_ex *create_cq_ex(ibv_context *ibctx, ibv_cq_init_attr_ex *attr) noexcept;

/*
 * What create_cq_ex() accepts: the IBV_WC_STANDARD_FLAGS and the two
 * completion timestamps (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: the device
 * clock, CLOCK_MONOTONIC in ns; _WALLCLOCK: CLOCK_REALTIME in ns), the comp_mask
 * bit IBV_CQ_INIT_ATTR_MASK_FLAGS with IBV_CREATE_CQ_ATTR_SINGLE_THREADED
 * (a hint: the CQ locks anyway), IBV_CQ_INIT_ATTR_MASK_PD with a parent
 * domain (EINVAL for a PD or none: ibv_create_cq_ex(3)).  0, or
 * EOPNOTSUPP for the rest: CVLAN, flow tags, tag matching,
 * IGNORE_OVERRUN.
 */
int check_cq_init_attr(const ibv_cq_init_attr_ex &attr) noexcept;

/* The poll and read callbacks of ibv_cq_ex, for the fields wc_flags asks. */
void set_cq_ex_ops(cq *c, std::uint64_t wc_flags) noexcept;

/* The enum sroce_cq_flags the IBV_WC_EX_WITH_* flags of wc_flags ask. */
std::uint32_t cq_stamp_flags(std::uint64_t wc_flags) noexcept;

/*
 * ibv_query_rt_values_ex(): IBV_VALUES_MASK_RAW_CLOCK is the device clock
 * of the completion timestamps, CLOCK_MONOTONIC, read here in user space;
 * as mlx5 does, raw_clock.tv_sec is 0 and raw_clock.tv_nsec the whole
 * raw value (nanoseconds), so tv_sec * 10^9 + tv_nsec is the same value
 * too.  EINVAL when comp_mask asks for anything else (as mlx5); with
 * comp_mask 0, nothing.
 */
int query_rt_values(ibv_context *ibctx, ibv_values_ex *values) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_CQ_H */
