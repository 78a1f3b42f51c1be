// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-objtest - protection domains, memory regions, completion queues
 * and QPs of an RDMA device through libibverbs (and raw uverbs commands),
 * as tests/objects.sh needs them.
 *
 *   sroce-objtest DEV CHECK|all [ARG]
 *
 * Each CHECK is a KTAP case (ktap.h); the exit status is 0 when every
 * case passed, 1 otherwise, 2 for a usage error.  The checks, each
 * described in the file named for it (objtest.h):
 *
 *   objects, mr-errors, cq-errors, cq-resize, channel   objects.cpp
 *   poll-no-syscall, mmap-checks                         mapping.cpp
 *   qp-errors                                            qp_errors.cpp
 *   hold CMD, leak                                       hold.cpp
 *   parent-domain, import                                domains.cpp
 *   dm, dm-traffic                                       dm.cpp
 *   identifiers                                          identifiers.cpp
 *   all                                   every check above but hold
 *                                         and leak, in turn
 */
#include "check_main.h"
#include "objtest.h"

namespace {

using namespace verbs_util;
using namespace objtest;

constexpr device_check checks[] = {
	{"objects", check_objects},
	{"mr-errors", check_mr_errors},
	{"cq-errors", check_cq_errors},
	{"cq-resize", check_cq_resize},
	{"poll-no-syscall", check_poll_no_syscall},
	{"mmap-checks", check_mmap},
	{"channel", check_channel},
	{"qp-errors", check_qp_errors},
	{"parent-domain", check_parent_domain},
	{"import", check_import},
	{"dm", check_dm},
	{"dm-traffic", check_dm_traffic},
	{"identifiers", check_identifiers},
	{"hold", check_hold, false},
	{"leak", check_leak, false},
};

} /* namespace */

int main(int argc, char **argv)
{
	return device_check_main(argc, argv, checks);
}
