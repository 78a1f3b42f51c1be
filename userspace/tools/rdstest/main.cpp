// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-rdstest - RDS over RDMA (the kernel's rds and rds_rdma) between
 * two addresses of this host, for tests/rds.sh: Debian 12 has no
 * rds-tools (rds-stress, rds-ping), so this is the small client.
 *
 *   sroce-rdstest ADDR_A ADDR_B CHECK|all [COUNT]
 *
 * Each check opens one RDS socket bound to ADDR_A and one bound to
 * ADDR_B (IPv4 addresses of RDMA devices of init_net: RDS/IB of 6.1
 * serves no other namespace), both forced onto the RDS/IB transport
 * (SO_RDS_TRANSPORT), and talks between them; RDS/IB connects the two
 * addresses with the RDMA CM.  COUNT (default 64) messages or transfers
 * per check.  The checks, each described in its file:
 *
 *   send        messages.cpp: messages of 1 B to 1 MiB each way, verified
 *   rdma-write  rdma.cpp: RDMA WRITEs into mapped regions, verified
 *   rdma-read   rdma.cpp: RDMA READs from them, verified
 *   all         the three in turn
 *
 * KTAP (ktap.h), one case per check; exit status 0 when every case
 * passed, 1 otherwise, 2 for a usage error.  Waits are multiplied by
 * SROCE_TIMEOUT_SCALE.
 */
#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "ktap.h"
#include "rdstest.h"

namespace {

using namespace rdstest;

struct check {
	std::string_view name;
	bool (*fn)(const ends &e, unsigned int count);
};

constexpr check checks[] = {
	{"send", check_send},
	{"rdma-write", check_rdma_write},
	{"rdma-read", check_rdma_read},
};

/* Ports of their own per check: nothing of one check reaches the next. */
constexpr unsigned short port_base = 18900;

bool parse_addr(const char *s, sockaddr_in &sa)
{
	sa = sockaddr_in{};
	sa.sin_family = AF_INET;
	return inet_pton(AF_INET, s, &sa.sin_addr) == 1;
}

} /* namespace */

int main(int argc, char **argv)
{
	ends e{};
	unsigned int count = 64;

	if (argc < 4 || argc > 5 || !parse_addr(argv[1], e.a) ||
	    !parse_addr(argv[2], e.b) ||
	    (argc == 5 && (count = std::strtoul(argv[4], nullptr, 0)) == 0)) {
		std::fprintf(stderr,
			     "usage: %s ADDR_A ADDR_B "
			     "send|rdma-write|rdma-read|all [COUNT]\n",
			     argv[0]);
		return 2;
	}
	const std::string_view what = argv[3];
	std::vector<std::size_t> run;
	for (std::size_t i = 0; i < std::size(checks); i++)
		if (what == "all" || checks[i].name == what)
			run.push_back(i);
	if (run.empty()) {
		std::fprintf(stderr, "unknown check %s\n", argv[3]);
		return 2;
	}
	ktap::header(run.size());
	for (std::size_t i : run) {
		e.a.sin_port = htons(port_base + 2 * i);
		e.b.sin_port = htons(port_base + 2 * i + 1);
		ktap::begin();
		ktap::note("%s: %s <-> %s, %u",
			   std::string(checks[i].name).c_str(),
			   addr_str(e.a).c_str(), addr_str(e.b).c_str(), count);
		const bool finished = checks[i].fn(e, count);
		ktap::end(checks[i].name, finished);
	}
	return ktap::exit_status();
}
