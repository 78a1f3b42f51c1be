// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// The anti-replay window of secure mode (#39): replays, reordering within
// the window, counters too old, jumps of a lap and more, and a long random
// walk against a model that remembers every counter.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "proto.hpp"

namespace {

constexpr uint64_t kWindow = SROCE_REPLAY_WINDOW;
constexpr uint64_t kBits = SROCE_REPLAY_BITS;

struct Replay {
	sroce_replay r;
	Replay() { sroce_replay_init(&r); }
	sroce_replay_verdict check(uint64_t c) const
	{
		return sroce_replay_check(&r, c);
	}
	sroce_replay_verdict accept(uint64_t c)
	{
		return sroce_replay_accept(&r, c);
	}
};

} // namespace

TEST(Replay, InOrderThenReplayed)
{
	Replay w;
	for (uint64_t c = 0; c < 10000; c++) {
		ASSERT_EQ(w.check(c), SROCE_REPLAY_NEW) << c;
		ASSERT_EQ(w.accept(c), SROCE_REPLAY_NEW) << c;
		ASSERT_EQ(w.accept(c), SROCE_REPLAY_SEEN) << c;
	}
	for (uint64_t c = 10000 - kWindow; c < 10000; c++)
		EXPECT_EQ(w.check(c), SROCE_REPLAY_SEEN) << c;
	EXPECT_EQ(w.check(10000 - kWindow - 1), SROCE_REPLAY_OLD);
	EXPECT_EQ(w.check(0), SROCE_REPLAY_OLD);
}

TEST(Replay, CheckChangesNothing)
{
	Replay w;
	EXPECT_EQ(w.check(5), SROCE_REPLAY_NEW);
	EXPECT_EQ(w.check(5), SROCE_REPLAY_NEW);
	EXPECT_EQ(w.r.next, 0u);
	EXPECT_EQ(w.accept(5), SROCE_REPLAY_NEW);
	EXPECT_EQ(w.check(5), SROCE_REPLAY_SEEN);
	// Below the first one accepted, within the window: still new.
	EXPECT_EQ(w.check(0), SROCE_REPLAY_NEW);
}

TEST(Replay, ReorderedWithinTheWindow)
{
	Replay w;
	const uint64_t top = 1000000;
	ASSERT_EQ(w.accept(top), SROCE_REPLAY_NEW);
	const uint64_t oldest = top - kWindow + 1;
	// Every third counter the window still tells apart, oldest first.
	for (uint64_t c = oldest; c < top; c += 3)
		ASSERT_EQ(w.accept(c), SROCE_REPLAY_NEW) << c;
	for (uint64_t c = oldest; c < top; c++) {
		const auto want = (c - oldest) % 3 == 0 ? SROCE_REPLAY_SEEN
							: SROCE_REPLAY_NEW;
		ASSERT_EQ(w.check(c), want) << c;
	}
	EXPECT_EQ(w.check(top - kWindow), SROCE_REPLAY_OLD);
	EXPECT_EQ(w.accept(top - kWindow), SROCE_REPLAY_OLD);
}

// A jump of exactly one lap of the ring, and of more: no bit of the lap
// before may make a new counter look replayed.
TEST(Replay, JumpsClearTheLapBefore)
{
	for (uint64_t jump : {uint64_t{64}, kBits - 64, kBits, kBits + 1,
			      kBits + 63, 2 * kBits, uint64_t{1} << 40}) {
		Replay w;
		for (uint64_t c = 0; c < 64; c++)
			ASSERT_EQ(w.accept(c), SROCE_REPLAY_NEW);
		const uint64_t top = 63 + jump;
		ASSERT_EQ(w.accept(top), SROCE_REPLAY_NEW) << jump;
		const uint64_t oldest = top >= kWindow ? top - kWindow + 1 : 0;
		for (uint64_t c = oldest; c < top; c++) {
			const auto want =
				c < 64 ? SROCE_REPLAY_SEEN : SROCE_REPLAY_NEW;
			ASSERT_EQ(w.check(c), want) << jump << " " << c;
		}
	}
}

TEST(Replay, TheLastCounters)
{
	Replay w;
	const uint64_t max = SROCE_REPLAY_CTR_INVALID;
	EXPECT_EQ(w.check(max), SROCE_REPLAY_OLD);
	EXPECT_EQ(w.accept(max), SROCE_REPLAY_OLD);
	EXPECT_EQ(w.r.next, 0u);
	EXPECT_EQ(w.accept(max - 1), SROCE_REPLAY_NEW);
	EXPECT_EQ(w.accept(max - 1), SROCE_REPLAY_SEEN);
	EXPECT_EQ(w.accept(max - 2), SROCE_REPLAY_NEW);
	EXPECT_EQ(w.accept(max), SROCE_REPLAY_OLD);
	EXPECT_EQ(w.check(0), SROCE_REPLAY_OLD);
}

// A random walk of counters (mostly forward, some back, some far) against
// a model: within the window a counter is SEEN exactly when it was
// accepted, behind it OLD, ahead NEW.
TEST(Replay, AgreesWithAModel)
{
	std::mt19937_64 rng(36);
	for (int run = 0; run < 20; run++) {
		Replay w;
		std::set<uint64_t> accepted;
		uint64_t next = 0;
		uint64_t c = rng() % 100;
		for (int i = 0; i < 20000; i++) {
			switch (rng() % 10) {
			case 0:
				c += rng() % (3 * kBits);
				break;
			case 1:
			case 2:
				c -= std::min<uint64_t>(c,
							rng() % (kBits + 64));
				break;
			default:
				c += rng() % 4;
			}
			sroce_replay_verdict want = SROCE_REPLAY_NEW;
			if (c < next && next - 1 - c >= kWindow)
				want = SROCE_REPLAY_OLD;
			else if (accepted.count(c))
				want = SROCE_REPLAY_SEEN;
			ASSERT_EQ(w.check(c), want)
				<< run << " " << i << " " << c;
			ASSERT_EQ(w.accept(c), want);
			if (want == SROCE_REPLAY_NEW) {
				accepted.insert(c);
				next = std::max(next, c + 1);
			}
		}
	}
}
