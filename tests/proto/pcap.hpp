// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// A tiny pcap writer and reader (classic libpcap format, not pcapng).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sroce::test {

constexpr uint32_t kLinktypeEthernet = 1;
constexpr uint32_t kLinktypeRaw = 101; // raw IPv4 or IPv6
constexpr uint32_t kLinktypeLinuxSll = 113;
constexpr uint32_t kLinktypeLinuxSll2 = 276;

using Bytes = std::vector<uint8_t>;

// Writes packets with the given link type; returns false on I/O error.
bool pcap_write(const std::string &path, uint32_t linktype,
		const std::vector<Bytes> &packets);

struct PcapFile {
	uint32_t linktype = 0;
	std::vector<Bytes> packets;
};

// Reads a pcap file (either byte order, micro- or nanosecond stamps).
bool pcap_read(const std::string &path, PcapFile *out);

// Strips the link-layer header and returns the IP packet, or an empty
// vector when the frame is not IPv4/IPv6.
Bytes pcap_ip_payload(uint32_t linktype, const Bytes &frame);

} // namespace sroce::test
