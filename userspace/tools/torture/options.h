// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * options.h - sroce-torture's command line (main.cpp describes it).
 */
#ifndef SROCE_TOOLS_TORTURE_OPTIONS_H
#define SROCE_TOOLS_TORTURE_OPTIONS_H

#include <cstdint>
#include <string>

#include <infiniband/verbs.h>

#include "workload.h"

namespace torture {

struct options {
	std::string dev_a;
	std::string dev_b;
	int gid_a = -1;
	int gid_b = -1;
	unsigned int qps = 4;
	std::uint64_t seed = 0;
	bool seed_given = false;
	std::uint64_t bytes = 0; /* 0: no limit */
	std::uint64_t ops = 0; /* 0: no limit */
	std::uint32_t max_size = 256 * 1024;
	std::uint32_t max_sge = 4;
	std::uint32_t depth = 16;
	/* send, write, write_imm, read, atomic (workload.h: family) */
	unsigned int weight[families] = {4, 3, 2, 3, 2};
	ibv_mtu mtu = IBV_MTU_1024;
	unsigned int timeout = 14;
	unsigned int retry_cnt = 7;
	unsigned int rnr_retry = 7;
	bool one_way = false; /* A->B streams only: B never requests */
	bool expect_fail_ok = false;
	bool device_loss_ok = false; /* implies expect_fail_ok */
	double deadline = 0;
	double progress = 5;
	bool quiet = false;
};

/*
 * argv into o; 0 when parsed, 2 for a usage error (said on stderr).  The
 * seed is drawn from the clock unless given; with neither --ops nor
 * --bytes, 10000 operations.
 */
int parse_options(int argc, char **argv, options &o);

/* The command line that replays this run: the seed made explicit. */
std::string replay_line(int argc, char **argv, const options &o);

} /* namespace torture */

#endif /* SROCE_TOOLS_TORTURE_OPTIONS_H */
