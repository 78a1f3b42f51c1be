// SPDX-License-Identifier: GPL-2.0
/*
 * ident.c - identifiers nobody can guess: the QP numbers, XRC SRQ numbers
 * and memory key indices a device hands out.
 *
 * Each is a secret permutation of a counter: the n-th identifier of a
 * kind is P(n mod 2^24), where P is a ten-round Feistel network on two
 * 12-bit halves whose round function is SipHash-2-4 under 128 random bits
 * drawn when the device is created, one key per kind.  So:
 *  - no identifier repeats before 2^24 have been drawn (P is a bijection
 *    and its input does not repeat before then);
 *  - without the key, the next identifier is not predictable from the
 *    ones seen before it: each is uniform over the 24-bit values not yet
 *    drawn in this round of the counter (the Feistel network is a
 *    pseudorandom permutation when its round function is a pseudorandom
 *    function; ten rounds is what FF1 uses).
 * A value below the kind's minimum (reserved QPNs, key index 0) or still
 * in use (after the counter wrapped) is skipped.  The identifiers are
 * sparse: their xarray holds about one leaf node (576 bytes) per
 * identifier instead of one per 64 (Documentation/security.md).
 */
#include <linux/random.h>

#include "ident.h"

#define SROCE_IDENT_HALF_BITS	12
#define SROCE_IDENT_HALF_MASK	((1U << SROCE_IDENT_HALF_BITS) - 1)
#define SROCE_IDENT_ROUNDS	10

/*
 * Draws before giving up: at most one identifier in 64 is in use (at most
 * 2^18 QPs, 2^20 keys, 2^16 SRQs of 2^24), so 64 draws all taken happen
 * with a probability below 2^-256.
 */
#define SROCE_IDENT_TRIES	64

static u32 sroce_ident_permute(const siphash_key_t *key, u32 x)
{
	u32 l = x >> SROCE_IDENT_HALF_BITS;
	u32 r = x & SROCE_IDENT_HALF_MASK;
	u32 round, f;

	for (round = 0; round < SROCE_IDENT_ROUNDS; round++) {
		f = siphash_2u32(r, round, key) & SROCE_IDENT_HALF_MASK;
		f ^= l;
		l = r;
		r = f;
	}
	return l << SROCE_IDENT_HALF_BITS | r;
}

/**
 * sroce_ident_init() - a new source of identifiers, with a fresh secret
 * @id: the source
 * @min: the lowest identifier it hands out, at most SROCE_IDENT_MAX / 2
 */
void sroce_ident_init(struct sroce_ident *id, u32 min)
{
	get_random_bytes(&id->key, sizeof(id->key));
	atomic_set(&id->next, 0);
	id->min = min;
}

/**
 * sroce_ident_alloc() - reserve the next identifier in an xarray
 * @id: the source
 * @xa: where the identifiers of @id live; the entry is reserved (loads
 *	find NULL there) until the caller stores its object in it
 * @out: set to the identifier
 *
 * Context: may sleep.  @xa's lock is taken with interrupts off when the
 * xarray was initialised with XA_FLAGS_LOCK_IRQ.
 * Return: 0, -ENOMEM, or -EBUSY when SROCE_IDENT_TRIES draws were all in
 * use.
 */
int sroce_ident_alloc(struct sroce_ident *id, struct xarray *xa, u32 *out)
{
	unsigned int tries;
	int ret;
	u32 v;

	for (tries = 0; tries < SROCE_IDENT_TRIES; tries++) {
		v = sroce_ident_permute(&id->key, atomic_inc_return(&id->next) &
					SROCE_IDENT_MAX);
		if (v < id->min)
			continue;
		if (xa->xa_flags & XA_FLAGS_LOCK_IRQ)
			ret = xa_insert_irq(xa, v, NULL, GFP_KERNEL);
		else
			ret = xa_insert(xa, v, NULL, GFP_KERNEL);
		if (ret == -EBUSY)
			continue;
		if (!ret)
			*out = v;
		return ret;
	}
	return -EBUSY;
}
