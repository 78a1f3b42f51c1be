// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * scaletest.h - what the modes of sroce-scaletest share (main.cpp): the
 * QPs' capabilities, timing, and the result lines scripts/bench reads.
 */
#ifndef SROCE_TOOLS_SCALETEST_H
#define SROCE_TOOLS_SCALETEST_H

#include <cstddef>
#include <cstdint>

#include "qp_pair.h"
#include "verbs_util.h"

namespace scaletest {

/*
 * The capabilities of every RC QP of the tool: the QP-pair harness's
 * defaults (qp_pair.h: 16 send and 16 receive WRs, 4 SGEs each way, no
 * inline data, one READ/atomic each way), on a PD and CQs the QPs share.
 */
verbs_util::qp_opts rc_opts();

/* Bytes of each message: one per QP each way. */
constexpr std::uint32_t msg_len = 64;

/* Seconds since t0 (verbs_util::clock_type). */
double seconds_since(verbs_util::clock_type::time_point t0);

/*
 * A figure as a diagnostic, and as a line scripts/bench reads:
 *   "# result: NAME VALUE UNIT"
 */
void result(const char *name, double value, const char *unit);

/* The modes: each prints its KTAP (plan and cases); false if one failed. */
int run_qps(const char *dev_a, const char *dev_b, unsigned int count);
int run_idle_mem(const char *dev, unsigned int count);
int run_cm(const char *src, const char *dst, unsigned int count,
	   unsigned int batch, unsigned int port);

} /* namespace scaletest */

#endif /* SROCE_TOOLS_SCALETEST_H */
