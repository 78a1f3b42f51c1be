// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-srqtest - shared receive queues between two RDMA devices, through
 * the public libibverbs API only (and a few raw uverbs commands), as
 * tests/srq.sh needs it.
 *
 *   sroce-srqtest DEV_A DEV_B CHECK|all
 *
 * One process opens both devices and connects RC QPs of DEV_A (each with
 * its own receive queue) to RC QPs of DEV_B (all on one SRQ of DEV_B);
 * srq_side.h.  Each CHECK is a KTAP case (ktap.h); the exit status is 0
 * when every case passed, 1 otherwise, 2 for a usage error.  The checks,
 * each described in the file named for it (srqtest.h):
 *
 *   limit, shared, full, error   delivery.cpp
 *   bad-input                    bad_input.cpp
 *   all                          every check above, in turn
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include "check_main.h"
#include "ktap.h"
#include "srqtest.h"

namespace {

using namespace verbs_util;
using namespace srqtest;

void describe(const device &d)
{
	ktap::note("%s: GID index %d, max_srq %d max_srq_wr %d max_srq_sge %d",
		   d.name.c_str(), d.gid_index, d.attr.max_srq,
		   d.attr.max_srq_wr, d.attr.max_srq_sge);
}

constexpr check checks[] = {
	{"limit", check_limit},		{"shared", check_shared},
	{"full", check_full},		{"error", check_error},
	{"bad-input", check_bad_input},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
