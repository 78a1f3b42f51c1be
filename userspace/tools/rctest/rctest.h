// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rctest.h - the checks of sroce-rctest (main.cpp), RC between two
 * devices, each in the file named for what it tests:
 *
 *   send_recv.cpp  wrap, full, multi-sge, imm, inline
 *   state.cpp      state
 *   errors.cpp     bad-lkey, rnr, recv-too-small
 *   events.cpp     solicited, events
 *   rdma.cpp       rdma, rd-limit, rereg
 *   atomic_write.cpp atomic-write
 *   timestamps.cpp timestamps
 *
 * A is the requester, B the responder, unless a check says otherwise;
 * each returns false when it gave up.
 */
#ifndef SROCE_TOOLS_RCTEST_H
#define SROCE_TOOLS_RCTEST_H

#include "verbs_util.h"

namespace rctest {

using verbs_util::device;

bool check_wrap(device &da, device &db);
bool check_full(device &da, device &db);
bool check_multi_sge(device &da, device &db);
bool check_imm(device &da, device &db);
bool check_inline(device &da, device &db);
bool check_state(device &da, device &db);
bool check_bad_lkey(device &da, device &db);
bool check_rnr(device &da, device &db);
bool check_recv_too_small(device &da, device &db);
bool check_solicited(device &da, device &db);
bool check_events(device &da, device &db);
bool check_rdma(device &da, device &db);
bool check_rd_limit(device &da, device &db);
bool check_rereg(device &da, device &db);
bool check_atomic_write(device &da, device &db);
bool check_timestamps(device &da, device &db);

} /* namespace rctest */

#endif /* SROCE_TOOLS_RCTEST_H */
