// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-udtest - UD and UC QPs between two RDMA devices, through the
 * public libibverbs API only, as tests/ud.sh needs it.
 *
 *   sroce-udtest DEV_A DEV_B CHECK|all
 *
 * One process opens both devices and connects, or readies, a QP on DEV_A
 * and one on DEV_B (qp_pair.h); each device uses its first RoCE v2 GID
 * that holds an IPv4 address.  Each CHECK is a KTAP case (ktap.h); the
 * exit status is 0 when every case passed, 1 otherwise, 2 for a usage
 * error.  The checks, each described in the file named for it
 * (udtest.h):
 *
 *   ud              ud.cpp
 *   uc, uc-loss     uc.cpp (uc-loss wants a lossy wire from A to B)
 *   all             ud, uc, uc-loss in turn
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include "check_main.h"
#include "ktap.h"
#include "udtest.h"

namespace {

using namespace verbs_util;
using namespace udtest;

void describe(const device &d)
{
	ktap::note("%s: GID %d %s, active MTU %d, max_ah %d", d.name.c_str(),
		   d.gid_index, gid_str(d.gid).c_str(),
		   128 << d.port.active_mtu, d.attr.max_ah);
}

constexpr check checks[] = {
	{"ud", check_ud},
	{"uc", check_uc},
	{"uc-loss", check_uc_loss},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
