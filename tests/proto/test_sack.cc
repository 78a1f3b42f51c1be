// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Selective acknowledgement: the receiver's arrival window and the
// sender's scoreboard, at the window's edges and across the PSN wrap.
#include <gtest/gtest.h>

#include <vector>

#include "proto.hpp"

namespace {

constexpr uint32_t kMax = SROCE_PSN_MASK;
constexpr uint32_t kBits = SROCE_SACK_BITS;

uint32_t add(uint32_t psn, uint32_t n)
{
	return sroce_psn_add(psn, n);
}

// Every lost PSN of the scoreboard, in order.
std::vector<uint32_t> lost(const sroce_sb &sb)
{
	std::vector<uint32_t> out;
	uint32_t psn = sb.una;
	uint32_t got = 0;
	while (sroce_sb_next_lost(&sb, psn, &got)) {
		out.push_back(got);
		psn = add(got, 1);
	}
	return out;
}

} // namespace

TEST(Sack, InOrderAdvances)
{
	for (uint32_t base : {0u, 12345u, kMax - 2, kMax}) {
		sroce_sack w;
		sroce_sack_init(&w, base);
		for (uint32_t i = 0; i < 300; i++)
			ASSERT_EQ(sroce_sack_mark(&w, add(base, i)),
				  SROCE_SACK_NEW);
		EXPECT_EQ(w.epsn, add(base, 300));
		EXPECT_FALSE(sroce_sack_has_holes(&w));
		EXPECT_EQ(sroce_sack_mark(&w, add(base, 299)),
			  SROCE_SACK_DUPLICATE);
	}
}

TEST(Sack, OutOfOrderThenHoleFilled)
{
	for (uint32_t base : {100u, kMax - 5}) { // the second wraps
		sroce_sack w;
		sroce_sack_init(&w, base);
		EXPECT_EQ(sroce_sack_mark(&w, add(base, 2)), SROCE_SACK_NEW);
		EXPECT_EQ(sroce_sack_mark(&w, add(base, 3)), SROCE_SACK_NEW);
		EXPECT_EQ(sroce_sack_mark(&w, add(base, 3)),
			  SROCE_SACK_DUPLICATE);
		EXPECT_EQ(w.epsn, base);
		EXPECT_TRUE(sroce_sack_has_holes(&w));
		EXPECT_EQ(w.map[0], 0x6u); // epsn + 2, epsn + 3
		EXPECT_EQ(sroce_sack_mark(&w, base), SROCE_SACK_NEW);
		EXPECT_EQ(w.epsn, add(base, 1)); // base + 1 still missing
		EXPECT_EQ(w.map[0], 0x3u);
		EXPECT_EQ(sroce_sack_mark(&w, add(base, 1)), SROCE_SACK_NEW);
		EXPECT_EQ(w.epsn, add(base, 4)); // over the run
		EXPECT_FALSE(sroce_sack_has_holes(&w));
	}
}

TEST(Sack, WindowEdges)
{
	sroce_sack w;
	sroce_sack_init(&w, kMax - 10);
	uint32_t last = add(w.epsn, kBits); // the last PSN of the window
	EXPECT_EQ(sroce_sack_mark(&w, add(last, 1)), SROCE_SACK_BEYOND);
	EXPECT_EQ(sroce_sack_mark(&w, add(w.epsn, 1u << 22)),
		  SROCE_SACK_BEYOND);
	EXPECT_FALSE(sroce_sack_has_holes(&w)); // beyond marks nothing
	EXPECT_EQ(sroce_sack_mark(&w, last), SROCE_SACK_NEW);
	EXPECT_EQ(w.map[SROCE_SACK_WORDS - 1], 1ull << 63);
	EXPECT_EQ(sroce_sack_mark(&w, add(w.epsn, 64)), SROCE_SACK_NEW);
	EXPECT_EQ(w.map[0], 1ull << 63); // epsn + 64: the last of word 0
	EXPECT_EQ(sroce_sack_mark(&w, add(w.epsn, 65)), SROCE_SACK_NEW);
	EXPECT_EQ(w.map[1] & 1, 1u); // epsn + 65: the first of word 1
	// the whole window arrives but epsn: one mark moves over all of it
	uint32_t epsn = w.epsn;
	for (uint32_t i = 1; i <= kBits; i++) {
		sroce_sack_arrival r = sroce_sack_mark(&w, add(epsn, i));
		ASSERT_TRUE(r == SROCE_SACK_NEW || r == SROCE_SACK_DUPLICATE);
	}
	for (uint64_t word : w.map)
		EXPECT_EQ(word, ~0ull);
	EXPECT_EQ(sroce_sack_mark(&w, epsn), SROCE_SACK_NEW);
	EXPECT_EQ(w.epsn, add(epsn, kBits + 1));
	EXPECT_FALSE(sroce_sack_has_holes(&w));
	// old PSNs, up to half the PSN space back, are duplicates
	EXPECT_EQ(sroce_sack_mark(&w, epsn), SROCE_SACK_DUPLICATE);
	EXPECT_EQ(sroce_sack_mark(&w, add(w.epsn, (1u << 23))),
		  SROCE_SACK_DUPLICATE);
}

// The receiver's window against a shuffled arrival: every PSN once, each
// arrival NEW exactly once, epsn at the end past all of them.
TEST(Sack, ShuffledWithinWindow)
{
	sroce_sack w;
	uint32_t base = kMax - 60;
	sroce_sack_init(&w, base);
	std::vector<uint32_t> order;
	for (uint32_t i = 0; i <= kBits; i++)
		order.push_back((i * 37) % (kBits + 1)); // 37 and 129 coprime
	uint32_t news = 0;
	for (uint32_t i : order) {
		sroce_sack_arrival r = sroce_sack_mark(&w, add(base, i));
		ASSERT_NE(r, SROCE_SACK_BEYOND) << i;
		news += r == SROCE_SACK_NEW;
		EXPECT_EQ(sroce_sack_mark(&w, add(base, i)),
			  SROCE_SACK_DUPLICATE);
	}
	EXPECT_EQ(news, kBits + 1);
	EXPECT_EQ(w.epsn, add(base, kBits + 1));
}

TEST(Scoreboard, SendCapsTheFlight)
{
	sroce_sb sb;
	sroce_sb_init(&sb, kMax - 3);
	uint32_t psn = 0;
	for (uint32_t i = 0; i < SROCE_SB_MAX_FLIGHT; i++) {
		ASSERT_TRUE(sroce_sb_send(&sb, &psn));
		EXPECT_EQ(psn, add(kMax - 3, i));
	}
	EXPECT_FALSE(sroce_sb_send(&sb, &psn));
	EXPECT_EQ(sb.next, add(kMax - 3, SROCE_SB_MAX_FLIGHT));
	EXPECT_EQ(sroce_sb_in_flight(&sb), SROCE_SB_MAX_FLIGHT);
}

// The receiver's window, fed what arrived, makes the SACK the sender
// applies: acknowledged and lost PSNs follow IRN's rule.
TEST(Scoreboard, IrnLossRule)
{
	for (uint32_t base : {0u, kMax - 1}) {
		sroce_sb sb;
		sroce_sack w;
		sroce_sb_init(&sb, base);
		sroce_sack_init(&w, base);
		uint32_t psn = 0;
		for (int i = 0; i < 10; i++)
			ASSERT_TRUE(sroce_sb_send(&sb, &psn));
		// 0, 1 arrive; 2 lost; 3, 4 arrive; 5 lost; 6 arrives; 7-9
		// still on their way
		for (uint32_t i : {0u, 1u, 3u, 4u, 6u})
			ASSERT_EQ(sroce_sack_mark(&w, add(base, i)),
				  SROCE_SACK_NEW);
		EXPECT_EQ(lost(sb), std::vector<uint32_t>{}); // no SACK yet
		ASSERT_EQ(sroce_sb_apply(&sb, &w), SROCE_SB_APPLIED);
		EXPECT_EQ(sb.una, add(base, 2));
		EXPECT_EQ(lost(sb),
			  (std::vector<uint32_t>{add(base, 2), add(base, 5)}));
		for (uint32_t i : {0u, 1u, 3u, 4u, 6u})
			EXPECT_TRUE(sroce_sb_acked(&sb, add(base, i))) << i;
		for (uint32_t i : {2u, 5u, 7u, 8u, 9u})
			EXPECT_FALSE(sroce_sb_acked(&sb, add(base, i))) << i;
		uint32_t got = 0;
		EXPECT_TRUE(sroce_sb_next_lost(&sb, add(base, 3), &got));
		EXPECT_EQ(got, add(base, 5));
		EXPECT_FALSE(sroce_sb_next_lost(&sb, add(base, 6), &got));
		// the resent 2 arrives: una moves to 5, 5 still lost
		ASSERT_EQ(sroce_sack_mark(&w, add(base, 2)), SROCE_SACK_NEW);
		ASSERT_EQ(sroce_sb_apply(&sb, &w), SROCE_SB_APPLIED);
		EXPECT_EQ(sb.una, add(base, 5));
		EXPECT_EQ(lost(sb), std::vector<uint32_t>{add(base, 5)});
		// the earlier SACK, reordered behind the later one: stale
		sroce_sack old;
		sroce_sack_init(&old, add(base, 2));
		EXPECT_EQ(sroce_sb_apply(&sb, &old), SROCE_SB_STALE);
		EXPECT_EQ(sb.una, add(base, 5));
		// 5 and everything else arrives: nothing in flight
		for (uint32_t i : {5u, 7u, 8u, 9u})
			ASSERT_EQ(sroce_sack_mark(&w, add(base, i)),
				  SROCE_SACK_NEW);
		ASSERT_EQ(sroce_sb_apply(&sb, &w), SROCE_SB_APPLIED);
		EXPECT_EQ(sroce_sb_in_flight(&sb), 0u);
		EXPECT_EQ(lost(sb), std::vector<uint32_t>{});
	}
}

// A SACK naming a PSN never sent is refused whole: nothing changes.
TEST(Scoreboard, BogusSackRefused)
{
	sroce_sb sb;
	uint32_t base = kMax - 4, psn = 0;
	sroce_sb_init(&sb, base);
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(sroce_sb_send(&sb, &psn)); // base .. base + 7
	sroce_sb before = sb;
	auto same = [&] {
		return sb.una == before.una && sb.next == before.next &&
		       sb.acked[0] == before.acked[0] &&
		       sb.acked[1] == before.acked[1];
	};
	sroce_sack s;
	// epsn beyond next
	sroce_sack_init(&s, add(base, 9));
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_BOGUS);
	EXPECT_TRUE(same());
	// epsn == next acknowledges all; a bit beyond it is never sent
	sroce_sack_init(&s, add(base, 8));
	s.map[0] = 1;
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_BOGUS);
	EXPECT_TRUE(same());
	// a bit for next itself (epsn + 1 + 6 = base + 8)
	sroce_sack_init(&s, add(base, 1));
	s.map[0] = 1ull << 6 | 1;
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_BOGUS);
	EXPECT_TRUE(same());
	// a bit in the far word
	sroce_sack_init(&s, base);
	s.map[SROCE_SACK_WORDS - 1] = 1ull << 63;
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_BOGUS);
	EXPECT_TRUE(same());
	// half the PSN space ahead
	sroce_sack_init(&s, add(base, (1u << 23) - 1));
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_BOGUS);
	EXPECT_TRUE(same());
	// the last PSN sent is fine; so is epsn == next with no bits
	sroce_sack_init(&s, add(base, 1));
	s.map[0] = 1ull << 5; // base + 7
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_APPLIED);
	EXPECT_EQ(lost(sb), (std::vector<uint32_t>{
				    add(base, 1), add(base, 2), add(base, 3),
				    add(base, 4), add(base, 5), add(base, 6)}));
	sroce_sack_init(&s, add(base, 8));
	EXPECT_EQ(sroce_sb_apply(&sb, &s), SROCE_SB_APPLIED);
	EXPECT_EQ(sroce_sb_in_flight(&sb), 0u);
}

// A full flight, SACKed at its far edge: every PSN before it is lost.
TEST(Scoreboard, FullWindow)
{
	sroce_sb sb;
	sroce_sack w;
	uint32_t base = kMax - 70, psn = 0;
	sroce_sb_init(&sb, base);
	sroce_sack_init(&w, base);
	while (sroce_sb_send(&sb, &psn)) {
	}
	ASSERT_EQ(psn, add(base, kBits));
	ASSERT_EQ(sroce_sack_mark(&w, psn), SROCE_SACK_NEW);
	ASSERT_EQ(sroce_sb_apply(&sb, &w), SROCE_SB_APPLIED);
	std::vector<uint32_t> want;
	for (uint32_t i = 0; i < kBits; i++)
		want.push_back(add(base, i));
	EXPECT_EQ(lost(sb), want);
	EXPECT_TRUE(sroce_sb_acked(&sb, psn));
	EXPECT_FALSE(sroce_sb_acked(&sb, add(psn, 1))); // never sent
}
