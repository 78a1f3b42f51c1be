/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * 24-bit packet sequence numbers.  PSNs wrap at 2^24; two PSNs compare by
 * the sign of their difference taken modulo 2^24, so a PSN is "after" the
 * 2^23 - 1 PSNs that follow it and "before" the 2^23 that precede it.
 */
#ifndef SROCE_PROTO_PSN_H
#define SROCE_PROTO_PSN_H

#include "wire.h"

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* a - b as a signed 24-bit distance, in [-2^23, 2^23 - 1] */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

/* <0, 0, >0 as a is before, equal to or after b */
static inline int sroce_psn_cmp(u32 a, u32 b)
{
	s32 d = sroce_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/* Number of PSNs from una (oldest unacknowledged) up to next (exclusive) */
static inline u32 sroce_psn_outstanding(u32 next, u32 una)
{
	return (next - una) & SROCE_PSN_MASK;
}

/* Whether psn lies in the n PSNs starting at first */
static inline bool sroce_psn_in_range(u32 psn, u32 first, u32 n)
{
	return ((psn - first) & SROCE_PSN_MASK) < n;
}

/* Whether a requester with window PSNs in flight may send another one */
static inline bool sroce_psn_window_open(u32 next, u32 una, u32 window)
{
	return sroce_psn_outstanding(next, una) < window;
}

/* How a responder sees a request PSN against its expected PSN (IBTA 9.7.5) */
enum sroce_psn_class {
	SROCE_PSN_EXPECTED,
	SROCE_PSN_DUPLICATE,	/* in the 2^23 PSNs before the expected one */
	SROCE_PSN_AHEAD,	/* invalid: PSN sequence error NAK */
};

static inline enum sroce_psn_class sroce_psn_classify(u32 psn, u32 epsn)
{
	s32 d = sroce_psn_diff(psn, epsn);

	if (d == 0)
		return SROCE_PSN_EXPECTED;
	return d < 0 ? SROCE_PSN_DUPLICATE : SROCE_PSN_AHEAD;
}

#endif /* SROCE_PROTO_PSN_H */
