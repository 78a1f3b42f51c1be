// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Independent check: Wireshark's dissector reads every packet the core
// builds, with no malformed packet or expert info, and sees our fields.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "frames.hpp"
#include "tshark.hpp"

namespace sroce::test {

std::string tshark_path()
{
	for (const char *p : {"/usr/bin/tshark", "/usr/local/bin/tshark"})
		if (access(p, X_OK) == 0)
			return p;
	return {};
}

std::string run_command(const std::string &cmd, int *status)
{
	std::string out;
	FILE *f = popen(cmd.c_str(), "r");
	if (!f) {
		*status = -1;
		return out;
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		out.append(buf, n);
	*status = pclose(f);
	return out;
}

} // namespace sroce::test

using namespace sroce::test;

namespace {

struct Expect {
	unsigned opcode, dqpn, psn;
};

class Tshark : public testing::Test {
protected:
	void SetUp() override
	{
		tshark_ = tshark_path();
		if (tshark_.empty())
			GTEST_SKIP() << "tshark not installed: dissector check "
					"skipped";
		char tmpl[] = "/tmp/sroce-proto-XXXXXX";
		ASSERT_NE(mkdtemp(tmpl), nullptr);
		dir_ = tmpl;
	}
	void TearDown() override
	{
		if (!dir_.empty())
			std::filesystem::remove_all(dir_);
	}
	std::string tshark(const std::string &args)
	{
		int st;
		// RoCEv2 sends UDP checksum 0 over IPv6 too (as rdma_rxe does), which
		// Wireshark flags unless told to accept it.  Payload heuristics of
		// upper-layer protocols (RPC-over-RDMA, SMB Direct, EoIB ...) would try to
		// dissect our test payloads and call them malformed: turn them off.
		std::string opts = " -n -o udp.ignore_ipv6_zero_checksum:TRUE";
		for (const char *p :
		     {"smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet",
		      "iser", "infiniband_sdp", "fcoib", "infiniband.eoib"})
			opts += std::string(" --disable-protocol ") + p;
		std::string out = run_command(
			tshark_ + opts + " " + args + " 2>/dev/null", &st);
		EXPECT_EQ(st, 0) << args;
		return out;
	}
	std::string tshark_, dir_;
};

TEST_F(Tshark, EveryOpcodeDissectsCleanly)
{
	for (bool v6 : {false, true}) {
		std::vector<Bytes> frames;
		std::vector<Expect> want;
		for (uint32_t other : {0u, 1u, 2u, 3u, 64u}) {
			uint32_t seed = 0;
			for (uint8_t op : valid_opcodes()) {
				// Wireshark 4.0 predates IBTA 1.5's opcodes
				if (op == SROCE_OP_RC_ATOMIC_WRITE)
					continue;
				sroce_hdrs h = test_hdrs(op, seed++);
				frames.push_back(
					build_frame(test_net(v6), h,
						    test_payload(test_paylen(
							    op, 1024, other))));
				want.push_back({op, h.bth.dqpn, h.bth.psn});
			}
		}
		std::string pcap = dir_ + (v6 ? "/v6.pcap" : "/v4.pcap");
		ASSERT_TRUE(pcap_write(pcap, kLinktypeRaw, frames));

		// nothing malformed, no expert info at any severity
		std::string bad = tshark(
			"-r " + pcap +
			" -Y '_ws.malformed || _ws.expert || !infiniband'"
			" -T fields -e frame.number -e _ws.col.Info");
		EXPECT_EQ(bad, "") << (v6 ? "IPv6" : "IPv4");

		// the dissector sees the opcode, QP and PSN we wrote
		std::string out = tshark(
			"-r " + pcap +
			" -T fields -E separator=, -e infiniband.bth.opcode"
			" -e infiniband.bth.destqp -e infiniband.bth.psn");
		std::istringstream in(out);
		std::string line;
		size_t i = 0;
		while (std::getline(in, line)) {
			ASSERT_LT(i, want.size());
			unsigned op = 0, qp = 0, psn = 0;
			ASSERT_EQ(sscanf(line.c_str(), "%u,%i,%u", &op, &qp,
					 &psn),
				  3)
				<< line;
			EXPECT_EQ(op, want[i].opcode) << line;
			EXPECT_EQ(qp, want[i].dqpn) << line;
			EXPECT_EQ(psn, want[i].psn) << line;
			i++;
		}
		EXPECT_EQ(i, want.size());
	}
}

} // namespace
