// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rawtest.h - the checks of sroce-rawtest (main.cpp), in raw.cpp.
 */
#ifndef SROCE_TOOLS_RAWTEST_H
#define SROCE_TOOLS_RAWTEST_H

#include "verbs_util.h"

namespace rawtest {

using verbs_util::device;

bool check_loop(device &da, device &db);
bool check_wire(device &da, device &db);
bool check_length(device &da, device &db);
bool check_flow_bad(device &da, device &db);
bool check_unprivileged(device &da, device &db);
/* rss.cpp */
bool check_rss(device &da, device &db);
bool check_wq_overflow(device &da, device &db);
bool check_rss_bad(device &da, device &db);

} /* namespace rawtest */

#endif /* SROCE_TOOLS_RAWTEST_H */
