/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Receive-side parsing and validation of the transport part of a RoCEv2
 * packet (BTH to ICRC), and the send-side builder of its headers.
 */
#ifndef SROCE_PROTO_PKT_H
#define SROCE_PROTO_PKT_H

#include "opcode.h"

/* Why a received packet was dropped; the driver counts each reason. */
enum sroce_rx_reason {
	SROCE_RX_OK,
	SROCE_RX_TRUNCATED,	/* shorter than its headers and ICRC */
	SROCE_RX_BAD_IP_VERSION,
	SROCE_RX_BAD_IP_HDR,	/* IPv4 options or fragment, IPv6 ext header */
	SROCE_RX_BAD_IP_LEN,	/* IP length beyond the buffer or too short */
	SROCE_RX_NOT_UDP,
	SROCE_RX_BAD_UDP_PORT,	/* destination port is not 4791 */
	SROCE_RX_BAD_UDP_LEN,	/* UDP length disagrees with the IP length */
	SROCE_RX_BAD_OPCODE,	/* unknown or unsupported opcode */
	SROCE_RX_BAD_TVER,
	SROCE_RX_BAD_PKEY,
	SROCE_RX_BAD_LEN,	/* not a multiple of 4, or payload on an
				 * opcode that has none
				 */
	SROCE_RX_BAD_PAD,	/* pad count larger than the payload */
	SROCE_RX_BAD_TRANSPORT,	/* opcode not valid on the QP's transport */
	SROCE_RX_OVER_MTU,	/* payload larger than the path MTU */
	SROCE_RX_BAD_SEG_LEN,	/* first/middle not exactly the path MTU, or
				 * an empty last packet
				 */
	SROCE_RX_BAD_ICRC,
	SROCE_RX_REASON_NR,
};

const char *sroce_rx_reason_name(enum sroce_rx_reason reason);

/* A parsed packet; pointers into the caller's buffer. */
struct sroce_pkt {
	const u8 *hdr;				/* the BTH */
	const struct sroce_opcode_info *info;	/* its opcode's row */
	u32 len;				/* BTH to ICRC inclusive */
	u32 paylen;				/* payload, pad excluded */
	struct sroce_bth bth;
};

/*
 * Parses and validates the transport part of a packet: bth points at the
 * UDP payload of len bytes.  Only the first min(len, SROCE_MAX_HDR_LEN)
 * bytes are read, so payload and ICRC may live elsewhere (skb fragments).
 * Checks everything that does not need the QP: opcode known, TVer, P_Key
 * against pkey, header and pad lengths, 4-byte alignment, payload only on
 * opcodes that carry one, payload not above SROCE_MAX_PMTU.
 * The ICRC is checked separately (icrc.h).
 */
enum sroce_rx_reason sroce_pkt_parse(struct sroce_pkt *pkt, const u8 *bth,
				     u32 len, u16 pkey);

/*
 * The checks that need the destination QP: the opcode belongs to the QP's
 * transport (a CNP is valid for any) and the payload fits the path MTU,
 * FIRST and MIDDLE packets carrying exactly pmtu bytes, LAST at least one.
 */
enum sroce_rx_reason sroce_pkt_check_qp(const struct sroce_pkt *pkt,
					enum sroce_transport qpt, u32 pmtu);

static inline const u8 *sroce_pkt_ext(const struct sroce_pkt *pkt,
				      enum sroce_hdr h)
{
	u8 off = pkt->info->off[h];

	return off ? pkt->hdr + off : NULL;
}

static inline const u8 *sroce_pkt_payload(const struct sroce_pkt *pkt)
{
	return pkt->hdr + pkt->info->hdr_len;
}

/* Offset of the ICRC from the BTH */
static inline u32 sroce_pkt_icrc_off(const struct sroce_pkt *pkt)
{
	return pkt->len - SROCE_ICRC_LEN;
}

/* All transport headers in host form; a builder reads the opcode's ones. */
struct sroce_hdrs {
	struct sroce_bth bth;
	struct sroce_deth deth;
	u32 xrc_srqn;		/* XRCETH: the XRC SRQ */
	struct sroce_reth reth;
	struct sroce_atmeth atmeth;
	struct sroce_aeth aeth;
	u64 atmack;		/* AtomicAckETH original value */
	u32 imm;		/* ImmDt, big-endian value of the 4 bytes */
	u32 ieth_rkey;		/* IETH */
};

/*
 * Writes the BTH and the extension headers of h->bth.opcode (the CNP's
 * reserved bytes as zeroes) into buf of cap bytes.  Returns their length,
 * or 0 for an unknown opcode or a too small buffer.
 */
u32 sroce_hdrs_build(u8 *buf, u32 cap, const struct sroce_hdrs *h);

/* Decodes the headers of a parsed packet; absent ones are left untouched. */
void sroce_pkt_hdrs(const struct sroce_pkt *pkt, struct sroce_hdrs *h);

#endif /* SROCE_PROTO_PKT_H */
