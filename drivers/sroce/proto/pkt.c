// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Transport-header parsing, validation and building (see pkt.h).
 */
#include "pkt.h"

static const char * const sroce_rx_reason_names[SROCE_RX_REASON_NR] = {
	[SROCE_RX_OK] = "ok",
	[SROCE_RX_TRUNCATED] = "truncated",
	[SROCE_RX_BAD_IP_VERSION] = "bad_ip_version",
	[SROCE_RX_BAD_IP_HDR] = "bad_ip_hdr",
	[SROCE_RX_BAD_IP_LEN] = "bad_ip_len",
	[SROCE_RX_NOT_UDP] = "not_udp",
	[SROCE_RX_BAD_UDP_PORT] = "bad_udp_port",
	[SROCE_RX_BAD_UDP_LEN] = "bad_udp_len",
	[SROCE_RX_BAD_OPCODE] = "bad_opcode",
	[SROCE_RX_BAD_TVER] = "bad_tver",
	[SROCE_RX_BAD_PKEY] = "bad_pkey",
	[SROCE_RX_BAD_LEN] = "bad_len",
	[SROCE_RX_BAD_PAD] = "bad_pad",
	[SROCE_RX_BAD_TRANSPORT] = "bad_transport",
	[SROCE_RX_OVER_MTU] = "over_mtu",
	[SROCE_RX_BAD_SEG_LEN] = "bad_seg_len",
	[SROCE_RX_BAD_ICRC] = "bad_icrc",
	[SROCE_RX_BAD_SXH] = "bad_sxh",
	[SROCE_RX_SXH_FLAGS] = "sxh_flags",
};

const char *sroce_rx_reason_name(enum sroce_rx_reason reason)
{
	if ((unsigned int)reason >= SROCE_RX_REASON_NR)
		return "unknown";
	return sroce_rx_reason_names[reason];
}

/*
 * The SXH at p of a packet of opcode info, its fixed part in the buffer:
 * the bytes its fields take beyond it in *extra.
 */
static enum sroce_rx_reason
sroce_pkt_parse_sxh(const u8 *p, const struct sroce_opcode_info *info,
		    u16 ext, u32 *extra)
{
	u16 flags = sroce_sxh_flags(p);
	u32 len = sroce_sxh_len(flags);

	if (sroce_sxh_version(p) != SROCE_SXH_VERSION)
		return SROCE_RX_BAD_SXH;
	if (flags & ~(ext & SROCE_SXH_KNOWN))
		return SROCE_RX_SXH_FLAGS;
	if (sroce_sxh_wire_len(p) != len || (info->sxh_need & ~flags))
		return SROCE_RX_BAD_SXH;
	*extra = len - SROCE_SXH_LEN;
	return SROCE_RX_OK;
}

enum sroce_rx_reason sroce_pkt_parse_ext(struct sroce_pkt *pkt, const u8 *bth,
					 u32 len, u16 pkey, u16 ext)
{
	const struct sroce_opcode_info *info;
	enum sroce_rx_reason r;
	u32 body;	/* payload and pad */
	u32 hdr_len, extra;
	u8 pad;

	if (len < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return SROCE_RX_TRUNCATED;
	info = &sroce_opcode_table[bth[0]];
	if (!(info->flags & SROCE_OPF_VALID) &&
	    !(ext && (info->flags & SROCE_OPF_SXH)))
		return SROCE_RX_BAD_OPCODE;
	if ((bth[1] & SROCE_BTH_TVER_MASK) != SROCE_TVER)
		return SROCE_RX_BAD_TVER;
	hdr_len = info->hdr_len;
	if (len < hdr_len + SROCE_ICRC_LEN)
		return SROCE_RX_TRUNCATED;
	if (info->flags & SROCE_OPF_SXH) {
		r = sroce_pkt_parse_sxh(bth + info->off[SROCE_HDR_SXH], info,
					ext, &extra);
		if (r != SROCE_RX_OK)
			return r;
		hdr_len += extra;
		if (len < hdr_len + SROCE_ICRC_LEN)
			return SROCE_RX_TRUNCATED;
	}
	if (len & 3)
		return SROCE_RX_BAD_LEN;
	body = len - hdr_len - SROCE_ICRC_LEN;
	pad = (bth[1] & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	if (pad > body)
		return SROCE_RX_BAD_PAD;
	if (body && !(info->flags & SROCE_OPF_PAYLOAD))
		return SROCE_RX_BAD_LEN;
	if (body - pad > SROCE_MAX_PMTU)
		return SROCE_RX_OVER_MTU;
	sroce_bth_get(bth, &pkt->bth);
	if (!sroce_pkey_match(pkt->bth.pkey, pkey))
		return SROCE_RX_BAD_PKEY;
	pkt->hdr = bth;
	pkt->info = info;
	pkt->len = len;
	pkt->hdr_len = (u8)hdr_len;
	pkt->paylen = body - pad;
	return SROCE_RX_OK;
}

enum sroce_rx_reason sroce_pkt_check_qp(const struct sroce_pkt *pkt,
					enum sroce_transport qpt, u32 pmtu)
{
	u32 flags = pkt->info->flags;

	if (flags & SROCE_OPF_CNP)
		return SROCE_RX_OK;
	if (sroce_opcode_base_transport(pkt->bth.opcode) != qpt)
		return SROCE_RX_BAD_TRANSPORT;
	if (pkt->paylen > pmtu)
		return SROCE_RX_OVER_MTU;
	if ((flags & SROCE_OPF_ONLY) == SROCE_OPF_ONLY)
		return SROCE_RX_OK;
	if (flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) {
		if (pkt->paylen != pmtu)
			return SROCE_RX_BAD_SEG_LEN;
	} else if (flags & SROCE_OPF_LAST) {
		if (!pkt->paylen)
			return SROCE_RX_BAD_SEG_LEN;
	}
	return SROCE_RX_OK;
}

/*
 * The offsets of the headers of opcode info when its SXH fields take
 * extra bytes: the row's own, or moved ones written to buf.
 */
static const u8 *sroce_hdr_offs(const struct sroce_opcode_info *info,
				u32 extra, u8 *buf)
{
	int i;

	if (!extra)
		return info->off;
	for (i = 0; i < SROCE_HDR_NR; i++)
		buf[i] = (u8)sroce_hdr_off(info, (enum sroce_hdr)i, extra);
	return buf;
}

/* Bytes the SXH fields of h take beyond the fixed part; -1 if unfit */
static int sroce_hdrs_sxh_extra(const struct sroce_opcode_info *info,
				const struct sroce_hdrs *h)
{
	u32 len;

	if (!(info->flags & SROCE_OPF_SXH))
		return 0;
	len = sroce_sxh_len(h->sxh.flags);
	if (!len || (info->sxh_need & ~h->sxh.flags))
		return -1;
	return (int)(len - SROCE_SXH_LEN);
}

u32 sroce_hdrs_len(const struct sroce_hdrs *h)
{
	const struct sroce_opcode_info *info = sroce_opcode_lookup(h->bth.opcode);
	int extra = sroce_hdrs_sxh_extra(info, h);

	if (!(info->flags & (SROCE_OPF_VALID | SROCE_OPF_SXH)) || extra < 0)
		return 0;
	return info->hdr_len + (u32)extra;
}

u32 sroce_hdrs_build(u8 *buf, u32 cap, const struct sroce_hdrs *h)
{
	const struct sroce_opcode_info *info = sroce_opcode_lookup(h->bth.opcode);
	u32 len = sroce_hdrs_len(h);
	u8 moved[SROCE_HDR_NR];
	const u8 *off;

	if (!len || cap < len)
		return 0;
	off = sroce_hdr_offs(info, len - info->hdr_len, moved);
	sroce_bth_put(buf, &h->bth);
	if (off[SROCE_HDR_DETH])
		sroce_deth_put(buf + off[SROCE_HDR_DETH], &h->deth);
	if (off[SROCE_HDR_XRCETH])
		sroce_xrceth_put(buf + off[SROCE_HDR_XRCETH], h->xrc_srqn);
	if (off[SROCE_HDR_SXH])
		sroce_sxh_put(buf + off[SROCE_HDR_SXH], &h->sxh);
	if (off[SROCE_HDR_RETH])
		sroce_reth_put(buf + off[SROCE_HDR_RETH], &h->reth);
	if (off[SROCE_HDR_ATMETH])
		sroce_atmeth_put(buf + off[SROCE_HDR_ATMETH], &h->atmeth);
	if (off[SROCE_HDR_AETH])
		sroce_aeth_put(buf + off[SROCE_HDR_AETH], &h->aeth);
	if (off[SROCE_HDR_ATMACK])
		sroce_atmack_put(buf + off[SROCE_HDR_ATMACK], h->atmack);
	if (off[SROCE_HDR_IMMDT])
		sroce_imm_put(buf + off[SROCE_HDR_IMMDT], h->imm);
	if (off[SROCE_HDR_IETH])
		sroce_ieth_put(buf + off[SROCE_HDR_IETH], h->ieth_rkey);
	if (off[SROCE_HDR_CNP_RSVD])
		memset(buf + off[SROCE_HDR_CNP_RSVD], 0, SROCE_CNP_RSVD_LEN);
	return len;
}

void sroce_cnp_hdrs(struct sroce_hdrs *h, u32 dqpn)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = SROCE_OP_CNP;
	h->bth.flags = SROCE_BTHF_BECN;
	h->bth.pkey = SROCE_DEFAULT_PKEY;
	h->bth.dqpn = dqpn & SROCE_QPN_MASK;
}

void sroce_pkt_hdrs(const struct sroce_pkt *pkt, struct sroce_hdrs *h)
{
	u8 moved[SROCE_HDR_NR];
	const u8 *p = pkt->hdr;
	const u8 *off = sroce_hdr_offs(pkt->info,
				       pkt->hdr_len - pkt->info->hdr_len,
				       moved);

	h->bth = pkt->bth;
	if (off[SROCE_HDR_DETH])
		sroce_deth_get(p + off[SROCE_HDR_DETH], &h->deth);
	if (off[SROCE_HDR_XRCETH])
		h->xrc_srqn = sroce_xrceth_get(p + off[SROCE_HDR_XRCETH]);
	if (off[SROCE_HDR_SXH])
		sroce_sxh_get(p + off[SROCE_HDR_SXH], &h->sxh);
	if (off[SROCE_HDR_RETH])
		sroce_reth_get(p + off[SROCE_HDR_RETH], &h->reth);
	if (off[SROCE_HDR_ATMETH])
		sroce_atmeth_get(p + off[SROCE_HDR_ATMETH], &h->atmeth);
	if (off[SROCE_HDR_AETH])
		sroce_aeth_get(p + off[SROCE_HDR_AETH], &h->aeth);
	if (off[SROCE_HDR_ATMACK])
		h->atmack = sroce_atmack_get(p + off[SROCE_HDR_ATMACK]);
	if (off[SROCE_HDR_IMMDT])
		h->imm = sroce_imm_get(p + off[SROCE_HDR_IMMDT]);
	if (off[SROCE_HDR_IETH])
		h->ieth_rkey = sroce_ieth_get(p + off[SROCE_HDR_IETH]);
}
