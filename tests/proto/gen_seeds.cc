// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Writes the fuzzer's seed corpus: one IP packet per opcode, IPv4 and IPv6,
// with pad counts 0-3, extension opcodes included (with varying SXH
// fields), plus the RoCEv2 packets of any captures in data/.
//   sroce_proto_seeds OUTDIR [PCAP...]
#include <cstdio>
#include <string>

#include "frames.hpp"

using namespace sroce::test;

static void write_file(const std::string &path, const Bytes &b)
{
	FILE *f = fopen(path.c_str(), "wb");
	if (!f) {
		perror(path.c_str());
		return;
	}
	if (!b.empty())
		fwrite(b.data(), b.size(), 1, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s OUTDIR [PCAP...]\n", argv[0]);
		return 2;
	}
	std::string dir = argv[1];
	int n = 0;
	char name[64];
	for (bool v6 : {false, true})
		for (uint32_t other : {0u, 1u, 2u, 3u}) {
			for (const Bytes &f : all_opcode_frames(v6, other)) {
				snprintf(name, sizeof(name), "/built-%03d",
					 n++);
				write_file(dir + name, f);
			}
			for (const Bytes &f : all_sxh_frames(v6, other)) {
				snprintf(name, sizeof(name), "/sxh-%03d", n++);
				write_file(dir + name, f);
			}
		}
	for (int i = 2; i < argc; i++) {
		PcapFile pf;
		if (!pcap_read(argv[i], &pf))
			continue;
		for (const Bytes &p : pf.packets) {
			Bytes ip = pcap_ip_payload(pf.linktype, p);
			if (ip.empty())
				continue;
			snprintf(name, sizeof(name), "/captured-%05d", n++);
			write_file(dir + name, ip);
		}
	}
	printf("%d seeds in %s\n", n, dir.c_str());
	return 0;
}
