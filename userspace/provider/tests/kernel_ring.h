/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * kernel_ring.h - rings as sroce.ko lays them out, for the unit tests: the
 * description a create response carries, and a ring over a plain buffer
 * standing in for the mapping.
 */
#ifndef SROCE_PROVIDER_TESTS_KERNEL_RING_H
#define SROCE_PROVIDER_TESTS_KERNEL_RING_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "ring.h"

namespace sroce_test {

constexpr std::uint32_t kernel_page = 4096;

/* A T as it lies at p in a ring (a WQE, a CQE), whatever p's alignment. */
template <typename T>
T read_as(const unsigned char *p)
{
	T v;
	std::memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The description of a ring of n entries (drivers/sroce/queue.h): the
 * producer, consumer and notification words at 0, 128 and 256 (no
 * notification word: 0), the entries from 512, the mapping rounded up to
 * whole pages, at offset mmap_offset of the uverbs file.
 */
inline sroce_ring_info kernel_ring_info(std::uint32_t n,
					std::uint32_t entry_size,
					std::uint64_t mmap_offset, bool notify)
{
	sroce_ring_info i{};

	i.mmap_offset = mmap_offset;
	i.num_entries = n;
	i.entry_size = entry_size;
	i.entries_offset = 512;
	i.producer_offset = 0;
	i.consumer_offset = 128;
	i.notify_offset = notify ? 256 : 0;
	i.mmap_size = (512 + n * entry_size + kernel_page - 1) / kernel_page *
		      kernel_page;
	return i;
}

/*
 * The ring info describes, checked as the provider checks it, over mem
 * (zero-filled, the mapping's size) in place of the mapping.
 */
inline void ring_over_buffer(std::vector<unsigned char> &mem,
			     const sroce_ring_info &info,
			     std::size_t min_entry_size, bool has_notify,
			     sroce::ring_view *view,
			     sroce::ring_layout *layout = nullptr)
{
	sroce::ring_layout l{};

	ASSERT_EQ(sroce::parse_ring_info(info, min_entry_size, has_notify,
					 kernel_page, &l),
		  0);
	mem.assign(l.mmap_size, 0);
	*view = sroce::make_ring_view(mem.data(), l);
	if (layout != nullptr)
		*layout = l;
}

} /* namespace sroce_test */

#endif /* SROCE_PROVIDER_TESTS_KERNEL_RING_H */
