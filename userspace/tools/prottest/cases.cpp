// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cases.cpp - the table of sroce-prottest's cases (cases.h): 73
 * violations (keys, bounds, the region's and the QP's rights, alignment,
 * zero-based against VA-based addressing, A's own SGEs, memory windows,
 * atomic writes of another length) and 19 allowed accesses at every
 * boundary.
 */
#include "cases.h"

namespace prottest {

namespace {

constexpr ibv_wc_status rae = IBV_WC_REM_ACCESS_ERR;
constexpr ibv_wc_status rir = IBV_WC_REM_INV_REQ_ERR;
constexpr ibv_wc_status lpe = IBV_WC_LOC_PROT_ERR;
constexpr ibv_wc_status ok = IBV_WC_SUCCESS;
constexpr op_kind wr = op_kind::write;
constexpr op_kind wi = op_kind::write_imm;
constexpr op_kind rd = op_kind::read;
constexpr op_kind cs = op_kind::cmp_swp;
constexpr op_kind fa = op_kind::fetch_add;
constexpr op_kind aw = op_kind::atomic_write;
/* The atomic write needs REMOTE_WRITE alone (the region's and the QP's). */
constexpr int acc_aw = acc_lw | acc_rw;

// clang-format off
const prot_case table[] = {
	/* Keys. */
	{.name = "rkey-random-write", .what = "RDMA WRITE with an rkey no region or window of B holds",
	 .op = wr, .expect = rae, .key = key_kind::random},
	{.name = "rkey-random-read", .what = "RDMA READ with an rkey no region or window of B holds",
	 .op = rd, .expect = rae, .key = key_kind::random},
	{.name = "rkey-random-cmp-swp", .what = "CMP_SWP with an rkey no region or window of B holds",
	 .op = cs, .expect = rae, .len = 8, .key = key_kind::random},
	{.name = "rkey-zero-write", .what = "RDMA WRITE with rkey 0",
	 .op = wr, .expect = rae, .key = key_kind::zero},
	{.name = "rkey-zero-read", .what = "RDMA READ with rkey 0",
	 .op = rd, .expect = rae, .key = key_kind::zero},
	{.name = "rkey-zero-fetch-add", .what = "FETCH_ADD with rkey 0",
	 .op = fa, .expect = rae, .len = 8, .key = key_kind::zero},
	{.name = "rkey-deregistered-write", .what = "RDMA WRITE with the rkey of a region over the same bytes, deregistered",
	 .op = wr, .expect = rae, .key = key_kind::deregistered},
	{.name = "rkey-deregistered-read", .what = "RDMA READ with the rkey of a region over the same bytes, deregistered",
	 .op = rd, .expect = rae, .key = key_kind::deregistered},
	{.name = "rkey-deregistered-fetch-add", .what = "FETCH_ADD with the rkey of a region over the same bytes, deregistered",
	 .op = fa, .expect = rae, .len = 8, .key = key_kind::deregistered},
	{.name = "rkey-other-pd-write", .what = "RDMA WRITE with the rkey of a region over the same bytes in another PD of B",
	 .op = wr, .expect = rae, .key = key_kind::other_pd},
	{.name = "rkey-other-pd-read", .what = "RDMA READ with the rkey of a region over the same bytes in another PD of B",
	 .op = rd, .expect = rae, .key = key_kind::other_pd},
	{.name = "rkey-other-pd-cmp-swp", .what = "CMP_SWP with the rkey of a region over the same bytes in another PD of B",
	 .op = cs, .expect = rae, .len = 8, .key = key_kind::other_pd},
	{.name = "rkey-other-pd-write-imm", .what = "WRITE_WITH_IMM with the rkey of a region in another PD of B",
	 .op = wi, .expect = rae, .key = key_kind::other_pd},
	{.name = "rkey-random-atomic-write", .what = "ATOMIC_WRITE with an rkey no region or window of B holds",
	 .op = aw, .expect = rae, .len = 8, .key = key_kind::random},
	{.name = "rkey-deregistered-atomic-write", .what = "ATOMIC_WRITE with the rkey of a region over the same bytes, deregistered",
	 .op = aw, .expect = rae, .len = 8, .key = key_kind::deregistered},
	{.name = "rkey-other-pd-atomic-write", .what = "ATOMIC_WRITE with the rkey of a region over the same bytes in another PD of B",
	 .op = aw, .expect = rae, .len = 8, .key = key_kind::other_pd},

	/* Bounds. */
	{.name = "bounds-before-start-write", .what = "RDMA WRITE of 2 bytes from one byte before the region",
	 .op = wr, .expect = rae, .delta = -1, .len = 2},
	{.name = "bounds-before-start-read", .what = "RDMA READ of 2 bytes from one byte before the region",
	 .op = rd, .expect = rae, .delta = -1, .len = 2},
	{.name = "bounds-past-end-write", .what = "RDMA WRITE of the one byte just past the region",
	 .op = wr, .expect = rae, .base = base_kind::end, .len = 1},
	{.name = "bounds-past-end-read", .what = "RDMA READ of the one byte just past the region",
	 .op = rd, .expect = rae, .base = base_kind::end, .len = 1},
	{.name = "bounds-cross-end-write", .what = "RDMA WRITE of 9 bytes, the last one past the region",
	 .op = wr, .expect = rae, .base = base_kind::end, .delta = -8, .len = 9},
	{.name = "bounds-cross-end-read", .what = "RDMA READ of 9 bytes, the last one past the region",
	 .op = rd, .expect = rae, .base = base_kind::end, .delta = -8, .len = 9},
	{.name = "bounds-cross-end-write-imm", .what = "WRITE_WITH_IMM of 9 bytes, the last one past the region",
	 .op = wi, .expect = rae, .base = base_kind::end, .delta = -8, .len = 9},
	{.name = "bounds-wrap-write", .what = "RDMA WRITE of 16 bytes at 2^64 - 8: va + length wraps to 8",
	 .op = wr, .expect = rae, .base = base_kind::top, .delta = -8},
	{.name = "bounds-wrap-read", .what = "RDMA READ of 16 bytes at 2^64 - 8: va + length wraps to 8",
	 .op = rd, .expect = rae, .base = base_kind::top, .delta = -8},
	{.name = "bounds-wrap-zero-based-write", .what = "RDMA WRITE of 16 bytes at 2^64 - 8 into a zero-based region: the wrapped end, 8, lies inside it",
	 .op = wr, .expect = rae, .base = base_kind::top, .delta = -8, .zero_based = true, .mr_len = zb_len},
	{.name = "bounds-wrap-zero-based-read", .what = "RDMA READ of 16 bytes at 2^64 - 8 from a zero-based region: the wrapped end, 8, lies inside it",
	 .op = rd, .expect = rae, .base = base_kind::top, .delta = -8, .zero_based = true, .mr_len = zb_len},
	{.name = "bounds-largest-write", .what = "RDMA WRITE of the port's largest message (at most 2^31 bytes) at the region's start",
	 .op = wr, .expect = rae, .len = len_largest, .local = local_kind::largest},
	{.name = "bounds-largest-read", .what = "RDMA READ of the port's largest message (at most 2^31 bytes) at the region's start",
	 .op = rd, .expect = rae, .len = len_largest, .local = local_kind::largest},
	{.name = "bounds-atomic-cross-end", .what = "CMP_SWP at the last aligned 8 bytes of a 4196-byte region: 4 of them past its end",
	 .op = cs, .expect = rae, .base = base_kind::end, .delta = -4, .len = 8, .mr_len = region_len - 4},
	{.name = "bounds-atomic-before-start", .what = "FETCH_ADD at the aligned 8 bytes just before the region",
	 .op = fa, .expect = rae, .delta = -8, .len = 8},
	{.name = "bounds-atomic-write-cross-end", .what = "ATOMIC_WRITE at the last aligned 8 bytes of a 4196-byte region: 4 of them past its end",
	 .op = aw, .expect = rae, .base = base_kind::end, .delta = -4, .len = 8, .mr_len = region_len - 4},
	{.name = "bounds-atomic-write-before-start", .what = "ATOMIC_WRITE at the aligned 8 bytes just before the region",
	 .op = aw, .expect = rae, .delta = -8, .len = 8},
	{.name = "bounds-atomic-write-wrap", .what = "ATOMIC_WRITE at 2^64 - 8 into a zero-based region: 8 bytes up to the wrap",
	 .op = aw, .expect = rae, .base = base_kind::top, .delta = -8, .len = 8, .zero_based = true, .mr_len = zb_len},

	/* The region's rights. */
	{.name = "mr-no-remote-write", .what = "RDMA WRITE into a region without REMOTE_WRITE",
	 .op = wr, .expect = rae, .mr_access = acc_lw | acc_rr | acc_ra},
	{.name = "mr-no-remote-read", .what = "RDMA READ from a region without REMOTE_READ",
	 .op = rd, .expect = rae, .mr_access = acc_lw | acc_rw | acc_ra},
	{.name = "mr-no-remote-atomic-cmp-swp", .what = "CMP_SWP on a region without REMOTE_ATOMIC",
	 .op = cs, .expect = rae, .len = 8, .mr_access = acc_lw | acc_rw | acc_rr},
	{.name = "mr-no-remote-atomic-fetch-add", .what = "FETCH_ADD on a region without REMOTE_ATOMIC",
	 .op = fa, .expect = rae, .len = 8, .mr_access = acc_lw | acc_rw | acc_rr},
	{.name = "mr-read-only-write-imm", .what = "WRITE_WITH_IMM into a region with REMOTE_READ only",
	 .op = wi, .expect = rae, .mr_access = acc_rr},
	{.name = "mr-no-remote-write-atomic-write", .what = "ATOMIC_WRITE into a region with REMOTE_ATOMIC and REMOTE_READ, not REMOTE_WRITE",
	 .op = aw, .expect = rae, .len = 8, .mr_access = acc_lw | acc_rr | acc_ra},

	/*
	 * What B's QP enables.  An operation the receive queue does not
	 * support is an invalid request, not an access error.
	 */
	{.name = "qp-no-remote-write", .what = "RDMA WRITE to a QP without REMOTE_WRITE in its qp_access_flags: invalid request",
	 .op = wr, .expect = rir, .qp_access = acc_lw | acc_rr | acc_ra},
	{.name = "qp-no-remote-read", .what = "RDMA READ from a QP without REMOTE_READ in its qp_access_flags: invalid request",
	 .op = rd, .expect = rir, .qp_access = acc_lw | acc_rw | acc_ra},
	{.name = "qp-no-remote-atomic", .what = "FETCH_ADD to a QP without REMOTE_ATOMIC in its qp_access_flags: invalid request",
	 .op = fa, .expect = rir, .len = 8, .qp_access = acc_lw | acc_rw | acc_rr},
	{.name = "qp-no-remote-write-atomic-write", .what = "ATOMIC_WRITE to a QP with REMOTE_ATOMIC but not REMOTE_WRITE in its qp_access_flags: invalid request",
	 .op = aw, .expect = rir, .len = 8, .qp_access = acc_lw | acc_rr | acc_ra},

	/* Alignment: a misaligned atomic is an invalid request. */
	{.name = "atomic-misaligned-cmp-swp", .what = "CMP_SWP at the region's start + 4 (inside it, not 8-byte aligned): invalid request",
	 .op = cs, .expect = rir, .delta = 4, .len = 8},
	{.name = "atomic-misaligned-fetch-add", .what = "FETCH_ADD at the region's start + 1 (inside it, not 8-byte aligned): invalid request",
	 .op = fa, .expect = rir, .delta = 1, .len = 8},
	{.name = "atomic-write-misaligned", .what = "ATOMIC_WRITE at the region's start + 4 (inside it, not 8-byte aligned): invalid request",
	 .op = aw, .expect = rir, .delta = 4, .len = 8},

	/* An atomic write of another length than 8: refused when posted. */
	{.name = "atomic-write-16-bytes", .what = "ATOMIC_WRITE of 16 bytes: EINVAL from ibv_post_send(), nothing sent",
	 .op = aw, .expect = ok, .len = 16, .post_err = EINVAL},
	{.name = "atomic-write-4-bytes", .what = "ATOMIC_WRITE of 4 bytes: EINVAL from ibv_post_send(), nothing sent",
	 .op = aw, .expect = ok, .len = 4, .post_err = EINVAL},

	/* Zero-based and VA-based addressing. */
	{.name = "zero-based-by-va-write", .what = "RDMA WRITE into a zero-based region at the virtual address of its first byte",
	 .op = wr, .expect = rae, .base = base_kind::user_va, .zero_based = true, .mr_len = zb_len},
	{.name = "zero-based-by-va-read", .what = "RDMA READ from a zero-based region at the virtual address of its first byte",
	 .op = rd, .expect = rae, .base = base_kind::user_va, .zero_based = true, .mr_len = zb_len},
	{.name = "va-based-by-offset-write", .what = "RDMA WRITE into a VA-based region at address 0 (its first byte's offset)",
	 .op = wr, .expect = rae, .base = base_kind::zero},
	{.name = "va-based-by-offset-read", .what = "RDMA READ from a VA-based region at address 0 (its first byte's offset)",
	 .op = rd, .expect = rae, .base = base_kind::zero},

	/* A's own side. */
	{.name = "local-deregistered-lkey-write", .what = "RDMA WRITE from an SGE with the lkey of a deregistered region",
	 .op = wr, .expect = lpe, .local = local_kind::deregistered},
	{.name = "local-other-pd-lkey-write", .what = "RDMA WRITE from an SGE with the lkey of a region of another PD of A",
	 .op = wr, .expect = lpe, .local = local_kind::other_pd},
	{.name = "local-sge-past-end-write", .what = "RDMA WRITE from a 16-byte SGE, 8 bytes of it past its region",
	 .op = wr, .expect = lpe, .local = local_kind::past_end},
	{.name = "local-sge-before-start-write", .what = "RDMA WRITE from an SGE starting one byte before its region",
	 .op = wr, .expect = lpe, .local = local_kind::before_start},
	{.name = "local-deregistered-lkey-read", .what = "RDMA READ into an SGE with the lkey of a deregistered region",
	 .op = rd, .expect = lpe, .local = local_kind::deregistered},
	{.name = "local-sge-past-end-read", .what = "RDMA READ into a 16-byte SGE, 8 bytes of it past its region",
	 .op = rd, .expect = lpe, .local = local_kind::past_end},
	{.name = "local-no-local-write-read", .what = "RDMA READ into a region without LOCAL_WRITE",
	 .op = rd, .expect = lpe, .local = local_kind::no_local_write},
	{.name = "local-no-local-write-cmp-swp", .what = "CMP_SWP result into a region without LOCAL_WRITE",
	 .op = cs, .expect = lpe, .len = 8, .local = local_kind::no_local_write},
	{.name = "local-deregistered-lkey-fetch-add", .what = "FETCH_ADD result into an SGE with the lkey of a deregistered region",
	 .op = fa, .expect = lpe, .len = 8, .local = local_kind::deregistered},

	/* Memory windows (window: 2000 bytes, 1000 bytes into the MR). */
	{.name = "mw2-other-qp-write", .what = "RDMA WRITE through a type 2 window bound by another QP of B",
	 .op = wr, .expect = rae, .mw_type = 2, .mw = mw_kind::other_qp},
	{.name = "mw2-outside-write", .what = "RDMA WRITE of 2 bytes from one before a type 2 window (inside its MR)",
	 .op = wr, .expect = rae, .delta = -1, .len = 2, .mw_type = 2, .mw = mw_kind::bound},
	{.name = "mw2-invalidated-write", .what = "RDMA WRITE through a type 2 window invalidated by IBV_WR_LOCAL_INV",
	 .op = wr, .expect = rae, .mw_type = 2, .mw = mw_kind::invalidated},
	{.name = "mw2-unbound-write", .what = "RDMA WRITE with the rkey of a type 2 window never bound",
	 .op = wr, .expect = rae, .mw_type = 2, .mw = mw_kind::unbound},
	{.name = "mw2-read-only-write", .what = "RDMA WRITE through a type 2 window bound with REMOTE_READ only",
	 .op = wr, .expect = rae, .mw_type = 2, .mw = mw_kind::bound, .mw_access = acc_rr},
	{.name = "mw1-unbound-read", .what = "RDMA READ with the rkey of a type 1 window never bound",
	 .op = rd, .expect = rae, .mw_type = 1, .mw = mw_kind::unbound},
	{.name = "mw1-emptied-write", .what = "RDMA WRITE through a type 1 window bound, then bound again with length 0",
	 .op = wr, .expect = rae, .mw_type = 1, .mw = mw_kind::emptied},
	{.name = "mw1-read-only-write", .what = "RDMA WRITE through a type 1 window bound with REMOTE_READ only",
	 .op = wr, .expect = rae, .mw_type = 1, .mw = mw_kind::bound, .mw_access = acc_rr},
	{.name = "mw1-outside-read", .what = "RDMA READ of 2 bytes across the end of a type 1 window (inside its MR)",
	 .op = rd, .expect = rae, .base = base_kind::end, .delta = -1, .len = 2, .mw_type = 1, .mw = mw_kind::bound},
	{.name = "mw2-read-only-atomic-write", .what = "ATOMIC_WRITE through a type 2 window bound with REMOTE_READ only",
	 .op = aw, .expect = rae, .len = 8, .mw_type = 2, .mw = mw_kind::bound, .mw_access = acc_rr},
	{.name = "mw2-invalidated-atomic-write", .what = "ATOMIC_WRITE through a type 2 window invalidated by IBV_WR_LOCAL_INV",
	 .op = aw, .expect = rae, .len = 8, .mw_type = 2, .mw = mw_kind::invalidated},

	/* Allowed, at every boundary. */
	{.name = "allowed-write-first-byte", .what = "RDMA WRITE of exactly the region's first byte",
	 .op = wr, .expect = ok, .len = 1},
	{.name = "allowed-write-last-byte", .what = "RDMA WRITE of exactly the region's last byte",
	 .op = wr, .expect = ok, .base = base_kind::end, .delta = -1, .len = 1},
	{.name = "allowed-write-region", .what = "RDMA WRITE of the whole region (5 packets)",
	 .op = wr, .expect = ok, .len = len_region},
	{.name = "allowed-write-imm-region", .what = "WRITE_WITH_IMM of the whole region",
	 .op = wi, .expect = ok, .len = len_region},
	{.name = "allowed-read-first-byte", .what = "RDMA READ of exactly the region's first byte",
	 .op = rd, .expect = ok, .len = 1},
	{.name = "allowed-read-last-byte", .what = "RDMA READ of exactly the region's last byte",
	 .op = rd, .expect = ok, .base = base_kind::end, .delta = -1, .len = 1},
	{.name = "allowed-read-region", .what = "RDMA READ of the whole region (5 packets)",
	 .op = rd, .expect = ok, .len = len_region},
	{.name = "allowed-cmp-swp-first", .what = "CMP_SWP at the region's first 8 bytes",
	 .op = cs, .expect = ok, .len = 8},
	{.name = "allowed-fetch-add-last", .what = "FETCH_ADD at the region's last 8 bytes",
	 .op = fa, .expect = ok, .base = base_kind::end, .delta = -8, .len = 8},
	{.name = "allowed-atomic-write-first", .what = "ATOMIC_WRITE at the region's first 8 bytes, region and QP with REMOTE_WRITE alone",
	 .op = aw, .expect = ok, .len = 8, .mr_access = acc_aw, .qp_access = acc_aw},
	{.name = "allowed-atomic-write-last", .what = "ATOMIC_WRITE at the region's last 8 bytes",
	 .op = aw, .expect = ok, .base = base_kind::end, .delta = -8, .len = 8},
	{.name = "allowed-atomic-write-zero-based", .what = "ATOMIC_WRITE at address 8 of a zero-based region",
	 .op = aw, .expect = ok, .delta = 8, .len = 8, .zero_based = true, .mr_len = zb_len},
	{.name = "allowed-mw2-atomic-write", .what = "ATOMIC_WRITE at the first 8 bytes of a type 2 window",
	 .op = aw, .expect = ok, .len = 8, .mw_type = 2, .mw = mw_kind::bound},
	{.name = "allowed-write-zero-length", .what = "RDMA WRITE of 0 bytes at the region's start",
	 .op = wr, .expect = ok, .len = 0},
	{.name = "allowed-read-zero-length", .what = "RDMA READ of 0 bytes at the region's start",
	 .op = rd, .expect = ok, .len = 0},
	{.name = "allowed-zero-based-write-first", .what = "RDMA WRITE at address 0 of a zero-based region (its first byte)",
	 .op = wr, .expect = ok, .len = 1, .zero_based = true, .mr_len = zb_len},
	{.name = "allowed-zero-based-read-last", .what = "RDMA READ of the last byte of a zero-based region (address length - 1)",
	 .op = rd, .expect = ok, .base = base_kind::end, .delta = -1, .len = 1, .zero_based = true, .mr_len = zb_len},
	{.name = "allowed-mw2-window-write", .what = "RDMA WRITE of exactly a type 2 window inside its MR",
	 .op = wr, .expect = ok, .len = len_region, .mw_type = 2, .mw = mw_kind::bound},
	{.name = "allowed-mw1-window-read", .what = "RDMA READ of exactly a type 1 window inside its MR",
	 .op = rd, .expect = ok, .len = len_region, .mw_type = 1, .mw = mw_kind::bound},
};
// clang-format on

} /* namespace */

std::span<const prot_case> cases()
{
	return table;
}

bool is_atomic(op_kind op)
{
	return op == op_kind::cmp_swp || op == op_kind::fetch_add;
}

bool is_remote(ibv_wc_status s)
{
	return s == IBV_WC_REM_ACCESS_ERR || s == IBV_WC_REM_INV_REQ_ERR;
}

const char *op_str(op_kind op)
{
	switch (op) {
	case op_kind::write:
		return "RDMA WRITE";
	case op_kind::write_imm:
		return "WRITE_WITH_IMM";
	case op_kind::read:
		return "RDMA READ";
	case op_kind::cmp_swp:
		return "CMP_SWP";
	case op_kind::fetch_add:
		return "FETCH_ADD";
	case op_kind::atomic_write:
		return "ATOMIC_WRITE";
	}
	return "?";
}

ibv_wr_opcode wr_opcode(op_kind op)
{
	switch (op) {
	case op_kind::write:
		return IBV_WR_RDMA_WRITE;
	case op_kind::write_imm:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case op_kind::read:
		return IBV_WR_RDMA_READ;
	case op_kind::cmp_swp:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	case op_kind::fetch_add:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	case op_kind::atomic_write:
		return IBV_WR_ATOMIC_WRITE;
	}
	return IBV_WR_RDMA_WRITE;
}

ibv_wc_opcode wc_opcode(op_kind op)
{
	switch (op) {
	case op_kind::write:
	case op_kind::write_imm:
		return IBV_WC_RDMA_WRITE;
	case op_kind::read:
		return IBV_WC_RDMA_READ;
	case op_kind::cmp_swp:
		return IBV_WC_COMP_SWAP;
	case op_kind::fetch_add:
		return IBV_WC_FETCH_ADD;
	case op_kind::atomic_write:
		return IBV_WC_ATOMIC_WRITE;
	}
	return IBV_WC_RDMA_WRITE;
}

} /* namespace prottest */
