// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host-only CRC-32 for the protocol core (the module uses crc32_le()).
 * Slicing by 8, the same algorithm as the kernel's default lib/crc32.c,
 * so host benchmarks of the ICRC are representative.  Not part of
 * SROCE_PROTO_OBJS.
 */
#ifndef __KERNEL__
#include "compat.h"

#define SROCE_CRC32_POLY_LE 0xedb88320u

static u32 sroce_crc32_tab[8][256];

__attribute__((constructor)) static void sroce_crc32_init(void)
{
	u32 i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ ((c & 1) ? SROCE_CRC32_POLY_LE : 0);
		sroce_crc32_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = sroce_crc32_tab[0][i];
		for (j = 1; j < 8; j++) {
			c = (c >> 8) ^ sroce_crc32_tab[0][c & 0xff];
			sroce_crc32_tab[j][i] = c;
		}
	}
}

u32 sroce_crc32(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len >= 8) {
		u32 lo = crc ^ sroce_get_le32(p);
		u32 hi = sroce_get_le32(p + 4);

		crc = sroce_crc32_tab[7][lo & 0xff] ^
		      sroce_crc32_tab[6][(lo >> 8) & 0xff] ^
		      sroce_crc32_tab[5][(lo >> 16) & 0xff] ^
		      sroce_crc32_tab[4][lo >> 24] ^
		      sroce_crc32_tab[3][hi & 0xff] ^
		      sroce_crc32_tab[2][(hi >> 8) & 0xff] ^
		      sroce_crc32_tab[1][(hi >> 16) & 0xff] ^
		      sroce_crc32_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ sroce_crc32_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}
#endif /* __KERNEL__ */
