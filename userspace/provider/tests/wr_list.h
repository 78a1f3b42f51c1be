/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wr_list.h - lists of work requests as the unit tests post them.
 */
#ifndef SROCE_PROVIDER_TESTS_WR_LIST_H
#define SROCE_PROVIDER_TESTS_WR_LIST_H

#include <cstddef>
#include <cstdint>
#include <span>

#include <infiniband/verbs.h>

namespace sroce_test {

/* wrs made a list of SENDs, in order, wr_id = first + i. */
inline void chain_sends(std::span<ibv_send_wr> wrs, std::uint64_t first = 0)
{
	for (std::size_t i = 0; i < wrs.size(); ++i) {
		wrs[i] = {};
		wrs[i].wr_id = first + i;
		wrs[i].opcode = IBV_WR_SEND;
		wrs[i].next = i + 1 < wrs.size() ? &wrs[i + 1] : nullptr;
	}
}

} /* namespace sroce_test */

#endif /* SROCE_PROVIDER_TESTS_WR_LIST_H */
