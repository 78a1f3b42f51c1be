/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * seg.h - path MTUs, and the segmentation of a message into packets.
 */
#ifndef SROCE_PROTO_SEG_H
#define SROCE_PROTO_SEG_H

#include "opcode.h"

/* IB path MTU codes (enum ib_mtu) */
enum sroce_mtu {
	SROCE_MTU_256	= 1,
	SROCE_MTU_512	= 2,
	SROCE_MTU_1024	= 3,
	SROCE_MTU_2048	= 4,
	SROCE_MTU_4096	= 5,
};

/*
 * Worst-case encapsulation around a payload: IPv6, UDP, BTH, XRCETH, RETH,
 * ImmDt, ICRC
 */
#define SROCE_MAX_WIRE_OVERHEAD	(SROCE_IPV6_HLEN + SROCE_UDP_HLEN + \
				 SROCE_BTH_LEN + SROCE_XRCETH_LEN + \
				 SROCE_RETH_LEN + \
				 SROCE_IMMDT_LEN + SROCE_ICRC_LEN)

static inline u32 sroce_mtu_bytes(enum sroce_mtu mtu)
{
	return (mtu >= SROCE_MTU_256 && mtu <= SROCE_MTU_4096) ?
		128u << mtu : 0;
}

/* Largest path MTU a netdev MTU carries; 0 if not even 256 bytes fit */
enum sroce_mtu sroce_mtu_from_netdev(u32 ndev_mtu);

/* Number of packets of a message (a zero-length message takes one) */
static inline u32 sroce_seg_npkts(u32 len, u32 pmtu)
{
	return len ? (len - 1) / pmtu + 1 : 1;
}

/* One packet of a segmented message */
struct sroce_seg {
	u8 opcode;
	u8 pad;		/* pad count for the BTH */
	u8 last;	/* this packet ends the message */
	u32 paylen;	/* payload bytes, pad excluded */
};

/*
 * The packet that carries bytes from offset (a multiple of pmtu) of a
 * msg_len-byte message.  Returns 0, or -1 if the transport lacks the
 * operation or the packet position, or the offset is out of range.
 */
int sroce_seg_at(enum sroce_transport t, enum sroce_msg_op op, u32 msg_len,
		 u32 pmtu, u32 offset, struct sroce_seg *seg);

#endif /* SROCE_PROTO_SEG_H */
