// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include "frames.hpp"

#include <cstdio>
#include <cstdlib>

namespace sroce::test {

std::vector<uint8_t> valid_opcodes()
{
	std::vector<uint8_t> ops;
	for (unsigned op = 0; op < 256; op++)
		if (sroce_opcode_valid(static_cast<uint8_t>(op)))
			ops.push_back(static_cast<uint8_t>(op));
	return ops;
}

std::vector<uint8_t> sxh_opcodes()
{
	std::vector<uint8_t> ops;
	for (unsigned op = 0; op < 256; op++)
		if (sroce_opcode_lookup(static_cast<uint8_t>(op))->flags &
		    SROCE_OPF_SXH)
			ops.push_back(static_cast<uint8_t>(op));
	return ops;
}

sroce_net test_net(bool ipv6)
{
	sroce_net net{};
	net.ipv6 = ipv6;
	net.tos = 0x02; // ECT(0)
	net.ttl = 64;
	net.ip_id = 0x1234;
	net.flow_label = ipv6 ? 0xabcde : 0;
	net.sport = sroce_udp_sport_qpn(0x11);
	net.dport = SROCE_UDP_PORT;
	if (ipv6) {
		const uint8_t s[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				       0,    0,	   0,	 0,    0, 0, 0, 1};
		memcpy(net.saddr, s, 16);
		memcpy(net.daddr, s, 16);
		net.daddr[15] = 2;
	} else {
		const uint8_t s[16] = {0, 0, 0,	   0,	 0,   0, 0, 0,
				       0, 0, 0xff, 0xff, 192, 0, 2, 1};
		memcpy(net.saddr, s, 16);
		memcpy(net.daddr, s, 16);
		net.daddr[15] = 2;
	}
	return net;
}

sroce_hdrs test_hdrs(uint8_t opcode, uint32_t seed)
{
	sroce_hdrs h{};
	h.bth.opcode = opcode;
	h.bth.flags = SROCE_BTHF_ACKREQ | ((seed & 1) ? SROCE_BTHF_SE : 0);
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = 0x000011 + seed;
	h.bth.psn = (0xfffff0 + seed) & SROCE_PSN_MASK;
	h.deth.qkey = 0x11111111 + seed;
	h.deth.sqpn = 0x000022 + seed;
	h.reth.va = 0x0000555566667777ull + seed;
	h.reth.rkey = 0x12345678 + seed;
	h.reth.len = 4096 + seed;
	h.atmeth.va = 0x00007fff00001000ull + 8 * seed;
	h.atmeth.rkey = 0x87654321 + seed;
	h.atmeth.swap_add = 0x0102030405060708ull + seed;
	h.atmeth.compare = 0x1112131415161718ull + seed;
	h.aeth.syndrome = sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID);
	h.aeth.msn = 0x000100 + seed;
	h.atmack = 0x2122232425262728ull + seed;
	h.imm = 0xdeadbeef + seed;
	h.ieth_rkey = 0xcafef00d + seed;
	h.xrc_srqn = 0x000033 + seed;
	h.sxh.flags = sroce_opcode_lookup(opcode)->sxh_need |
		      ((seed & 1) ? SROCE_SXH_OFFSET : 0) |
		      ((seed & 2) ? SROCE_SXH_SACK : 0);
	h.sxh.offset = 1024 * (seed % 7);
	h.sxh.sack.epsn = (0xfffffe + seed) & SROCE_PSN_MASK;
	h.sxh.sack.map[0] = 0x8000000000000005ull + seed;
	h.sxh.sack.map[SROCE_SACK_WORDS - 1] |= 0x4000000000000000ull;
	if (opcode == SROCE_OP_CNP) {
		h.bth.flags = SROCE_BTHF_BECN;
		h.bth.psn = 0;
	}
	return h;
}

uint32_t test_paylen(uint8_t opcode, uint32_t pmtu, uint32_t other)
{
	const sroce_opcode_info *info = sroce_opcode_lookup(opcode);
	if (!(info->flags & SROCE_OPF_PAYLOAD))
		return 0;
	if ((info->flags & SROCE_OPF_ONLY) == SROCE_OPF_ONLY)
		return other;
	if (info->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE))
		return pmtu;
	return other ? other : 1; // a LAST packet carries at least a byte
}

Bytes test_payload(uint32_t len, uint32_t seed)
{
	Bytes p(len);
	for (uint32_t i = 0; i < len; i++)
		p[i] = static_cast<uint8_t>(i * 7 + seed);
	return p;
}

Bytes build_frame(const sroce_net &net, sroce_hdrs hdrs, const Bytes &payload)
{
	Bytes buf(SROCE_MAX_NET_HLEN + SROCE_MAX_EXT_HDR_LEN + payload.size() +
		  8);
	uint32_t n = sroce_frame_build(
		buf.data(), static_cast<uint32_t>(buf.size()), &net, &hdrs,
		payload.data(), static_cast<uint32_t>(payload.size()));
	if (!n) {
		fprintf(stderr, "sroce_frame_build failed for opcode 0x%02x\n",
			hdrs.bth.opcode);
		abort();
	}
	buf.resize(n);
	return buf;
}

uint32_t nhl_of(const Bytes &f)
{
	return ((f[0] >> 4) == 6 ? 40 : 20) + 8;
}

void fix_icrc(Bytes &f)
{
	uint32_t nhl = nhl_of(f);
	uint32_t icrc = sroce_icrc_compute(
		f.data(), (f[0] >> 4) == 6, f.data() + nhl - 8, f.data() + nhl,
		static_cast<uint32_t>(f.size()) - nhl - 4);
	sroce_icrc_put(f.data() + f.size() - 4, icrc);
}

static std::vector<Bytes> frames_of(const std::vector<uint8_t> &ops, bool ipv6,
				    uint32_t other)
{
	std::vector<Bytes> out;
	sroce_net net = test_net(ipv6);
	uint32_t seed = 0;
	for (uint8_t op : ops) {
		uint32_t len = test_paylen(op, 1024, other);
		out.push_back(build_frame(net, test_hdrs(op, seed),
					  test_payload(len, seed)));
		seed++;
	}
	return out;
}

std::vector<Bytes> all_opcode_frames(bool ipv6, uint32_t other)
{
	return frames_of(valid_opcodes(), ipv6, other);
}

std::vector<Bytes> all_sxh_frames(bool ipv6, uint32_t other)
{
	return frames_of(sxh_opcodes(), ipv6, other);
}

} // namespace sroce::test
