// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Packets built by the protocol core, for tests, seeds and benchmarks.
#pragma once

#include <cstdint>
#include <vector>

#include "pcap.hpp"
#include "proto.hpp"

namespace sroce::test {

// The valid opcodes, in table order.
std::vector<uint8_t> valid_opcodes();

// The extension opcodes (an SXH; valid between agreed sroce QPs only).
std::vector<uint8_t> sxh_opcodes();

// IPv4 192.0.2.1 -> 192.0.2.2 or IPv6 2001:db8::1 -> 2001:db8::2.
sroce_net test_net(bool ipv6);

// Every field of every header set to a distinct, recognizable value; an
// extension opcode's SXH has the fields it needs and, by seed, others.
sroce_hdrs test_hdrs(uint8_t opcode, uint32_t seed = 0);

// A payload length that is valid for the opcode with the given path MTU:
// pmtu for FIRST/MIDDLE, `other` (or 0 when it has no payload) otherwise.
uint32_t test_paylen(uint8_t opcode, uint32_t pmtu, uint32_t other);

Bytes test_payload(uint32_t len, uint32_t seed = 0);

// Builds a whole packet (IP header to ICRC); aborts the test on failure.
Bytes build_frame(const sroce_net &net, sroce_hdrs hdrs, const Bytes &payload);

// IP and UDP header length of a built packet: where its BTH starts.
uint32_t nhl_of(const Bytes &f);

// Rewrites the ICRC after a test modified the packet.
void fix_icrc(Bytes &f);

// One packet per valid opcode (payloads valid for a 1024-byte path MTU,
// non-first/middle payloads of `other` bytes).
std::vector<Bytes> all_opcode_frames(bool ipv6, uint32_t other = 13);

// The same for every extension opcode.
std::vector<Bytes> all_sxh_frames(bool ipv6, uint32_t other = 13);

} // namespace sroce::test
