// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ring_map.cpp - see ring_map.h.
 */
#include "ring_map.h"

#include <cinttypes>
#include <sys/mman.h>

#include "context.h"

namespace sroce {

int map_ring(ibv_context *ibctx, const sroce_ring_info &info,
	     const ring_need &need, ring_view *view, ring_mapping *mapping,
	     const ring_mapping *shared) noexcept
{
	context *ctx = to_ctx(ibctx);
	ring_layout layout{};
	int ret = parse_ring_info(info, need.min_entry_size, need.has_notify,
				  ctx->params.page_size, &layout);

	if (ret == 0 && layout.num_entries < need.min_entries)
		ret = EPROTO;
	if (ret != 0) {
		__verbs_log(&ctx->vctx, VERBS_LOG_ERR,
			    "sroce: %s ring description refused: offset "
			    "%#" PRIx64 " size %" PRIu32 " entries %" PRIu32
			    " entry size %" PRIu32 " (need %zu bytes, %" PRIu32
			    " entries)\n",
			    need.what,
			    static_cast<std::uint64_t>(info.mmap_offset),
			    info.mmap_size, info.num_entries, info.entry_size,
			    need.min_entry_size, need.min_entries);
		return ret;
	}
	if (shared != nullptr && shared->base != nullptr &&
	    shared->offset == layout.mmap_offset &&
	    shared->size == layout.mmap_size) {
		*view = make_ring_view(shared->base, layout);
		*mapping = ring_mapping{};
		return 0;
	}
	void *m = mmap(nullptr, layout.mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, ibctx->cmd_fd,
		       static_cast<off_t>(layout.mmap_offset));
	if (m == MAP_FAILED)
		return errno;
	*view = make_ring_view(m, layout);
	*mapping = ring_mapping{.base = m,
				.size = layout.mmap_size,
				.offset = layout.mmap_offset};
	return 0;
}

void unmap_ring(ring_mapping *mapping) noexcept
{
	if (mapping->base != nullptr)
		munmap(mapping->base, mapping->size);
	*mapping = ring_mapping{};
}

} /* namespace sroce */
