/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The anti-replay window of secure mode (issue #39): which packet counters
 * of one key and direction a receiver has accepted.
 *
 * As IPsec ESP's (RFC 4303, 3.4.3) and WireGuard's: the highest counter
 * accepted and a bitmap of the counters just below it, kept as a ring of
 * words (RFC 6479): moving up clears whole words, nothing shifts.  The
 * ring holds SROCE_REPLAY_BITS bits, of which SROCE_REPLAY_WINDOW are
 * always valid; a counter further behind the highest is refused as too
 * old to tell.
 *
 * A receiver asks sroce_replay_check() before it runs the AEAD, so that a
 * replay costs no decryption, and records the counter with
 * sroce_replay_accept() only once the tag proved the packet authentic: a
 * forged packet never moves the window.  No locking here: one window has
 * one writer at a time (the caller's lock).  No allocation.
 */
#ifndef SROCE_PROTO_REPLAY_H
#define SROCE_PROTO_REPLAY_H

#include "compat.h"

#define SROCE_REPLAY_WORDS	32
#define SROCE_REPLAY_BITS	(64 * SROCE_REPLAY_WORDS)
/* How far behind the highest accepted counter one is still told apart */
#define SROCE_REPLAY_WINDOW	(SROCE_REPLAY_BITS - 64)
/* Never a packet's counter: a key is retired before (the sender rekeys) */
#define SROCE_REPLAY_CTR_INVALID	(~(u64)0)

/*
 * @next: one more than the highest counter accepted; 0 while none was
 * @ring: bit c % 64 of word (c / 64) % SROCE_REPLAY_WORDS set when
 *	counter c (within the window) was accepted
 */
struct sroce_replay {
	u64 next;
	u64 ring[SROCE_REPLAY_WORDS];
};

enum sroce_replay_verdict {
	SROCE_REPLAY_NEW,	/* never accepted: authenticate it */
	SROCE_REPLAY_SEEN,	/* accepted before: a replay, drop it */
	SROCE_REPLAY_OLD,	/* too far behind, or invalid: drop it */
};

static inline void sroce_replay_init(struct sroce_replay *r)
{
	memset(r, 0, sizeof(*r));
}

/* What counter @ctr is to the window; changes nothing */
enum sroce_replay_verdict sroce_replay_check(const struct sroce_replay *r,
					     u64 ctr);

/*
 * Records @ctr as accepted when it is new (the window moves up when it is
 * the highest yet).  Returns what it was before: only SROCE_REPLAY_NEW
 * changed anything.
 */
enum sroce_replay_verdict sroce_replay_accept(struct sroce_replay *r,
					      u64 ctr);

#endif /* SROCE_PROTO_REPLAY_H */
