// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The extension header's fields between wire and host form (see sxh.h).
 *
 * OFFSET (4 bytes): the byte offset of the packet's payload within its
 * message, big-endian.  SACK (4 + 8 * SROCE_SACK_WORDS bytes): 8 reserved
 * bits and the 24-bit expected PSN, then map[0], map[1], ... each a
 * big-endian 64-bit word (struct sroce_sack).
 */
#include "sxh.h"

void sroce_sxh_get(const u8 *p, struct sroce_sxh *sxh)
{
	u32 k;

	sxh->flags = sroce_sxh_flags(p);
	p += SROCE_SXH_LEN;
	if (sxh->flags & SROCE_SXH_OFFSET) {
		sxh->offset = sroce_get_be32(p);
		p += SROCE_SXH_OFFSET_LEN;
	}
	if (sxh->flags & SROCE_SXH_SACK) {
		sxh->sack.epsn = sroce_get_be32(p) & SROCE_PSN_MASK;
		for (k = 0; k < SROCE_SACK_WORDS; k++)
			sxh->sack.map[k] = sroce_get_be64(p + 4 + 8 * k);
	}
}

u32 sroce_sxh_put(u8 *p, const struct sroce_sxh *sxh)
{
	u32 len = sroce_sxh_len(sxh->flags), k;

	if (!len)
		return 0;
	sroce_put_be16(p, SROCE_SXH_VERSION << 12 | sxh->flags);
	p[2] = (u8)(len / 4);
	p[3] = 0;
	p += SROCE_SXH_LEN;
	if (sxh->flags & SROCE_SXH_OFFSET) {
		sroce_put_be32(p, sxh->offset);
		p += SROCE_SXH_OFFSET_LEN;
	}
	if (sxh->flags & SROCE_SXH_SACK) {
		sroce_put_be32(p, sxh->sack.epsn & SROCE_PSN_MASK);
		for (k = 0; k < SROCE_SACK_WORDS; k++)
			sroce_put_be64(p + 4 + 8 * k, sxh->sack.map[k]);
	}
	return len;
}
