// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srqtest.h - the checks of sroce-srqtest (main.cpp), shared receive
 * queues between two devices, each in the file named for what it tests:
 *
 *   delivery.cpp   limit, shared, full, error
 *   bad_input.cpp  bad-input
 *
 * on the sides of srq_side.h.
 */
#ifndef SROCE_TOOLS_SRQTEST_H
#define SROCE_TOOLS_SRQTEST_H

#include "verbs_util.h"

namespace srqtest {

using verbs_util::device;

bool check_limit(device &da, device &db);
bool check_shared(device &da, device &db);
bool check_full(device &da, device &db);
bool check_error(device &da, device &db);
bool check_bad_input(device &da, device &db);

} /* namespace srqtest */

#endif /* SROCE_TOOLS_SRQTEST_H */
