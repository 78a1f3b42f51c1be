// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-rawtest - raw packet QPs and flow steering between two RDMA
 * devices on the two ends of a veth, through the public libibverbs API
 * only, as tests/raw.sh needs it.
 *
 *   sroce-rawtest DEV_A DEV_B CHECK|all
 *
 * Each CHECK is a KTAP case (ktap.h); the exit status is 0 when every
 * case passed, 1 otherwise, 2 for a usage error.  The checks (raw.cpp):
 *
 *   loop          frames between two raw QPs of DEV_A through flows
 *   wire          frames of DEV_A received by a flow of DEV_B, across
 *                 the veth
 *   length        frames too short or too long for the netdev, and for
 *                 the receive
 *   flow-bad      flows refused, a QP with flows not destroyed, a frame
 *                 without a receive dropped and counted
 *   unprivileged  without CAP_NET_RAW no raw QP (skipped as root)
 *   rss           frames of DEV_A spread over receive WQs by an RSS QP's
 *                 Toeplitz hash, WQ states (rss.cpp)
 *   wq-overflow   a WQ's CQ overflow: WQ_FATAL, no WQE consumed after
 *   rss-bad       receive WQs, tables and RSS QPs refused, EBUSY
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include "check_main.h"
#include "ktap.h"
#include "rawtest.h"

namespace {

using namespace verbs_util;
using namespace rawtest;

void describe(const device &d)
{
	ktap::note("%s: GID %d %s, link layer %d", d.name.c_str(), d.gid_index,
		   gid_str(d.gid).c_str(), d.port.link_layer);
}

constexpr check checks[] = {
	{"loop", check_loop},
	{"wire", check_wire},
	{"length", check_length},
	{"flow-bad", check_flow_bad},
	{"unprivileged", check_unprivileged},
	{"rss", check_rss},
	{"wq-overflow", check_wq_overflow},
	{"rss-bad", check_rss_bad},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
