// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// The extension header (SXH): its opcodes, its wire format, parse and
// build, its rejections, and the rule that without an agreement every
// extension opcode is as unknown as to an IBTA peer.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "frames.hpp"

using namespace sroce::test;

namespace {

constexpr uint16_t kAll = SROCE_SXH_KNOWN;

// Parses from a heap copy of exactly the given size; the headers decoded.
sroce_rx_reason parse_ext(const Bytes &f, uint16_t ext, sroce_hdrs *h = nullptr,
			  sroce_pkt *out = nullptr)
{
	std::unique_ptr<uint8_t[]> copy(new uint8_t[f.size() ? f.size() : 1]);
	if (!f.empty())
		memcpy(copy.get(), f.data(), f.size());
	sroce_net net;
	sroce_pkt pkt;
	sroce_rx_reason r = sroce_frame_parse_ext(
		copy.get(), static_cast<uint32_t>(f.size()), SROCE_DEFAULT_PKEY,
		ext, &net, &pkt);
	if (r == SROCE_RX_OK && h) {
		*h = sroce_hdrs{};
		sroce_pkt_hdrs(&pkt, h);
	}
	if (r == SROCE_RX_OK && out) {
		*out = pkt;
		out->hdr = nullptr; // points into the copy
	}
	return r;
}

// The SXH of a built packet
uint8_t *sxh_of(Bytes &f)
{
	uint8_t op = f[nhl_of(f)];
	return f.data() + nhl_of(f) +
	       sroce_opcode_lookup(op)->off[SROCE_HDR_SXH];
}

Bytes frame(uint8_t op, uint16_t flags, uint32_t paylen = 8)
{
	sroce_hdrs h = test_hdrs(op, 3);
	h.sxh.flags = flags;
	return build_frame(test_net(false), h, test_payload(paylen));
}

} // namespace

// Every RC opcode up to 0x17 has an SXH twin at 0xc0 | op, every XRC one
// at 0xe0 | op, and 0xd8 is the selective ACK: the base row's meaning and
// headers, the SXH after the BTH (and XRCETH), a RETH on every WRITE.
TEST(Sxh, OpcodeRows)
{
	std::vector<uint8_t> want;
	for (uint8_t base : {0x00, 0xa0}) {
		for (uint8_t op = 0; op <= 0x17; op++) {
			if (sroce_opcode_valid(base | op))
				want.push_back((base ? 0xe0 : 0xc0) | op);
		}
		if (!base)
			want.push_back(SROCE_OP_SXH_SACK);
	}
	EXPECT_EQ(sxh_opcodes(), want);
	for (uint8_t op : sxh_opcodes()) {
		const sroce_opcode_info *x = sroce_opcode_lookup(op);
		EXPECT_FALSE(sroce_opcode_valid(op)) << x->name;
		if (op == SROCE_OP_SXH_SACK)
			continue;
		const sroce_opcode_info *b =
			sroce_opcode_lookup(static_cast<uint8_t>(
				op < 0xe0 ? op & 0x1f : op - 0x40));
		EXPECT_EQ(x->flags,
			  (b->flags & ~SROCE_OPF_VALID) | SROCE_OPF_SXH)
			<< x->name;
		EXPECT_EQ(std::string(x->name), std::string("SXH_") + b->name);
		bool write = b->flags & SROCE_OPF_WRITE;
		bool place = write || (b->flags & SROCE_OPF_READ &&
				       b->flags & SROCE_OPF_RESP);
		EXPECT_EQ(x->sxh_need, place ? SROCE_SXH_OFFSET : 0) << x->name;
		for (int h = 0; h < SROCE_HDR_NR; h++) {
			bool want_h = b->off[h] || h == SROCE_HDR_SXH ||
				      (write && h == SROCE_HDR_RETH);
			EXPECT_EQ(x->off[h] != 0, want_h)
				<< x->name << " hdr " << h;
		}
		EXPECT_EQ(x->off[SROCE_HDR_SXH],
			  b->off[SROCE_HDR_XRCETH] ? 16 : 12);
	}
	const sroce_opcode_info *s = sroce_opcode_lookup(SROCE_OP_SXH_SACK);
	EXPECT_EQ(s->flags, SROCE_OPF_SXH | SROCE_OPF_RESP | SROCE_OPF_ACK |
				    SROCE_OPF_ONLY);
	EXPECT_EQ(s->sxh_need, SROCE_SXH_SACK);
	EXPECT_EQ(s->off[SROCE_HDR_AETH], 16);
	EXPECT_EQ(s->hdr_len, 20);
	uint32_t longest = 0;
	for (uint8_t op : sxh_opcodes())
		longest = std::max<uint32_t>(longest,
					     sroce_opcode_lookup(op)->hdr_len);
	EXPECT_EQ(longest - SROCE_SXH_LEN + SROCE_SXH_MAX_LEN,
		  SROCE_MAX_EXT_HDR_LEN);
	EXPECT_EQ(SROCE_MAX_EXT_HDR_LEN, 72);
}

// The wire bytes of a WRITE MIDDLE with both fields (protocol.md).
TEST(Sxh, WireFormat)
{
	sroce_hdrs h = test_hdrs(SROCE_OP_SXH_RC_WRITE_MIDDLE);
	h.sxh.flags = SROCE_SXH_OFFSET | SROCE_SXH_SACK;
	h.sxh.offset = 0x00012000;
	h.sxh.sack.epsn = 0xabcdef;
	h.sxh.sack.map[0] = 0x0102030405060708ull;
	h.sxh.sack.map[1] = 0x1112131415161718ull;
	uint8_t buf[128];
	ASSERT_EQ(sroce_hdrs_build(buf, sizeof(buf), &h), 12u + 28 + 16);
	const uint8_t want[28] = {
		0x10, 0x03, 7,	  0, // ver, flags, len
		0x00, 0x01, 0x20, 0x00, // OFFSET
		0x00, 0xab, 0xcd, 0xef, // epsn
		1,    2,    3,	  4,	5,    6,    7,	  8, // map[0]
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, // map[1]
	};
	EXPECT_EQ(0, memcmp(buf + 12, want, sizeof(want)));
	struct sroce_reth r;
	sroce_reth_get(buf + 40, &r); // the RETH after the SXH
	EXPECT_EQ(r.va, h.reth.va);
	EXPECT_EQ(r.len, h.reth.len);
}

// Not agreed: every extension opcode is unknown, as it was before there
// were any; IBTA opcodes parse the same whether agreed or not.
TEST(Sxh, NotAgreedIsUnknownOpcode)
{
	for (bool v6 : {false, true}) {
		for (const Bytes &f : all_sxh_frames(v6)) {
			EXPECT_EQ(parse_ext(f, 0), SROCE_RX_BAD_OPCODE)
				<< int(f[nhl_of(f)]);
			sroce_net net;
			sroce_pkt pkt;
			EXPECT_EQ(sroce_frame_parse(
					  f.data(),
					  static_cast<uint32_t>(f.size()),
					  SROCE_DEFAULT_PKEY, &net, &pkt),
				  SROCE_RX_BAD_OPCODE);
			EXPECT_EQ(parse_ext(f, kAll), SROCE_RX_OK);
		}
		for (const Bytes &f : all_opcode_frames(v6)) {
			sroce_hdrs a, b;
			sroce_pkt pa, pb;
			ASSERT_EQ(parse_ext(f, 0, &a, &pa), SROCE_RX_OK);
			ASSERT_EQ(parse_ext(f, kAll, &b, &pb), SROCE_RX_OK);
			EXPECT_EQ(pa.info, pb.info);
			EXPECT_EQ(pa.hdr_len, pa.info->hdr_len);
			EXPECT_EQ(pa.paylen, pb.paylen);
			EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
		}
	}
	// no row: unknown even when agreed
	Bytes f = frame(SROCE_OP_SXH_RC_SEND_ONLY, 0);
	for (unsigned op : {0xd5u, 0xd9u, 0xddu, 0xdfu, 0xf5u, 0xf8u, 0xffu}) {
		Bytes g = f;
		g[nhl_of(g)] = static_cast<uint8_t>(op);
		fix_icrc(g);
		EXPECT_EQ(parse_ext(g, kAll), SROCE_RX_BAD_OPCODE) << op;
	}
}

// Every extension opcode, with the fields its seed gives it, parses to
// what was built and rebuilds byte for byte.
TEST(Sxh, RoundTrip)
{
	for (bool v6 : {false, true}) {
		uint32_t seed = 0;
		for (const Bytes &f : all_sxh_frames(v6, 5)) {
			uint8_t op = f[nhl_of(f)];
			sroce_hdrs want = test_hdrs(op, seed++);
			sroce_hdrs got;
			sroce_pkt pkt;
			ASSERT_EQ(parse_ext(f, kAll, &got, &pkt), SROCE_RX_OK)
				<< int(op);
			const char *name = pkt.info->name;
			EXPECT_EQ(got.sxh.flags, want.sxh.flags) << name;
			EXPECT_EQ(pkt.hdr_len,
				  pkt.info->hdr_len - SROCE_SXH_LEN +
					  sroce_sxh_len(want.sxh.flags))
				<< name;
			EXPECT_EQ(nhl_of(f) + pkt.hdr_len + pkt.paylen +
					  pkt.bth.pad + SROCE_ICRC_LEN,
				  f.size());
			if (want.sxh.flags & SROCE_SXH_OFFSET) {
				EXPECT_EQ(got.sxh.offset, want.sxh.offset);
			}
			if (want.sxh.flags & SROCE_SXH_SACK) {
				EXPECT_EQ(got.sxh.sack.epsn,
					  want.sxh.sack.epsn);
				EXPECT_EQ(0, memcmp(got.sxh.sack.map,
						    want.sxh.sack.map,
						    sizeof(got.sxh.sack.map)));
			}
			// the IBTA headers after the SXH, where they moved
			if (sroce_opcode_has(pkt.info, SROCE_HDR_RETH)) {
				EXPECT_EQ(got.reth.va, want.reth.va) << name;
			}
			if (sroce_opcode_has(pkt.info, SROCE_HDR_AETH)) {
				EXPECT_EQ(got.aeth.msn, want.aeth.msn) << name;
			}
			if (sroce_opcode_has(pkt.info, SROCE_HDR_ATMETH)) {
				EXPECT_EQ(got.atmeth.compare,
					  want.atmeth.compare)
					<< name;
			}
			if (sroce_opcode_has(pkt.info, SROCE_HDR_IMMDT)) {
				EXPECT_EQ(got.imm, want.imm) << name;
			}
			if (sroce_opcode_has(pkt.info, SROCE_HDR_XRCETH)) {
				EXPECT_EQ(got.xrc_srqn, want.xrc_srqn) << name;
			}
			Bytes again = build_frame(
				test_net(v6), got,
				Bytes(f.begin() + nhl_of(f) + pkt.hdr_len,
				      f.begin() + nhl_of(f) + pkt.hdr_len +
					      pkt.paylen));
			EXPECT_EQ(again, f) << name;
		}
	}
}

TEST(Sxh, Rejects)
{
	Bytes good = frame(SROCE_OP_SXH_RC_WRITE_ONLY, SROCE_SXH_OFFSET);
	ASSERT_EQ(parse_ext(good, kAll), SROCE_RX_OK);
	auto with = [&](auto change) {
		Bytes f = good;
		change(sxh_of(f));
		fix_icrc(f);
		return parse_ext(f, kAll);
	};
	for (uint8_t v : {0, 2, 15})
		EXPECT_EQ(with([&](uint8_t *p) {
				  p[0] = static_cast<uint8_t>(v << 4 |
							      (p[0] & 0xf));
			  }),
			  SROCE_RX_BAD_SXH)
			<< int(v);
	for (int bit = 2; bit < 12; bit++) // flags no version knows yet
		EXPECT_EQ(with([&](uint8_t *p) {
				  sroce_put_be16(p,
						 sroce_get_be16(p) | 1u << bit);
			  }),
			  SROCE_RX_SXH_FLAGS)
			<< bit;
	for (uint8_t words : {0, 1, 3, 255})
		EXPECT_EQ(with([&](uint8_t *p) { p[2] = words; }),
			  SROCE_RX_BAD_SXH)
			<< int(words);
	// reserved: ignored
	EXPECT_EQ(with([](uint8_t *p) { p[3] = 0xff; }), SROCE_RX_OK);
	// a WRITE without its OFFSET
	EXPECT_EQ(with([](uint8_t *p) {
			  p[1] = 0;
			  p[2] = 1;
		  }),
		  SROCE_RX_BAD_SXH);
	// a selective ACK without its SACK
	Bytes sack = frame(SROCE_OP_SXH_SACK, SROCE_SXH_SACK, 0);
	ASSERT_EQ(parse_ext(sack, kAll), SROCE_RX_OK);
	sxh_of(sack)[1] = 0;
	sxh_of(sack)[2] = 1;
	fix_icrc(sack);
	EXPECT_EQ(parse_ext(sack, kAll), SROCE_RX_BAD_SXH);
	// a known field the QP did not agree to
	Bytes both = frame(SROCE_OP_SXH_RC_WRITE_ONLY,
			   SROCE_SXH_OFFSET | SROCE_SXH_SACK);
	EXPECT_EQ(parse_ext(both, kAll), SROCE_RX_OK);
	EXPECT_EQ(parse_ext(both, SROCE_SXH_OFFSET), SROCE_RX_SXH_FLAGS);
	// agreed to flags no version knows: still only the known ones
	EXPECT_EQ(parse_ext(both, 0xffff), SROCE_RX_OK);
	Bytes mac = good;
	sroce_put_be16(sxh_of(mac),
		       sroce_get_be16(sxh_of(mac)) | SROCE_SXH_MAC);
	fix_icrc(mac);
	EXPECT_EQ(parse_ext(mac, 0xffff), SROCE_RX_SXH_FLAGS);
}

// Cut anywhere in its headers, an extension packet is truncated, and the
// parser reads no byte beyond SROCE_MAX_EXT_HDR_LEN of the UDP payload.
TEST(Sxh, Truncated)
{
	for (uint8_t op : {SROCE_OP_SXH_XRC_CMP_SWAP, SROCE_OP_SXH_SACK,
			   SROCE_OP_SXH_RC_WRITE_FIRST}) {
		Bytes f = frame(op, SROCE_SXH_OFFSET | SROCE_SXH_SACK,
				op == SROCE_OP_SXH_RC_WRITE_FIRST ? 1024 : 0);
		uint32_t nhl = nhl_of(f);
		uint32_t len = static_cast<uint32_t>(f.size()) - nhl;
		sroce_pkt pkt;
		ASSERT_EQ(sroce_pkt_parse_ext(&pkt, f.data() + nhl, len,
					      SROCE_DEFAULT_PKEY, kAll),
			  SROCE_RX_OK);
		uint32_t hdr_len = pkt.hdr_len;
		for (uint32_t n = 0; n < hdr_len + SROCE_ICRC_LEN; n++) {
			std::unique_ptr<uint8_t[]> c(new uint8_t[n + 1]);
			memcpy(c.get(), f.data() + nhl, n);
			EXPECT_EQ(sroce_pkt_parse_ext(&pkt, c.get(), n,
						      SROCE_DEFAULT_PKEY, kAll),
				  SROCE_RX_TRUNCATED)
				<< int(op) << " " << n;
		}
		uint32_t lin = std::min<uint32_t>(len, SROCE_MAX_EXT_HDR_LEN);
		std::unique_ptr<uint8_t[]> c(new uint8_t[lin]);
		memcpy(c.get(), f.data() + nhl, lin);
		EXPECT_EQ(sroce_pkt_parse_ext(&pkt, c.get(), len,
					      SROCE_DEFAULT_PKEY, kAll),
			  SROCE_RX_OK);
	}
}

// The builder refuses what the parser would: unknown flags, a missing
// field the opcode needs.
TEST(Sxh, BuildRefuses)
{
	sroce_hdrs h = test_hdrs(SROCE_OP_SXH_RC_SEND_ONLY);
	h.sxh.flags = SROCE_SXH_ACK;
	EXPECT_EQ(sroce_hdrs_len(&h), 0u);
	h.sxh.flags = 0;
	EXPECT_EQ(sroce_hdrs_len(&h), SROCE_BTH_LEN + SROCE_SXH_LEN);
	h.bth.opcode = SROCE_OP_SXH_RC_READ_RESPONSE_MIDDLE;
	EXPECT_EQ(sroce_hdrs_len(&h), 0u);
	h.bth.opcode = SROCE_OP_SXH_SACK;
	h.sxh.flags = SROCE_SXH_OFFSET;
	EXPECT_EQ(sroce_hdrs_len(&h), 0u);
	uint8_t buf[256];
	EXPECT_EQ(sroce_hdrs_build(buf, sizeof(buf), &h), 0u);
	sroce_net net = test_net(false);
	EXPECT_EQ(sroce_frame_build(buf, sizeof(buf), &net, &h, nullptr, 0),
		  0u);
	h.bth.opcode = 0xd9; // no row
	h.sxh.flags = 0;
	EXPECT_EQ(sroce_hdrs_len(&h), 0u);
}
