/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ring_map.h - mapping a ring the kernel describes in a create (or
 * resize) response: one helper for the CQ, SQ, RQ and SRQ rings.
 *
 * map_ring() checks the struct sroce_ring_info (parse_ring_info() in
 * ring.h, and the depth the object needs), logs a refusal through
 * libibverbs (VERBS_LOG_LEVEL=1 shows it), maps the ring MAP_SHARED,
 * read/write, from the uverbs file at its offset, and points a view at
 * it.
 */
#ifndef SROCE_PROVIDER_RING_MAP_H
#define SROCE_PROVIDER_RING_MAP_H

#include <cstddef>
#include <cstdint>

#include "ring.h"
#include "sroce.h"

namespace sroce {

/* What an object asks of the ring it maps, beyond a sane layout. */
struct ring_need {
	const char *what; /* "CQ", "QP SQ", "QP RQ", "SRQ": for the log */
	std::size_t min_entry_size; /* bytes one entry must hold */
	std::uint32_t min_entries; /* the depth granted to the application */
	bool has_notify; /* the ring has a notification word */
};

/*
 * One mapping of the uverbs file, as munmap() takes it, and the offset it
 * was mapped from; zero: none.
 */
struct ring_mapping {
	void *base;
	std::size_t size;
	std::uint64_t offset;
};

/*
 * Map the ring info describes, from ibctx's uverbs file (ibctx belongs
 * to a struct context: its page size and log).  Returns 0 with *view
 * pointing into the new *mapping, EPROTO for a description that fails
 * parse_ring_info() or has fewer than need.min_entries entries (logged),
 * or mmap()'s errno.  Nothing is mapped and *view and *mapping are
 * untouched on failure.
 *
 * With shared, a mapping already made of another ring: when info
 * describes a ring in that same mapping (the same offset and size: a QP's
 * SQ and RQ share one buffer), *view points into it and nothing new is
 * mapped (*mapping is zeroed: it owns nothing).
 */
int map_ring(ibv_context *ibctx, const sroce_ring_info &info,
	     const ring_need &need, ring_view *view, ring_mapping *mapping,
	     const ring_mapping *shared = nullptr) noexcept;

/* Unmap what map_ring() mapped (nothing if zero) and zero *mapping. */
void unmap_ring(ring_mapping *mapping) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_RING_MAP_H */
