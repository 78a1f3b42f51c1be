// SPDX-License-Identifier: GPL-2.0
/*
 * pattern.c - the data the cases move and how they check it.
 */
#include "kvt.h"

/* Byte @i of pattern @seed: no period a transfer bug could hide in. */
u8 kvt_pat(u32 seed, u32 i)
{
	return (u8)(((seed << 16) + i) * 2654435761u >> 24);
}

void kvt_fill(u8 *p, u32 len, u32 seed, u32 base)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = kvt_pat(seed, base + i);
}

/* @p holds bytes @base.. of pattern @seed; else say where not. */
bool kvt_check(const char *what, const u8 *p, u32 len, u32 seed, u32 base)
{
	u32 i;

	for (i = 0; i < len; i++) {
		if (p[i] != kvt_pat(seed, base + i)) {
			kvt_diag("%s: byte %u of %u is 0x%02x, expected 0x%02x\n",
				 what, i, len, p[i], kvt_pat(seed, base + i));
			return false;
		}
	}
	return true;
}

/* Every byte of @p is @val (memory that must not have been written). */
bool kvt_check_val(const char *what, const u8 *p, u32 len, u8 val)
{
	u32 i;

	for (i = 0; i < len; i++) {
		if (p[i] != val) {
			kvt_diag("%s: byte %u of %u is 0x%02x, expected 0x%02x (untouched)\n",
				 what, i, len, p[i], val);
			return false;
		}
	}
	return true;
}
