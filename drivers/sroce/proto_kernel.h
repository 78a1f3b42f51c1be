/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Kernel side of the protocol core's shim (see proto/compat.h): maps the
 * byte-order and CRC helpers of drivers/sroce/proto/ to the kernel's own.
 * Only proto/compat.h includes this file, and only under __KERNEL__; the
 * host build of the same sources uses plain C instead.
 *
 * Header fields sit at any alignment in a packet, so loads and stores go
 * through memcpy() (a single move on x86) and the kernel's byte-order
 * conversions, which keeps sparse's __be/__le checking.
 */
#ifndef SROCE_PROTO_KERNEL_H
#define SROCE_PROTO_KERNEL_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/crc32.h>
#include <asm/byteorder.h>

static inline u16 sroce_get_be16(const u8 *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static inline u32 sroce_get_be32(const u8 *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static inline u64 sroce_get_be64(const u8 *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

static inline u32 sroce_get_le32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	__be16 w = cpu_to_be16(v);

	memcpy(p, &w, sizeof(w));
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	__be32 w = cpu_to_be32(v);

	memcpy(p, &w, sizeof(w));
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	__be64 w = cpu_to_be64(v);

	memcpy(p, &w, sizeof(w));
}

static inline void sroce_put_le32(u8 *p, u32 v)
{
	__le32 w = cpu_to_le32(v);

	memcpy(p, &w, sizeof(w));
}

/* Reflected CRC-32 (Ethernet polynomial), no pre- or post-inversion. */
static inline u32 sroce_crc32(u32 crc, const void *p, size_t len)
{
	return crc32_le(crc, p, len);
}

#endif /* SROCE_PROTO_KERNEL_H */
