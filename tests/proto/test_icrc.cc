// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// The CRC-32 primitive and the ICRC: constants, masking, incremental use.
#include <gtest/gtest.h>

#include <random>

#include "frames.hpp"

using namespace sroce::test;

TEST(Crc32, CheckValue)
{
	const char *s = "123456789";
	EXPECT_EQ(~sroce_crc32(~0u, s, 9), 0xcbf43926u);
	EXPECT_EQ(sroce_crc32(7, s, 0), 7u);
}

TEST(Crc32, SeedIsMaskedLrh)
{
	const uint8_t ff[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	EXPECT_EQ(sroce_crc32(~0u, ff, 8), SROCE_ICRC_SEED);
}

// Bit-at-a-time reference, independent of the table-driven code.
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

TEST(Crc32, MatchesBitwiseAtEveryLengthAndAlignment)
{
	Bytes data = test_payload(300, 5);
	for (size_t start = 0; start < 8; start++)
		for (size_t len = 0; len + start <= data.size(); len += 7)
			ASSERT_EQ(sroce_crc32(0x12345678, data.data() + start,
					      len),
				  crc_bitwise(0x12345678, data.data() + start,
					      len));
}

// ICRC from first principles: CRC of the masked pseudo packet, ~, LE.
static uint32_t icrc_reference(const Bytes &frame)
{
	Bytes m(8 + frame.size() - 4, 0xff);
	memcpy(m.data() + 8, frame.data(), frame.size() - 4);
	size_t ip = 8, udp, bth;
	if ((frame[0] >> 4) == 4) {
		m[ip + 1] = 0xff; // TOS
		m[ip + 8] = 0xff; // TTL
		m[ip + 10] = m[ip + 11] = 0xff; // checksum
		udp = ip + 20;
	} else {
		m[ip] |= 0x0f; // traffic class ...
		m[ip + 1] = m[ip + 2] = m[ip + 3] = 0xff; // ... and flow label
		m[ip + 7] = 0xff; // hop limit
		udp = ip + 40;
	}
	m[udp + 6] = m[udp + 7] = 0xff;
	bth = udp + 8;
	m[bth + 4] = 0xff;
	return ~crc_bitwise(~0u, m.data(), m.size());
}

TEST(Icrc, EveryOpcodeMatchesReference)
{
	for (bool v6 : {false, true})
		for (const Bytes &f : all_opcode_frames(v6)) {
			uint32_t stored =
				sroce_icrc_get(f.data() + f.size() - 4);
			EXPECT_EQ(stored, icrc_reference(f));
			// stored least-significant byte first
			EXPECT_EQ(f[f.size() - 4], stored & 0xff);
		}
}

TEST(Icrc, IncrementalOverAnySplit)
{
	std::mt19937 rng(42);
	for (bool v6 : {false, true}) {
		sroce_net net = test_net(v6);
		Bytes f =
			build_frame(net, test_hdrs(SROCE_OP_RC_WRITE_ONLY_IMM),
				    test_payload(1021));
		uint32_t nhl = sroce_net_hlen(&net);
		const uint8_t *bth = f.data() + nhl;
		uint32_t body = static_cast<uint32_t>(f.size()) - nhl - 4;
		uint32_t want = sroce_icrc_get(f.data() + f.size() - 4);
		for (int iter = 0; iter < 200; iter++) {
			sroce_icrc ic;
			sroce_icrc_start(&ic, f.data(), v6, bth - 8, bth);
			uint32_t off = SROCE_BTH_LEN;
			while (off < body) {
				uint32_t n = std::min<uint32_t>(body - off,
								rng() % 300);
				sroce_icrc_feed(&ic, bth + off, n);
				off += n;
			}
			ASSERT_EQ(sroce_icrc_finish(&ic), want);
		}
		// headers need not be contiguous
		Bytes ip(f.begin(), f.begin() + nhl - 8),
			udp(f.begin() + nhl - 8, f.begin() + nhl),
			b(bth, bth + 12);
		sroce_icrc ic;
		sroce_icrc_start(&ic, ip.data(), v6, udp.data(), b.data());
		sroce_icrc_feed(&ic, bth + 12, body - 12);
		EXPECT_EQ(sroce_icrc_finish(&ic), want);
	}
}

// Changing a masked field keeps the ICRC; changing any other byte breaks it.
TEST(Icrc, MaskedFields)
{
	for (bool v6 : {false, true}) {
		sroce_net net = test_net(v6);
		Bytes f = build_frame(net, test_hdrs(SROCE_OP_RC_SEND_ONLY),
				      test_payload(8));
		uint32_t nhl = sroce_net_hlen(&net);
		std::vector<size_t> masked;
		if (v6)
			masked = {1, 2, 3, 7};
		else
			masked = {1, 8, 10, 11};
		masked.push_back(nhl - 2); // UDP checksum
		masked.push_back(nhl - 1);
		masked.push_back(nhl + 4); // BTH F/B/reserved
		uint32_t want = sroce_icrc_get(f.data() + f.size() - 4);
		for (size_t i = 0; i + 4 < f.size(); i++) {
			Bytes g = f;
			g[i] ^= 0x01;
			if (v6 && i == 0)
				g[i] ^= 0x03; // low nibble of byte 0 is masked
			uint32_t got = sroce_icrc_compute(
				g.data(), v6, g.data() + nhl - 8,
				g.data() + nhl,
				static_cast<uint32_t>(g.size()) - nhl - 4);
			bool is_masked = std::find(masked.begin(), masked.end(),
						   i) != masked.end() ||
					 (v6 && i == 0);
			EXPECT_EQ(got == want, is_masked)
				<< "byte " << i << (v6 ? " v6" : " v4");
		}
	}
}
