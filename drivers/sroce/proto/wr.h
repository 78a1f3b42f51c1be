/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wr.h - work-request opcodes as data: one row per opcode a send WQE may
 * carry, saying which QP types may post it, what it does and how it
 * completes.  The kernel's requester and post verbs and the user-space
 * provider ask this table; a new opcode is a new row.
 */
#ifndef SROCE_PROTO_WR_H
#define SROCE_PROTO_WR_H

#include "opcode.h"

/*
 * Send WQE opcodes: the values of enum ib_uverbs_wr_opcode (and of
 * libibverbs' enum ibv_wr_opcode), plus REG_MR, which only kernel users
 * post (the kernel's IB_WR_REG_MR).  The module and the provider check the
 * values against their own headers at build time.
 */
enum sroce_wr_op {
	SROCE_WR_OP_RDMA_WRITE		= 0,
	SROCE_WR_OP_RDMA_WRITE_IMM	= 1,
	SROCE_WR_OP_SEND		= 2,
	SROCE_WR_OP_SEND_IMM		= 3,
	SROCE_WR_OP_RDMA_READ		= 4,
	SROCE_WR_OP_CMP_SWAP		= 5,
	SROCE_WR_OP_FETCH_ADD		= 6,
	SROCE_WR_OP_LOCAL_INV		= 7,
	SROCE_WR_OP_BIND_MW		= 8,
	SROCE_WR_OP_SEND_INV		= 9,
	SROCE_WR_OP_ATOMIC_WRITE	= 15,	/* IBTA 1.5; Linux >= 6.2 */
	SROCE_WR_OP_REG_MR		= 0x20,
};

/*
 * Completion opcodes of send WQEs: the values of enum ib_uverbs_wc_opcode
 * (libibverbs' enum ibv_wc_opcode) and, for REG_MR, the kernel's
 * IB_WC_REG_MR.  ATOMIC_WRITE's is user space's alone: Linux 6.1's
 * enum ib_wc_opcode gives 9 to IB_WC_MASKED_COMP_SWAP, and no kernel
 * user posts an atomic write.
 */
enum sroce_wc_op {
	SROCE_WC_OP_SEND	= 0,
	SROCE_WC_OP_RDMA_WRITE	= 1,
	SROCE_WC_OP_RDMA_READ	= 2,
	SROCE_WC_OP_COMP_SWAP	= 3,
	SROCE_WC_OP_FETCH_ADD	= 4,
	SROCE_WC_OP_BIND_MW	= 5,
	SROCE_WC_OP_LOCAL_INV	= 6,
	SROCE_WC_OP_REG_MR	= 8,
	SROCE_WC_OP_ATOMIC_WRITE = 9,	/* IB_UVERBS_WC_ATOMIC_WRITE */
};

/* QP types, as a mask of struct sroce_wr_info.qp_types */
enum sroce_wr_qpt {
	SROCE_WR_QPT_RC	= 1 << 0,
	SROCE_WR_QPT_UC	= 1 << 1,
	SROCE_WR_QPT_UD	= 1 << 2,	/* and the GSI QP */
	SROCE_WR_QPT_RAW = 1 << 3,	/* raw packet: a frame per SEND */
	SROCE_WR_QPT_XRC = 1 << 4,	/* XRC INI: RC's requests, an SRQN */
};

/* What a work request does (struct sroce_wr_info.flags) */
enum sroce_wr_flags {
	SROCE_WRF_SEND		= 1 << 0,	/* a SEND message */
	SROCE_WRF_WRITE		= 1 << 1,	/* an RDMA WRITE message */
	SROCE_WRF_READ		= 1 << 2,	/* an RDMA READ */
	SROCE_WRF_ATOMIC	= 1 << 3,	/* an atomic: 8 bytes come back */
	SROCE_WRF_LOCAL		= 1 << 4,	/* executed without a packet */
	SROCE_WRF_IMM		= 1 << 5,	/* carries immediate data */
	SROCE_WRF_INV		= 1 << 6,	/* carries an rkey to invalidate */
	SROCE_WRF_KERNEL	= 1 << 7,	/* only kernel users post it */
	SROCE_WRF_USER		= 1 << 8,	/* only user space posts it */
	SROCE_WRF_GATHER	= 1 << 9,	/* payload: SGEs or inline data */
	SROCE_WRF_ATOMIC_WRITE	= 1 << 10,	/* 8 bytes stored at once */
};

/**
 * struct sroce_wr_info - one row of the work-request opcode table
 * @name: for messages
 * @qp_types: enum sroce_wr_qpt bits of the QP types that may post it
 * @flags: enum sroce_wr_flags
 * @wc_opcode: enum sroce_wc_op of its completion
 * @msg_op: the message operation its packets carry (segmentation), for
 *	SEND and WRITE opcodes
 */
struct sroce_wr_info {
	const char *name;
	u8 qp_types;
	u16 flags;
	u8 wc_opcode;
	u8 msg_op;
};

/* The row of @opcode; NULL for an opcode sroce does not carry. */
const struct sroce_wr_info *sroce_wr_info(u32 opcode);

/* May a QP of @qpt (one enum sroce_wr_qpt bit) post @opcode */
static inline bool sroce_wr_allowed(u32 opcode, u8 qpt)
{
	const struct sroce_wr_info *info = sroce_wr_info(opcode);

	return info && (info->qp_types & qpt);
}

/*
 * READ, the atomics and the atomic write use a responder resource
 * (max_rd_atomic), and a response answers each
 */
static inline bool sroce_wr_is_rd(const struct sroce_wr_info *info)
{
	return info->flags & (SROCE_WRF_READ | SROCE_WRF_ATOMIC |
			      SROCE_WRF_ATOMIC_WRITE);
}

/*
 * The opcode facts the engine asks of a send WQE, as lookups in the table.
 * The completion opcode of @opcode, any value (a WQE flushed from the
 * ring is not checked): SROCE_WC_OP_SEND for one sroce does not carry.
 */
static inline u8 sroce_wr_wc_opcode(u32 opcode)
{
	const struct sroce_wr_info *info = sroce_wr_info(opcode);

	return info ? info->wc_opcode : (u8)SROCE_WC_OP_SEND;
}

/*
 * Is a carried @opcode (fetched) executed without a packet: BIND_MW,
 * LOCAL_INV and REG_MR, executed in their turn, complete once everything
 * before them has.
 */
static inline bool sroce_wr_op_is_local(u32 opcode)
{
	return sroce_wr_info(opcode)->flags & SROCE_WRF_LOCAL;
}

/*
 * Does a carried @opcode (fetched) use a responder resource: RDMA READ,
 * the atomics and the atomic write, which max_rd_atomic limits and a
 * fence waits for.
 */
static inline bool sroce_wr_op_is_rd(u32 opcode)
{
	return sroce_wr_is_rd(sroce_wr_info(opcode));
}

#endif /* SROCE_PROTO_WR_H */
