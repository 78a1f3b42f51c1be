// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-prottest - memory protection of RDMA WRITE, READ and atomics
 * between two RDMA devices, through the public libibverbs API only, as
 * tests/protection.sh needs it.
 *
 *   sroce-prottest --dev-a NAME --dev-b NAME [--gid-a N] [--gid-b N]
 *                  [--case REGEX] [--list]
 *
 * A is the requester, B the responder.  One process opens both devices
 * (rdma's "shared" network namespace mode shows every device in every
 * namespace; A and B may also be one device, whose QPs then meet in its
 * loopback) and connects RC QPs directly, as sroce-rctest does.  Each
 * device uses its first RoCE v2 GID holding an IPv4 address unless --gid-a
 * or --gid-b names one.  Every case runs on fresh PDs, CQs, QPs, regions
 * and buffers, and prints
 *
 *   case NAME: what it does
 *     what it saw
 *   ok NAME | FAIL NAME: reason; reason... | SKIP NAME: reason
 *
 * then a summary line.  The exit status is 0 when no case failed, 1
 * otherwise, 2 for a usage error.  --list prints the case names, --case
 * runs only those matching an extended regular expression.
 *
 * Memory.  B's target is a buffer of three pages filled with a pattern of
 * the case.  The region A aims at (an MR, or a memory window in one) lies
 * inside it and starts and ends inside pages: a byte just outside the
 * region is memory the region's own pages hold, which a faulty bounds
 * check would really reach.  A's buffer is laid out the same way with a
 * pattern of its own.  Afterwards both are compared byte for byte with
 * what the operation may have done: nothing at all for a violation.
 *
 * Violations.  A posts the violating WQE and, behind it, a fenced and
 * valid 16-byte RDMA WRITE into the target through a second region of B
 * with every right.  Expected: the first completes with the case's status,
 * the second is flushed (IBV_WC_WR_FLUSH_ERR) and so never reaches B, A's
 * QP is in ERROR.  B has a receive posted: a remote violation completes it
 * with an error status (a WRITE_WITH_IMM consumes it; otherwise B's QP
 * goes to ERROR and flushes it); after a local violation it stays posted
 * and B's QP stays in RTS.
 *
 * Statuses.  A key that names no valid region or window for B's QP, an
 * address range outside it (64-bit overflow of va + length included), a
 * missing REMOTE_READ/WRITE/ATOMIC right: IBV_WC_REM_ACCESS_ERR.  An
 * operation B's QP does not enable (its qp_access_flags) and a misaligned
 * atomic: IBV_WC_REM_INV_REQ_ERR, the invalid request NAK (the status'
 * description: "the operation is not supported by this receive queue").
 * A bad lkey, an SGE outside its region, a READ or atomic result into a
 * region without LOCAL_WRITE: IBV_WC_LOC_PROT_ERR at A.
 *
 * Allowed cases (first and last byte of a region, the whole region, atomics
 * at its first and last 8 aligned bytes, zero-length operations, zero-based
 * regions, windows inside a region) must succeed and change exactly the
 * bytes they name.
 *
 * Skips: atomics when a device reports IBV_ATOMIC_NONE; memory windows when
 * ibv_alloc_mw() fails with EOPNOTSUPP or ENOSYS.  Never ok in their place.
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <getopt.h>
#include <memory>
#include <optional>
#include <regex.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include "verbs_util.h"

namespace {

using namespace verbs_util;

/* ---- the outcome of the running case ------------------------------------ */

struct outcome {
	std::vector<std::string> fails;
	std::string skip;
};

outcome result;

std::string vformat(const char *fmt, va_list ap)
{
	char buf[512];

	std::vsnprintf(buf, sizeof(buf), fmt, ap);
	return buf;
}

/* The case fails, for this reason (printed at once, summed up at the end). */
__attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result.fails.push_back(vformat(fmt, ap));
	va_end(ap);
	std::printf("  FAILED: %s\n", result.fails.back().c_str());
}

/* The case cannot run here, for this reason. */
__attribute__((format(printf, 1, 2))) void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result.skip = vformat(fmt, ap);
	va_end(ap);
}

/* What the case saw. */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	std::printf("  %s\n", vformat(fmt, ap).c_str());
	va_end(ap);
}

constexpr int acc_all = acc_lw | acc_rw | acc_rr | acc_ra;

/* ---- memory ------------------------------------------------------------- */

const std::size_t page_size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

/* Page-aligned memory of its own mapping, unmapped with the object. */
class mapping {
public:
	mapping() = default;
	mapping(const mapping &) = delete;
	mapping &operator=(const mapping &) = delete;
	mapping(mapping &&) = delete;
	mapping &operator=(mapping &&) = delete;
	~mapping()
	{
		if (p_ != nullptr)
			munmap(p_, len_);
	}

	/* len bytes of zeroed anonymous memory. */
	bool anon(std::size_t len)
	{
		void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return false;
		p_ = static_cast<unsigned char *>(p);
		len_ = len;
		return true;
	}

	/*
	 * len bytes (a multiple of chunk) that are chunk bytes of one memfd
	 * mapped again and again: a region of 2^31 bytes costs chunk bytes of
	 * memory, and a write anywhere in it shows in the first chunk.
	 */
	bool alias(std::size_t len, std::size_t chunk)
	{
		const int fd = memfd_create("sroce-prottest", MFD_CLOEXEC);

		if (fd < 0)
			return false;
		void *p = nullptr;
		if (ftruncate(fd, static_cast<off_t>(chunk)) == 0)
			p = mmap(nullptr, len, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
		if (p == nullptr || p == MAP_FAILED) {
			close(fd);
			return false;
		}
		p_ = static_cast<unsigned char *>(p);
		len_ = len;
		for (std::size_t off = 0; off < len; off += chunk) {
			void *q = mmap(p_ + off, chunk, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_FIXED, fd, 0);

			if (q == MAP_FAILED) {
				close(fd);
				return false;
			}
		}
		close(fd);
		return true;
	}

	unsigned char *data() { return p_; }
	[[nodiscard]] std::size_t size() const { return len_; }
	std::uint64_t addr(std::size_t off = 0)
	{
		return reinterpret_cast<std::uintptr_t>(p_ + off);
	}

private:
	unsigned char *p_ = nullptr;
	std::size_t len_ = 0;
};

/* got must equal want byte for byte; say where it does not. */
void compare_bytes(const char *what, const unsigned char *got,
		   const unsigned char *want, std::size_t len)
{
	std::size_t n = 0, first = 0, last = 0;

	for (std::size_t i = 0; i < len; ++i) {
		if (got[i] == want[i])
			continue;
		if (n++ == 0)
			first = i;
		last = i;
	}
	if (n == 0) {
		note("%s: all %zu bytes as expected", what, len);
		return;
	}
	fail("%s: %zu of %zu bytes changed, offsets %zu..%zu (byte %zu is "
	     "%#x, expected %#x)",
	     what, n, len, first, last, first, got[first], want[first]);
}

/* ---- devices and QPs ------------------------------------------------------ */

/* Open name (its GID as open_device() finds it) and say what it offers. */
bool open_dev(device &d, const char *name, int gid_index)
{
	if (!open_device(d, name, gid_index))
		return false;
	std::printf("%s: GID %d %s, active MTU %d, max_msg_sz %u, "
		    "atomic_cap %d, max_mw %d\n",
		    name, d.gid_index, gid_str(d.gid).c_str(),
		    128 << d.port.active_mtu, d.port.max_msg_sz,
		    d.attr.atomic_cap, d.attr.max_mw);
	return true;
}

/* One RC QP with its two CQs, in a PD someone else owns. */
struct qp_end {
	device *dev = nullptr;
	cq_ptr scq;
	cq_ptr rcq;
	qp_ptr qp;
	std::uint32_t psn = 0;
};

std::uint32_t next_psn()
{
	static std::uint32_t psn = 0x4321;

	psn = (psn * 1103515245U + 12345U) & 0xffffff;
	return psn;
}

bool make_qp(qp_end &e, device &d, ibv_pd *pd)
{
	e.dev = &d;
	e.scq.reset(ibv_create_cq(d.ctx.get(), 16, nullptr, nullptr, 0));
	e.rcq.reset(ibv_create_cq(d.ctx.get(), 16, nullptr, nullptr, 0));
	if (!e.scq || !e.rcq) {
		fail("create_cq on %s: %s", d.name.c_str(),
		     std::strerror(errno));
		return false;
	}
	ibv_qp_init_attr ia{};
	ia.send_cq = e.scq.get();
	ia.recv_cq = e.rcq.get();
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	e.qp.reset(ibv_create_qp(pd, &ia));
	if (!e.qp) {
		fail("create_qp on %s: %s", d.name.c_str(),
		     std::strerror(errno));
		return false;
	}
	return true;
}

const char *state_str(ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return "RESET";
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	case IBV_QPS_SQD:
		return "SQD";
	case IBV_QPS_SQE:
		return "SQE";
	case IBV_QPS_ERR:
		return "ERR";
	default:
		return "unknown (query_qp failed)";
	}
}

void expect_state(const char *who, ibv_qp *qp, ibv_qp_state want)
{
	const ibv_qp_state s = qp_state(qp);

	if (s != want)
		fail("%s QP is %s, expected %s", who, state_str(s),
		     state_str(want));
	else
		note("%s QP is %s", who, state_str(s));
}

/* e from RESET to RTR (and RTS), aimed at peer. */
bool bring_up(qp_end &e, const qp_end &peer, int access)
{
	if (to_init(e.qp.get(), access) != 0) {
		fail("modify_qp to INIT: %s", std::strerror(errno));
		return false;
	}
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer.qp->qp_num;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr = roce_av(*e.dev, *peer.dev);
	if (ibv_modify_qp(e.qp.get(), &a, rtr_mask) != 0) {
		fail("modify_qp to RTR: %s", std::strerror(errno));
		return false;
	}
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14; /* 67 ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = e.psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(e.qp.get(), &a, rts_mask) != 0) {
		fail("modify_qp to RTS: %s", std::strerror(errno));
		return false;
	}
	return true;
}

/* a and b to RTS, aimed at each other; b's QP enables b_access. */
bool connect(qp_end &a, qp_end &b, int b_access)
{
	a.psn = next_psn();
	b.psn = next_psn();
	return bring_up(a, b, acc_lw) && bring_up(b, a, b_access);
}

/* ---- completions ---------------------------------------------------------- */

void print_wc(const char *what, const ibv_wc &wc)
{
	note("%s: wr_id %" PRIu64 " status %s (%d) opcode %d byte_len %u "
	     "wc_flags %#x vendor_err %#x",
	     what, wc.wr_id, ibv_wc_status_str(wc.status), wc.status, wc.opcode,
	     wc.byte_len, wc.wc_flags, wc.vendor_err);
}

/*
 * The next completion of cq is wr_id with status (and, for a success,
 * opcode).
 */
std::optional<ibv_wc> expect_wc(const char *what, ibv_cq *cq,
				std::uint64_t wr_id, ibv_wc_status status,
				ibv_wc_opcode opcode)
{
	const std::optional<ibv_wc> wc = wait_wc(cq, 10000);

	if (!wc) {
		fail("%s: no completion within %d s, expected %s", what,
		     10 * scale, ibv_wc_status_str(status));
		return std::nullopt;
	}
	print_wc(what, *wc);
	if (wc->wr_id != wr_id) {
		fail("%s: completion of wr_id %" PRIu64 ", expected %" PRIu64,
		     what, wc->wr_id, wr_id);
		return std::nullopt;
	}
	if (wc->status != status) {
		fail("%s: %s, expected %s", what, ibv_wc_status_str(wc->status),
		     ibv_wc_status_str(status));
		return std::nullopt;
	}
	if (status == IBV_WC_SUCCESS && wc->opcode != opcode) {
		fail("%s: opcode %d, expected %d", what, wc->opcode, opcode);
		return std::nullopt;
	}
	return wc;
}

/* ---- the cases -------------------------------------------------------------- */

enum class op_kind { write, write_imm, read, cmp_swp, fetch_add };

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
};

constexpr ibv_wc_status rae = IBV_WC_REM_ACCESS_ERR;
constexpr ibv_wc_status rir = IBV_WC_REM_INV_REQ_ERR;
constexpr ibv_wc_status lpe = IBV_WC_LOC_PROT_ERR;
constexpr ibv_wc_status ok = IBV_WC_SUCCESS;
constexpr op_kind wr = op_kind::write;
constexpr op_kind wi = op_kind::write_imm;
constexpr op_kind rd = op_kind::read;
constexpr op_kind cs = op_kind::cmp_swp;
constexpr op_kind fa = op_kind::fetch_add;

// clang-format off
const prot_case cases[] = {
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

	/* Alignment: a misaligned atomic is an invalid request. */
	{.name = "atomic-misaligned-cmp-swp", .what = "CMP_SWP at the region's start + 4 (inside it, not 8-byte aligned): invalid request",
	 .op = cs, .expect = rir, .delta = 4, .len = 8},
	{.name = "atomic-misaligned-fetch-add", .what = "FETCH_ADD at the region's start + 1 (inside it, not 8-byte aligned): invalid request",
	 .op = fa, .expect = rir, .delta = 1, .len = 8},

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
	}
	return IBV_WC_RDMA_WRITE;
}

constexpr std::uint64_t add_value = 0x0101010101010101ULL;
constexpr std::uint32_t imm_value = 0x5eed1e57;

/* A region of memory as the remote side names it. */
struct target_region {
	std::uint64_t iova = 0; /* the address of its first byte */
	std::size_t off = 0; /* where that byte is in B's buffer */
	std::uint32_t len = 0;
};

/* Where va lands in a buffer of size bytes whose byte off is iova. */
std::optional<std::size_t> buffer_offset(const target_region &r,
					 std::uint64_t va, std::size_t size)
{
	const std::uint64_t d = va - (r.iova - r.off);

	if (d >= size)
		return std::nullopt;
	return static_cast<std::size_t>(d);
}

/* A memory window of B's, bound or not as the case says. */
struct window {
	/* other_qp: the QP pair whose B side bound it */
	qp_end a2, b2;
	/* Deallocated first: before its MR and the QP it is bound to. */
	mw_ptr mw;
	std::uint32_t rkey = 0;
};

/* Bind mw over [addr, addr + len) of mr from q; its new rkey into *rkey. */
bool bind_window(qp_end &q, ibv_mw *mw, ibv_mr *mr, std::uint64_t addr,
		 std::uint64_t len, int access, std::uint32_t *rkey)
{
	ibv_mw_bind_info info{};

	/*
	 * The MR even for length 0 (an unbind): rdma-core's rxe provider
	 * reads bind_info.mr->lkey whatever the length.
	 */
	info.mr = mr;
	info.addr = addr;
	info.length = len;
	info.mw_access_flags = static_cast<unsigned int>(access);
	if (mw->type == IBV_MW_TYPE_1) {
		ibv_mw_bind b{};

		b.wr_id = 100;
		b.send_flags = IBV_SEND_SIGNALED;
		b.bind_info = info;
		const int ret = ibv_bind_mw(q.qp.get(), mw, &b);
		if (ret != 0) {
			fail("ibv_bind_mw: %s", std::strerror(ret));
			return false;
		}
		*rkey = mw->rkey;
	} else {
		ibv_send_wr wr{};
		ibv_send_wr *bad = nullptr;

		wr.wr_id = 100;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info = info;
		const int ret = ibv_post_send(q.qp.get(), &wr, &bad);
		if (ret != 0) {
			fail("post_send of IBV_WR_BIND_MW: %s",
			     std::strerror(ret));
			return false;
		}
		*rkey = wr.bind_mw.rkey;
	}
	note("B: window bound over %" PRIu64 " bytes at %#" PRIx64
	     ", access %#x: rkey %#x",
	     len, addr, access, *rkey);
	return expect_wc("B's bind", q.scq.get(), 100, IBV_WC_SUCCESS,
			 IBV_WC_BIND_MW)
		.has_value();
}

bool invalidate(qp_end &q, std::uint32_t rkey)
{
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = 101;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	const int ret = ibv_post_send(q.qp.get(), &wr, &bad);
	if (ret != 0) {
		fail("post_send of IBV_WR_LOCAL_INV: %s", std::strerror(ret));
		return false;
	}
	note("B: window rkey %#x invalidated", rkey);
	return expect_wc("B's LOCAL_INV", q.scq.get(), 101, IBV_WC_SUCCESS,
			 IBV_WC_LOCAL_INV)
		.has_value();
}

/*
 * The window of case c over [addr, addr + window_len) of mr, made as c
 * says; false when the case cannot go on (failed, or skipped when the
 * device has no memory windows).
 */
bool make_window(window &w, const prot_case &c, ibv_pd *pd, ibv_mr *mr,
		 std::uint64_t addr, qp_end &a, qp_end &b)
{
	const auto type = c.mw_type == 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;

	w.mw.reset(ibv_alloc_mw(pd, type));
	if (!w.mw) {
		const int err = errno;

		if (err == EOPNOTSUPP || err == ENOSYS)
			skip("memory windows not supported by %s",
			     b.dev->name.c_str());
		else
			fail("alloc_mw of type %d: %s", c.mw_type,
			     std::strerror(err));
		return false;
	}
	note("B: type %d window allocated, rkey %#x", c.mw_type, w.mw->rkey);
	w.rkey = w.mw->rkey;
	switch (c.mw) {
	case mw_kind::none:
	case mw_kind::unbound:
		return true;
	case mw_kind::bound:
		return bind_window(b, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey);
	case mw_kind::invalidated:
		return bind_window(b, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey) &&
		       invalidate(b, w.rkey);
	case mw_kind::emptied:
		return bind_window(b, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey) &&
		       bind_window(b, w.mw.get(), mr, addr, 0, c.mw_access,
				   &w.rkey);
	case mw_kind::other_qp:
		/* A second QP of B, in B's PD, connected to one of A's. */
		if (!make_qp(w.a2, *a.dev, a.qp->pd) ||
		    !make_qp(w.b2, *b.dev, pd) ||
		    !connect(w.a2, w.b2, c.qp_access))
			return false;
		note("B: binding through QP %#x, A uses QP %#x -> %#x",
		     w.b2.qp->qp_num, a.qp->qp_num, b.qp->qp_num);
		return bind_window(w.b2, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey);
	}
	return false;
}

/* A key equal to none of used. */
std::uint32_t unused_key(std::uint32_t seed,
			 const std::vector<std::uint32_t> &used)
{
	std::uint32_t k = 0x9e3779b9U ^ (seed * 0x01000193U);

	for (;;) {
		bool taken = k == 0;

		for (const std::uint32_t u : used)
			taken = taken || u == k;
		if (!taken)
			return k;
		k = k * 1103515245U + 12345U;
	}
}

/* The largest message a port takes, at most 2^31 bytes. */
std::uint32_t largest_message(const device &d)
{
	return std::min<std::uint32_t>(d.port.max_msg_sz, 1U << 31);
}

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
	qp_end a, b;

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

	[[nodiscard]] bool allowed() const
	{
		return c.expect == IBV_WC_SUCCESS;
	}
};

/* B's buffer, target region, and the key A will use. */
bool make_target(case_state &s)
{
	const prot_case &c = s.c;
	target_region &r = s.mr_region;

	if (!s.tbuf.anon(s.buf_size)) {
		fail("mmap: %s", std::strerror(errno));
		return false;
	}
	fill(s.tbuf.data(), s.buf_size, s.seed);
	r.off = c.zero_based ? page_size : page_size - region_before_page_end;
	r.len = c.mr_len;
	r.iova = c.zero_based ? 0 : s.tbuf.addr(r.off);
	const int access =
		c.mr_access | (c.mw_type != 0 ? IBV_ACCESS_MW_BIND : 0);
	unsigned char *p = s.tbuf.data() + r.off;
	std::uint32_t stale = 0;
	if (c.key == key_kind::deregistered) {
		const mr_ptr mr(
			ibv_reg_mr_iova(s.pdb.get(), p, r.len, r.iova, access));
		if (!mr) {
			fail("reg_mr: %s", std::strerror(errno));
			return false;
		}
		stale = mr->rkey;
	}
	s.tmr.reset(ibv_reg_mr_iova(s.pdb.get(), p, r.len, r.iova, access));
	s.cmr.reset(ibv_reg_mr(s.pdb.get(), p, r.len, acc_all));
	s.rmr.reset(
		ibv_reg_mr(s.pdb.get(), s.rbuf.data(), s.rbuf.size(), acc_lw));
	if (!s.tmr || !s.cmr || !s.rmr) {
		fail("reg_mr on B: %s", std::strerror(errno));
		return false;
	}
	note("B: target region of %u bytes at buffer offset %zu, iova "
	     "%#" PRIx64 ", access %#x: rkey %#x; QP %#x access %#x",
	     r.len, r.off, r.iova, access, s.tmr->rkey, s.b.qp->qp_num,
	     c.qp_access);

	s.rkey = s.tmr->rkey;
	switch (c.key) {
	case key_kind::region:
		break;
	case key_kind::zero:
		s.rkey = 0;
		break;
	case key_kind::deregistered:
		s.rkey = stale;
		if (stale == s.tmr->rkey || stale == s.cmr->rkey) {
			fail("the deregistered rkey %#x is live again", stale);
			return false;
		}
		break;
	case key_kind::other_pd:
		s.pdb2.reset(ibv_alloc_pd(s.db.ctx.get()));
		if (s.pdb2)
			s.omr.reset(ibv_reg_mr_iova(s.pdb2.get(), p, r.len,
						    r.iova, access));
		if (!s.omr) {
			fail("reg_mr in a second PD of B: %s",
			     std::strerror(errno));
			return false;
		}
		s.rkey = s.omr->rkey;
		break;
	case key_kind::random:
		s.rkey = unused_key(s.seed,
				    {s.tmr->rkey, s.tmr->lkey, s.cmr->rkey,
				     s.cmr->lkey, s.rmr->lkey});
		break;
	}
	return true;
}

/* What A aims at (the region or a window in it): address and length. */
bool aim(case_state &s)
{
	const prot_case &c = s.c;

	s.region = s.mr_region;
	if (c.mw_type != 0) {
		s.region.off = s.mr_region.off + window_off;
		s.region.iova = s.tbuf.addr(s.region.off);
		s.region.len = window_len;
		if (!make_window(s.w, c, s.pdb.get(), s.tmr.get(),
				 s.region.iova, s.a, s.b))
			return false;
		s.rkey = s.w.rkey;
	}
	s.len = c.len;
	if (c.len == len_region)
		s.len = s.region.len;
	else if (c.len == len_largest)
		s.len = largest_message(s.da);
	std::uint64_t base = 0;
	switch (c.base) {
	case base_kind::start:
		base = s.region.iova;
		break;
	case base_kind::end:
		base = s.region.iova + s.region.len;
		break;
	case base_kind::user_va:
		base = s.tbuf.addr(s.region.off);
		break;
	case base_kind::zero:
	case base_kind::top:
		break;
	}
	s.va = base + static_cast<std::uint64_t>(c.delta);
	return true;
}

/* A's region of the port's largest message: one chunk, mapped again and again. */
bool make_largest(case_state &s)
{
	const std::size_t chunk = std::min<std::size_t>(s.len, 1 << 20);
	const std::size_t size = (s.len + chunk - 1) / chunk * chunk;

	if (!s.big.alias(size, chunk)) {
		fail("mapping %zu bytes: %s", size, std::strerror(errno));
		return false;
	}
	fill(s.big.data(), chunk, s.seed + 3);
	s.big_canary.assign(s.big.data(), s.big.data() + chunk);
	s.bmr.reset(ibv_reg_mr(s.pda.get(), s.big.data(), size, acc_lw));
	if (!s.bmr) {
		fail("reg_mr of %zu bytes on A: %s", size,
		     std::strerror(errno));
		return false;
	}
	s.sge = {s.big.addr(), s.len, s.bmr->lkey};
	note("A: %u bytes from a region of %zu bytes: %zu bytes of memory "
	     "mapped again and again",
	     s.len, size, chunk);
	return true;
}

/* A's buffer, its region, the SGE of the operation, the fenced WRITE's. */
bool make_local(case_state &s)
{
	const prot_case &c = s.c;

	if (!s.lbuf.anon(s.buf_size)) {
		fail("mmap: %s", std::strerror(errno));
		return false;
	}
	fill(s.lbuf.data(), s.buf_size, s.seed + 1);
	fill(s.spare.data(), s.spare.size(), s.seed + 2);
	const int access = c.local == local_kind::no_local_write ? 0 : acc_lw;
	s.lmr.reset(ibv_reg_mr(s.pda.get(), s.lbuf.data() + s.loff, region_len,
			       access));
	s.smr.reset(ibv_reg_mr(s.pda.get(), s.spare.data(), s.spare.size(),
			       acc_lw));
	if (!s.lmr || !s.smr) {
		fail("reg_mr on A: %s", std::strerror(errno));
		return false;
	}
	s.sge = {s.lbuf.addr(s.loff), s.len, s.lmr->lkey};
	switch (c.local) {
	case local_kind::good:
	case local_kind::no_local_write:
		break;
	case local_kind::deregistered: {
		const mr_ptr mr(ibv_reg_mr(s.pda.get(), s.lbuf.data() + s.loff,
					   region_len, acc_lw));
		if (!mr) {
			fail("reg_mr on A: %s", std::strerror(errno));
			return false;
		}
		/* Registered after A's others: distinct from theirs. */
		s.sge.lkey = mr->lkey;
		break;
	}
	case local_kind::other_pd:
		s.pda2.reset(ibv_alloc_pd(s.da.ctx.get()));
		if (s.pda2)
			s.xmr.reset(ibv_reg_mr(s.pda2.get(),
					       s.lbuf.data() + s.loff,
					       region_len, acc_lw));
		if (!s.xmr) {
			fail("reg_mr in a second PD of A: %s",
			     std::strerror(errno));
			return false;
		}
		s.sge.lkey = s.xmr->lkey;
		break;
	case local_kind::past_end:
		s.sge.addr = s.lbuf.addr(s.loff + region_len - s.len / 2);
		break;
	case local_kind::before_start:
		s.sge.addr = s.lbuf.addr(s.loff - 1);
		break;
	case local_kind::largest:
		return make_largest(s);
	}
	return true;
}

/*
 * The operands, and what both buffers must hold afterwards: for a
 * violation what they hold now, for an allowed case that and the effect.
 */
bool expect_memory(case_state &s)
{
	const prot_case &c = s.c;
	const std::optional<std::size_t> toff =
		buffer_offset(s.region, s.va, s.buf_size);
	unsigned char *t = s.tbuf.data();
	unsigned char *l = s.lbuf.data();

	/* The compare value matches: a wrongly executed CMP_SWP shows. */
	if (toff && *toff + 8 <= s.buf_size)
		s.compare = load64(t + *toff);
	s.swap = ~s.compare;
	/*
	 * A's bytes under its SGE are the complement of the target bytes
	 * the operation names: whatever it moves, rightly or wrongly,
	 * differs in every byte from what was there.
	 */
	const std::size_t lo = s.sge.addr - s.lbuf.addr();
	const bool in_buffers = c.local != local_kind::largest && toff &&
				*toff + s.len <= s.buf_size &&
				lo + s.len <= s.buf_size;
	if (in_buffers)
		for (std::size_t i = 0; i < s.len; ++i)
			l[lo + i] = static_cast<unsigned char>(~t[*toff + i]);

	s.want_t.assign(t, t + s.buf_size);
	s.want_l.assign(l, l + s.buf_size);
	if (!s.allowed())
		return true;
	if (!in_buffers) {
		fail("bad case: an allowed range outside the buffers");
		return false;
	}
	switch (c.op) {
	case op_kind::write:
	case op_kind::write_imm:
		std::memcpy(s.want_t.data() + *toff, l + lo, s.len);
		break;
	case op_kind::read:
		std::memcpy(s.want_l.data() + lo, t + *toff, s.len);
		break;
	case op_kind::cmp_swp:
		store64(s.want_t.data() + *toff, s.swap);
		store64(s.want_l.data() + lo, s.compare);
		break;
	case op_kind::fetch_add:
		store64(s.want_t.data() + *toff, s.compare + add_value);
		store64(s.want_l.data() + lo, s.compare);
		break;
	}
	return true;
}

/*
 * B's receive (for a violation, or a WRITE_WITH_IMM), then A's operation
 * and, behind a violation, the fenced valid WRITE.
 */
bool post(case_state &s)
{
	const prot_case &c = s.c;

	if (!s.allowed() || c.op == op_kind::write_imm) {
		ibv_sge rs{reinterpret_cast<std::uintptr_t>(s.rbuf.data()),
			   static_cast<std::uint32_t>(s.rbuf.size()),
			   s.rmr->lkey};
		ibv_recv_wr rw{};
		ibv_recv_wr *rbad = nullptr;

		rw.wr_id = 7;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		const int ret = ibv_post_recv(s.b.qp.get(), &rw, &rbad);
		if (ret != 0) {
			fail("post_recv on B: %s", std::strerror(ret));
			return false;
		}
	}

	ibv_send_wr wr[2] = {};
	wr[0].wr_id = 1;
	wr[0].sg_list = &s.sge;
	wr[0].num_sge = s.len != 0 ? 1 : 0;
	wr[0].opcode = wr_opcode(c.op);
	wr[0].send_flags = IBV_SEND_SIGNALED;
	if (is_atomic(c.op)) {
		wr[0].wr.atomic.remote_addr = s.va;
		wr[0].wr.atomic.rkey = s.rkey;
		wr[0].wr.atomic.compare_add =
			c.op == op_kind::cmp_swp ? s.compare : add_value;
		wr[0].wr.atomic.swap = s.swap;
	} else {
		wr[0].wr.rdma.remote_addr = s.va;
		wr[0].wr.rdma.rkey = s.rkey;
		wr[0].imm_data = htonl(imm_value);
	}
	ibv_sge fence_sge{reinterpret_cast<std::uintptr_t>(s.spare.data()),
			  static_cast<std::uint32_t>(s.spare.size()),
			  s.smr->lkey};
	if (!s.allowed()) {
		wr[0].next = &wr[1];
		wr[1].wr_id = 2;
		wr[1].sg_list = &fence_sge;
		wr[1].num_sge = 1;
		wr[1].opcode = IBV_WR_RDMA_WRITE;
		wr[1].send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
		wr[1].wr.rdma.remote_addr = s.tbuf.addr(s.mr_region.off);
		wr[1].wr.rdma.rkey = s.cmr->rkey;
	}
	note("A: %s of %u bytes, SGE %#" PRIx64 " lkey %#x, to va %#" PRIx64
	     " rkey %#x: expecting %s",
	     op_str(c.op), s.len, s.sge.addr, s.sge.lkey, s.va, s.rkey,
	     ibv_wc_status_str(c.expect));
	ibv_send_wr *bad = nullptr;
	const int ret = ibv_post_send(s.a.qp.get(), wr, &bad);
	if (ret != 0) {
		fail("post_send on A: %s", std::strerror(ret));
		return false;
	}
	return true;
}

/* The completions and QP states on both sides. */
void check_completions(case_state &s)
{
	const prot_case &c = s.c;

	expect_wc("A's WQE", s.a.scq.get(), 1, c.expect, wc_opcode(c.op));
	if (!s.allowed()) {
		expect_wc("A's fenced WRITE behind it", s.a.scq.get(), 2,
			  IBV_WC_WR_FLUSH_ERR, IBV_WC_RDMA_WRITE);
		expect_state("A's", s.a.qp.get(), IBV_QPS_ERR);
	} else {
		expect_state("A's", s.a.qp.get(), IBV_QPS_RTS);
	}

	if (is_remote(c.expect)) {
		/* Consumed by a WRITE_WITH_IMM, or flushed. */
		const std::optional<ibv_wc> wc = wait_wc(s.b.rcq.get(), 3000);

		if (!wc) {
			fail("B's receive did not complete (B's QP is %s)",
			     state_str(qp_state(s.b.qp.get())));
			return;
		}
		print_wc("B's receive", *wc);
		if (wc->status == IBV_WC_SUCCESS)
			fail("B's receive completed successfully");
		return;
	}
	if (!s.allowed()) {
		/* Nothing reached B. */
		const std::optional<ibv_wc> wc = wait_wc(s.b.rcq.get(), 200);

		if (wc) {
			print_wc("B's receive", *wc);
			fail("B's receive completed: something reached B");
		} else {
			note("B's receive: no completion within %d ms",
			     200 * scale);
		}
		expect_state("B's", s.b.qp.get(), IBV_QPS_RTS);
		return;
	}
	if (c.op == op_kind::write_imm) {
		const std::optional<ibv_wc> wc =
			expect_wc("B's receive", s.b.rcq.get(), 7,
				  IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM);

		if (wc && ((wc->wc_flags & IBV_WC_WITH_IMM) == 0 ||
			   ntohl(wc->imm_data) != imm_value))
			fail("B's receive: imm %#x, wc_flags %#x, expected "
			     "imm %#x",
			     ntohl(wc->imm_data), wc->wc_flags, imm_value);
	}
	expect_state("B's", s.b.qp.get(), IBV_QPS_RTS);
}

/* One case.  Failures and skips land in result. */
void run_case(const prot_case &c, std::uint32_t seed, device &da, device &db)
{
	if (is_atomic(c.op)) {
		for (const device *d : {&da, &db}) {
			if (d->attr.atomic_cap == IBV_ATOMIC_NONE) {
				skip("atomics not supported by %s (atomic_cap "
				     "IBV_ATOMIC_NONE)",
				     d->name.c_str());
				return;
			}
		}
	}
	case_state s(c, seed, da, db);
	s.pda.reset(ibv_alloc_pd(da.ctx.get()));
	s.pdb.reset(ibv_alloc_pd(db.ctx.get()));
	if (!s.pda || !s.pdb) {
		fail("alloc_pd: %s", std::strerror(errno));
		return;
	}
	/* B's QP in RTS: windows are bound through it. */
	if (!make_qp(s.a, da, s.pda.get()) || !make_qp(s.b, db, s.pdb.get()) ||
	    !make_target(s) || !connect(s.a, s.b, c.qp_access))
		return;
	note("A: QP %#x on %s; B: QP %#x on %s", s.a.qp->qp_num,
	     da.name.c_str(), s.b.qp->qp_num, db.name.c_str());
	if (!aim(s) || !make_local(s) || !expect_memory(s) || !post(s))
		return;
	check_completions(s);
	compare_bytes("B's target buffer", s.tbuf.data(), s.want_t.data(),
		      s.buf_size);
	compare_bytes("A's buffer", s.lbuf.data(), s.want_l.data(), s.buf_size);
	if (!s.big_canary.empty())
		compare_bytes("A's largest region", s.big.data(),
			      s.big_canary.data(), s.big_canary.size());
}

/* ---- main ------------------------------------------------------------------- */

void usage(const char *argv0)
{
	std::fprintf(stderr,
		     "usage: %s --dev-a NAME --dev-b NAME [--gid-a N] "
		     "[--gid-b N] [--case REGEX]\n"
		     "       %s --list\n",
		     argv0, argv0);
}

} /* namespace */

int main(int argc, char **argv)
{
	static const option opts[] = {
		{"dev-a", required_argument, nullptr, 'a'},
		{"dev-b", required_argument, nullptr, 'b'},
		{"gid-a", required_argument, nullptr, 'A'},
		{"gid-b", required_argument, nullptr, 'B'},
		{"case", required_argument, nullptr, 'c'},
		{"list", no_argument, nullptr, 'l'},
		{nullptr, 0, nullptr, 0},
	};
	const char *dev_a = nullptr, *dev_b = nullptr, *pattern = nullptr;
	int gid_a = -1, gid_b = -1;
	bool list = false;

	for (;;) {
		const int o = getopt_long(argc, argv, "", opts, nullptr);

		if (o == -1)
			break;
		switch (o) {
		case 'a':
			dev_a = optarg;
			break;
		case 'b':
			dev_b = optarg;
			break;
		case 'A':
			gid_a = std::atoi(optarg);
			break;
		case 'B':
			gid_b = std::atoi(optarg);
			break;
		case 'c':
			pattern = optarg;
			break;
		case 'l':
			list = true;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind != argc ||
	    (!list && (dev_a == nullptr || dev_b == nullptr))) {
		usage(argv[0]);
		return 2;
	}
	regex_t re{};
	if (pattern != nullptr &&
	    regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
		std::fprintf(stderr, "bad regular expression '%s'\n", pattern);
		return 2;
	}
	auto selected = [&](const prot_case &c) {
		return pattern == nullptr ||
		       regexec(&re, c.name, 0, nullptr, 0) == 0;
	};
	if (list) {
		for (const prot_case &c : cases)
			if (selected(c))
				std::printf("%s\n", c.name);
		if (pattern != nullptr)
			regfree(&re);
		return 0;
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	/* What the shared helpers report fails the running case. */
	report_failure = [](const char *what) { fail("%s", what); };

	unsigned int n_ok = 0, n_fail = 0, n_skip = 0;
	{
		device a, b;

		if (!open_dev(a, dev_a, gid_a) || !open_dev(b, dev_b, gid_b)) {
			std::printf("FAIL open: cannot use %s and %s\n", dev_a,
				    dev_b);
			if (pattern != nullptr)
				regfree(&re);
			return 1;
		}
		std::uint32_t seed = 0;
		for (const prot_case &c : cases) {
			seed += 4;
			if (!selected(c))
				continue;
			std::printf("case %s: %s\n", c.name, c.what);
			result = {};
			run_case(c, seed, a, b);
			if (!result.fails.empty()) {
				std::string why;

				for (const std::string &f : result.fails)
					why += (why.empty() ? "" : "; ") + f;
				std::printf("FAIL %s: %s\n", c.name,
					    why.c_str());
				++n_fail;
			} else if (!result.skip.empty()) {
				std::printf("SKIP %s: %s\n", c.name,
					    result.skip.c_str());
				++n_skip;
			} else {
				std::printf("ok %s\n", c.name);
				++n_ok;
			}
		}
		result = {};
	}
	/* Closing the devices failed. */
	if (!result.fails.empty())
		++n_fail;
	if (pattern != nullptr)
		regfree(&re);
	std::printf("%u ok, %u failed, %u skipped\n", n_ok, n_fail, n_skip);
	return n_fail != 0 ? 1 : 0;
}
