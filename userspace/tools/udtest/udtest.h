// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * udtest.h - the checks of sroce-udtest (main.cpp): UD and UC QPs between
 * two devices, each in the file named for what it tests:
 *
 *   ud.cpp   ud
 *   uc.cpp   uc, uc-loss
 */
#ifndef SROCE_TOOLS_UDTEST_H
#define SROCE_TOOLS_UDTEST_H

#include "verbs_util.h"

namespace udtest {

using verbs_util::device;

bool check_ud(device &da, device &db);
bool check_uc(device &da, device &db);
bool check_uc_loss(device &da, device &db);

} /* namespace udtest */

#endif /* SROCE_TOOLS_UDTEST_H */
