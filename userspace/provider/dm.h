/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * dm.h - device memory (dm.cpp): ibv_alloc_dm(), ibv_free_dm(),
 * ibv_memcpy_to_dm() / ibv_memcpy_from_dm(), ibv_reg_dm_mr(),
 * ibv_import_dm() / ibv_unimport_dm().
 *
 * sroce's device memory is kernel memory of the device (the kernel's
 * dm.c); the provider maps it from the uverbs file where
 * SROCE_METHOD_DM_QUERY says, and copies to and from the mapping.  As on
 * hardware with on-chip memory, a copy's offset and length must be
 * multiples of 4 (dm_copy_align) and lie inside the allocation: anything
 * else is EINVAL with nothing copied.
 */
#ifndef SROCE_PROVIDER_DM_H
#define SROCE_PROVIDER_DM_H

#include <cstddef>
#include <cstdint>

#include "sroce.h"

namespace sroce {

/* The alignment of ibv_memcpy_*_dm()'s offset and length. */
inline constexpr std::uint64_t dm_copy_align = 4;

/* One DM as this context sees it; calloc()ed, vdm first. */
struct dm {
	verbs_dm vdm;
	void *map; /* the mapping of the DM, map_size bytes */
	std::size_t map_size;
	std::uint64_t length; /* the bytes a copy may reach */
};

/*
 * Whether a copy of length bytes at offset stays inside a DM of dm_length
 * bytes and keeps dm_copy_align: 0 or EINVAL.
 */
int dm_check_copy(std::uint64_t dm_length, std::uint64_t offset,
		  std::size_t length) noexcept;

ibv_dm *alloc_dm(ibv_context *ibctx, ibv_alloc_dm_attr *attr) noexcept;
int free_dm(ibv_dm *ibdm) noexcept;
ibv_dm *import_dm(ibv_context *ibctx, std::uint32_t handle) noexcept;
void unimport_dm(ibv_dm *ibdm) noexcept;
ibv_mr *reg_dm_mr(ibv_pd *pd, ibv_dm *ibdm, std::uint64_t dm_offset,
		  std::size_t length, unsigned int access) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_DM_H */
