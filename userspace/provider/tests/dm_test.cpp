// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The bounds of ibv_memcpy_to_dm() / ibv_memcpy_from_dm(): offsets and
 * lengths must be multiples of 4 and stay inside the allocation, with no
 * wrap of offset + length.
 */
#include <cerrno>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "dm.h"

namespace {

using sroce::dm_check_copy;

TEST(DmCopy, InsideTheAllocation)
{
	EXPECT_EQ(dm_check_copy(100, 0, 100), 0);
	EXPECT_EQ(dm_check_copy(100, 96, 4), 0);
	EXPECT_EQ(dm_check_copy(100, 100, 0), 0);
	EXPECT_EQ(dm_check_copy(100, 0, 0), 0);
}

TEST(DmCopy, PastTheEnd)
{
	EXPECT_EQ(dm_check_copy(100, 0, 104), EINVAL);
	EXPECT_EQ(dm_check_copy(100, 96, 8), EINVAL);
	EXPECT_EQ(dm_check_copy(100, 104, 0), EINVAL);
	EXPECT_EQ(dm_check_copy(100, 104, 4), EINVAL);
}

TEST(DmCopy, Wrapping)
{
	constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
	EXPECT_EQ(dm_check_copy(100, top - 3, 8), EINVAL);
	EXPECT_EQ(dm_check_copy(100, 4,
				std::numeric_limits<std::size_t>::max() - 3),
		  EINVAL);
}

TEST(DmCopy, Unaligned)
{
	EXPECT_EQ(dm_check_copy(100, 3, 4), EINVAL);
	EXPECT_EQ(dm_check_copy(100, 4, 3), EINVAL);
	EXPECT_EQ(dm_check_copy(100, 2, 2), EINVAL);
}

} /* namespace */
