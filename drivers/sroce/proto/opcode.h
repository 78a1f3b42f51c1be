/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RoCEv2 opcode table: one row per opcode of RC, UC, UD and the CNP.
 * A row says which extension headers follow the BTH, at which offset, and
 * what the packet means (first/middle/last of a message, carries payload,
 * consumes a receive WQE, ...).  Code asks the table; a new opcode is a new
 * row, not a new branch.
 */
#ifndef SROCE_PROTO_OPCODE_H
#define SROCE_PROTO_OPCODE_H

#include "wire.h"

/* Transport: the top three bits of the opcode */
enum sroce_transport {
	SROCE_TRANSPORT_RC	= 0x00,
	SROCE_TRANSPORT_UC	= 0x20,
	SROCE_TRANSPORT_RD	= 0x40,		/* not supported */
	SROCE_TRANSPORT_UD	= 0x60,
	SROCE_TRANSPORT_CNP	= 0x80,
	SROCE_TRANSPORT_XRC	= 0xa0,
};

#define SROCE_TRANSPORT_MASK	0xe0

enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST			= 0x00,
	SROCE_OP_RC_SEND_MIDDLE			= 0x01,
	SROCE_OP_RC_SEND_LAST			= 0x02,
	SROCE_OP_RC_SEND_LAST_IMM		= 0x03,
	SROCE_OP_RC_SEND_ONLY			= 0x04,
	SROCE_OP_RC_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_RC_WRITE_FIRST			= 0x06,
	SROCE_OP_RC_WRITE_MIDDLE		= 0x07,
	SROCE_OP_RC_WRITE_LAST			= 0x08,
	SROCE_OP_RC_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_RC_WRITE_ONLY			= 0x0a,
	SROCE_OP_RC_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_RC_READ_REQUEST		= 0x0c,
	SROCE_OP_RC_READ_RESPONSE_FIRST		= 0x0d,
	SROCE_OP_RC_READ_RESPONSE_MIDDLE	= 0x0e,
	SROCE_OP_RC_READ_RESPONSE_LAST		= 0x0f,
	SROCE_OP_RC_READ_RESPONSE_ONLY		= 0x10,
	SROCE_OP_RC_ACK				= 0x11,
	SROCE_OP_RC_ATOMIC_ACK			= 0x12,
	SROCE_OP_RC_CMP_SWAP			= 0x13,
	SROCE_OP_RC_FETCH_ADD			= 0x14,
	SROCE_OP_RC_SEND_LAST_INV		= 0x16,
	SROCE_OP_RC_SEND_ONLY_INV		= 0x17,
	SROCE_OP_RC_ATOMIC_WRITE		= 0x1d,	/* IBTA 1.5 */

	SROCE_OP_UC_SEND_FIRST			= 0x20,
	SROCE_OP_UC_SEND_MIDDLE			= 0x21,
	SROCE_OP_UC_SEND_LAST			= 0x22,
	SROCE_OP_UC_SEND_LAST_IMM		= 0x23,
	SROCE_OP_UC_SEND_ONLY			= 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM		= 0x25,
	SROCE_OP_UC_WRITE_FIRST			= 0x26,
	SROCE_OP_UC_WRITE_MIDDLE		= 0x27,
	SROCE_OP_UC_WRITE_LAST			= 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM		= 0x29,
	SROCE_OP_UC_WRITE_ONLY			= 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM		= 0x2b,

	SROCE_OP_UD_SEND_ONLY			= 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM		= 0x65,

	SROCE_OP_CNP				= 0x81,

	/* XRC: the RC opcodes with the transport bits 101 */
	SROCE_OP_XRC_SEND_FIRST			= 0xa0,
	SROCE_OP_XRC_SEND_MIDDLE		= 0xa1,
	SROCE_OP_XRC_SEND_LAST			= 0xa2,
	SROCE_OP_XRC_SEND_LAST_IMM		= 0xa3,
	SROCE_OP_XRC_SEND_ONLY			= 0xa4,
	SROCE_OP_XRC_SEND_ONLY_IMM		= 0xa5,
	SROCE_OP_XRC_WRITE_FIRST		= 0xa6,
	SROCE_OP_XRC_WRITE_MIDDLE		= 0xa7,
	SROCE_OP_XRC_WRITE_LAST			= 0xa8,
	SROCE_OP_XRC_WRITE_LAST_IMM		= 0xa9,
	SROCE_OP_XRC_WRITE_ONLY			= 0xaa,
	SROCE_OP_XRC_WRITE_ONLY_IMM		= 0xab,
	SROCE_OP_XRC_READ_REQUEST		= 0xac,
	SROCE_OP_XRC_READ_RESPONSE_FIRST	= 0xad,
	SROCE_OP_XRC_READ_RESPONSE_MIDDLE	= 0xae,
	SROCE_OP_XRC_READ_RESPONSE_LAST		= 0xaf,
	SROCE_OP_XRC_READ_RESPONSE_ONLY		= 0xb0,
	SROCE_OP_XRC_ACK			= 0xb1,
	SROCE_OP_XRC_ATOMIC_ACK			= 0xb2,
	SROCE_OP_XRC_CMP_SWAP			= 0xb3,
	SROCE_OP_XRC_FETCH_ADD			= 0xb4,
	SROCE_OP_XRC_SEND_LAST_INV		= 0xb6,
	SROCE_OP_XRC_SEND_ONLY_INV		= 0xb7,

	/*
	 * IBTA's manufacturer-specific range, between sroce QPs that agreed
	 * on extensions only (sxh.h): RC's opcodes with an SXH (0xc0 | op),
	 * the extension-only packets (0xd8-0xdf) and XRC's opcodes with an
	 * SXH (0xe0 | op).  RC's atomic write (0x1d) has none: 0xdd is in
	 * the extension-only range.
	 */
	SROCE_OP_SXH_RC_SEND_FIRST		= 0xc0,
	SROCE_OP_SXH_RC_SEND_MIDDLE		= 0xc1,
	SROCE_OP_SXH_RC_SEND_LAST		= 0xc2,
	SROCE_OP_SXH_RC_SEND_LAST_IMM		= 0xc3,
	SROCE_OP_SXH_RC_SEND_ONLY		= 0xc4,
	SROCE_OP_SXH_RC_SEND_ONLY_IMM		= 0xc5,
	SROCE_OP_SXH_RC_WRITE_FIRST		= 0xc6,
	SROCE_OP_SXH_RC_WRITE_MIDDLE		= 0xc7,
	SROCE_OP_SXH_RC_WRITE_LAST		= 0xc8,
	SROCE_OP_SXH_RC_WRITE_LAST_IMM		= 0xc9,
	SROCE_OP_SXH_RC_WRITE_ONLY		= 0xca,
	SROCE_OP_SXH_RC_WRITE_ONLY_IMM		= 0xcb,
	SROCE_OP_SXH_RC_READ_REQUEST		= 0xcc,
	SROCE_OP_SXH_RC_READ_RESPONSE_FIRST	= 0xcd,
	SROCE_OP_SXH_RC_READ_RESPONSE_MIDDLE	= 0xce,
	SROCE_OP_SXH_RC_READ_RESPONSE_LAST	= 0xcf,
	SROCE_OP_SXH_RC_READ_RESPONSE_ONLY	= 0xd0,
	SROCE_OP_SXH_RC_ACK			= 0xd1,
	SROCE_OP_SXH_RC_ATOMIC_ACK		= 0xd2,
	SROCE_OP_SXH_RC_CMP_SWAP		= 0xd3,
	SROCE_OP_SXH_RC_FETCH_ADD		= 0xd4,
	SROCE_OP_SXH_RC_SEND_LAST_INV		= 0xd6,
	SROCE_OP_SXH_RC_SEND_ONLY_INV		= 0xd7,
	SROCE_OP_SXH_SACK			= 0xd8,
	SROCE_OP_SXH_XRC_SEND_FIRST		= 0xe0,
	SROCE_OP_SXH_XRC_SEND_MIDDLE		= 0xe1,
	SROCE_OP_SXH_XRC_SEND_LAST		= 0xe2,
	SROCE_OP_SXH_XRC_SEND_LAST_IMM		= 0xe3,
	SROCE_OP_SXH_XRC_SEND_ONLY		= 0xe4,
	SROCE_OP_SXH_XRC_SEND_ONLY_IMM		= 0xe5,
	SROCE_OP_SXH_XRC_WRITE_FIRST		= 0xe6,
	SROCE_OP_SXH_XRC_WRITE_MIDDLE		= 0xe7,
	SROCE_OP_SXH_XRC_WRITE_LAST		= 0xe8,
	SROCE_OP_SXH_XRC_WRITE_LAST_IMM		= 0xe9,
	SROCE_OP_SXH_XRC_WRITE_ONLY		= 0xea,
	SROCE_OP_SXH_XRC_WRITE_ONLY_IMM		= 0xeb,
	SROCE_OP_SXH_XRC_READ_REQUEST		= 0xec,
	SROCE_OP_SXH_XRC_READ_RESPONSE_FIRST	= 0xed,
	SROCE_OP_SXH_XRC_READ_RESPONSE_MIDDLE	= 0xee,
	SROCE_OP_SXH_XRC_READ_RESPONSE_LAST	= 0xef,
	SROCE_OP_SXH_XRC_READ_RESPONSE_ONLY	= 0xf0,
	SROCE_OP_SXH_XRC_ACK			= 0xf1,
	SROCE_OP_SXH_XRC_ATOMIC_ACK		= 0xf2,
	SROCE_OP_SXH_XRC_CMP_SWAP		= 0xf3,
	SROCE_OP_SXH_XRC_FETCH_ADD		= 0xf4,
	SROCE_OP_SXH_XRC_SEND_LAST_INV		= 0xf6,
	SROCE_OP_SXH_XRC_SEND_ONLY_INV		= 0xf7,
};

/* Headers that may follow the BTH, in wire order */
enum sroce_hdr {
	SROCE_HDR_DETH,
	SROCE_HDR_XRCETH,
	SROCE_HDR_SXH,		/* its fixed part; the fields follow it */
	SROCE_HDR_RETH,
	SROCE_HDR_ATMETH,
	SROCE_HDR_AETH,
	SROCE_HDR_ATMACK,
	SROCE_HDR_IMMDT,
	SROCE_HDR_IETH,
	SROCE_HDR_CNP_RSVD,
	SROCE_HDR_NR,
};

/* struct sroce_opcode_info.flags: what a packet of the opcode means */
enum sroce_opf {
	SROCE_OPF_VALID		= 1u << 0,	/* an IBTA opcode's row */
	SROCE_OPF_PAYLOAD	= 1u << 1,	/* may carry payload */
	SROCE_OPF_FIRST		= 1u << 2,	/* starts a message */
	SROCE_OPF_MIDDLE	= 1u << 3,
	SROCE_OPF_LAST		= 1u << 4,	/* ends a message */
	SROCE_OPF_ONLY		= SROCE_OPF_FIRST | SROCE_OPF_LAST,
	SROCE_OPF_REQ		= 1u << 5,	/* requester to responder */
	SROCE_OPF_RESP		= 1u << 6,	/* responder to requester */
	SROCE_OPF_SEND		= 1u << 7,
	SROCE_OPF_WRITE		= 1u << 8,
	SROCE_OPF_READ		= 1u << 9,	/* request or response */
	SROCE_OPF_ATOMIC	= 1u << 10,	/* request or response */
	SROCE_OPF_ACK		= 1u << 11,	/* ACK/NAK only */
	SROCE_OPF_RWR		= 1u << 12,	/* consumes a receive WQE */
	SROCE_OPF_COMP		= 1u << 13,	/* completes a receive WQE */
	SROCE_OPF_NEED_ACK	= 1u << 14,	/* RC request: responder acks */
	SROCE_OPF_IMM		= 1u << 15,	/* carries ImmDt */
	SROCE_OPF_INV		= 1u << 16,	/* carries IETH */
	SROCE_OPF_CNP		= 1u << 17,
	SROCE_OPF_ATOMIC_WRITE	= 1u << 18,	/* 8 bytes stored at once */
	/*
	 * An extension opcode's row, never with SROCE_OPF_VALID: valid only
	 * between QPs that agreed on extensions (sroce_pkt_parse_ext())
	 */
	SROCE_OPF_SXH		= 1u << 19,
};

struct sroce_opcode_info {
	const char *name;
	u32 flags;			/* enum sroce_opf */
	u8 hdr_len;			/* BTH + extension headers */
	u8 off[SROCE_HDR_NR];		/* from the BTH; 0 = absent */
	u16 sxh_need;			/* SXH fields it must carry */
};

/*
 * The table (opcode.c); rows of unknown opcodes are all zero.  Offsets
 * and lengths are written out in each row, as on the wire; a unit test
 * checks that they follow the header order and sizes of wire.h.  In an
 * extension opcode's row the SXH counts with its fixed part only: the
 * headers after it move by the length of its fields (sroce_pkt_ext()).
 */

extern const struct sroce_opcode_info sroce_opcode_table[256];

static inline const struct sroce_opcode_info *sroce_opcode_lookup(u8 opcode)
{
	return &sroce_opcode_table[opcode];
}

static inline bool sroce_opcode_has(const struct sroce_opcode_info *info,
				    enum sroce_hdr h)
{
	return info->off[h] != 0;
}

/* An IBTA opcode: what any peer may send (extension opcodes are not) */
static inline bool sroce_opcode_valid(u8 opcode)
{
	return sroce_opcode_table[opcode].flags & SROCE_OPF_VALID;
}

static inline enum sroce_transport sroce_opcode_transport(u8 opcode)
{
	return (enum sroce_transport)(opcode & SROCE_TRANSPORT_MASK);
}

/*
 * The transport of an extension opcode (sxh.h): 0xc0-0xdf are RC's,
 * 0xe0-0xff XRC's; of any other, its own.
 */
static inline enum sroce_transport sroce_opcode_base_transport(u8 opcode)
{
	if (opcode < 0xc0)
		return sroce_opcode_transport(opcode);
	return opcode & 0x20 ? SROCE_TRANSPORT_XRC : SROCE_TRANSPORT_RC;
}

/* The extension opcode of RC or XRC opcode @op: 0xc0 | op, 0xe0 | op */
static inline u8 sroce_opcode_sxh(u8 op)
{
	return 0xc0 | op;
}

/*
 * The opcode of an RC operation (a SROCE_OP_RC_* value) on transport @t,
 * RC or XRC: XRC's opcodes are RC's with its transport bits.
 */
static inline u8 sroce_rc_opcode(enum sroce_transport t, u8 rc_opcode)
{
	return rc_opcode | (t == SROCE_TRANSPORT_XRC ? SROCE_TRANSPORT_XRC : 0);
}

/* Length of one header type on the wire */
u8 sroce_hdr_len(enum sroce_hdr hdr);

/*
 * Message operations and their segmentation into first/middle/last/only
 * packets: for a transport and an operation, the four opcodes.
 */
enum sroce_msg_op {
	SROCE_MSG_SEND,
	SROCE_MSG_SEND_IMM,
	SROCE_MSG_SEND_INV,
	SROCE_MSG_WRITE,
	SROCE_MSG_WRITE_IMM,
	SROCE_MSG_READ_RESP,
	SROCE_MSG_ATOMIC_WRITE,
	SROCE_MSG_OP_NR,
};

enum sroce_seg_pos {
	SROCE_SEG_FIRST,
	SROCE_SEG_MIDDLE,
	SROCE_SEG_LAST,
	SROCE_SEG_ONLY,
	SROCE_SEG_POS_NR,
};

/* Opcode for a position in a message, or -1 if the transport lacks it */
int sroce_msg_opcode(enum sroce_transport t, enum sroce_msg_op op,
		     enum sroce_seg_pos pos);

#endif /* SROCE_PROTO_OPCODE_H */
