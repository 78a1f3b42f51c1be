/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RoCEv2 invariant CRC, computed incrementally so that the data path
 * can run it over skb fragments or user pages without linearizing:
 *
 *	sroce_icrc_start(&ic, iph, ipv6, udph, bth);	masked IP/UDP/BTH
 *	sroce_icrc_feed(&ic, p, n);	rest of the headers, payload, pad
 *	icrc = sroce_icrc_finish(&ic);
 *
 * The value is stored least-significant byte first (sroce_icrc_put()).
 */
#ifndef SROCE_PROTO_ICRC_H
#define SROCE_PROTO_ICRC_H

#include "wire.h"

/* CRC-32 state after eight 0xff bytes (the masked LRH) from seed ~0 */
#define SROCE_ICRC_SEED		0xdebb20e3u

struct sroce_icrc {
	u32 crc;
};

/*
 * Starts an ICRC with the IP header (20 bytes without options, or 40),
 * the UDP header and the 12-byte BTH, masking the variant fields: IPv4
 * TOS, TTL and checksum, IPv6 traffic class, flow label and hop limit,
 * the UDP checksum and BTH byte 4.  The three headers need not be
 * contiguous.  The IP total/payload length and the UDP length must
 * already hold their final values.
 */
void sroce_icrc_start(struct sroce_icrc *ic, const u8 *iph, bool ipv6,
		      const u8 *udph, const u8 *bth);

static inline void sroce_icrc_feed(struct sroce_icrc *ic, const void *p,
				   size_t len)
{
	ic->crc = sroce_crc32(ic->crc, p, len);
}

static inline u32 sroce_icrc_finish(const struct sroce_icrc *ic)
{
	return ~ic->crc;
}

static inline u32 sroce_icrc_get(const u8 *p)
{
	return sroce_get_le32(p);
}

static inline void sroce_icrc_put(u8 *p, u32 icrc)
{
	sroce_put_le32(p, icrc);
}

/*
 * ICRC of a packet whose transport part is contiguous: len bytes from the
 * BTH up to (not including) the ICRC.
 */
u32 sroce_icrc_compute(const u8 *iph, bool ipv6, const u8 *udph,
		       const u8 *bth, u32 len);

#endif /* SROCE_PROTO_ICRC_H */
