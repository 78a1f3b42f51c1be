// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCEv2 ICRC (IBTA Annex A17.3.3): CRC-32 over a masked copy of the
 * IP, UDP and BTH headers, then the rest of the packet up to the ICRC.
 */
#include "icrc.h"

void sroce_icrc_start(struct sroce_icrc *ic, const u8 *iph, bool ipv6,
		      const u8 *udph, const u8 *bth)
{
	u8 ph[SROCE_IPV6_HLEN + SROCE_UDP_HLEN + SROCE_BTH_LEN];
	u32 ip_len = ipv6 ? SROCE_IPV6_HLEN : SROCE_IPV4_HLEN;
	u8 *udp = ph + ip_len;
	u8 *b = udp + SROCE_UDP_HLEN;

	memcpy(ph, iph, ip_len);
	memcpy(udp, udph, SROCE_UDP_HLEN);
	memcpy(b, bth, SROCE_BTH_LEN);
	if (ipv6) {
		/* traffic class and flow label: all but the version nibble */
		ph[0] |= 0x0f;
		ph[1] = 0xff;
		ph[2] = 0xff;
		ph[3] = 0xff;
		ph[7] = 0xff;		/* hop limit */
	} else {
		ph[1] = 0xff;		/* TOS */
		ph[8] = 0xff;		/* TTL */
		ph[10] = 0xff;		/* header checksum */
		ph[11] = 0xff;
	}
	udp[6] = 0xff;			/* UDP checksum */
	udp[7] = 0xff;
	b[4] = 0xff;			/* FECN, BECN, reserved */
	ic->crc = sroce_crc32(SROCE_ICRC_SEED, ph,
			      ip_len + SROCE_UDP_HLEN + SROCE_BTH_LEN);
}

u32 sroce_icrc_compute(const u8 *iph, bool ipv6, const u8 *udph,
		       const u8 *bth, u32 len)
{
	struct sroce_icrc ic;

	sroce_icrc_start(&ic, iph, ipv6, udph, bth);
	sroce_icrc_feed(&ic, bth + SROCE_BTH_LEN, len - SROCE_BTH_LEN);
	return sroce_icrc_finish(&ic);
}
