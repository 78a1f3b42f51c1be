// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// 24-bit PSN arithmetic, especially around the wrap at 2^24.
#include <gtest/gtest.h>

#include "proto.hpp"

constexpr uint32_t kMax = SROCE_PSN_MASK; // 2^24 - 1
constexpr int32_t kHalf = 1 << 23;

TEST(Psn, AddWraps)
{
	EXPECT_EQ(sroce_psn_add(0, 1), 1u);
	EXPECT_EQ(sroce_psn_add(kMax, 1), 0u);
	EXPECT_EQ(sroce_psn_add(kMax, 2), 1u);
	EXPECT_EQ(sroce_psn_add(0xfffff0, 0x20), 0x10u);
	EXPECT_EQ(sroce_psn_add(5, 1u << 24), 5u);
}

TEST(Psn, Diff)
{
	EXPECT_EQ(sroce_psn_diff(5, 5), 0);
	EXPECT_EQ(sroce_psn_diff(6, 5), 1);
	EXPECT_EQ(sroce_psn_diff(5, 6), -1);
	EXPECT_EQ(sroce_psn_diff(0, kMax), 1);
	EXPECT_EQ(sroce_psn_diff(kMax, 0), -1);
	EXPECT_EQ(sroce_psn_diff(3, 0xfffffe), 5);
	EXPECT_EQ(sroce_psn_diff(kHalf - 1, 0), kHalf - 1);
	EXPECT_EQ(sroce_psn_diff(kHalf, 0), -kHalf);
	EXPECT_EQ(sroce_psn_diff(0, kHalf), -kHalf);
	// upper bits are ignored
	EXPECT_EQ(sroce_psn_diff(0xff000001, 0x00000000), 1);
}

TEST(Psn, CompareAcrossWrap)
{
	EXPECT_EQ(sroce_psn_cmp(0, kMax), 1);
	EXPECT_EQ(sroce_psn_cmp(kMax, 0), -1);
	EXPECT_EQ(sroce_psn_cmp(7, 7), 0);
	EXPECT_TRUE(sroce_psn_before(kMax, 0));
	EXPECT_FALSE(sroce_psn_before(0, kMax));
	EXPECT_FALSE(sroce_psn_before(7, 7));
	for (uint32_t base : {0u, 1u, 0x7fffffu, 0x800000u, kMax - 3, kMax}) {
		for (int32_t d : {1, 2, 100, kHalf - 1}) {
			uint32_t later =
				sroce_psn_add(base, static_cast<uint32_t>(d));
			EXPECT_TRUE(sroce_psn_before(base, later))
				<< base << "+" << d;
			EXPECT_FALSE(sroce_psn_before(later, base));
			EXPECT_EQ(sroce_psn_diff(later, base), d);
		}
	}
}

TEST(Psn, Window)
{
	EXPECT_EQ(sroce_psn_outstanding(10, 10), 0u);
	EXPECT_EQ(sroce_psn_outstanding(2, kMax - 1), 4u);
	EXPECT_TRUE(sroce_psn_window_open(sroce_psn_add(kMax, 127), kMax, 128));
	EXPECT_FALSE(
		sroce_psn_window_open(sroce_psn_add(kMax, 128), kMax, 128));
	EXPECT_TRUE(sroce_psn_in_range(0, kMax, 2));
	EXPECT_TRUE(sroce_psn_in_range(kMax, kMax, 2));
	EXPECT_FALSE(sroce_psn_in_range(1, kMax, 2));
	EXPECT_FALSE(sroce_psn_in_range(kMax - 1, kMax, 2));
	EXPECT_FALSE(sroce_psn_in_range(5, 5, 0));
}

TEST(Psn, Classify)
{
	EXPECT_EQ(sroce_psn_classify(100, 100), SROCE_PSN_EXPECTED);
	EXPECT_EQ(sroce_psn_classify(99, 100), SROCE_PSN_DUPLICATE);
	EXPECT_EQ(sroce_psn_classify(101, 100), SROCE_PSN_AHEAD);
	EXPECT_EQ(sroce_psn_classify(kMax, 0), SROCE_PSN_DUPLICATE);
	EXPECT_EQ(sroce_psn_classify(0, kMax), SROCE_PSN_AHEAD);
	// the duplicate region is the 2^23 PSNs before the expected one
	EXPECT_EQ(sroce_psn_classify(sroce_psn_add(0, (1u << 24) - 1), 0),
		  SROCE_PSN_DUPLICATE);
	EXPECT_EQ(sroce_psn_classify(static_cast<uint32_t>(kHalf - 1), 0),
		  SROCE_PSN_AHEAD);
	EXPECT_EQ(sroce_psn_classify(static_cast<uint32_t>(kHalf), 0),
		  SROCE_PSN_DUPLICATE);
}
