// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Ground truth: rdma_rxe traffic captured in a guest (capture-rxe.sh)
// stored as pcaps under data/.  Every captured RoCEv2 packet must parse and
// validate (ICRC included), and the core must rebuild it byte for byte.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "frames.hpp"

using namespace sroce::test;

namespace {

std::vector<std::string> capture_files()
{
	std::vector<std::string> files;
	if (DIR *d = opendir(SROCE_TEST_DATA_DIR)) {
		while (dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (n.size() > 5 && n.substr(n.size() - 5) == ".pcap")
				files.push_back(
					std::string(SROCE_TEST_DATA_DIR) + "/" +
					n);
		}
		closedir(d);
	}
	std::sort(files.begin(), files.end());
	return files;
}

bool is_roce(const Bytes &ip)
{
	size_t udp;
	if (ip.size() >= 28 && (ip[0] >> 4) == 4 && ip[9] == 17)
		udp = static_cast<size_t>(ip[0] & 0xf) * 4;
	else if (ip.size() >= 48 && (ip[0] >> 4) == 6 && ip[6] == 17)
		udp = 40;
	else
		return false;
	return ip.size() >= udp + 8 &&
	       (ip[udp + 2] << 8 | ip[udp + 3]) == SROCE_UDP_PORT;
}

} // namespace

TEST(Capture, RxePacketsParseVerifyAndRebuild)
{
	std::vector<std::string> files = capture_files();
	if (files.empty())
		GTEST_SKIP() << "no captures in " SROCE_TEST_DATA_DIR
				" (run tests/proto/capture-rxe.sh in a guest)";
	std::map<unsigned, unsigned> seen[2]; // per IP version: opcode -> count
	size_t total = 0;
	for (const std::string &file : files) {
		PcapFile pf;
		ASSERT_TRUE(pcap_read(file, &pf)) << file;
		for (size_t i = 0; i < pf.packets.size(); i++) {
			Bytes ip = pcap_ip_payload(pf.linktype, pf.packets[i]);
			if (ip.empty() || !is_roce(ip))
				continue;
			SCOPED_TRACE(testing::Message()
				     << file << " packet " << i + 1);
			sroce_net net;
			sroce_pkt pkt;
			ASSERT_EQ(sroce_frame_parse(
					  ip.data(),
					  static_cast<uint32_t>(ip.size()),
					  SROCE_DEFAULT_PKEY, &net, &pkt),
				  SROCE_RX_OK);
			seen[net.ipv6][pkt.bth.opcode]++;
			total++;

			// rebuild from the parsed fields and payload
			sroce_hdrs h{};
			sroce_pkt_hdrs(&pkt, &h);
			Bytes pay(sroce_pkt_payload(&pkt),
				  sroce_pkt_payload(&pkt) + pkt.paylen);
			Bytes again = build_frame(net, h, pay);
			Bytes orig(ip.begin(),
				   ip.begin() +
					   static_cast<long>(again.size()));
			uint32_t nhl = sroce_net_hlen(&net);
			// rxe, like the core, sends UDP checksum 0 (IPv6 included) and zero
			// pad bytes: the whole packet comes out identical
			EXPECT_EQ(orig[nhl - 2] | orig[nhl - 1], 0);
			EXPECT_EQ(again, orig);
		}
	}
	EXPECT_GT(total, 0u);
	for (int v6 = 0; v6 < 2; v6++)
		for (auto [op, n] : seen[v6])
			printf("  %s %-28s %u packets\n", v6 ? "IPv6" : "IPv4",
			       sroce_opcode_lookup(static_cast<uint8_t>(op))
				       ->name,
			       n);
}
