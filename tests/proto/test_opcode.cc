// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// The opcode table against the wire facts and against itself.
#include <gtest/gtest.h>

#include "frames.hpp"

using sroce::test::sxh_opcodes;
using sroce::test::valid_opcodes;

TEST(Opcode, ValidSet)
{
	std::vector<uint8_t> want;
	for (uint8_t op = 0x00; op <= 0x14; op++)
		want.push_back(op);
	want.push_back(0x16);
	want.push_back(0x17);
	want.push_back(0x1d); // RC ATOMIC WRITE (IBTA 1.5)
	for (uint8_t op = 0x20; op <= 0x2b; op++)
		want.push_back(op);
	want.push_back(0x64);
	want.push_back(0x65);
	want.push_back(0x81);
	for (uint8_t op = 0xa0; op <= 0xb4; op++) // XRC: RC's | 0xa0
		want.push_back(op);
	want.push_back(0xb6);
	want.push_back(0xb7);
	EXPECT_EQ(valid_opcodes(), want);
	for (unsigned op = 0; op < 256; op++) {
		const sroce_opcode_info *info =
			sroce_opcode_lookup(static_cast<uint8_t>(op));
		if (!sroce_opcode_valid(static_cast<uint8_t>(op)) &&
		    !(info->flags & SROCE_OPF_SXH)) { // Sxh.OpcodeRows
			EXPECT_EQ(info->flags, 0u) << op;
			EXPECT_EQ(info->hdr_len, 0) << op;
			EXPECT_EQ(info->name, nullptr) << op;
		}
	}
}

// Offsets follow the wire order of enum sroce_hdr and the sizes of wire.h
// (an SXH with its fixed part only).
TEST(Opcode, OffsetsConsistent)
{
	std::vector<uint8_t> ops = valid_opcodes();
	for (uint8_t op : sxh_opcodes())
		ops.push_back(op);
	for (uint8_t op : ops) {
		const sroce_opcode_info *info = sroce_opcode_lookup(op);
		uint32_t end = SROCE_BTH_LEN;
		for (int h = 0; h < SROCE_HDR_NR; h++) {
			if (!info->off[h])
				continue;
			EXPECT_EQ(info->off[h], end)
				<< info->name << " hdr " << h;
			end += sroce_hdr_len(static_cast<sroce_hdr>(h));
		}
		EXPECT_EQ(info->hdr_len, end) << info->name;
		EXPECT_EQ(info->hdr_len % 4, 0) << info->name;
		EXPECT_NE(info->name, nullptr);
	}
	EXPECT_EQ(sroce_hdr_len(SROCE_HDR_NR), 0);
}

TEST(Opcode, HeadersPerOpcode)
{
	struct Want {
		uint8_t op;
		std::vector<std::pair<sroce_hdr, uint8_t>> hdrs;
		uint8_t len;
	};
	const std::vector<Want> wants = {
		{SROCE_OP_RC_SEND_FIRST, {}, 12},
		{SROCE_OP_RC_SEND_LAST_IMM, {{SROCE_HDR_IMMDT, 12}}, 16},
		{SROCE_OP_RC_WRITE_FIRST, {{SROCE_HDR_RETH, 12}}, 28},
		{SROCE_OP_RC_WRITE_ONLY_IMM,
		 {{SROCE_HDR_RETH, 12}, {SROCE_HDR_IMMDT, 28}},
		 32},
		{SROCE_OP_RC_READ_REQUEST, {{SROCE_HDR_RETH, 12}}, 28},
		{SROCE_OP_RC_READ_RESPONSE_FIRST, {{SROCE_HDR_AETH, 12}}, 16},
		{SROCE_OP_RC_READ_RESPONSE_MIDDLE, {}, 12},
		{SROCE_OP_RC_ACK, {{SROCE_HDR_AETH, 12}}, 16},
		{SROCE_OP_RC_ATOMIC_ACK,
		 {{SROCE_HDR_AETH, 12}, {SROCE_HDR_ATMACK, 16}},
		 24},
		{SROCE_OP_RC_CMP_SWAP, {{SROCE_HDR_ATMETH, 12}}, 40},
		{SROCE_OP_RC_FETCH_ADD, {{SROCE_HDR_ATMETH, 12}}, 40},
		{SROCE_OP_RC_SEND_ONLY_INV, {{SROCE_HDR_IETH, 12}}, 16},
		{SROCE_OP_RC_ATOMIC_WRITE, {{SROCE_HDR_RETH, 12}}, 28},
		{SROCE_OP_UC_WRITE_ONLY_IMM,
		 {{SROCE_HDR_RETH, 12}, {SROCE_HDR_IMMDT, 28}},
		 32},
		{SROCE_OP_UD_SEND_ONLY, {{SROCE_HDR_DETH, 12}}, 20},
		{SROCE_OP_UD_SEND_ONLY_IMM,
		 {{SROCE_HDR_DETH, 12}, {SROCE_HDR_IMMDT, 20}},
		 24},
		{SROCE_OP_CNP, {{SROCE_HDR_CNP_RSVD, 12}}, 28},
		// XRC requests: the XRCETH right after the BTH
		{SROCE_OP_XRC_SEND_FIRST, {{SROCE_HDR_XRCETH, 12}}, 16},
		{SROCE_OP_XRC_SEND_LAST_IMM,
		 {{SROCE_HDR_XRCETH, 12}, {SROCE_HDR_IMMDT, 16}},
		 20},
		{SROCE_OP_XRC_WRITE_ONLY_IMM,
		 {{SROCE_HDR_XRCETH, 12},
		  {SROCE_HDR_RETH, 16},
		  {SROCE_HDR_IMMDT, 32}},
		 36},
		{SROCE_OP_XRC_READ_REQUEST,
		 {{SROCE_HDR_XRCETH, 12}, {SROCE_HDR_RETH, 16}},
		 32},
		{SROCE_OP_XRC_CMP_SWAP,
		 {{SROCE_HDR_XRCETH, 12}, {SROCE_HDR_ATMETH, 16}},
		 44},
		{SROCE_OP_XRC_SEND_ONLY_INV,
		 {{SROCE_HDR_XRCETH, 12}, {SROCE_HDR_IETH, 16}},
		 20},
		// XRC responses: as RC's, no XRCETH
		{SROCE_OP_XRC_READ_RESPONSE_FIRST, {{SROCE_HDR_AETH, 12}}, 16},
		{SROCE_OP_XRC_ACK, {{SROCE_HDR_AETH, 12}}, 16},
		{SROCE_OP_XRC_ATOMIC_ACK,
		 {{SROCE_HDR_AETH, 12}, {SROCE_HDR_ATMACK, 16}},
		 24},
	};
	for (const Want &w : wants) {
		const sroce_opcode_info *info = sroce_opcode_lookup(w.op);
		EXPECT_EQ(info->hdr_len, w.len) << info->name;
		uint8_t off[SROCE_HDR_NR] = {};
		for (auto [h, o] : w.hdrs)
			off[h] = o;
		for (int h = 0; h < SROCE_HDR_NR; h++)
			EXPECT_EQ(info->off[h], off[h])
				<< info->name << " hdr " << h;
	}
}

TEST(Opcode, Properties)
{
	for (uint8_t op : valid_opcodes()) {
		const sroce_opcode_info *info = sroce_opcode_lookup(op);
		uint32_t f = info->flags;
		sroce_transport t = sroce_opcode_transport(op);
		SCOPED_TRACE(info->name);
		// exactly one of first/middle/last/only
		uint32_t pos = f & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE |
				    SROCE_OPF_LAST);
		EXPECT_TRUE(pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE ||
			    pos == SROCE_OPF_LAST || pos == SROCE_OPF_ONLY);
		if (t == SROCE_TRANSPORT_CNP) {
			EXPECT_TRUE(f & SROCE_OPF_CNP);
			EXPECT_FALSE(f & (SROCE_OPF_REQ | SROCE_OPF_RESP |
					  SROCE_OPF_PAYLOAD));
			continue;
		}
		EXPECT_NE(!!(f & SROCE_OPF_REQ), !!(f & SROCE_OPF_RESP));
		const bool reliable =
			t == SROCE_TRANSPORT_RC || t == SROCE_TRANSPORT_XRC;
		EXPECT_EQ(!!(f & SROCE_OPF_NEED_ACK),
			  reliable && (f & SROCE_OPF_REQ));
		// the XRCETH on every XRC request, nowhere else
		EXPECT_EQ(!!sroce_opcode_has(info, SROCE_HDR_XRCETH),
			  t == SROCE_TRANSPORT_XRC && (f & SROCE_OPF_REQ));
		// an XRC opcode is the RC opcode's row with an XRCETH
		if (t == SROCE_TRANSPORT_XRC) {
			const sroce_opcode_info *rc =
				sroce_opcode_lookup(op & 0x1f);
			EXPECT_EQ(f, rc->flags);
			EXPECT_EQ(sroce_rc_opcode(t, op & 0x1f), op);
			EXPECT_EQ(info->hdr_len,
				  rc->hdr_len + ((f & SROCE_OPF_REQ)
							 ? SROCE_XRCETH_LEN
							 : 0));
		}
		EXPECT_EQ(!!(f & SROCE_OPF_IMM),
			  sroce_opcode_has(info, SROCE_HDR_IMMDT));
		EXPECT_EQ(!!(f & SROCE_OPF_INV),
			  sroce_opcode_has(info, SROCE_HDR_IETH));
		EXPECT_EQ(!!sroce_opcode_has(info, SROCE_HDR_DETH),
			  t == SROCE_TRANSPORT_UD);
		if (f & SROCE_OPF_RESP) {
			EXPECT_TRUE(reliable);
		}
		// a message consumes a receive WQE on its first packet
		if (f & SROCE_OPF_SEND) {
			EXPECT_EQ(!!(f & SROCE_OPF_RWR),
				  !!(f & SROCE_OPF_FIRST));
		}
		if (f & SROCE_OPF_RWR) {
			EXPECT_TRUE(f & (SROCE_OPF_SEND | SROCE_OPF_IMM));
		}
		if (f & SROCE_OPF_COMP) {
			EXPECT_TRUE(f & SROCE_OPF_LAST);
		}
		// payload-less opcodes: read request, atomics, ACKs
		EXPECT_EQ(!(f & SROCE_OPF_PAYLOAD),
			  (f & SROCE_OPF_ATOMIC) || (f & SROCE_OPF_ACK) ||
				  op == SROCE_OP_RC_READ_REQUEST ||
				  op == SROCE_OP_XRC_READ_REQUEST);
		// RETH on WRITE first/only, READ requests, atomic writes
		EXPECT_EQ(sroce_opcode_has(info, SROCE_HDR_RETH),
			  ((f & SROCE_OPF_WRITE) && (f & SROCE_OPF_FIRST)) ||
				  (f & SROCE_OPF_ATOMIC_WRITE) ||
				  op == SROCE_OP_RC_READ_REQUEST ||
				  op == SROCE_OP_XRC_READ_REQUEST);
		// the atomic write: an RC request of one packet with payload
		if (f & SROCE_OPF_ATOMIC_WRITE) {
			EXPECT_EQ(op, SROCE_OP_RC_ATOMIC_WRITE);
			EXPECT_EQ(f & SROCE_OPF_ONLY, SROCE_OPF_ONLY);
			EXPECT_TRUE(f & SROCE_OPF_REQ);
			EXPECT_TRUE(f & SROCE_OPF_PAYLOAD);
			EXPECT_FALSE(f & (SROCE_OPF_SEND | SROCE_OPF_WRITE |
					  SROCE_OPF_READ | SROCE_OPF_ATOMIC |
					  SROCE_OPF_RWR | SROCE_OPF_COMP));
		}
		// AETH on every response but a read response middle
		EXPECT_EQ(sroce_opcode_has(info, SROCE_HDR_AETH),
			  (f & SROCE_OPF_RESP) && !(f & SROCE_OPF_MIDDLE));
	}
}

TEST(Opcode, MsgOpcodes)
{
	struct Row {
		sroce_transport t;
		sroce_msg_op op;
		int first, middle, last, only;
	};
	const Row rows[] = {
		{SROCE_TRANSPORT_RC, SROCE_MSG_SEND, 0x00, 0x01, 0x02, 0x04},
		{SROCE_TRANSPORT_RC, SROCE_MSG_SEND_IMM, 0x00, 0x01, 0x03,
		 0x05},
		{SROCE_TRANSPORT_RC, SROCE_MSG_SEND_INV, 0x00, 0x01, 0x16,
		 0x17},
		{SROCE_TRANSPORT_RC, SROCE_MSG_WRITE, 0x06, 0x07, 0x08, 0x0a},
		{SROCE_TRANSPORT_RC, SROCE_MSG_WRITE_IMM, 0x06, 0x07, 0x09,
		 0x0b},
		{SROCE_TRANSPORT_RC, SROCE_MSG_READ_RESP, 0x0d, 0x0e, 0x0f,
		 0x10},
		// one packet of 8 bytes; RC only
		{SROCE_TRANSPORT_RC, SROCE_MSG_ATOMIC_WRITE, -1, -1, -1, 0x1d},
		{SROCE_TRANSPORT_UC, SROCE_MSG_ATOMIC_WRITE, -1, -1, -1, -1},
		{SROCE_TRANSPORT_UD, SROCE_MSG_ATOMIC_WRITE, -1, -1, -1, -1},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_ATOMIC_WRITE, -1, -1, -1, -1},
		{SROCE_TRANSPORT_UC, SROCE_MSG_SEND, 0x20, 0x21, 0x22, 0x24},
		{SROCE_TRANSPORT_UC, SROCE_MSG_SEND_IMM, 0x20, 0x21, 0x23,
		 0x25},
		{SROCE_TRANSPORT_UC, SROCE_MSG_SEND_INV, -1, -1, -1, -1},
		{SROCE_TRANSPORT_UC, SROCE_MSG_WRITE, 0x26, 0x27, 0x28, 0x2a},
		{SROCE_TRANSPORT_UC, SROCE_MSG_WRITE_IMM, 0x26, 0x27, 0x29,
		 0x2b},
		{SROCE_TRANSPORT_UC, SROCE_MSG_READ_RESP, -1, -1, -1, -1},
		{SROCE_TRANSPORT_UD, SROCE_MSG_SEND, -1, -1, -1, 0x64},
		{SROCE_TRANSPORT_UD, SROCE_MSG_SEND_IMM, -1, -1, -1, 0x65},
		{SROCE_TRANSPORT_UD, SROCE_MSG_WRITE, -1, -1, -1, -1},
		{SROCE_TRANSPORT_RD, SROCE_MSG_SEND, -1, -1, -1, -1},
		{SROCE_TRANSPORT_CNP, SROCE_MSG_SEND, -1, -1, -1, -1},
		{SROCE_TRANSPORT_CNP, SROCE_MSG_READ_RESP, -1, -1, -1, -1},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_SEND, 0xa0, 0xa1, 0xa2, 0xa4},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_SEND_IMM, 0xa0, 0xa1, 0xa3,
		 0xa5},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_SEND_INV, 0xa0, 0xa1, 0xb6,
		 0xb7},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_WRITE, 0xa6, 0xa7, 0xa8, 0xaa},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_WRITE_IMM, 0xa6, 0xa7, 0xa9,
		 0xab},
		{SROCE_TRANSPORT_XRC, SROCE_MSG_READ_RESP, 0xad, 0xae, 0xaf,
		 0xb0},
	};
	for (const Row &r : rows) {
		EXPECT_EQ(sroce_msg_opcode(r.t, r.op, SROCE_SEG_FIRST),
			  r.first);
		EXPECT_EQ(sroce_msg_opcode(r.t, r.op, SROCE_SEG_MIDDLE),
			  r.middle);
		EXPECT_EQ(sroce_msg_opcode(r.t, r.op, SROCE_SEG_LAST), r.last);
		EXPECT_EQ(sroce_msg_opcode(r.t, r.op, SROCE_SEG_ONLY), r.only);
	}
	EXPECT_EQ(sroce_msg_opcode(SROCE_TRANSPORT_RC, SROCE_MSG_OP_NR,
				   SROCE_SEG_ONLY),
		  -1);
	EXPECT_EQ(sroce_msg_opcode(SROCE_TRANSPORT_RC, SROCE_MSG_SEND,
				   SROCE_SEG_POS_NR),
		  -1);
}
