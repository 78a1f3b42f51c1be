// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-mcasttest - multicast on UD QPs between two RDMA devices, through
 * the public libibverbs API only, as tests/mcast.sh needs it.
 *
 *   sroce-mcasttest DEV_A DEV_B CHECK|all
 *
 * One process opens both devices and makes UD QPs on each (qp_pair.h);
 * each device uses its first RoCE v2 GID that holds an IPv4 address.
 * Each CHECK is a KTAP case (ktap.h); the exit status is 0 when every
 * case passed, 1 otherwise, 2 for a usage error.  The checks, each
 * described in the file named for it (mcasttest.h):
 *
 *   mcast, mcast6                              delivery.cpp
 *   mcast-bad, mcast-limits, mcast-limits-exit  limits.cpp
 *   all                                        every check above, in turn
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include "check_main.h"
#include "ktap.h"
#include "mcasttest.h"

namespace {

using namespace verbs_util;
using namespace mcasttest;

void describe(const device &d)
{
	ktap::note("%s: GID %d %s, max_mcast_grp %d, max_mcast_qp_attach %d, "
		   "max_total_mcast_qp_attach %d",
		   d.name.c_str(), d.gid_index, gid_str(d.gid).c_str(),
		   d.attr.max_mcast_grp, d.attr.max_mcast_qp_attach,
		   d.attr.max_total_mcast_qp_attach);
}

/* mcast-limits-exit ends the process: the last. */
constexpr check checks[] = {
	{"mcast", check_mcast},
	{"mcast6", check_mcast6},
	{"mcast-bad", check_mcast_bad},
	{"mcast-limits", check_mcast_limits},
	{"mcast-limits-exit", check_mcast_limits_exit},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
