/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Receive-side parsing and validation of the transport part of a RoCEv2
 * packet (BTH to ICRC), and the send-side builder of its headers.
 */
#ifndef SROCE_PROTO_PKT_H
#define SROCE_PROTO_PKT_H

#include "opcode.h"
#include "sxh.h"

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
	SROCE_RX_BAD_SXH,	/* extension header: version, length, or a
				 * field its opcode needs missing
				 */
	SROCE_RX_SXH_FLAGS,	/* extension header: a flag not known or not
				 * agreed
				 */
	SROCE_RX_REASON_NR,
};

const char *sroce_rx_reason_name(enum sroce_rx_reason reason);

/* A parsed packet; pointers into the caller's buffer. */
struct sroce_pkt {
	const u8 *hdr;				/* the BTH */
	const struct sroce_opcode_info *info;	/* its opcode's row */
	u32 len;				/* BTH to ICRC inclusive */
	u32 paylen;				/* payload, pad excluded */
	u8 hdr_len;				/* BTH to payload */
	struct sroce_bth bth;
};

/*
 * Parses and validates the transport part of a packet: bth points at the
 * UDP payload of len bytes.  Only the first min(len, SROCE_MAX_HDR_LEN)
 * bytes are read (SROCE_MAX_EXT_HDR_LEN when ext is not 0), so payload
 * and ICRC may live elsewhere (skb fragments).
 * Checks everything that does not need the QP: opcode known, TVer, P_Key
 * against pkey, header and pad lengths, 4-byte alignment, payload only on
 * opcodes that carry one, payload not above SROCE_MAX_PMTU.
 * The ICRC is checked separately (icrc.h).
 *
 * ext: the SXH flags (enum sroce_sxh_flag) agreed with the sender.  0:
 * plain IBTA, every extension opcode is unknown (SROCE_RX_BAD_OPCODE),
 * exactly as for a peer that never heard of them.  Otherwise extension
 * opcodes are valid too, and their SXH is checked: version, a flag
 * outside ext or not known to this version (SROCE_RX_SXH_FLAGS), length
 * field, the fields the opcode needs (SROCE_RX_BAD_SXH).
 */
enum sroce_rx_reason sroce_pkt_parse_ext(struct sroce_pkt *pkt, const u8 *bth,
					 u32 len, u16 pkey, u16 ext);

/* Plain IBTA: no extension agreed */
static inline enum sroce_rx_reason sroce_pkt_parse(struct sroce_pkt *pkt,
						   const u8 *bth, u32 len,
						   u16 pkey)
{
	return sroce_pkt_parse_ext(pkt, bth, len, pkey, 0);
}

/*
 * The checks that need the destination QP: the opcode belongs to the QP's
 * transport (a CNP is valid for any) and the payload fits the path MTU,
 * FIRST and MIDDLE packets carrying exactly pmtu bytes, LAST at least one.
 */
enum sroce_rx_reason sroce_pkt_check_qp(const struct sroce_pkt *pkt,
					enum sroce_transport qpt, u32 pmtu);

/*
 * Offset of header h from the BTH in a packet of opcode info whose SXH
 * fields take extra bytes; 0 when absent.
 */
static inline u32 sroce_hdr_off(const struct sroce_opcode_info *info,
				enum sroce_hdr h, u32 extra)
{
	u32 off = info->off[h];

	return off && h > SROCE_HDR_SXH ? off + extra : off;
}

static inline const u8 *sroce_pkt_ext(const struct sroce_pkt *pkt,
				      enum sroce_hdr h)
{
	u32 off = sroce_hdr_off(pkt->info, h,
				pkt->hdr_len - pkt->info->hdr_len);

	return off ? pkt->hdr + off : NULL;
}

static inline const u8 *sroce_pkt_payload(const struct sroce_pkt *pkt)
{
	return pkt->hdr + pkt->hdr_len;
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
	struct sroce_sxh sxh;	/* extension opcodes */
};

/* Length of the headers sroce_hdrs_build() writes; 0 if it cannot */
u32 sroce_hdrs_len(const struct sroce_hdrs *h);

/*
 * Writes the BTH and the extension headers of h->bth.opcode (the CNP's
 * reserved bytes as zeroes) into buf of cap bytes.  Returns their length,
 * or 0 for an unknown opcode, an SXH with unknown flags or without the
 * fields its opcode needs, or a too small buffer.
 */
u32 sroce_hdrs_build(u8 *buf, u32 cap, const struct sroce_hdrs *h);

/*
 * The headers of a congestion notification to QP dqpn, as IBTA Annex
 * A17.9.3 gives them and ConnectX NICs send them: opcode 0x81, the default
 * P_Key, the BECN bit set, PSN 0, no AckReq; 16 reserved bytes follow.
 */
void sroce_cnp_hdrs(struct sroce_hdrs *h, u32 dqpn);

/* Decodes the headers of a parsed packet; absent ones are left untouched. */
void sroce_pkt_hdrs(const struct sroce_pkt *pkt, struct sroce_hdrs *h);

#endif /* SROCE_PROTO_PKT_H */
