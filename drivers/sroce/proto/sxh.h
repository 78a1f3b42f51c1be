/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The sroce extension header (SXH): what packets between two sroce QPs
 * that agreed on extensions carry after the BTH (and the XRCETH), before
 * the IBTA extension headers of their opcode (Documentation/protocol.md).
 *
 * 4 bytes, then one field for each flag set, in the order of the flag
 * bits (lowest first):
 *
 *	byte 0: version (high 4 bits) | flags 11:8 (low 4 bits)
 *	byte 1: flags 7:0
 *	byte 2: length of the SXH in 4-byte words, these 4 bytes included
 *	byte 3: reserved, sent as 0, ignored
 *
 * Which opcodes carry it is the opcode table's business (opcode.c); the
 * receive checks are sroce_pkt_parse_ext()'s (pkt.c).
 */
#ifndef SROCE_PROTO_SXH_H
#define SROCE_PROTO_SXH_H

#include "sack.h"

#define SROCE_SXH_VERSION	1
#define SROCE_SXH_LEN		4	/* the fixed part, without fields */
#define SROCE_SXH_FLAGS_MASK	0x0fff

/* One flag per optional field, each defined by the issue that needs it */
enum sroce_sxh_flag {
	/* #36: 4 bytes, the payload's byte offset within its message */
	SROCE_SXH_OFFSET	= 1u << 0,
	/* #36: 4 + 8 * SROCE_SACK_WORDS bytes, the arrival window (sack.h) */
	SROCE_SXH_SACK		= 1u << 1,
	/* #37: an ACK of the reverse direction on data; no format yet */
	SROCE_SXH_ACK		= 1u << 2,
	/* #39: MAC tag and its sequence, always last; no format yet */
	SROCE_SXH_MAC		= 1u << 11,
};

/* The flags whose fields this version parses and builds */
#define SROCE_SXH_KNOWN		(SROCE_SXH_OFFSET | SROCE_SXH_SACK)

#define SROCE_SXH_OFFSET_LEN	4
#define SROCE_SXH_SACK_LEN	(4 + 8 * SROCE_SACK_WORDS)
/* The longest SXH of the known fields */
#define SROCE_SXH_MAX_LEN	(SROCE_SXH_LEN + SROCE_SXH_OFFSET_LEN + \
				 SROCE_SXH_SACK_LEN)

/* The longest transport headers of an extension opcode */
#define SROCE_MAX_EXT_HDR_LEN	(SROCE_MAX_HDR_LEN + SROCE_SXH_MAX_LEN)

/* The SXH in host form; a field is meaningful when its flag is set. */
struct sroce_sxh {
	u16 flags;		/* enum sroce_sxh_flag */
	u32 offset;		/* SROCE_SXH_OFFSET */
	struct sroce_sack sack;	/* SROCE_SXH_SACK */
};

/* Length of an SXH with these flags; 0 when one of them is not known */
static inline u32 sroce_sxh_len(u16 flags)
{
	if (flags & ~SROCE_SXH_KNOWN)
		return 0;
	return SROCE_SXH_LEN +
	       (flags & SROCE_SXH_OFFSET ? SROCE_SXH_OFFSET_LEN : 0) +
	       (flags & SROCE_SXH_SACK ? SROCE_SXH_SACK_LEN : 0);
}

/* The fixed part as received */
static inline u8 sroce_sxh_version(const u8 *p)
{
	return p[0] >> 4;
}

static inline u16 sroce_sxh_flags(const u8 *p)
{
	return sroce_get_be16(p) & SROCE_SXH_FLAGS_MASK;
}

static inline u32 sroce_sxh_wire_len(const u8 *p)
{
	return 4 * (u32)p[2];
}

/*
 * Decodes an SXH whose version, flags and length the caller checked
 * (sroce_pkt_parse_ext()): the fields of known flags.
 */
void sroce_sxh_get(const u8 *p, struct sroce_sxh *sxh);

/* Writes the SXH; returns its length, 0 (nothing written) for unknown flags */
u32 sroce_sxh_put(u8 *p, const struct sroce_sxh *sxh);

#endif /* SROCE_PROTO_SXH_H */
