/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 transport headers: sizes, field layout, and the load/store of each
 * header between its wire form (big-endian bytes, no alignment assumed) and
 * a plain host-order struct.
 *
 * Order of the headers after the BTH (IBTA 9.2, RoCEv2 has no LRH/GRH):
 * DETH, XRCETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; then the
 * payload, 0-3 pad bytes and the 4-byte ICRC.  Which headers an opcode
 * carries is data, in the opcode table (opcode.c).
 */
#ifndef SROCE_PROTO_WIRE_H
#define SROCE_PROTO_WIRE_H

#include "compat.h"

#define SROCE_UDP_PORT		4791
#define SROCE_UDP_SPORT_MIN	0xc000

#define SROCE_IPV4_HLEN		20
#define SROCE_IPV6_HLEN		40
#define SROCE_UDP_HLEN		8

#define SROCE_BTH_LEN		12
#define SROCE_DETH_LEN		8
#define SROCE_XRCETH_LEN	4
#define SROCE_RETH_LEN		16
#define SROCE_ATMETH_LEN	28
#define SROCE_AETH_LEN		4
#define SROCE_ATMACK_LEN	8
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_CNP_RSVD_LEN	16
#define SROCE_ICRC_LEN		4
/* BTH + XRCETH + AtomicETH is the longest header set of any opcode */
#define SROCE_MAX_HDR_LEN	(SROCE_BTH_LEN + SROCE_XRCETH_LEN + \
				 SROCE_ATMETH_LEN)

#define SROCE_MAX_PMTU		4096
#define SROCE_TVER		0
#define SROCE_DEFAULT_PKEY	0xffff
#define SROCE_PKEY_FULL		0x8000
#define SROCE_QPN_MASK		0xffffff
#define SROCE_PSN_MASK		0xffffff

/* BTH byte 1 */
#define SROCE_BTH_SE_BIT	0x80
#define SROCE_BTH_MIG_BIT	0x40
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_TVER_MASK	0x0f
/* BTH byte 4 (masked by the ICRC) */
#define SROCE_BTH_FECN_BIT	0x80
#define SROCE_BTH_BECN_BIT	0x40
/* BTH byte 8 */
#define SROCE_BTH_ACKREQ_BIT	0x80

/*
 * struct sroce_bth.flags: the single-bit fields of the BTH gathered in one
 * byte, each near its wire position so that loading them is cheap: SE and
 * MigReq as in byte 1, FECN and BECN from byte 4, AckReq from byte 8.
 */
#define SROCE_BTHF_SE		0x80
#define SROCE_BTHF_MIG		0x40
#define SROCE_BTHF_FECN		0x20
#define SROCE_BTHF_BECN		0x10
#define SROCE_BTHF_ACKREQ	0x04

/* Base Transport Header, 12 bytes */
struct sroce_bth {
	u8 opcode;
	u8 flags;	/* SROCE_BTHF_* */
	u8 pad;		/* pad count, 0-3 */
	u8 tver;	/* transport version, 0 */
	u16 pkey;
	u32 dqpn;	/* 24 bits */
	u32 psn;	/* 24 bits */
};

/* Datagram Extended Transport Header (UD), 8 bytes */
struct sroce_deth {
	u32 qkey;
	u32 sqpn;	/* 24 bits */
};

/* RDMA Extended Transport Header (WRITE first/only, READ request), 16 bytes */
struct sroce_reth {
	u64 va;
	u32 rkey;
	u32 len;
};

/* Atomic Extended Transport Header (CMP_SWAP, FETCH_ADD), 28 bytes */
struct sroce_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 compare;
};

/* ACK Extended Transport Header, 4 bytes */
struct sroce_aeth {
	u8 syndrome;
	u32 msn;	/* 24 bits */
};

static inline void sroce_bth_get(const u8 *p, struct sroce_bth *bth)
{
	u8 b1 = p[1];

	bth->opcode = p[0];
	bth->flags = (b1 & (SROCE_BTHF_SE | SROCE_BTHF_MIG)) |
		     ((p[4] >> 2) & (SROCE_BTHF_FECN | SROCE_BTHF_BECN)) |
		     ((p[8] >> 5) & SROCE_BTHF_ACKREQ);
	bth->pad = (b1 & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
	bth->tver = b1 & SROCE_BTH_TVER_MASK;
	bth->pkey = sroce_get_be16(p + 2);
	bth->dqpn = sroce_get_be32(p + 4) & SROCE_QPN_MASK;
	bth->psn = sroce_get_be32(p + 8) & SROCE_PSN_MASK;
}

static inline void sroce_bth_put(u8 *p, const struct sroce_bth *bth)
{
	u32 fb = (bth->flags & (SROCE_BTHF_FECN | SROCE_BTHF_BECN)) << 2;
	u32 ack = (bth->flags & SROCE_BTHF_ACKREQ) << 5;

	p[0] = bth->opcode;
	p[1] = (bth->flags & (SROCE_BTHF_SE | SROCE_BTHF_MIG)) |
	       ((bth->pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK) |
	       (bth->tver & SROCE_BTH_TVER_MASK);
	sroce_put_be16(p + 2, bth->pkey);
	sroce_put_be32(p + 4, fb << 24 | (bth->dqpn & SROCE_QPN_MASK));
	sroce_put_be32(p + 8, ack << 24 | (bth->psn & SROCE_PSN_MASK));
}

/* Set AckReq in a BTH already written */
static inline void sroce_bth_set_ackreq(u8 *p)
{
	p[8] |= SROCE_BTH_ACKREQ_BIT;
}

static inline void sroce_deth_get(const u8 *p, struct sroce_deth *deth)
{
	deth->qkey = sroce_get_be32(p);
	deth->sqpn = sroce_get_be32(p + 4) & SROCE_QPN_MASK;
}

static inline void sroce_deth_put(u8 *p, const struct sroce_deth *deth)
{
	sroce_put_be32(p, deth->qkey);
	sroce_put_be32(p + 4, deth->sqpn & SROCE_QPN_MASK);
}

/*
 * XRC Extended Transport Header (every XRC request), 4 bytes: 8 reserved
 * bits, then the 24-bit number of the XRC SRQ the request is for.
 */
static inline u32 sroce_xrceth_get(const u8 *p)
{
	return sroce_get_be32(p) & SROCE_QPN_MASK;
}

static inline void sroce_xrceth_put(u8 *p, u32 srqn)
{
	sroce_put_be32(p, srqn & SROCE_QPN_MASK);
}

static inline void sroce_reth_get(const u8 *p, struct sroce_reth *reth)
{
	reth->va = sroce_get_be64(p);
	reth->rkey = sroce_get_be32(p + 8);
	reth->len = sroce_get_be32(p + 12);
}

static inline void sroce_reth_put(u8 *p, const struct sroce_reth *reth)
{
	sroce_put_be64(p, reth->va);
	sroce_put_be32(p + 8, reth->rkey);
	sroce_put_be32(p + 12, reth->len);
}

static inline void sroce_atmeth_get(const u8 *p, struct sroce_atmeth *a)
{
	a->va = sroce_get_be64(p);
	a->rkey = sroce_get_be32(p + 8);
	a->swap_add = sroce_get_be64(p + 12);
	a->compare = sroce_get_be64(p + 20);
}

static inline void sroce_atmeth_put(u8 *p, const struct sroce_atmeth *a)
{
	sroce_put_be64(p, a->va);
	sroce_put_be32(p + 8, a->rkey);
	sroce_put_be64(p + 12, a->swap_add);
	sroce_put_be64(p + 20, a->compare);
}

static inline void sroce_aeth_get(const u8 *p, struct sroce_aeth *aeth)
{
	aeth->syndrome = p[0];
	aeth->msn = sroce_get_be32(p) & SROCE_PSN_MASK;
}

static inline void sroce_aeth_put(u8 *p, const struct sroce_aeth *aeth)
{
	sroce_put_be32(p, (u32)aeth->syndrome << 24 |
			  (aeth->msn & SROCE_PSN_MASK));
}

/* AtomicAckETH: the original remote value, 8 bytes */
static inline u64 sroce_atmack_get(const u8 *p)
{
	return sroce_get_be64(p);
}

static inline void sroce_atmack_put(u8 *p, u64 orig)
{
	sroce_put_be64(p, orig);
}

/*
 * ImmDt and IETH are 32-bit fields.  Immediate data is opaque to the
 * transport: it is handed over as the big-endian value of the four bytes.
 */
static inline u32 sroce_imm_get(const u8 *p)
{
	return sroce_get_be32(p);
}

static inline void sroce_imm_put(u8 *p, u32 imm)
{
	sroce_put_be32(p, imm);
}

static inline u32 sroce_ieth_get(const u8 *p)
{
	return sroce_get_be32(p);
}

static inline void sroce_ieth_put(u8 *p, u32 rkey)
{
	sroce_put_be32(p, rkey);
}

/* Number of pad bytes that bring a payload to a multiple of 4. */
static inline u8 sroce_pad_len(u32 paylen)
{
	return (u8)(-paylen & 3);
}

/*
 * P_Key match (IBTA 10.9.3): same 15-bit key, not the invalid key 0, and at
 * least one of the two a full member.
 */
static inline bool sroce_pkey_match(u16 a, u16 b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) &&
	       ((a | b) & SROCE_PKEY_FULL);
}

#endif /* SROCE_PROTO_WIRE_H */
