// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wr.c - the work-request opcode table (see wr.h).
 *
 * Which QP types may post what (ibv_post_send(3), IBTA 9.2 and the opcode
 * table of 9.2.6): a datagram QP only sends; an unreliable connection has
 * no READ, no atomics and no SEND with invalidate (UC has no opcode for
 * it on the wire); memory windows and local invalidation are connected
 * QPs' business.  Kernel users bind no windows (the kernel has no bind work
 * request); user space cannot fast-register.  An XRC INI QP posts what RC
 * posts, but the atomic write (IBTA 1.5), whose XRC opcode neither
 * rdma_rxe nor Wireshark knows; Linux 6.1 has no work request for it, so
 * only user space posts it (through the send ring).
 */
#include "wr.h"

#define RC	SROCE_WR_QPT_RC
#define UC	SROCE_WR_QPT_UC
#define UD	SROCE_WR_QPT_UD
#define RAW	SROCE_WR_QPT_RAW
#define XRC	SROCE_WR_QPT_XRC

static const struct sroce_wr_info sroce_wr_table[SROCE_WR_OP_REG_MR + 1] = {
	[SROCE_WR_OP_RDMA_WRITE] = {
		"RDMA_WRITE", RC | UC | XRC, SROCE_WRF_WRITE | SROCE_WRF_GATHER,
		SROCE_WC_OP_RDMA_WRITE, SROCE_MSG_WRITE,
	},
	[SROCE_WR_OP_RDMA_WRITE_IMM] = {
		"RDMA_WRITE_WITH_IMM", RC | UC | XRC,
		SROCE_WRF_WRITE | SROCE_WRF_IMM | SROCE_WRF_GATHER,
		SROCE_WC_OP_RDMA_WRITE, SROCE_MSG_WRITE_IMM,
	},
	[SROCE_WR_OP_SEND] = {
		"SEND", RC | UC | UD | RAW | XRC,
		SROCE_WRF_SEND | SROCE_WRF_GATHER, SROCE_WC_OP_SEND,
		SROCE_MSG_SEND,
	},
	[SROCE_WR_OP_SEND_IMM] = {
		"SEND_WITH_IMM", RC | UC | UD | XRC,
		SROCE_WRF_SEND | SROCE_WRF_IMM | SROCE_WRF_GATHER,
		SROCE_WC_OP_SEND, SROCE_MSG_SEND_IMM,
	},
	[SROCE_WR_OP_RDMA_READ] = {
		"RDMA_READ", RC | XRC, SROCE_WRF_READ, SROCE_WC_OP_RDMA_READ,
		SROCE_MSG_OP_NR,
	},
	[SROCE_WR_OP_CMP_SWAP] = {
		"ATOMIC_CMP_AND_SWP", RC | XRC, SROCE_WRF_ATOMIC,
		SROCE_WC_OP_COMP_SWAP, SROCE_MSG_OP_NR,
	},
	[SROCE_WR_OP_FETCH_ADD] = {
		"ATOMIC_FETCH_AND_ADD", RC | XRC, SROCE_WRF_ATOMIC,
		SROCE_WC_OP_FETCH_ADD, SROCE_MSG_OP_NR,
	},
	[SROCE_WR_OP_LOCAL_INV] = {
		"LOCAL_INV", RC | UC | XRC, SROCE_WRF_LOCAL | SROCE_WRF_INV,
		SROCE_WC_OP_LOCAL_INV, SROCE_MSG_OP_NR,
	},
	[SROCE_WR_OP_BIND_MW] = {
		"BIND_MW", RC | UC | XRC, SROCE_WRF_LOCAL | SROCE_WRF_USER,
		SROCE_WC_OP_BIND_MW, SROCE_MSG_OP_NR,
	},
	[SROCE_WR_OP_SEND_INV] = {
		"SEND_WITH_INV", RC | XRC,
		SROCE_WRF_SEND | SROCE_WRF_INV | SROCE_WRF_GATHER,
		SROCE_WC_OP_SEND, SROCE_MSG_SEND_INV,
	},
	[SROCE_WR_OP_ATOMIC_WRITE] = {
		"ATOMIC_WRITE", RC, SROCE_WRF_ATOMIC_WRITE | SROCE_WRF_USER,
		SROCE_WC_OP_ATOMIC_WRITE, SROCE_MSG_ATOMIC_WRITE,
	},
	[SROCE_WR_OP_REG_MR] = {
		"REG_MR", RC | UC | XRC, SROCE_WRF_LOCAL | SROCE_WRF_KERNEL,
		SROCE_WC_OP_REG_MR, SROCE_MSG_OP_NR,
	},
};

const struct sroce_wr_info *sroce_wr_info(u32 opcode)
{
	const struct sroce_wr_info *info;

	if (opcode > SROCE_WR_OP_REG_MR)
		return NULL;
	info = &sroce_wr_table[opcode];
	return info->name ? info : NULL;
}
