/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Selective acknowledgment (issue #36), both ends of it.
 *
 * The receiver keeps an arrival window, struct sroce_sack: its expected
 * PSN and a bitmap of the SROCE_SACK_BITS PSNs after it, one bit for each
 * that arrived.  The same struct is the SACK field of the extension
 * header (sxh.h): what the receiver reports is its window as it is.
 *
 * The sender keeps a scoreboard, struct sroce_sb: the PSNs it sent and
 * which of them a SACK acknowledged.  IRN's rule says which are lost: a
 * PSN not acknowledged below the highest one acknowledged.  A SACK that
 * acknowledges a PSN never sent is refused whole.
 *
 * Every operation is O(SROCE_SACK_WORDS) on plain memory: no allocation.
 */
#ifndef SROCE_PROTO_SACK_H
#define SROCE_PROTO_SACK_H

#include "psn.h"

#define SROCE_SACK_WORDS	2
#define SROCE_SACK_BITS		(64 * SROCE_SACK_WORDS)

/*
 * @epsn: the expected PSN: every PSN before it arrived, and it did not
 * @map: bit j of map[k] (value 1 << j) set when PSN epsn + 1 + 64k + j
 *	arrived
 */
struct sroce_sack {
	u32 epsn;
	u64 map[SROCE_SACK_WORDS];
};

/* What the arrival of a PSN is to the receiver's window */
enum sroce_sack_arrival {
	SROCE_SACK_NEW,		/* first arrival: process it */
	SROCE_SACK_DUPLICATE,	/* before epsn, or arrived already */
	SROCE_SACK_BEYOND,	/* after the window: drop it, mark nothing */
};

static inline void sroce_sack_init(struct sroce_sack *w, u32 epsn)
{
	memset(w, 0, sizeof(*w));
	w->epsn = epsn & SROCE_PSN_MASK;
}

/*
 * Marks @psn arrived.  When it is the expected PSN, epsn moves past it and
 * past the run of PSNs after it that arrived already (the caller sees how
 * far from the old and new epsn: these PSNs are now in order).
 */
enum sroce_sack_arrival sroce_sack_mark(struct sroce_sack *w, u32 psn);

/* Whether any PSN after epsn arrived: a hole at epsn at least */
bool sroce_sack_has_holes(const struct sroce_sack *w);

/*
 * The sender's scoreboard.
 * @una: the oldest PSN not acknowledged
 * @next: the next PSN to send; PSNs una..next-1 are in flight
 * @acked: bit j of acked[k] set when PSN una + 1 + 64k + j was acknowledged
 *	by a SACK (una itself never is: una would have moved)
 *
 * At most SROCE_SB_MAX_FLIGHT PSNs are in flight: the receiver's window
 * (epsn and the SROCE_SACK_BITS after it) holds them all.
 */
struct sroce_sb {
	u32 una;
	u32 next;
	u64 acked[SROCE_SACK_WORDS];
};

#define SROCE_SB_MAX_FLIGHT	(SROCE_SACK_BITS + 1)

/* What the sender made of a SACK */
enum sroce_sb_verdict {
	SROCE_SB_APPLIED,
	SROCE_SB_STALE,		/* its epsn is before una: ignored */
	SROCE_SB_BOGUS,		/* names a PSN never sent: ignored */
};

static inline void sroce_sb_init(struct sroce_sb *sb, u32 psn)
{
	memset(sb, 0, sizeof(*sb));
	sb->una = psn & SROCE_PSN_MASK;
	sb->next = sb->una;
}

static inline u32 sroce_sb_in_flight(const struct sroce_sb *sb)
{
	return sroce_psn_outstanding(sb->next, sb->una);
}

/* Takes the next PSN to send; false (nothing taken) when the window is full */
bool sroce_sb_send(struct sroce_sb *sb, u32 *psn);

/*
 * Applies a SACK: una moves to its epsn (everything before acknowledged),
 * its bitmap acknowledges the PSNs after.  Changes nothing unless
 * SROCE_SB_APPLIED.
 */
enum sroce_sb_verdict sroce_sb_apply(struct sroce_sb *sb,
				     const struct sroce_sack *sack);

/* Whether @psn, one sent, was acknowledged (before una, or SACKed) */
bool sroce_sb_acked(const struct sroce_sb *sb, u32 psn);

/*
 * The first lost PSN at or after @from (IRN: in flight, not acknowledged,
 * and before the highest PSN acknowledged) in *psn; false when none.
 * A @from before una starts at una.
 */
bool sroce_sb_next_lost(const struct sroce_sb *sb, u32 from, u32 *psn);

#endif /* SROCE_PROTO_SACK_H */
