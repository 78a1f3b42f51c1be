// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// The work-request opcode table: the opcodes each QP type may post
// (ibv_post_send(3)), their completions, and what libibverbs numbers them.
#include <gtest/gtest.h>

#include <infiniband/verbs.h>

#include "proto.hpp"

namespace {
constexpr uint8_t rc = SROCE_WR_QPT_RC;
constexpr uint8_t uc = SROCE_WR_QPT_UC;
constexpr uint8_t ud = SROCE_WR_QPT_UD;
constexpr uint8_t raw = SROCE_WR_QPT_RAW;
constexpr uint8_t xrc = SROCE_WR_QPT_XRC;

struct Row {
	ibv_wr_opcode op;
	uint8_t qp_types;
	ibv_wc_opcode wc;
};

// ibv_post_send(3), "supported opcodes per transport"; SEND_WITH_INV is
// RC only here: UC has no opcode for it on the wire (IBTA 9.2.6).  An XRC
// INI QP posts what RC posts but the atomic write (IBTA 1.5), which has
// no XRC opcode sroce knows.
const Row rows[] = {
	{IBV_WR_SEND, rc | uc | ud | raw | xrc, IBV_WC_SEND},
	{IBV_WR_SEND_WITH_IMM, rc | uc | ud | xrc, IBV_WC_SEND},
	{IBV_WR_RDMA_WRITE, rc | uc | xrc, IBV_WC_RDMA_WRITE},
	{IBV_WR_RDMA_WRITE_WITH_IMM, rc | uc | xrc, IBV_WC_RDMA_WRITE},
	{IBV_WR_RDMA_READ, rc | xrc, IBV_WC_RDMA_READ},
	{IBV_WR_ATOMIC_CMP_AND_SWP, rc | xrc, IBV_WC_COMP_SWAP},
	{IBV_WR_ATOMIC_FETCH_AND_ADD, rc | xrc, IBV_WC_FETCH_ADD},
	{IBV_WR_LOCAL_INV, rc | uc | xrc, IBV_WC_LOCAL_INV},
	{IBV_WR_BIND_MW, rc | uc | xrc, IBV_WC_BIND_MW},
	{IBV_WR_SEND_WITH_INV, rc | xrc, IBV_WC_SEND},
	{IBV_WR_ATOMIC_WRITE, rc, IBV_WC_ATOMIC_WRITE},
};
} // namespace

TEST(WrTable, PerQpType)
{
	for (const Row &r : rows) {
		SCOPED_TRACE(r.op);
		const struct sroce_wr_info *info = sroce_wr_info(r.op);
		ASSERT_NE(info, nullptr);
		EXPECT_EQ(info->qp_types, r.qp_types);
		EXPECT_EQ(info->wc_opcode, r.wc);
		for (uint8_t t : {rc, uc, ud, raw, xrc})
			EXPECT_EQ(sroce_wr_allowed(r.op, t),
				  (r.qp_types & t) != 0);
	}
}

TEST(WrTable, NotCarried)
{
	for (uint32_t op : {uint32_t(IBV_WR_TSO), uint32_t(IBV_WR_DRIVER1),
			    0x0au, 0x0eu, 0x1fu, 0x21u, 0xffu, 0xffffffffu}) {
		EXPECT_EQ(sroce_wr_info(op), nullptr) << op;
		EXPECT_FALSE(sroce_wr_allowed(op, rc));
	}
}

TEST(WrTable, Flags)
{
	EXPECT_TRUE(sroce_wr_is_rd(sroce_wr_info(IBV_WR_RDMA_READ)));
	EXPECT_TRUE(sroce_wr_is_rd(sroce_wr_info(IBV_WR_ATOMIC_CMP_AND_SWP)));
	EXPECT_TRUE(sroce_wr_is_rd(sroce_wr_info(IBV_WR_ATOMIC_FETCH_AND_ADD)));
	EXPECT_FALSE(sroce_wr_is_rd(sroce_wr_info(IBV_WR_RDMA_WRITE)));
	// the atomic write: a responder resource, 8 bytes in the WQE, user
	// space only (Linux 6.1 has no work request for it), one packet
	const struct sroce_wr_info *aw = sroce_wr_info(IBV_WR_ATOMIC_WRITE);
	EXPECT_TRUE(sroce_wr_is_rd(aw));
	EXPECT_EQ(aw->flags, SROCE_WRF_ATOMIC_WRITE | SROCE_WRF_USER);
	EXPECT_EQ(aw->msg_op, SROCE_MSG_ATOMIC_WRITE);
	EXPECT_EQ(uint32_t(SROCE_WR_OP_ATOMIC_WRITE),
		  uint32_t(IBV_WR_ATOMIC_WRITE));
	for (uint32_t op :
	     {uint32_t(IBV_WR_LOCAL_INV), uint32_t(IBV_WR_BIND_MW),
	      uint32_t(SROCE_WR_OP_REG_MR)})
		EXPECT_TRUE(sroce_wr_info(op)->flags & SROCE_WRF_LOCAL) << op;
	EXPECT_TRUE(sroce_wr_info(SROCE_WR_OP_REG_MR)->flags &
		    SROCE_WRF_KERNEL);
	EXPECT_TRUE(sroce_wr_info(IBV_WR_BIND_MW)->flags & SROCE_WRF_USER);
	EXPECT_EQ(sroce_wr_info(IBV_WR_SEND_WITH_INV)->msg_op,
		  SROCE_MSG_SEND_INV);
	EXPECT_EQ(sroce_wr_info(IBV_WR_RDMA_WRITE_WITH_IMM)->msg_op,
		  SROCE_MSG_WRITE_IMM);
}
