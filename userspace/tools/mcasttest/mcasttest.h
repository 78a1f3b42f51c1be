// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mcasttest.h - the checks of sroce-mcasttest (main.cpp): multicast on UD
 * QPs, each in the file named for what it tests:
 *
 *   delivery.cpp  mcast, mcast6
 *   limits.cpp    mcast-bad, mcast-limits, mcast-limits-exit
 */
#ifndef SROCE_TOOLS_MCASTTEST_H
#define SROCE_TOOLS_MCASTTEST_H

#include <infiniband/verbs.h>

#include "verbs_util.h"

namespace mcasttest {

using verbs_util::device;

bool check_mcast(device &da, device &db);
bool check_mcast6(device &da, device &db);
bool check_mcast_bad(device &da, device &db);
bool check_mcast_limits(device &da, device &db);
bool check_mcast_limits_exit(device &da, device &db);

/* ::ffff:a.b.c.d */
inline ibv_gid v4_gid(unsigned char a, unsigned char b, unsigned char c,
		      unsigned char d)
{
	ibv_gid g{};

	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = a;
	g.raw[13] = b;
	g.raw[14] = c;
	g.raw[15] = d;
	return g;
}

} /* namespace mcasttest */

#endif /* SROCE_TOOLS_MCASTTEST_H */
