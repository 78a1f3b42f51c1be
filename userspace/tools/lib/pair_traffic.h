// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * pair_traffic.h - a QP pair still carries traffic, every byte checked:
 * the tools' proof that a device works after something hostile (forged
 * packets, mutated datagrams, a process scribbling on its own rings) was
 * done to it or next to it.
 *
 * A failure is a failure of the running case (ktap.h), and the function
 * returns false.
 */
#ifndef SROCE_TOOLS_PAIR_TRAFFIC_H
#define SROCE_TOOLS_PAIR_TRAFFIC_H

#include <cstdint>

#include "qp_pair.h"
#include "verbs_util.h"

namespace verbs_util {

/*
 * a's and b's QPs in RTS, and a SEND of len bytes of message msg from the
 * start of a's buffer arrives whole at the start of b's (work requests
 * 900 + msg).
 */
bool send_arrives(endpoint &a, endpoint &b, std::uint32_t msg,
		  std::uint32_t len = 3000);

/*
 * An RDMA WRITE of len bytes from a's buffer at len to b's at len, and an
 * RDMA READ of b's buffer at 2 * len into a's at 2 * len, each arriving
 * whole (both QPs and MRs allow remote writes and reads).
 */
bool write_read_arrive(endpoint &a, endpoint &b, std::uint32_t len);

/*
 * A new RC pair between da and db, remote writes and reads allowed,
 * carries a SEND each way, an RDMA WRITE and an RDMA READ of 8 KiB, every
 * byte checked.
 */
bool new_rc_pair_works(device &da, device &db);

} /* namespace verbs_util */

#endif /* SROCE_TOOLS_PAIR_TRAFFIC_H */
