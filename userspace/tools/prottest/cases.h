// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cases.h - the cases of sroce-prottest: what each one does to B's memory
 * from A, and what must come of it.  The table is cases.cpp; a case is
 * made (case_setup.cpp) and run (run_case.cpp) on fresh objects.
 */
#ifndef SROCE_TOOLS_PROTTEST_CASES_H
#define SROCE_TOOLS_PROTTEST_CASES_H

#include <cstddef>
#include <cstdint>
#include <span>

#include <infiniband/verbs.h>

#include "verbs_util.h"

namespace prottest {

using verbs_util::acc_lw;
using verbs_util::acc_ra;
using verbs_util::acc_rr;
using verbs_util::acc_rw;

constexpr int acc_all = acc_lw | acc_rw | acc_rr | acc_ra;

enum class op_kind { write, write_imm, read, cmp_swp, fetch_add, atomic_write };

/* The key A uses (for a window case, the window's own key). */
enum class key_kind {
	region, /* the target region's */
	random, /* one no region or window of B holds */
	zero,
	deregistered, /* of a region over the same bytes, deregistered */
	other_pd, /* of a region over the same bytes in another PD of B */
};

/* What the remote address is counted from. */
enum class base_kind {
	start, /* the region's first address (its iova, or window address) */
	end, /* one past its last */
	user_va, /* the virtual address of its first byte */
	zero, /* 0 */
	top, /* 2^64: a negative delta counts down from the top */
};

/* A's SGE. */
enum class local_kind {
	good, /* in A's region with LOCAL_WRITE */
	deregistered, /* the lkey of a deregistered region */
	other_pd, /* the lkey of a region of another PD of A */
	past_end, /* running half its length past its region's end */
	before_start, /* starting a byte before its region */
	no_local_write, /* in a region registered without LOCAL_WRITE */
	largest, /* the port's largest message, in a region of its own */
};

/* A memory window over part of the target MR, and its state. */
enum class mw_kind {
	none,
	bound, /* bound by B's QP */
	unbound, /* allocated, never bound */
	invalidated, /* type 2: bound, then IBV_WR_LOCAL_INV */
	emptied, /* type 1: bound, then bound again with length 0 */
	other_qp, /* type 2: bound by another QP of B */
};

/* Lengths with a meaning. */
constexpr std::uint32_t len_region = 0xffffffff; /* the whole region */
constexpr std::uint32_t len_largest = 0xfffffffe; /* min(max_msg_sz, 2^31) */

/* B's default target region, at this offset of the page size (4000 of 4096) */
constexpr std::size_t region_before_page_end = 96;
constexpr std::uint32_t region_len = 4200;
/* A zero-based region starts at a page (its iova 0 shares the page offset). */
constexpr std::uint32_t zb_len = 4000;
/* A window lies this far into the region, this long. */
constexpr std::uint32_t window_off = 1000;
constexpr std::uint32_t window_len = 2000;

/* One case: A's operation, where it aims, and the status it must get. */
struct prot_case {
	const char *name;
	const char *what;
	op_kind op;
	ibv_wc_status expect;
	base_kind base = base_kind::start;
	std::int64_t delta = 0;
	std::uint32_t len = 16;
	key_kind key = key_kind::region;
	local_kind local = local_kind::good;
	int mr_access = acc_all; /* B's target MR */
	bool zero_based = false;
	std::uint32_t mr_len = region_len;
	int qp_access = acc_all; /* B's QP */
	int mw_type = 0; /* 1 or 2 with mw != none */
	mw_kind mw = mw_kind::none;
	int mw_access = acc_rw | acc_rr;
	/* Not 0: ibv_post_send() refuses A's WQE with this errno. */
	int post_err = 0;
};

/* Every case, in the order they run. */
std::span<const prot_case> cases();

/* CMP_SWP and FETCH_ADD (atomic_cap), not the atomic write. */
bool is_atomic(op_kind op);

/* A status the responder sends (a NAK), not one of the requester's own. */
bool is_remote(ibv_wc_status s);

const char *op_str(op_kind op);
ibv_wr_opcode wr_opcode(op_kind op);
ibv_wc_opcode wc_opcode(op_kind op);

} /* namespace prottest */

#endif /* SROCE_TOOLS_PROTTEST_CASES_H */
