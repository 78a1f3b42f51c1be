// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * case_state.h - everything one case of sroce-prottest makes, all of it
 * fresh: A's and B's PDs and QPs (qp_pair.h endpoints), B's target buffer
 * and the region (or window) A aims at, A's buffer and SGE, and what both
 * buffers must hold afterwards.  case_setup.cpp makes it, run_case.cpp
 * runs the case on it.
 */
#ifndef SROCE_TOOLS_PROTTEST_CASE_STATE_H
#define SROCE_TOOLS_PROTTEST_CASE_STATE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <infiniband/verbs.h>

#include "cases.h"
#include "memory.h"
#include "qp_pair.h"
#include "verbs_util.h"

namespace prottest {

using verbs_util::device;
using verbs_util::endpoint;
using verbs_util::mr_ptr;
using verbs_util::mw_ptr;
using verbs_util::pd_ptr;

constexpr std::uint64_t add_value = 0x0101010101010101ULL;
constexpr std::uint32_t imm_value = 0x5eed1e57;

/* A region of memory as the remote side names it. */
struct target_region {
	std::uint64_t iova = 0; /* the address of its first byte */
	std::size_t off = 0; /* where that byte is in B's buffer */
	std::uint32_t len = 0;
};

/* A memory window of B's, bound or not as the case says. */
struct window {
	/* other_qp: the QP pair whose B side bound it */
	endpoint a2, b2;
	/* Deallocated first: before its MR and the QP it is bound to. */
	mw_ptr mw;
	std::uint32_t rkey = 0;
};

/*
 * Everything one case makes, all of it fresh.  Members go in reverse
 * order: windows before their MR and QPs, MRs before their PD, a region
 * before the memory under it.
 */
struct case_state {
	case_state(const prot_case &c_, std::uint32_t seed_, device &da_,
		   device &db_)
	    : c(c_)
	    , seed(seed_)
	    , da(da_)
	    , db(db_)
	{
	}

	const prot_case &c;
	const std::uint32_t seed; /* of B's pattern; A's is seed + 1 */
	device &da, &db;
	const std::size_t buf_size = 3 * page_size;

	pd_ptr pda, pdb, pda2, pdb2;
	endpoint a, b;

	/* B */
	mapping tbuf;
	target_region mr_region; /* the target MR */
	mr_ptr tmr; /* the target MR */
	mr_ptr cmr; /* every right, over the same bytes: the fenced WRITE */
	mr_ptr omr; /* key_kind::other_pd */
	std::vector<unsigned char> rbuf = std::vector<unsigned char>(64);
	mr_ptr rmr;
	window w;
	target_region region; /* what A aims at: the MR, or the window */
	std::uint32_t rkey = 0;

	/* A */
	mapping lbuf;
	std::size_t loff = page_size - region_before_page_end;
	mr_ptr lmr;
	std::vector<unsigned char> spare = std::vector<unsigned char>(16);
	mr_ptr smr;
	mr_ptr xmr; /* local_kind::other_pd */
	mapping big; /* local_kind::largest */
	mr_ptr bmr;
	std::vector<unsigned char> big_canary;
	ibv_sge sge{};

	/* the operation */
	std::uint32_t len = 0;
	std::uint64_t va = 0;
	std::uint64_t compare = 0;
	std::uint64_t swap = 0;
	std::vector<unsigned char> want_t, want_l;

	/* It succeeds and changes what it names (not refused when posted). */
	[[nodiscard]] bool allowed() const
	{
		return c.expect == IBV_WC_SUCCESS && c.post_err == 0;
	}
};

/* A QP of a case on d in pd, no buffer of its own; access when connected. */
bool make_qp(endpoint &e, device &d, ibv_pd *pd, int access);

/* Where va lands in a buffer of size bytes whose byte off is iova. */
std::optional<std::size_t> buffer_offset(const target_region &r,
					 std::uint64_t va, std::size_t size);

/* B's buffer, target region, and the key A will use. */
bool make_target(case_state &s);

/* What A aims at (the region or a window in it): address and length. */
bool aim(case_state &s);

/* A's buffer, its region, the SGE of the operation, the fenced WRITE's. */
bool make_local(case_state &s);

/*
 * The operands, and what both buffers must hold afterwards: for a
 * violation what they hold now, for an allowed case that and the effect.
 */
bool expect_memory(case_state &s);

/* Case c, seeded with seed, between da and db: failures, skips (ktap.h). */
void run_case(const prot_case &c, std::uint32_t seed, device &da, device &db);

} /* namespace prottest */

#endif /* SROCE_TOOLS_PROTTEST_CASE_STATE_H */
