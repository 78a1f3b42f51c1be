// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include "pcap.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

namespace sroce::test {
namespace {

struct FileCloser {
	void operator()(FILE *f) const { fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
} // host order
void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

uint32_t get32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

} // namespace

bool pcap_write(const std::string &path, uint32_t linktype,
		const std::vector<Bytes> &packets)
{
	File f(fopen(path.c_str(), "wb"));
	if (!f)
		return false;
	uint8_t gh[24] = {};
	put32(gh, 0xa1b2c3d4);
	put16(gh + 4, 2);
	put16(gh + 6, 4);
	put32(gh + 16, 65535);
	put32(gh + 20, linktype);
	if (fwrite(gh, sizeof(gh), 1, f.get()) != 1)
		return false;
	uint32_t sec = 1700000000;
	for (const Bytes &p : packets) {
		uint8_t rh[16];
		put32(rh, sec++);
		put32(rh + 4, 0);
		put32(rh + 8, static_cast<uint32_t>(p.size()));
		put32(rh + 12, static_cast<uint32_t>(p.size()));
		if (fwrite(rh, sizeof(rh), 1, f.get()) != 1)
			return false;
		if (!p.empty() && fwrite(p.data(), p.size(), 1, f.get()) != 1)
			return false;
	}
	return fflush(f.get()) == 0;
}

bool pcap_read(const std::string &path, PcapFile *out)
{
	File f(fopen(path.c_str(), "rb"));
	if (!f)
		return false;
	uint8_t gh[24];
	if (fread(gh, sizeof(gh), 1, f.get()) != 1)
		return false;
	uint32_t magic;
	memcpy(&magic, gh, 4);
	bool swap;
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d)
		swap = false;
	else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1)
		swap = true;
	else
		return false; // pcapng or garbage
	out->linktype = get32(gh + 20, swap) & 0x0fffffff;
	out->packets.clear();
	uint8_t rh[16];
	while (fread(rh, sizeof(rh), 1, f.get()) == 1) {
		uint32_t caplen = get32(rh + 8, swap);
		if (caplen > (1u << 20))
			return false;
		Bytes p(caplen);
		if (caplen && fread(p.data(), caplen, 1, f.get()) != 1)
			return false;
		out->packets.push_back(std::move(p));
	}
	return true;
}

Bytes pcap_ip_payload(uint32_t linktype, const Bytes &frame)
{
	size_t off;
	uint16_t proto;
	auto be16 = [&](size_t o) {
		return static_cast<uint16_t>(frame[o] << 8 | frame[o + 1]);
	};
	switch (linktype) {
	case kLinktypeRaw:
		return frame;
	case kLinktypeEthernet:
		if (frame.size() < 14)
			return {};
		off = 14;
		proto = be16(12);
		while ((proto == 0x8100 || proto == 0x88a8) &&
		       frame.size() >= off + 4) {
			proto = be16(off + 2);
			off += 4;
		}
		break;
	case kLinktypeLinuxSll:
		if (frame.size() < 16)
			return {};
		off = 16;
		proto = be16(14);
		break;
	case kLinktypeLinuxSll2:
		if (frame.size() < 20)
			return {};
		off = 20;
		proto = be16(0);
		break;
	default:
		return {};
	}
	if (proto != 0x0800 && proto != 0x86dd)
		return {};
	return Bytes(frame.begin() + static_cast<long>(off), frame.end());
}

} // namespace sroce::test
