/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ring.h - the rings the kernel shares with the provider (see the ring
 * section of <rdma/sroce-abi.h>): their descriptions, views of their
 * words and slots, and the consumer side of the CQ ring.  Mapping them is
 * ring_map.h, the producer side of the QP and SRQ rings wqe.h.
 *
 * Pure logic over memory: no system calls, no libibverbs state, so the host
 * unit tests drive it over an ordinary buffer standing in for the mapping.
 *
 * Indices are free-running uint32_t counters; slot = index & (entries - 1).
 * The producer (the kernel) stores its index with release; the consumer
 * loads it with acquire, copies the entries out, then stores its own index
 * with release.  Arming a CQ is an atomic OR into the notification word,
 * sequentially consistent, so it is ordered before the loads of the next
 * poll (the kernel does a full barrier between publishing a CQE and reading
 * the word).
 */
#ifndef SROCE_PROVIDER_RING_H
#define SROCE_PROVIDER_RING_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

namespace sroce {

/* A checked struct sroce_ring_info. */
struct ring_layout {
	std::uint64_t mmap_offset;
	std::size_t mmap_size;
	std::uint32_t num_entries;
	std::uint32_t entry_size;
	std::uint32_t entries_offset;
	std::uint32_t producer_offset;
	std::uint32_t consumer_offset;
	std::uint32_t notify_offset;
};

/*
 * Check a ring description from the kernel: num_entries a power of two,
 * entry_size at least min_entry_size and a multiple of 8, mmap offset and
 * size multiples of page_size, entries and index words inside the mapping,
 * the index words 4-aligned and outside the entries.  Returns 0 or EPROTO;
 * *out is written only on success.
 */
int parse_ring_info(const sroce_ring_info &info, std::size_t min_entry_size,
		    bool has_notify, std::uint32_t page_size,
		    ring_layout *out) noexcept;

/* Free-running index arithmetic. */
constexpr std::uint32_t ring_used(std::uint32_t prod, std::uint32_t cons)
{
	return prod - cons;
}

constexpr std::uint32_t ring_slot(std::uint32_t index, std::uint32_t mask)
{
	return index & mask;
}

/*
 * The ring words and entries of one mapping.  Trivial (the objects that
 * hold one are calloc()ed); slot() hands out an entry as a span.
 */
struct ring_view {
	unsigned char *entries;
	std::uint32_t *producer;
	std::uint32_t *consumer;
	std::uint32_t *notify; /* nullptr for rings without one */
	std::uint32_t mask; /* num_entries - 1 */
	std::uint32_t entry_size;

	/* The entry_size bytes of the slot free-running index lands in. */
	[[nodiscard]] std::span<unsigned char>
	slot(std::uint32_t index) const noexcept
	{
		const std::size_t off =
			std::size_t{ring_slot(index, mask)} * entry_size;

		return {entries + off, entry_size};
	}
};

/* Point a view at a mapping laid out as layout says. */
ring_view make_ring_view(void *base, const ring_layout &layout) noexcept;

/* A CQE as libibverbs reports it. */
void cqe_to_wc(const sroce_cqe &cqe, ibv_wc *wc) noexcept;

/*
 * Take up to wc.size() CQEs from the ring into wc.  Returns how many, or
 * -1 when the producer index is more than a ring ahead of the consumer (a
 * corrupted ring; nothing is consumed).  Never makes a system call.
 */
int cq_ring_poll(const ring_view &ring, std::span<ibv_wc> wc) noexcept;

/*
 * The extended poll's cursor (cq_ex.cpp): the consumer index as this side
 * last stored it, and a copy of the CQE at free-running index cur (for
 * cqe_to_wc() and the fields an ibv_wc has not, the timestamps).
 * cq_ring_at() returns 0 with *cqe filled, ENOENT when the
 * kernel has produced nothing at cur yet, or EIO when the producer index
 * is more than a ring ahead of cons (a corrupted ring).  Neither moves the
 * consumer index: cq_ring_consume() stores it (release) once the CQEs
 * before it are read.
 */
std::uint32_t cq_ring_consumer(const ring_view &ring) noexcept;
int cq_ring_at(const ring_view &ring, std::uint32_t cons, std::uint32_t cur,
	       sroce_cqe *cqe) noexcept;
void cq_ring_consume(const ring_view &ring, std::uint32_t cons) noexcept;

/*
 * Drop the CQEs of QP qp_num that are not consumed yet, keeping the order
 * of the others: they move towards the producer end over the dropped ones
 * and the consumer index advances past the gap (release).  The kernel
 * only ever writes slots beyond the producer index, so it may go on
 * producing meanwhile.  Returns how many were dropped (0 for a corrupted
 * ring).  For a QP entering RESET, whose completions must not be polled
 * after it (ibv_modify_qp(3)); the caller holds the CQ's lock.
 */
std::uint32_t cq_ring_purge(const ring_view &ring,
			    std::uint32_t qp_num) noexcept;

/* Arm: SROCE_CQ_NOTIFY_SOLICITED if solicited_only, else NEXT_COMP. */
void cq_ring_arm(const ring_view &ring, bool solicited_only) noexcept;

static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic_ref<std::uint32_t>::required_alignment == 4);
static_assert(sizeof(sroce_cqe) == 64);
static_assert(sizeof(sroce_ring_info) == 64);

} /* namespace sroce */

#endif /* SROCE_PROVIDER_RING_H */
