// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-rctest - RC send/receive, RDMA, atomics and the atomic write
 * between two RDMA devices, through the public libibverbs API only, as
 * tests/rc.sh needs it.
 *
 *   sroce-rctest DEV_A DEV_B CHECK|all
 *
 * One process opens both devices and connects a QP on DEV_A to a QP on
 * DEV_B (qp_pair.h); each device uses its first RoCE v2 GID that holds an
 * IPv4 address.  A is the requester, B the responder, unless a check says
 * otherwise.  Each CHECK is a KTAP case (ktap.h); the exit status is 0
 * when every case passed, 1 otherwise, 2 for a usage error.  The checks,
 * each described in the file named for what it tests (rctest.h):
 *
 *   wrap, full, multi-sge, imm, inline      send_recv.cpp
 *   state                                   state.cpp
 *   bad-lkey, rnr, recv-too-small           errors.cpp
 *   solicited, events                       events.cpp
 *   rdma, rd-limit, rereg                   rdma.cpp
 *   atomic-write                            atomic_write.cpp
 *   timestamps                              timestamps.cpp
 *   all                                     every check above, in turn
 *
 * UD and UC QPs are sroce-udtest's, multicast sroce-mcasttest's.
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include "check_main.h"
#include "ktap.h"
#include "rctest.h"

namespace {

using namespace verbs_util;
using namespace rctest;

void describe(const device &d)
{
	ktap::note("%s: GID %d %s, active MTU %d", d.name.c_str(), d.gid_index,
		   gid_str(d.gid).c_str(), 128 << d.port.active_mtu);
}

constexpr check checks[] = {
	{"wrap", check_wrap},
	{"full", check_full},
	{"state", check_state},
	{"multi-sge", check_multi_sge},
	{"imm", check_imm},
	{"solicited", check_solicited},
	{"inline", check_inline},
	{"bad-lkey", check_bad_lkey},
	{"rnr", check_rnr},
	{"recv-too-small", check_recv_too_small},
	{"events", check_events},
	{"rdma", check_rdma},
	{"rd-limit", check_rd_limit},
	{"rereg", check_rereg},
	{"atomic-write", check_atomic_write},
	{"timestamps", check_timestamps},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
