// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// AETH syndromes, RNR timers, ACK timeout, MTUs, segmentation, UDP ports.
#include <gtest/gtest.h>

#include "proto.hpp"

TEST(Aeth, Syndromes)
{
	EXPECT_EQ(sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID), 0x1f);
	EXPECT_EQ(sroce_aeth_syn_rnr(0), 0x20);
	EXPECT_EQ(sroce_aeth_syn_rnr(31), 0x3f);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ), 0x60);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ), 0x61);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_REMOTE_ACCESS), 0x62);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_REMOTE_OP), 0x63);
	EXPECT_EQ(sroce_aeth_syn_nak(SROCE_NAK_INVALID_RD_REQ), 0x64);
	for (unsigned s = 0; s < 256; s++) {
		uint8_t syn = static_cast<uint8_t>(s);
		EXPECT_EQ(sroce_aeth_type(syn), s & 0x60);
		EXPECT_EQ(sroce_aeth_value(syn), s & 0x1f);
	}
	EXPECT_EQ(sroce_aeth_type(0x3f), SROCE_AETH_RNR_NAK);
	EXPECT_EQ(sroce_aeth_type(0x41), SROCE_AETH_RESERVED);
	EXPECT_EQ(sroce_aeth_syn_ack(0xff), 0x1f); // value masked to 5 bits
}

TEST(Aeth, Credits)
{
	EXPECT_EQ(sroce_aeth_credits(0), 0u);
	EXPECT_EQ(sroce_aeth_credits(5), 6u);
	EXPECT_EQ(sroce_aeth_credits(30), 32768u);
	EXPECT_EQ(sroce_aeth_credits(31), ~0u);
	for (uint8_t c = 0; c <= 30; c++) {
		EXPECT_EQ(sroce_aeth_credit_code(sroce_aeth_credits(c)), c);
		if (c) {
			EXPECT_LT(sroce_aeth_credits(c - 1),
				  sroce_aeth_credits(c));
		}
	}
	EXPECT_EQ(sroce_aeth_credit_code(5), 4); // 4 <= 5 < 6
	EXPECT_EQ(sroce_aeth_credit_code(1000000), 30);
}

TEST(Rnr, TimerTable)
{
	const uint32_t want[32] = {
		655360, 10,    20,    30,     40,     60,     80,     120,
		160,	240,   320,   480,    640,    960,    1280,   1920,
		2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
		40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520};
	for (uint8_t c = 0; c < 32; c++) {
		EXPECT_EQ(sroce_rnr_timer_usec(c), want[c]) << int(c);
		EXPECT_EQ(sroce_rnr_timer_code(want[c]), c) << int(c);
	}
	EXPECT_EQ(sroce_rnr_timer_usec(32 + 1), 10u); // code masked to 5 bits
	EXPECT_EQ(sroce_rnr_timer_code(0), 1);
	EXPECT_EQ(sroce_rnr_timer_code(11), 2);
	EXPECT_EQ(sroce_rnr_timer_code(491521), 0);
}

TEST(Timeout, LocalAck)
{
	EXPECT_EQ(sroce_ack_timeout_ns(0), 0u); // disabled
	EXPECT_EQ(sroce_ack_timeout_ns(1), 8192u);
	EXPECT_EQ(sroce_ack_timeout_ns(14), 4096ull << 14); // ~67 ms
	// RDMA CM on RoCE: packet lifetime 18 -> timeout 19, about 2.1 s
	EXPECT_EQ(sroce_ack_timeout_ns(19), 2147483648ull);
	EXPECT_EQ(sroce_ack_timeout_ns(31), 4096ull << 31);
	EXPECT_EQ(sroce_ack_timeout_ns(200), 4096ull << 31); // clamped
}

TEST(Mtu, Bytes)
{
	EXPECT_EQ(sroce_mtu_bytes(SROCE_MTU_256), 256u);
	EXPECT_EQ(sroce_mtu_bytes(SROCE_MTU_512), 512u);
	EXPECT_EQ(sroce_mtu_bytes(SROCE_MTU_1024), 1024u);
	EXPECT_EQ(sroce_mtu_bytes(SROCE_MTU_2048), 2048u);
	EXPECT_EQ(sroce_mtu_bytes(SROCE_MTU_4096), 4096u);
	EXPECT_EQ(sroce_mtu_bytes(static_cast<sroce_mtu>(0)), 0u);
	EXPECT_EQ(sroce_mtu_bytes(static_cast<sroce_mtu>(6)), 0u);
}

TEST(Mtu, FromNetdev)
{
	EXPECT_EQ(sroce_mtu_from_netdev(1500), SROCE_MTU_1024);
	EXPECT_EQ(sroce_mtu_from_netdev(9000), SROCE_MTU_4096);
	EXPECT_EQ(sroce_mtu_from_netdev(1280), SROCE_MTU_1024);
	EXPECT_EQ(sroce_mtu_from_netdev(1024 + 88), SROCE_MTU_1024);
	EXPECT_EQ(sroce_mtu_from_netdev(1024 + 87), SROCE_MTU_512);
	EXPECT_EQ(sroce_mtu_from_netdev(4096 + 88), SROCE_MTU_4096);
	EXPECT_EQ(sroce_mtu_from_netdev(4096 + 87), SROCE_MTU_2048);
	EXPECT_EQ(sroce_mtu_from_netdev(256 + 88), SROCE_MTU_256);
	EXPECT_EQ(sroce_mtu_from_netdev(256 + 87), 0);
	EXPECT_EQ(sroce_mtu_from_netdev(0), 0);
	EXPECT_EQ(sroce_mtu_from_netdev(65535), SROCE_MTU_4096);
}

TEST(Seg, PacketCount)
{
	EXPECT_EQ(sroce_seg_npkts(0, 1024), 1u); // zero-length message
	EXPECT_EQ(sroce_seg_npkts(1, 1024), 1u);
	EXPECT_EQ(sroce_seg_npkts(1024, 1024), 1u);
	EXPECT_EQ(sroce_seg_npkts(1025, 1024), 2u);
	EXPECT_EQ(sroce_seg_npkts(0xffffffff, 4096), 1048576u); // no overflow
	EXPECT_EQ(sroce_seg_npkts(0x80000000u, 256), 8388608u);
}

// Walks a message packet by packet and checks opcodes, lengths and pads.
static void walk(sroce_transport t, sroce_msg_op op, uint32_t len,
		 uint32_t pmtu, const std::vector<uint8_t> &want_ops)
{
	SCOPED_TRACE(testing::Message() << "len " << len << " pmtu " << pmtu);
	uint32_t off = 0, sum = 0;
	std::vector<uint8_t> ops;
	for (;;) {
		sroce_seg s{};
		ASSERT_EQ(sroce_seg_at(t, op, len, pmtu, off, &s), 0);
		ops.push_back(s.opcode);
		EXPECT_EQ(s.pad, (4 - s.paylen % 4) % 4);
		EXPECT_LE(s.paylen, pmtu);
		if (!s.last) {
			EXPECT_EQ(s.paylen, pmtu);
		}
		sum += s.paylen;
		off += pmtu;
		if (s.last)
			break;
	}
	EXPECT_EQ(sum, len);
	EXPECT_EQ(ops.size(), sroce_seg_npkts(len, pmtu));
	EXPECT_EQ(ops, want_ops);
}

TEST(Seg, Messages)
{
	auto rc = SROCE_TRANSPORT_RC;
	walk(rc, SROCE_MSG_SEND, 0, 1024, {SROCE_OP_RC_SEND_ONLY});
	walk(rc, SROCE_MSG_SEND, 1, 1024, {SROCE_OP_RC_SEND_ONLY});
	walk(rc, SROCE_MSG_SEND, 1024, 1024, {SROCE_OP_RC_SEND_ONLY});
	walk(rc, SROCE_MSG_SEND, 1025, 1024,
	     {SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_LAST});
	walk(rc, SROCE_MSG_SEND_IMM, 3000, 1024,
	     {SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_MIDDLE,
	      SROCE_OP_RC_SEND_LAST_IMM});
	walk(rc, SROCE_MSG_WRITE_IMM, 4096, 1024,
	     {SROCE_OP_RC_WRITE_FIRST, SROCE_OP_RC_WRITE_MIDDLE,
	      SROCE_OP_RC_WRITE_MIDDLE, SROCE_OP_RC_WRITE_LAST_IMM});
	walk(rc, SROCE_MSG_READ_RESP, 0, 4096,
	     {SROCE_OP_RC_READ_RESPONSE_ONLY});
	walk(rc, SROCE_MSG_READ_RESP, 8193, 4096,
	     {SROCE_OP_RC_READ_RESPONSE_FIRST, SROCE_OP_RC_READ_RESPONSE_MIDDLE,
	      SROCE_OP_RC_READ_RESPONSE_LAST});
	walk(SROCE_TRANSPORT_UC, SROCE_MSG_WRITE, 513, 256,
	     {SROCE_OP_UC_WRITE_FIRST, SROCE_OP_UC_WRITE_MIDDLE,
	      SROCE_OP_UC_WRITE_LAST});
	walk(SROCE_TRANSPORT_UD, SROCE_MSG_SEND_IMM, 4096, 4096,
	     {SROCE_OP_UD_SEND_ONLY_IMM});
	// pad counts 0-3 on the last packet
	for (uint32_t tail = 1; tail <= 4; tail++)
		walk(rc, SROCE_MSG_SEND, 1024 + tail, 1024,
		     {SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_LAST});
}

TEST(Seg, Invalid)
{
	sroce_seg s{};
	// UD has no multi-packet messages, UC no SEND with invalidate
	EXPECT_EQ(sroce_seg_at(SROCE_TRANSPORT_UD, SROCE_MSG_SEND, 4097, 4096,
			       0, &s),
		  -1);
	EXPECT_EQ(sroce_seg_at(SROCE_TRANSPORT_UC, SROCE_MSG_SEND_INV, 10, 4096,
			       0, &s),
		  -1);
	EXPECT_EQ(
		sroce_seg_at(SROCE_TRANSPORT_RC, SROCE_MSG_SEND, 10, 0, 0, &s),
		-1);
	EXPECT_EQ(sroce_seg_at(SROCE_TRANSPORT_RC, SROCE_MSG_SEND, 4096, 1024,
			       4096, &s),
		  -1);
	EXPECT_EQ(sroce_seg_at(SROCE_TRANSPORT_RC, SROCE_MSG_SEND, 4096, 1024,
			       100, &s),
		  -1);
	EXPECT_EQ(sroce_seg_at(SROCE_TRANSPORT_RC, SROCE_MSG_SEND, 0, 1024,
			       1024, &s),
		  -1);
}

TEST(UdpPort, Sport)
{
	for (uint32_t qpn : {0u, 1u, 17u, 0xffffffu}) {
		uint16_t p = sroce_udp_sport_qpn(qpn);
		EXPECT_GE(p, 0xc000);
		// hash_32(qpn, 14) as rdma_rxe computes it
		EXPECT_EQ(p, 0xc000 + ((qpn * 0x61c88647u) >> 18));
	}
	EXPECT_EQ(sroce_udp_sport_flow(0), 0xc000);
	EXPECT_EQ(sroce_udp_sport_flow(0x3fff), 0xffff);
	EXPECT_EQ(sroce_udp_sport_flow(0xfc000), 0xc03f);
	EXPECT_EQ(sroce_udp_sport_flow(0xfffff), 0xffc0);
}
