// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The anti-replay window of secure mode (see replay.h).
 */
#include "replay.h"

/* The ring's word and bit of counter @ctr */
static u32 sroce_replay_slot(u64 ctr)
{
	return (ctr / 64) % SROCE_REPLAY_WORDS;
}

static u64 sroce_replay_bit(u64 ctr)
{
	return (u64)1 << (ctr % 64);
}

enum sroce_replay_verdict sroce_replay_check(const struct sroce_replay *r,
					     u64 ctr)
{
	if (ctr == SROCE_REPLAY_CTR_INVALID)
		return SROCE_REPLAY_OLD;
	if (ctr >= r->next)
		return SROCE_REPLAY_NEW;
	if (r->next - 1 - ctr >= SROCE_REPLAY_WINDOW)
		return SROCE_REPLAY_OLD;
	return r->ring[sroce_replay_slot(ctr)] & sroce_replay_bit(ctr) ?
	       SROCE_REPLAY_SEEN : SROCE_REPLAY_NEW;
}

enum sroce_replay_verdict sroce_replay_accept(struct sroce_replay *r,
					      u64 ctr)
{
	enum sroce_replay_verdict v = sroce_replay_check(r, ctr);
	u64 top, n, k;

	if (v != SROCE_REPLAY_NEW)
		return v;
	if (ctr >= r->next) {
		/*
		 * The words after the highest counter's, up to ctr's, hold
		 * bits of a lap before: cleared.  (With none accepted yet,
		 * every word is clear.)
		 */
		if (r->next) {
			top = (r->next - 1) / 64;
			n = ctr / 64 - top;
			if (n > SROCE_REPLAY_WORDS)
				n = SROCE_REPLAY_WORDS;
			for (k = 1; k <= n; k++)
				r->ring[(top + k) % SROCE_REPLAY_WORDS] = 0;
		}
		r->next = ctr + 1;
	}
	r->ring[sroce_replay_slot(ctr)] |= sroce_replay_bit(ctr);
	return v;
}
