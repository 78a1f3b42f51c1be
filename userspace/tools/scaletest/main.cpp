// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-scaletest - many QPs and many RDMA CM connections, timed, and the
 * kernel memory of an idle RC QP (tests/scale.sh, scripts/bench scale):
 *
 *   sroce-scaletest qps DEV_A DEV_B COUNT
 *	COUNT RC QPs (COUNT/2 on each device; DEV_A may be DEV_B) created,
 *	connected in pairs with ibv_modify_qp() alone, one verified message
 *	each way on every pair, destroyed; the time per QP of each step
 *	(qps.cpp)
 *   sroce-scaletest idle-mem DEV COUNT
 *	the kernel memory (/proc/meminfo Slab + VmallocUsed + Percpu) COUNT
 *	idle connected RC QPs of DEV (connected in pairs on DEV) take, per
 *	QP, and where it goes by slab cache and vmalloc caller (memory.cpp)
 *   sroce-scaletest cm SRC_IP DST_IP COUNT [BATCH [PORT]]
 *	COUNT RDMA CM connections from SRC_IP to a listener on DST_IP, at
 *	most BATCH (default 16) at a time: resolve, connect, accept, one
 *	verified message, disconnect, destroy; the time per connection
 *	(cm.cpp)
 *
 * Every QP has the capabilities of rc_opts().  Each step is a KTAP case
 * (ktap.h); the figures are diagnostics, and "# result: NAME VALUE UNIT"
 * lines for scripts/bench.  Exit status 0 when every case passed, 1
 * otherwise, 2 for a usage error.  Waits are multiplied by
 * SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "ktap.h"
#include "scaletest.h"

namespace scaletest {

verbs_util::qp_opts rc_opts()
{
	verbs_util::qp_opts o;

	o.type = IBV_QPT_RC;
	o.buf_size = 0;
	return o;
}

double seconds_since(verbs_util::clock_type::time_point t0)
{
	return std::chrono::duration<double>(verbs_util::clock_type::now() - t0)
		.count();
}

void result(const char *name, double value, const char *unit)
{
	ktap::note("result: %s %.1f %s", name, value, unit);
}

} /* namespace scaletest */

namespace {

int usage(const char *prog)
{
	std::fprintf(stderr,
		     "usage: %s qps DEV_A DEV_B COUNT\n"
		     "       %s idle-mem DEV COUNT\n"
		     "       %s cm SRC_IP DST_IP COUNT [BATCH [PORT]]\n",
		     prog, prog, prog);
	return 2;
}

/* A count of 1 to max; 0 if s is not one. */
unsigned int count_arg(const char *s, unsigned long max)
{
	char *end = nullptr;
	const unsigned long v = std::strtoul(s, &end, 10);

	return end != s && *end == '\0' && v >= 1 && v <= max
		       ? static_cast<unsigned int>(v)
		       : 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(argv[0]);
	const std::string_view mode = argv[1];

	if (mode == "qps" && argc == 5) {
		const unsigned int n = count_arg(argv[4], 1U << 20);

		if (n == 0 || n % 2 != 0)
			return usage(argv[0]);
		return scaletest::run_qps(argv[2], argv[3], n);
	}
	if (mode == "idle-mem" && argc == 4) {
		const unsigned int n = count_arg(argv[3], 1U << 20);

		if (n == 0 || n % 2 != 0)
			return usage(argv[0]);
		return scaletest::run_idle_mem(argv[2], n);
	}
	if (mode == "cm" && argc >= 5 && argc <= 7) {
		const unsigned int n = count_arg(argv[4], 1U << 20);
		const unsigned int batch =
			argc > 5 ? count_arg(argv[5], 1024) : 16;
		const unsigned int port =
			argc > 6 ? count_arg(argv[6], 65535) : 20886;

		if (n == 0 || batch == 0 || port == 0)
			return usage(argv[0]);
		return scaletest::run_cm(argv[2], argv[3], n, batch, port);
	}
	return usage(argv[0]);
}
