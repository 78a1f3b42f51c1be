/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The protocol core's only view of its environment.
 *
 * drivers/sroce/proto/ is compiled twice: into sroce.ko and, as plain C,
 * into the host unit tests, fuzzers and benchmarks.  This header gives both
 * builds the same small vocabulary: the u8..u64 types, memcpy/memset, the
 * big- and little-endian unaligned load/store helpers and a raw CRC-32.
 * In the module the helpers are the kernel's own (../proto_kernel.h); on the
 * host they are written out below.  proto_kernel.h lives outside proto/ on
 * purpose: it includes kernel headers, and no file in proto/ may.
 */
#ifndef SROCE_PROTO_COMPAT_H
#define SROCE_PROTO_COMPAT_H

#ifdef __KERNEL__
#include "../proto_kernel.h"
#else
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* the kernel's fixed-size types, from the compiler's own definitions */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;

static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return (u64)sroce_get_be32(p) << 32 | sroce_get_be32(p + 4);
}

static inline u32 sroce_get_le32(const u8 *p)
{
	return (u32)p[3] << 24 | (u32)p[2] << 16 | (u32)p[1] << 8 | p[0];
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, (u32)(v >> 32));
	sroce_put_be32(p + 4, (u32)v);
}

static inline void sroce_put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

/*
 * Reflected CRC-32 (Ethernet polynomial) with no pre- or post-inversion,
 * the same contract as the kernel's crc32_le() (crc32_host.c).
 */
u32 sroce_crc32(u32 crc, const void *p, size_t len);
#endif /* __KERNEL__ */

#endif /* SROCE_PROTO_COMPAT_H */
