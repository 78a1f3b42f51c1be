// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Header layouts: each header's bytes against roce-wire.md, and round trips.
#include <gtest/gtest.h>

#include "frames.hpp"

using sroce::test::Bytes;

TEST(Wire, BthLayout)
{
	sroce_bth b{};
	b.opcode = 0x0a;
	b.flags = SROCE_BTHF_SE | SROCE_BTHF_MIG | SROCE_BTHF_ACKREQ |
		  SROCE_BTHF_FECN | SROCE_BTHF_BECN;
	b.pad = 3;
	b.tver = 0;
	b.pkey = 0xffff;
	b.dqpn = 0xabcdef;
	b.psn = 0x123456;
	uint8_t p[SROCE_BTH_LEN];
	sroce_bth_put(p, &b);
	const uint8_t want[SROCE_BTH_LEN] = {0x0a, 0xf0, 0xff, 0xff,
					     0xc0, 0xab, 0xcd, 0xef,
					     0x80, 0x12, 0x34, 0x56};
	EXPECT_EQ(0, memcmp(p, want, sizeof(want)));
	sroce_bth g{};
	sroce_bth_get(p, &g);
	EXPECT_EQ(g.opcode, b.opcode);
	EXPECT_EQ(g.flags, b.flags);
	EXPECT_EQ(g.pad, 3);
	EXPECT_EQ(g.tver, 0);
	EXPECT_EQ(g.pkey, 0xffff);
	EXPECT_EQ(g.dqpn, 0xabcdefu);
	EXPECT_EQ(g.psn, 0x123456u);
}

TEST(Wire, BthMasksOutOfRangeFields)
{
	sroce_bth b{};
	b.pad = 7; // 2 bits on the wire
	b.tver = 0x1f; // 4 bits
	b.dqpn = 0xff000001; // 24 bits
	b.psn = 0xff000002;
	uint8_t p[SROCE_BTH_LEN];
	sroce_bth_put(p, &b);
	EXPECT_EQ(p[1], 0x3f);
	EXPECT_EQ(p[4], 0x00);
	EXPECT_EQ(p[7], 0x01);
	EXPECT_EQ(p[8], 0x00);
	EXPECT_EQ(p[11], 0x02);
}

TEST(Wire, BthPadCounts)
{
	for (uint8_t pad = 0; pad < 4; pad++) {
		sroce_bth b{}, g{};
		b.pad = pad;
		uint8_t p[SROCE_BTH_LEN];
		sroce_bth_put(p, &b);
		EXPECT_EQ(p[1], pad << 4);
		sroce_bth_get(p, &g);
		EXPECT_EQ(g.pad, pad);
	}
}

TEST(Wire, ExtensionHeaderLayouts)
{
	uint8_t p[32];
	sroce_reth r{0x0102030405060708ull, 0x090a0b0c, 0x0d0e0f10}, rg{};
	sroce_reth_put(p, &r);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(p[i], i + 1);
	sroce_reth_get(p, &rg);
	EXPECT_EQ(rg.va, r.va);
	EXPECT_EQ(rg.rkey, r.rkey);
	EXPECT_EQ(rg.len, r.len);

	sroce_atmeth a{0x0102030405060708ull, 0x090a0b0c, 0x0d0e0f1011121314ull,
		       0x15161718191a1b1cull},
		ag{};
	sroce_atmeth_put(p, &a);
	for (int i = 0; i < 28; i++)
		EXPECT_EQ(p[i], i + 1);
	sroce_atmeth_get(p, &ag);
	EXPECT_EQ(ag.va, a.va);
	EXPECT_EQ(ag.rkey, a.rkey);
	EXPECT_EQ(ag.swap_add, a.swap_add);
	EXPECT_EQ(ag.compare, a.compare);

	sroce_aeth e{0x60, 0xfedcba}, eg{};
	sroce_aeth_put(p, &e);
	EXPECT_EQ(p[0], 0x60);
	EXPECT_EQ(p[1], 0xfe);
	EXPECT_EQ(p[3], 0xba);
	sroce_aeth_get(p, &eg);
	EXPECT_EQ(eg.syndrome, 0x60);
	EXPECT_EQ(eg.msn, 0xfedcbau);

	sroce_deth d{0x80010000, 0x123456}, dg{};
	sroce_deth_put(p, &d);
	EXPECT_EQ(p[0], 0x80);
	EXPECT_EQ(p[4], 0x00); // reserved byte
	EXPECT_EQ(p[5], 0x12);
	sroce_deth_get(p, &dg);
	EXPECT_EQ(dg.qkey, d.qkey);
	EXPECT_EQ(dg.sqpn, d.sqpn);

	sroce_atmack_put(p, 0x0102030405060708ull);
	EXPECT_EQ(p[0], 1);
	EXPECT_EQ(p[7], 8);
	EXPECT_EQ(sroce_atmack_get(p), 0x0102030405060708ull);
	sroce_imm_put(p, 0xa1b2c3d4);
	EXPECT_EQ(p[0], 0xa1);
	EXPECT_EQ(sroce_imm_get(p), 0xa1b2c3d4u);
	sroce_ieth_put(p, 0x11223344);
	EXPECT_EQ(p[3], 0x44);
	EXPECT_EQ(sroce_ieth_get(p), 0x11223344u);
}

TEST(Wire, PadLen)
{
	EXPECT_EQ(sroce_pad_len(0), 0);
	EXPECT_EQ(sroce_pad_len(1), 3);
	EXPECT_EQ(sroce_pad_len(2), 2);
	EXPECT_EQ(sroce_pad_len(3), 1);
	EXPECT_EQ(sroce_pad_len(4), 0);
	EXPECT_EQ(sroce_pad_len(4095), 1);
	EXPECT_EQ(sroce_pad_len(0xffffffff), 1);
}

TEST(Wire, PkeyMatch)
{
	EXPECT_TRUE(sroce_pkey_match(0xffff, 0xffff));
	EXPECT_TRUE(sroce_pkey_match(0x7fff, 0xffff)); // limited vs full
	EXPECT_TRUE(sroce_pkey_match(0xffff, 0x7fff));
	EXPECT_FALSE(sroce_pkey_match(0x7fff, 0x7fff)); // two limited members
	EXPECT_FALSE(sroce_pkey_match(0x8001, 0xffff)); // other partition
	EXPECT_FALSE(sroce_pkey_match(0x0000, 0x8000)); // invalid key
	EXPECT_FALSE(sroce_pkey_match(0x8000, 0x8000));
	EXPECT_TRUE(sroce_pkey_match(0x8123, 0x0123));
}

TEST(Wire, Sizes)
{
	EXPECT_EQ(SROCE_MAX_HDR_LEN, 44); // BTH, XRCETH, AtomicETH
	uint32_t max = 0;
	for (uint8_t op : sroce::test::valid_opcodes())
		max = std::max<uint32_t>(max, sroce_opcode_lookup(op)->hdr_len);
	EXPECT_EQ(max, SROCE_MAX_HDR_LEN);
}
