// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * IPv4/IPv6 + UDP encapsulation, and whole-packet build and parse for
 * contiguous buffers (ACKs, tests, fuzzers).
 */
#include "encap.h"
#include "icrc.h"

u16 sroce_ipv4_csum(const u8 *iph)
{
	u32 sum = 0;
	int i;

	for (i = 0; i < SROCE_IPV4_HLEN; i += 2)
		sum += sroce_get_be16(iph + i);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static const u8 sroce_v4mapped_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

static void sroce_ipv4_map(u8 *gid, const u8 *addr)
{
	memcpy(gid, sroce_v4mapped_prefix, sizeof(sroce_v4mapped_prefix));
	memcpy(gid + 12, addr, 4);
}

void sroce_net_build(u8 *buf, const struct sroce_net *net, u32 udp_paylen)
{
	u32 udp_len = SROCE_UDP_HLEN + udp_paylen;
	u8 *udp;

	if (net->ipv6) {
		sroce_put_be32(buf, 6u << 28 | (u32)net->tos << 20 |
				    (net->flow_label & 0xfffff));
		sroce_put_be16(buf + 4, (u16)udp_len);
		buf[6] = SROCE_IPPROTO_UDP;
		buf[7] = net->ttl;
		memcpy(buf + 8, net->saddr, 16);
		memcpy(buf + 24, net->daddr, 16);
		udp = buf + SROCE_IPV6_HLEN;
	} else {
		buf[0] = 0x45;
		buf[1] = net->tos;
		sroce_put_be16(buf + 2, (u16)(SROCE_IPV4_HLEN + udp_len));
		sroce_put_be16(buf + 4, net->ip_id);
		sroce_put_be16(buf + 6, SROCE_IPV4_DF);
		buf[8] = net->ttl;
		buf[9] = SROCE_IPPROTO_UDP;
		buf[10] = 0;
		buf[11] = 0;
		memcpy(buf + 12, net->saddr + 12, 4);
		memcpy(buf + 16, net->daddr + 12, 4);
		sroce_put_be16(buf + 10, sroce_ipv4_csum(buf));
		udp = buf + SROCE_IPV4_HLEN;
	}
	sroce_put_be16(udp, net->sport);
	sroce_put_be16(udp + 2, net->dport);
	sroce_put_be16(udp + 4, (u16)udp_len);
	sroce_put_be16(udp + 6, 0);
}

enum sroce_rx_reason sroce_net_parse(const u8 *buf, u32 len,
				     struct sroce_net *net, u32 *udp_paylen)
{
	const u8 *udp;
	u32 ip_paylen, udp_len;

	if (len < SROCE_IPV4_HLEN + SROCE_UDP_HLEN)
		return SROCE_RX_TRUNCATED;
	switch (buf[0] >> 4) {
	case 4:
		if ((buf[0] & 0x0f) != SROCE_IPV4_HLEN / 4 ||
		    (sroce_get_be16(buf + 6) & SROCE_IPV4_FRAG_MASK) &
		    ~SROCE_IPV4_DF)
			return SROCE_RX_BAD_IP_HDR;
		ip_paylen = sroce_get_be16(buf + 2);
		if (ip_paylen > len ||
		    ip_paylen < SROCE_IPV4_HLEN + SROCE_UDP_HLEN)
			return SROCE_RX_BAD_IP_LEN;
		ip_paylen -= SROCE_IPV4_HLEN;
		if (buf[9] != SROCE_IPPROTO_UDP)
			return SROCE_RX_NOT_UDP;
		net->ipv6 = 0;
		net->tos = buf[1];
		net->ttl = buf[8];
		net->ip_id = sroce_get_be16(buf + 4);
		net->flow_label = 0;
		sroce_ipv4_map(net->saddr, buf + 12);
		sroce_ipv4_map(net->daddr, buf + 16);
		udp = buf + SROCE_IPV4_HLEN;
		break;
	case 6:
		if (len < SROCE_IPV6_HLEN + SROCE_UDP_HLEN)
			return SROCE_RX_TRUNCATED;
		ip_paylen = sroce_get_be16(buf + 4);
		if (ip_paylen > len - SROCE_IPV6_HLEN ||
		    ip_paylen < SROCE_UDP_HLEN)
			return SROCE_RX_BAD_IP_LEN;
		if (buf[6] != SROCE_IPPROTO_UDP)
			return SROCE_RX_NOT_UDP;
		net->ipv6 = 1;
		net->tos = (u8)(sroce_get_be16(buf) >> 4);
		net->ttl = buf[7];
		net->ip_id = 0;
		net->flow_label = sroce_get_be32(buf) & 0xfffff;
		memcpy(net->saddr, buf + 8, 16);
		memcpy(net->daddr, buf + 24, 16);
		udp = buf + SROCE_IPV6_HLEN;
		break;
	default:
		return SROCE_RX_BAD_IP_VERSION;
	}
	net->sport = sroce_get_be16(udp);
	net->dport = sroce_get_be16(udp + 2);
	if (net->dport != SROCE_UDP_PORT)
		return SROCE_RX_BAD_UDP_PORT;
	udp_len = sroce_get_be16(udp + 4);
	if (udp_len != ip_paylen)
		return SROCE_RX_BAD_UDP_LEN;
	*udp_paylen = udp_len - SROCE_UDP_HLEN;
	return SROCE_RX_OK;
}

u32 sroce_frame_build(u8 *buf, u32 cap, const struct sroce_net *net,
		      struct sroce_hdrs *h, const u8 *payload, u32 paylen)
{
	const struct sroce_opcode_info *info = sroce_opcode_lookup(h->bth.opcode);
	u32 nhl = sroce_net_hlen(net);
	u8 pad = sroce_pad_len(paylen);
	u32 hdr_len = sroce_hdrs_len(h);
	u32 udp_paylen, total;
	u8 *bth = buf + nhl;
	u8 *p;

	if (!hdr_len || (paylen && !(info->flags & SROCE_OPF_PAYLOAD)) ||
	    paylen > 0xffff)
		return 0;
	udp_paylen = hdr_len + paylen + pad + SROCE_ICRC_LEN;
	total = nhl + udp_paylen;
	if (total > cap || total - (net->ipv6 ? SROCE_IPV6_HLEN : 0) > 0xffff)
		return 0;
	h->bth.pad = pad;
	sroce_net_build(buf, net, udp_paylen);
	p = bth + sroce_hdrs_build(bth, cap - nhl, h);
	if (paylen)
		memcpy(p, payload, paylen);
	p += paylen;
	memset(p, 0, pad);
	p += pad;
	sroce_icrc_put(p, sroce_icrc_compute(buf, net->ipv6,
					     bth - SROCE_UDP_HLEN, bth,
					     (u32)(p - bth)));
	return total;
}

enum sroce_rx_reason sroce_frame_parse_ext(const u8 *buf, u32 len, u16 pkey,
					   u16 ext, struct sroce_net *net,
					   struct sroce_pkt *pkt)
{
	enum sroce_rx_reason r;
	u32 nhl, udp_paylen, icrc;

	r = sroce_net_parse(buf, len, net, &udp_paylen);
	if (r != SROCE_RX_OK)
		return r;
	nhl = sroce_net_hlen(net);
	r = sroce_pkt_parse_ext(pkt, buf + nhl, udp_paylen, pkey, ext);
	if (r != SROCE_RX_OK)
		return r;
	icrc = sroce_icrc_compute(buf, net->ipv6, buf + nhl - SROCE_UDP_HLEN,
				  pkt->hdr, sroce_pkt_icrc_off(pkt));
	if (icrc != sroce_icrc_get(pkt->hdr + sroce_pkt_icrc_off(pkt)))
		return SROCE_RX_BAD_ICRC;
	return SROCE_RX_OK;
}

u16 sroce_udp_sport_qpn(u32 qpn)
{
	/* hash_32(qpn, 14): multiplicative hash by the 32-bit golden ratio */
	return (u16)(SROCE_UDP_SPORT_MIN + ((qpn * 0x61c88647u) >> (32 - 14)));
}

u16 sroce_udp_sport_flow(u32 flow_label)
{
	u32 fl = flow_label & 0xfffff;

	return (u16)(((fl & 0x3fff) ^ (fl >> 14)) | SROCE_UDP_SPORT_MIN);
}
