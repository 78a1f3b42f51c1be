/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * encap.h - the IPv4/IPv6 + UDP encapsulation of RoCEv2.
 */
#ifndef SROCE_PROTO_ENCAP_H
#define SROCE_PROTO_ENCAP_H

#include "pkt.h"

#define SROCE_IPPROTO_UDP	17
#define SROCE_IPV4_DF		0x4000
#define SROCE_IPV4_MF		0x2000
#define SROCE_IPV4_FRAG_MASK	0x3fff	/* MF and fragment offset */
#define SROCE_MAX_NET_HLEN	(SROCE_IPV6_HLEN + SROCE_UDP_HLEN)

/* The ECN field (RFC 3168): the low two bits of the TOS / traffic class */
#define SROCE_ECN_MASK		0x3
#define SROCE_ECN_NOT_ECT	0x0
#define SROCE_ECN_ECT0		0x2
#define SROCE_ECN_CE		0x3

/* IP and UDP fields of a RoCEv2 packet */
struct sroce_net {
	u8 ipv6;		/* 0: IPv4 */
	u8 tos;			/* IPv4 TOS or IPv6 traffic class */
	u8 ttl;			/* IPv4 TTL or IPv6 hop limit */
	u16 ip_id;		/* IPv4 only; built with DF set */
	u32 flow_label;		/* IPv6 only, 20 bits */
	u8 saddr[16];		/* IPv4 as ::ffff:a.b.c.d, as in a GID */
	u8 daddr[16];
	u16 sport;
	u16 dport;
};

static inline u32 sroce_net_hlen(const struct sroce_net *net)
{
	return (net->ipv6 ? SROCE_IPV6_HLEN : SROCE_IPV4_HLEN) + SROCE_UDP_HLEN;
}

/* IPv4 header checksum over 20 bytes (as stored on the wire) */
u16 sroce_ipv4_csum(const u8 *iph);

/*
 * Writes the IP and UDP headers (sroce_net_hlen() bytes) for a UDP payload
 * of udp_paylen bytes (BTH to ICRC).  UDP checksum 0, IPv4 DF set.
 */
void sroce_net_build(u8 *buf, const struct sroce_net *net, u32 udp_paylen);

/*
 * Parses the IP and UDP headers of a RoCEv2 packet of len bytes (bytes
 * past the IP length, such as Ethernet padding, are ignored).  On success
 * *udp_paylen is the UDP payload length; it starts at sroce_net_hlen().
 * Rejects IPv4 options and fragments (SROCE_RX_BAD_IP_HDR) and IPv6
 * extension headers (SROCE_RX_NOT_UDP).  IP and UDP checksums are the
 * network stack's business and are not verified.
 */
enum sroce_rx_reason sroce_net_parse(const u8 *buf, u32 len,
				     struct sroce_net *net, u32 *udp_paylen);

/*
 * Builds a whole packet, IP header to ICRC, into buf (cap bytes): sets
 * h->bth.pad from paylen, zeroes the pad and computes the ICRC.  Returns
 * the packet length, or 0 if the opcode is unknown, carries no payload
 * but paylen is not 0, or cap is too small.
 */
u32 sroce_frame_build(u8 *buf, u32 cap, const struct sroce_net *net,
		      struct sroce_hdrs *h, const u8 *payload, u32 paylen);

/*
 * Parses and validates a whole packet, IP header to ICRC: the network
 * headers, the transport headers (sroce_pkt_parse_ext(), with the SXH
 * flags ext agreed) and the ICRC.
 */
enum sroce_rx_reason sroce_frame_parse_ext(const u8 *buf, u32 len, u16 pkey,
					   u16 ext, struct sroce_net *net,
					   struct sroce_pkt *pkt);

/* Plain IBTA: no extension agreed */
static inline enum sroce_rx_reason sroce_frame_parse(const u8 *buf, u32 len,
						     u16 pkey,
						     struct sroce_net *net,
						     struct sroce_pkt *pkt)
{
	return sroce_frame_parse_ext(buf, len, pkey, 0, net, pkt);
}

/* UDP source port of a QP (0xc000..0xffff), as rdma_rxe derives it */
u16 sroce_udp_sport_qpn(u32 qpn);
/* UDP source port from an IPv6 flow label, as rdma_flow_label_to_udp_sport() */
u16 sroce_udp_sport_flow(u32 flow_label);

#endif /* SROCE_PROTO_ENCAP_H */
