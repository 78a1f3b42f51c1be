// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rc.c - reliable-transport arithmetic (see rc.h).
 */
#include "rc.h"

/* IBTA table "AETH credit count encoding", code 0..30 */
static const u16 sroce_credit_table[31] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384,
	512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
	24576, 32768,
};

u32 sroce_aeth_credits(u8 code)
{
	code &= SROCE_AETH_VALUE_MASK;
	if (code == SROCE_AETH_CREDIT_INVALID)
		return ~0u;
	return sroce_credit_table[code];
}

u8 sroce_aeth_credit_code(u32 n)
{
	u8 code = 0;

	while (code < 30 && sroce_credit_table[code + 1] <= n)
		code++;
	return code;
}

/* IBTA table "Encoding for RNR NAK timer field", in microseconds */
static const u32 sroce_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

u32 sroce_rnr_timer_usec(u8 code)
{
	return sroce_rnr_usec[code & SROCE_AETH_VALUE_MASK];
}

u8 sroce_rnr_timer_code(u32 usec)
{
	u8 code;

	for (code = 1; code < 32; code++)
		if (sroce_rnr_usec[code] >= usec)
			return code;
	return 0;
}
