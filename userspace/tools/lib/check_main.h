// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * check_main.h - main() of a tool whose cases are named checks:
 *
 *   TOOL DEV_A DEV_B CHECK|all      (check_main: between two devices)
 *   TOOL DEV CHECK [ARG]            (device_check_main: on one device)
 *
 * Opens the devices (two: each with its first RoCE v2 GID holding an IPv4
 * address; describe() says what the tool tells of each), then runs the
 * check named CHECK, or every one in turn for "all", each a KTAP case
 * (ktap.h).  A device that cannot be opened fails every case.  Exit
 * status 0 when every case passed or was skipped, 1 otherwise, 2 for a
 * usage error.
 */
#ifndef SROCE_TOOLS_CHECK_MAIN_H
#define SROCE_TOOLS_CHECK_MAIN_H

#include <span>
#include <string_view>

#include "verbs_util.h"

namespace verbs_util {

/* A check between two devices; false when it gave up. */
struct check {
	std::string_view name;
	bool (*fn)(device &a, device &b);
};

int check_main(int argc, char **argv, std::span<const check> checks,
	       void (*describe)(const device &));

/*
 * A check on one device, with the optional argument ARG (or nullptr);
 * "all" leaves out those not in_all.
 */
struct device_check {
	std::string_view name;
	bool (*fn)(device &d, const char *arg);
	bool in_all = true;
};

int device_check_main(int argc, char **argv,
		      std::span<const device_check> checks);

} /* namespace verbs_util */

#endif /* SROCE_TOOLS_CHECK_MAIN_H */
