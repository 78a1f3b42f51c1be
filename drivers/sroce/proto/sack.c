// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The receiver's arrival window and the sender's scoreboard (see sack.h).
 * Bit i of a bitmap is bit i % 64 of word i / 64.
 */
#include "sack.h"

/* Drops the n lowest bits of the bitmap, the others move down by n. */
static void sroce_map_shift(u64 *map, u32 n)
{
	u32 words = n / 64, bits = n % 64, k;

	for (k = 0; k < SROCE_SACK_WORDS; k++) {
		u64 lo = k + words < SROCE_SACK_WORDS ? map[k + words] : 0;
		u64 hi = k + words + 1 < SROCE_SACK_WORDS ?
			 map[k + words + 1] : 0;

		map[k] = bits ? lo >> bits | hi << (64 - bits) : lo;
	}
}

/* Number of set bits from bit 0 up to the first clear one */
static u32 sroce_map_run(const u64 *map)
{
	u32 k;

	for (k = 0; k < SROCE_SACK_WORDS; k++)
		if (~map[k])
			return 64 * k + (u32)__builtin_ctzll(~map[k]);
	return SROCE_SACK_BITS;
}

/* One more than the index of the highest set bit; 0 when none is */
static u32 sroce_map_top(const u64 *map)
{
	u32 k;

	for (k = SROCE_SACK_WORDS; k-- > 0;)
		if (map[k])
			return 64 * k + 64 - (u32)__builtin_clzll(map[k]);
	return 0;
}

/* Index of the first clear bit at or after i, or SROCE_SACK_BITS */
static u32 sroce_map_next_clear(const u64 *map, u32 i)
{
	u32 k;

	for (k = i / 64; k < SROCE_SACK_WORDS; k++) {
		u64 free = ~map[k];

		if (k == i / 64)
			free &= ~0ULL << (i % 64);
		if (free)
			return 64 * k + (u32)__builtin_ctzll(free);
	}
	return SROCE_SACK_BITS;
}

static bool sroce_map_test(const u64 *map, u32 i)
{
	return map[i / 64] >> (i % 64) & 1;
}

enum sroce_sack_arrival sroce_sack_mark(struct sroce_sack *w, u32 psn)
{
	s32 d = sroce_psn_diff(psn, w->epsn);
	u32 run;

	if (d < 0)
		return SROCE_SACK_DUPLICATE;
	if (d == 0) {
		run = sroce_map_run(w->map) + 1;
		sroce_map_shift(w->map, run);
		w->epsn = sroce_psn_add(w->epsn, run);
		return SROCE_SACK_NEW;
	}
	if (d > SROCE_SACK_BITS)
		return SROCE_SACK_BEYOND;
	if (sroce_map_test(w->map, d - 1))
		return SROCE_SACK_DUPLICATE;
	w->map[(d - 1) / 64] |= 1ULL << ((d - 1) % 64);
	return SROCE_SACK_NEW;
}

bool sroce_sack_has_holes(const struct sroce_sack *w)
{
	return sroce_map_top(w->map) != 0;
}

bool sroce_sb_send(struct sroce_sb *sb, u32 *psn)
{
	if (sroce_sb_in_flight(sb) >= SROCE_SB_MAX_FLIGHT)
		return false;
	*psn = sb->next;
	sb->next = sroce_psn_add(sb->next, 1);
	return true;
}

enum sroce_sb_verdict sroce_sb_apply(struct sroce_sb *sb,
				     const struct sroce_sack *sack)
{
	u32 flight = sroce_sb_in_flight(sb);
	u32 adv = sroce_psn_outstanding(sack->epsn, sb->una);
	u32 top = sroce_map_top(sack->map), k;

	if (sroce_psn_before(sack->epsn, sb->una))
		return SROCE_SB_STALE;
	if (adv > flight)
		return SROCE_SB_BOGUS;
	/* its bits name epsn + 1 .. epsn + top: all before next? */
	if (top && adv + top >= flight)
		return SROCE_SB_BOGUS;
	sroce_map_shift(sb->acked, adv);
	for (k = 0; k < SROCE_SACK_WORDS; k++)
		sb->acked[k] |= sack->map[k];
	sb->una = sack->epsn & SROCE_PSN_MASK;
	return SROCE_SB_APPLIED;
}

bool sroce_sb_acked(const struct sroce_sb *sb, u32 psn)
{
	s32 d = sroce_psn_diff(psn, sb->una);

	if (d <= 0)
		return d < 0;
	return d <= SROCE_SACK_BITS && sroce_map_test(sb->acked, d - 1);
}

bool sroce_sb_next_lost(const struct sroce_sb *sb, u32 from, u32 *psn)
{
	u32 top = sroce_map_top(sb->acked), i;
	s32 d = sroce_psn_diff(from, sb->una);

	if (!top)
		return false;
	if (d <= 0) {
		*psn = sb->una;
		return true;
	}
	if (d > SROCE_SACK_BITS)
		return false;
	i = sroce_map_next_clear(sb->acked, d - 1);
	if (i >= top)
		return false;
	*psn = sroce_psn_add(sb->una, i + 1);
	return true;
}
