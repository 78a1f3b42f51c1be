/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Reliable-transport arithmetic: AETH syndromes and credits, the RNR NAK
 * timer table, the local ACK timeout, path MTUs and the segmentation of a
 * message into packets.
 */
#ifndef SROCE_PROTO_RC_H
#define SROCE_PROTO_RC_H

#include "opcode.h"

/* AETH syndrome: bit 7 reserved, bits 6:5 type, bits 4:0 value */
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_VALUE_MASK	0x1f

enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0x00,	/* value: credit count code */
	SROCE_AETH_RNR_NAK	= 0x20,	/* value: RNR timer code */
	SROCE_AETH_RESERVED	= 0x40,
	SROCE_AETH_NAK		= 0x60,	/* value: enum sroce_nak_code */
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REMOTE_ACCESS	= 2,
	SROCE_NAK_REMOTE_OP	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

/* Credit code 31: no end-to-end flow control (rxe always sends it) */
#define SROCE_AETH_CREDIT_INVALID	0x1f

static inline enum sroce_aeth_type sroce_aeth_type(u8 syndrome)
{
	return (enum sroce_aeth_type)(syndrome & SROCE_AETH_TYPE_MASK);
}

static inline u8 sroce_aeth_value(u8 syndrome)
{
	return syndrome & SROCE_AETH_VALUE_MASK;
}

static inline u8 sroce_aeth_syn_ack(u8 credit_code)
{
	return SROCE_AETH_ACK | (credit_code & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return SROCE_AETH_RNR_NAK | (timer_code & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return SROCE_AETH_NAK | (code & SROCE_AETH_VALUE_MASK);
}

/* Credits a credit code stands for; U32 max for code 31 (unlimited) */
u32 sroce_aeth_credits(u8 code);
/* Largest credit code whose credit count does not exceed n */
u8 sroce_aeth_credit_code(u32 n);

/* RNR NAK timer: code 0 is 655.36 ms, 1 is 0.01 ms ... 31 is 491.52 ms */
u32 sroce_rnr_timer_usec(u8 code);
/* Smallest code that waits at least usec (0, the longest, beyond 491.52 ms) */
u8 sroce_rnr_timer_code(u32 usec);

/* Local ACK timeout: 4.096 us * 2^timeout; timeout 0 disables it (0 ns). */
static inline u64 sroce_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return 4096ULL << (timeout > 31 ? 31 : timeout);
}

/* IB path MTU codes (enum ib_mtu) */
enum sroce_mtu {
	SROCE_MTU_256	= 1,
	SROCE_MTU_512	= 2,
	SROCE_MTU_1024	= 3,
	SROCE_MTU_2048	= 4,
	SROCE_MTU_4096	= 5,
};

/* Worst-case encapsulation around a payload: IPv6, UDP, BTH, RETH, ImmDt, ICRC */
#define SROCE_MAX_WIRE_OVERHEAD	(SROCE_IPV6_HLEN + SROCE_UDP_HLEN + \
				 SROCE_BTH_LEN + SROCE_RETH_LEN + \
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

/* UDP source port of a QP (0xc000..0xffff), as rdma_rxe derives it */
u16 sroce_udp_sport_qpn(u32 qpn);
/* UDP source port from an IPv6 flow label, as rdma_flow_label_to_udp_sport() */
u16 sroce_udp_sport_flow(u32 flow_label);

#endif /* SROCE_PROTO_RC_H */
