// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-torture - RC torture between two RDMA devices: N QP pairs, both
 * directions at once, a seeded random mix of SEND, WRITE, WRITE_WITH_IMM,
 * READ and atomics, every byte and every completion checked.
 *
 *   sroce-torture --dev-a NAME --dev-b NAME [options]
 *
 * One process opens both devices (as sroce-rctest does: rdma's shared
 * namespace mode shows every device everywhere) and connects QP i of
 * DEV_A to QP i of DEV_B, exchanging QPN, GID and PSN in memory; the
 * packets cross whatever joins the two netdevs.  Public libibverbs only.
 *
 * Options:
 *   --dev-a NAME, --dev-b NAME   the two devices (the same name twice: a
 *                  device talking to itself)
 *   --gid-a N, --gid-b N         GID index (default: the first RoCE v2
 *                  GID holding an IPv4 address)
 *   --qps N        QP pairs (default 4)
 *   --seed S       seed of everything random (default: from the clock);
 *                  always printed, with the command line that replays it
 *   --bytes TOTAL  stop after TOTAL payload bytes (K, M, G suffixes: KiB..)
 *   --ops COUNT    stop after COUNT operations (default 10000 when neither
 *                  is given; with both, whichever comes first).  The budget
 *                  is split evenly over the 2N streams
 *   --max-size B   largest message (default 256K); sizes are drawn
 *                  log-uniformly from 0..B (one in eight near a multiple of
 *                  the path MTU)
 *   --max-sge N    most SGEs per work request (default 4; device limits
 *                  apply)
 *   --depth N      outstanding work requests per QP and direction
 *                  (default 16); also the receive queue depth
 *   --mix send=W,write=W,write_imm=W,read=W,atomic=W   relative weights
 *                  (default 4,3,2,3,2); keys left out of --mix are 0.
 *                  Half the sends carry immediate data, atomics are half
 *                  FETCH_ADD, half CMP_SWP (three in four of them match)
 *   --mtu 256|512|1024|2048|4096   path MTU (default 1024)
 *   --timeout T --retry-cnt C --rnr-retry R   QP attributes (default 14,
 *                  7, 7): a lossy or flapping wire chooses between
 *                  recovering and failing with IBV_WC_RETRY_EXC_ERR
 *   --expect-fail-ok  IBV_WC_RETRY_EXC_ERR followed by flushes is a clean
 *                  failure: the QP pair stops, what completed before is
 *                  still verified, exit status 3 instead of 1
 *   --deadline S   a work request outstanding this long without any
 *                  completion on its queue is lost (default: 20 s, or four
 *                  times the QP's whole retry budget if longer), times
 *                  SROCE_TIMEOUT_SCALE
 *   --progress S   progress line every S seconds (default 5; 0: none)
 *   --quiet        no set-up chatter and no progress lines
 *
 * Exit status: 0 everything verified; 1 a mismatch, a lost, duplicate,
 * out-of-order or unexpected completion, or a set-up failure; 2 usage;
 * 3 only clean failures (--expect-fail-ok).
 *
 * Streams.  QP pair i carries two streams, A->B and B->A; each side is
 * the requester of one and the responder of the other.  Operation number
 * seq of a stream is a pure function of (seed, qp, direction, seq): its
 * kind, size, SGE layout on both sides, remote offset, immediate data,
 * atomic operands and payload (byte j is a function of those and j).  The
 * receiver walks the same sequence to post, ahead, a receive for every
 * SEND and WRITE_WITH_IMM, and the requester never posts one of those
 * before its receive is posted (no RNR waits on a clean wire).  Slot
 * seq % depth of each buffer belongs to one operation at a time: a slot is
 * reused only after the completion of its previous operation.
 *
 * Verification, and why a wrong byte cannot go unnoticed:
 *  - every destination range (receive buffers, READ and atomic results,
 *    WRITE targets) is surrounded by guard bytes, and the gaps between the
 *    SGEs of a scatter list are guard bytes too; all are checked after the
 *    completion, so a stray or long write shows as well as a wrong byte;
 *  - SEND: the receiver checks byte_len, the immediate data (present
 *    exactly when sent) and every byte of the message in its SGEs, in
 *    order (RC delivers in order: receive k holds message k);
 *  - WRITE, WRITE_WITH_IMM: both sides live in this process, so after the
 *    requester's successful completion (the responder has placed the data
 *    before it acknowledged) the target range and its guards are compared
 *    directly with a shadow copy of what the target memory must hold.
 *    Stronger than a READ-back: no second transfer whose bugs could cancel
 *    the first one's, and the guards are seen too.  WRITE_WITH_IMM also
 *    checks the receive it consumes (byte_len, immediate, untouched SGEs);
 *  - READ: the scattered result is compared with the shadow of the remote
 *    range, which READs pick at random offsets of the same slots the
 *    WRITEs write: written data also travels back over the wire;
 *  - atomics: each stream owns four counters in its responder's memory
 *    that nothing else touches; RC executes in order, so the value every
 *    FETCH_ADD and CMP_SWP returns is predicted exactly at post time (an
 *    atomic executed twice, or lost, shows at once);
 *  - at the end every responder's whole target memory (slots, counters,
 *    padding) must equal its shadow: a late duplicate or stray write
 *    shows there, and a final poll finds no completion left over.
 *
 * Completions: one per work request (all signaled), on the QP's own CQs,
 * in posting order (wr_id carries the direction and sequence number),
 * with the expected opcode and status; a missing completion within the
 * deadline, a duplicate, one out of order or with an unexpected status
 * stops the run with a message naming QP, direction, seq, op and size.
 * Data mismatches are counted and the run goes on (the first ten are
 * printed).  No threads, no events: one loop polls every CQ round-robin.
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <algorithm>
#include <arpa/inet.h>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <getopt.h>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

#include <infiniband/verbs.h>

#include "verbs_util.h"

namespace {

using namespace verbs_util;

/* ---- random numbers and patterns ------------------------------------------ */

/* splitmix64's finaliser: a good 64-bit mix. */
constexpr std::uint64_t mix64(std::uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31U);
}

struct rng {
	std::uint64_t s;

	std::uint64_t next()
	{
		s += 0x9e3779b97f4a7c15ULL;
		return mix64(s);
	}
	/* Uniform in [0, n); 0 for n == 0. */
	std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
	std::uint32_t below32(std::uint64_t n)
	{
		return static_cast<std::uint32_t>(below(n));
	}
};

/*
 * p[0..len) = bytes from..from+len of the pattern keyed by key: byte pos
 * is byte pos % 8 of a mix of key and pos / 8.
 */
void pattern_fill(unsigned char *p, std::uint64_t key, std::size_t from,
		  std::size_t len)
{
	std::size_t i = 0;

	while (i < len) {
		const std::size_t pos = from + i;
		const std::uint64_t w =
			mix64(key + (pos >> 3U) * 0xd1b54a32d192ed03ULL);
		std::size_t k = pos & 7U;

		for (; k < 8 && i < len; ++k, ++i)
			p[i] = static_cast<unsigned char>(w >> (k * 8U));
	}
}

/* Salts: the pattern of each purpose differs from every other. */
constexpr std::uint64_t salt_stream = 0x73747265616d0001ULL;
constexpr std::uint64_t salt_guard = 0x6775617264000002ULL;
constexpr std::uint64_t salt_init = 0x696e697400000003ULL;
constexpr std::uint64_t salt_psn = 0x70736e0000000004ULL;

/* ---- operations ------------------------------------------------------------- */

enum op_kind : std::uint8_t {
	op_send,
	op_send_imm,
	op_write,
	op_write_imm,
	op_read,
	op_fetch_add,
	op_cmp_swp,
	op_kinds,
};

constexpr const char *op_names[op_kinds] = {
	"SEND", "SEND_IMM",  "WRITE",	"WRITE_IMM",
	"READ", "FETCH_ADD", "CMP_SWP",
};

bool consumes_recv(op_kind k)
{
	return k == op_send || k == op_send_imm || k == op_write_imm;
}

bool is_atomic(op_kind k)
{
	return k == op_fetch_add || k == op_cmp_swp;
}

bool has_imm(op_kind k)
{
	return k == op_send_imm || k == op_write_imm;
}

ibv_wc_opcode wc_opcode(op_kind k)
{
	switch (k) {
	case op_send:
	case op_send_imm:
		return IBV_WC_SEND;
	case op_write:
	case op_write_imm:
		return IBV_WC_RDMA_WRITE;
	case op_read:
		return IBV_WC_RDMA_READ;
	case op_fetch_add:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_COMP_SWAP;
	}
}

ibv_wr_opcode wr_opcode(op_kind k)
{
	switch (k) {
	case op_send:
		return IBV_WR_SEND;
	case op_send_imm:
		return IBV_WR_SEND_WITH_IMM;
	case op_write:
		return IBV_WR_RDMA_WRITE;
	case op_write_imm:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case op_read:
		return IBV_WR_RDMA_READ;
	case op_fetch_add:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	default:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	}
}

/* Room around and between the pieces of a scatter/gather list. */
constexpr std::uint32_t guard_len = 64; /* before the first, after the last */
constexpr std::uint32_t gap_max = 64; /* between two pieces, at random */
constexpr std::uint32_t recv_slack_max = 256; /* receive larger than sent */
constexpr std::uint32_t target_jitter = 4096; /* offsets of max-size ops */
constexpr unsigned int counters = 4; /* atomic counters per stream */
constexpr std::size_t tail_pad = 4096; /* after every buffer, never used */

/*
 * One SGE: off from the slot's base, len bytes holding bytes
 * msg_off..msg_off+len of the message; alt picks the second MR of the
 * local buffer (two registrations of the same memory: two lkeys).
 */
struct piece {
	std::uint32_t off = 0;
	std::uint32_t len = 0;
	std::uint32_t msg_off = 0;
	bool alt = false;
};

/* Everything about operation seq of a stream, derived from its key. */
struct op_desc {
	op_kind kind = op_send;
	std::uint32_t len = 0;
	std::uint32_t imm = 0;
	bool inl = false;
	std::uint64_t data_key = 0;
	std::vector<piece> local; /* gather (SEND, WRITE) or scatter */
	std::uint32_t remote_off = 0; /* WRITE, READ: from the target slot */
	unsigned int counter = 0; /* atomics */
	std::uint64_t operand = 0; /* the add, or a compare that fails */
	bool cmp_match = false; /* CMP_SWP compares with the current value */
	std::uint64_t swap = 0;
	std::vector<piece> recv; /* the receive it consumes, if any */
	std::uint32_t recv_total = 0;
};

/* ---- options and derived configuration ------------------------------------- */

struct options {
	std::string dev_a;
	std::string dev_b;
	int gid_a = -1;
	int gid_b = -1;
	unsigned int qps = 4;
	std::uint64_t seed = 0;
	bool seed_given = false;
	std::uint64_t bytes = 0; /* 0: no limit */
	std::uint64_t ops = 0; /* 0: no limit */
	std::uint32_t max_size = 256 * 1024;
	std::uint32_t max_sge = 4;
	std::uint32_t depth = 16;
	/* send, write, write_imm, read, atomic */
	unsigned int weight[5] = {4, 3, 2, 3, 2};
	ibv_mtu mtu = IBV_MTU_1024;
	unsigned int timeout = 14;
	unsigned int retry_cnt = 7;
	unsigned int rnr_retry = 7;
	bool expect_fail_ok = false;
	double deadline = 0;
	double progress = 5;
	bool quiet = false;
};

/* What every stream shares: limits and buffer geometry. */
struct config {
	options opt;
	std::uint32_t mtu_bytes = 1024;
	std::uint32_t send_sge = 1; /* after the device limits */
	std::uint32_t recv_sge = 1;
	std::uint32_t rd_sge = 1;
	std::uint32_t max_inline = 0;
	std::uint8_t rd_atomic = 1;
	std::size_t local_slot = 0;
	std::size_t recv_slot = 0;
	std::size_t target_slot = 0;
	std::size_t counter_off = 0; /* in the target buffer */
	std::size_t local_size = 0;
	std::size_t recv_size = 0;
	std::size_t target_size = 0;
	clock_type::duration deadline{};
	std::uint64_t guard_key = 0;
};

std::size_t round_up(std::size_t v, std::size_t to)
{
	return (v + to - 1) / to * to;
}

/*
 * A message size: log-uniform over 0..max (2^(k-1)..2^k-1 for k drawn
 * uniformly, 0 for k = 0), one in eight a multiple of the path MTU, or
 * one byte less or more.
 */
std::uint32_t draw_size(const config &c, rng &r)
{
	const std::uint32_t max = c.opt.max_size;

	if (r.below(8) == 0 && max >= c.mtu_bytes) {
		const std::uint64_t k = 1 + r.below(max / c.mtu_bytes);
		const std::uint64_t v = k * c.mtu_bytes + r.below(3);

		return static_cast<std::uint32_t>(
			std::min<std::uint64_t>(v > 0 ? v - 1 : 0, max));
	}
	const auto bits = static_cast<unsigned int>(std::bit_width(max));
	const auto k = r.below32(bits + 1);

	if (k == 0)
		return 0;
	const std::uint64_t lo = std::uint64_t{1} << (k - 1);
	const std::uint64_t hi =
		std::min<std::uint64_t>((std::uint64_t{1} << k) - 1, max);

	return static_cast<std::uint32_t>(lo + r.below(hi - lo + 1));
}

/*
 * total bytes in pieces of at least one byte, at most max_n of them (one
 * piece half the time), laid out in the slot in a random order with random
 * gaps, guard_len or more from the slot's start.
 */
std::vector<piece> place(rng &r, std::uint32_t total, std::uint32_t max_n,
			 bool alt_keys)
{
	std::vector<piece> v;

	if (total == 0)
		return v;
	const std::uint32_t cap = std::min(max_n, total);
	const std::uint32_t n =
		cap == 1 || r.below(2) == 0 ? 1 : 1 + r.below32(cap);
	std::vector<std::uint32_t> cuts(n - 1);

	for (std::uint32_t &cut : cuts)
		cut = r.below32(std::uint64_t{total} - n + 1);
	std::sort(cuts.begin(), cuts.end());
	v.resize(n);
	std::uint32_t prev = 0;
	std::uint32_t msg = 0;
	for (std::uint32_t i = 0; i < n; ++i) {
		const std::uint32_t end = i + 1 < n ? cuts[i] : total - n;

		v[i].len = end - prev + 1;
		v[i].msg_off = msg;
		msg += v[i].len;
		prev = end;
	}
	std::vector<std::uint32_t> order(n);
	std::iota(order.begin(), order.end(), 0U);
	for (std::uint32_t i = n; i > 1; --i)
		std::swap(order[i - 1], order[r.below32(i)]);
	std::uint32_t pos = guard_len + r.below32(gap_max + 1);
	for (const std::uint32_t idx : order) {
		v[idx].off = pos;
		pos += v[idx].len + r.below32(gap_max + 1);
		v[idx].alt = alt_keys && r.below(2) != 0;
	}
	return v;
}

op_kind pick_kind(const config &c, rng &r)
{
	const unsigned int *w = c.opt.weight;
	const unsigned int sum = w[0] + w[1] + w[2] + w[3] + w[4];
	auto x = r.below32(sum);

	if (x < w[0])
		return r.below(2) != 0 ? op_send_imm : op_send;
	x -= w[0];
	if (x < w[1])
		return op_write;
	x -= w[1];
	if (x < w[2])
		return op_write_imm;
	x -= w[2];
	if (x < w[3])
		return op_read;
	return r.below(2) != 0 ? op_cmp_swp : op_fetch_add;
}

/* Operation seq of the stream keyed by skey: a pure function. */
op_desc make_desc(const config &c, std::uint64_t skey, std::uint64_t seq)
{
	rng r{mix64(skey ^ mix64(seq))};
	op_desc d;

	d.data_key = r.next();
	d.kind = pick_kind(c, r);
	d.imm = static_cast<std::uint32_t>(r.next());
	if (is_atomic(d.kind)) {
		d.len = 8;
		d.local = place(r, 8, 1, true);
		d.counter = r.below32(counters);
		d.operand = r.next();
		d.cmp_match = r.below(4) != 0;
		d.swap = r.next();
		return d;
	}
	d.len = draw_size(c, r);
	d.local = place(r, d.len, d.kind == op_read ? c.rd_sge : c.send_sge,
			true);
	if (d.kind != op_read && d.len <= c.max_inline)
		d.inl = r.below(4) == 0;
	if (d.kind == op_write || d.kind == op_write_imm || d.kind == op_read)
		d.remote_off =
			guard_len +
			r.below32(c.target_slot - 2 * std::size_t{guard_len} -
				  d.len + 1);
	if (consumes_recv(d.kind)) {
		/* WRITE_WITH_IMM: a buffer that must stay untouched. */
		if (d.kind == op_write_imm)
			d.recv_total = r.below(2) != 0 ? 0 : r.below32(65);
		else
			d.recv_total =
				d.len + (r.below(4) == 0
						 ? r.below32(recv_slack_max + 1)
						 : 0);
		d.recv = place(r, d.recv_total, c.recv_sge, false);
	}
	return d;
}

std::uint64_t op_bytes(const op_desc &d)
{
	return d.len;
}

/* ---- devices ----------------------------------------------------------------- */

/* A device and the PD of all its QPs (freed before the device is closed). */
struct device_with_pd : device {
	pd_ptr pd;
};

/* A failure the shared helpers report (a destroy call, opening a device). */
void report(const char *what)
{
	std::printf("FAIL: %s\n", what);
	++failures;
}

bool open_dev(device_with_pd &d, const std::string &name, int gid_index,
	      bool quiet)
{
	if (!open_device(d, name.c_str(), gid_index))
		return false;
	d.pd.reset(ibv_alloc_pd(d.ctx.get()));
	if (!d.pd) {
		std::printf("FAIL: alloc_pd %s: %s\n", name.c_str(),
			    std::strerror(errno));
		return false;
	}
	if (!quiet)
		std::printf("%s: GID %d %s, active MTU %d, max_sge %d, "
			    "max_qp_rd_atom %d, atomic_cap %d\n",
			    name.c_str(), d.gid_index, gid_str(d.gid).c_str(),
			    128 << d.port.active_mtu, d.attr.max_sge,
			    d.attr.max_qp_rd_atom, d.attr.atomic_cap);
	return true;
}

/* ---- endpoints, streams, pairs ---------------------------------------------- */

/*
 * One QP with its CQs and buffers.  local: the requester's sources and
 * result buffers (registered twice: two lkeys), recv: receive buffers,
 * target: what the peer's requester WRITEs, READs and atomically updates,
 * shadow: what target must hold.  Declaration order is teardown order
 * reversed: the QP goes first, the buffers last.
 */
struct endpoint {
	device *dev = nullptr;
	std::vector<unsigned char> local;
	std::vector<unsigned char> recv;
	std::vector<unsigned char> target;
	std::vector<unsigned char> shadow;
	cq_ptr scq;
	cq_ptr rcq;
	mr_ptr local_mr[2];
	mr_ptr recv_mr;
	mr_ptr target_mr;
	qp_ptr qp;
	std::uint32_t psn = 0;
	/* The send queue reported IBV_WC_RETRY_EXC_ERR (--expect-fail-ok). */
	bool sq_error = false;
};

/* An operation posted and not completed yet. */
struct op_rec {
	std::uint64_t seq = 0;
	op_desc d;
	std::uint64_t recv_index = 0; /* consumes_recv(): which receive */
	std::uint64_t expect = 0; /* atomics: the original value */
	bool swaps = false; /* CMP_SWP: the compare matches */
};

/* A receive posted and not completed yet. */
struct recv_rec {
	std::uint64_t index = 0;
	std::uint64_t seq = 0; /* the operation that will consume it */
	op_desc d;
};

struct stream {
	unsigned int qpi = 0;
	unsigned int dir = 0; /* 0: A->B, 1: B->A */
	endpoint *req = nullptr;
	endpoint *resp = nullptr;
	std::uint64_t key = 0;
	std::uint64_t ops_budget = 0;
	std::uint64_t bytes_budget = 0;
	/* requester */
	std::uint64_t next_seq = 0;
	std::uint64_t bytes_posted = 0;
	std::uint64_t consumers_posted = 0; /* SENDs and WRITE_IMMs */
	bool done_posting = false;
	std::deque<op_rec> sq;
	clock_type::time_point sq_progress;
	/* responder: its walk over the same sequence */
	std::uint64_t rcur_seq = 0;
	std::uint64_t rcur_bytes = 0;
	bool rcur_end = false;
	std::uint64_t recv_posted = 0;
	std::uint64_t recv_ok = 0; /* successful receive completions */
	std::uint64_t recv_due = 0; /* consumers completed successfully */
	std::uint64_t first_flushed = UINT64_MAX;
	std::deque<recv_rec> rq;
	clock_type::time_point rq_progress;
	/* a failed or flushed WRITE or atomic: target memory unknown */
	bool poisoned = false;
};

struct pair_state {
	std::unique_ptr<endpoint> ep[2];
	stream st[2]; /* st[x]: ep[x] is the requester */
	bool stopping = false; /* a clean failure: draining */
	bool err_moved = false; /* both QPs moved to ERROR by us */
	bool done = false;
	bool failed = false; /* a clean failure happened */
};

/* ---- results ------------------------------------------------------------------- */

struct tally {
	std::uint64_t ops[op_kinds] = {};
	std::uint64_t bytes = 0; /* payload of completed operations */
	std::uint64_t recvs = 0;
	std::uint64_t inline_ops = 0;
	std::uint64_t swapped = 0;
	std::uint64_t zero_len = 0;
	std::uint64_t multi_sge = 0;
	std::uint64_t checked = 0; /* bytes compared, guards included */
	std::uint64_t data_errors = 0;
	std::uint64_t fatal = 0;
	std::uint64_t clean_failures = 0;
	std::uint64_t flushed = 0;
};

tally total;
bool aborted;
constexpr std::uint64_t data_errors_printed = 10;

std::string stream_name(const stream &s)
{
	return "qp " + std::to_string(s.qpi) + (s.dir == 0 ? " A->B" : " B->A");
}

std::string op_label(const stream &s, std::uint64_t seq, const op_desc &d)
{
	char buf[160];

	std::snprintf(buf, sizeof(buf),
		      "%s seq %" PRIu64 " %s %u B (%zu SGE%s%s)",
		      stream_name(s).c_str(), seq, op_names[d.kind], d.len,
		      d.local.size(), d.local.size() == 1 ? "" : "s",
		      d.inl ? ", inline" : "");
	return buf;
}

/* A completion-level failure: stops the run. */
void fatal(const std::string &what)
{
	std::printf("FAIL: %s\n", what.c_str());
	++total.fatal;
	aborted = true;
}

void print_wc(const ibv_wc &wc)
{
	std::printf("  completion: wr_id %#" PRIx64 " status %s (%d) opcode "
		    "%d byte_len %u wc_flags %#x imm %#x qp %#x vendor_err "
		    "%#x\n",
		    wc.wr_id, ibv_wc_status_str(wc.status), wc.status,
		    wc.opcode, wc.byte_len, wc.wc_flags, ntohl(wc.imm_data),
		    wc.qp_num, wc.vendor_err);
}

/* ---- wr_id ------------------------------------------------------------------------ */

constexpr std::uint64_t wrid_magic = 0x7c;
constexpr std::uint64_t wrid_num_mask = (std::uint64_t{1} << 40U) - 1;

std::uint64_t make_wrid(const stream &s, bool recv, std::uint64_t n)
{
	return wrid_magic << 56U | std::uint64_t{recv} << 55U |
	       std::uint64_t{s.dir} << 54U | std::uint64_t{s.qpi} << 40U |
	       (n & wrid_num_mask);
}

std::string wrid_str(std::uint64_t id)
{
	char buf[128];

	if (id >> 56U != wrid_magic) {
		std::snprintf(buf, sizeof(buf), "wr_id %#" PRIx64 " (not ours)",
			      id);
		return buf;
	}
	std::snprintf(buf, sizeof(buf),
		      "wr_id %#" PRIx64 " (%s of qp %u %s, number %" PRIu64 ")",
		      id, (id >> 55U & 1U) != 0 ? "receive" : "send",
		      static_cast<unsigned int>(id >> 40U & 0x3fffU),
		      (id >> 54U & 1U) != 0 ? "B->A" : "A->B",
		      id & wrid_num_mask);
	return buf;
}

/* ---- buffers -------------------------------------------------------------------- */

/* The byte range [lo, hi) of a slot that a scatter list may touch. */
std::pair<std::size_t, std::size_t> span_of(const std::vector<piece> &v)
{
	if (v.empty())
		return {0, 2 * std::size_t{guard_len}};
	std::size_t lo = SIZE_MAX;
	std::size_t hi = 0;
	for (const piece &p : v) {
		lo = std::min<std::size_t>(lo, p.off);
		hi = std::max<std::size_t>(hi, std::size_t{p.off} + p.len);
	}
	return {lo - guard_len, hi + guard_len};
}

/* Guard bytes over [lo, hi) of buf, a function of the buffer offset. */
void guard_fill(const config &c, unsigned char *buf, std::size_t lo,
		std::size_t hi)
{
	pattern_fill(buf + lo, c.guard_key, lo, hi - lo);
}

/*
 * Where the expected bytes of a scattered message come from: the pattern
 * data_key, or (READ) a copy of the remote range.
 */
struct source {
	std::uint64_t key = 0;
	const unsigned char *copy = nullptr;
};

std::vector<unsigned char> expected;

/*
 * After a scatter of data_len bytes of src into the pieces v of the slot
 * at base in buf: the span of v holds the message where pieces hold
 * message bytes below data_len, guard bytes everywhere else.  On a
 * mismatch: a data error naming what (op_label) and where.
 */
bool check_scatter(const config &c, const std::string &what,
		   const char *bufname, const unsigned char *buf,
		   std::size_t base, const std::vector<piece> &v,
		   std::uint32_t data_len, const source &src)
{
	const auto [lo, hi] = span_of(v);

	expected.resize(hi - lo);
	pattern_fill(expected.data(), c.guard_key, base + lo, hi - lo);
	for (const piece &p : v) {
		if (p.msg_off >= data_len)
			continue;
		const std::uint32_t n = std::min(p.len, data_len - p.msg_off);
		unsigned char *e = expected.data() + (p.off - lo);

		if (src.copy != nullptr)
			std::memcpy(e, src.copy + p.msg_off, n);
		else
			pattern_fill(e, src.key, p.msg_off, n);
	}
	total.checked += hi - lo;
	const unsigned char *got = buf + base + lo;
	if (std::memcmp(got, expected.data(), hi - lo) == 0)
		return true;

	std::size_t first = SIZE_MAX;
	std::size_t bad = 0;
	for (std::size_t i = 0; i < hi - lo; ++i) {
		if (got[i] != expected[i]) {
			first = std::min(first, i);
			++bad;
		}
	}
	++total.data_errors;
	if (total.data_errors > data_errors_printed)
		return false;
	const std::size_t at = lo + first; /* from the slot's base */
	std::string where = "a guard byte";
	for (std::size_t i = 0; i < v.size(); ++i) {
		if (at >= v[i].off && at < std::size_t{v[i].off} + v[i].len) {
			const std::size_t m = v[i].msg_off + (at - v[i].off);

			where = "SGE " + std::to_string(i) + ", message byte " +
				std::to_string(m);
			if (m >= data_len)
				where += " (past the data: must be untouched)";
			break;
		}
	}
	std::printf("FAIL: %s: %s byte at slot offset %zu (%s) is %#04x, "
		    "expected %#04x; %zu of %zu bytes differ\n",
		    what.c_str(), bufname, at, where.c_str(), got[first],
		    expected[first], bad, hi - lo);
	return false;
}

/* target[lo, hi) of the slot at base equals the shadow. */
bool check_target(const std::string &what, const endpoint &t, std::size_t base,
		  std::size_t lo, std::size_t hi, std::size_t data_lo,
		  std::size_t data_hi)
{
	const unsigned char *got = t.target.data() + base;
	const unsigned char *want = t.shadow.data() + base;

	total.checked += hi - lo;
	if (std::memcmp(got + lo, want + lo, hi - lo) == 0)
		return true;
	std::size_t first = SIZE_MAX;
	std::size_t bad = 0;
	for (std::size_t i = lo; i < hi; ++i) {
		if (got[i] != want[i]) {
			first = std::min(first, i);
			++bad;
		}
	}
	++total.data_errors;
	if (total.data_errors > data_errors_printed)
		return false;
	const char *where = first < data_lo    ? "guard before the range"
			    : first >= data_hi ? "guard after the range"
					       : "written range";
	std::printf("FAIL: %s: target byte at slot offset %zu (%s, byte %td "
		    "of the range) is %#04x, expected %#04x; %zu of %zu bytes "
		    "differ\n",
		    what.c_str(), first, where,
		    static_cast<std::ptrdiff_t>(first) -
			    static_cast<std::ptrdiff_t>(data_lo),
		    got[first], want[first], bad, hi - lo);
	return false;
}

std::size_t counter_at(const config &c, unsigned int i)
{
	/* A guard word before each counter. */
	return c.counter_off + 8 + 16 * std::size_t{i};
}

/* ---- set-up ----------------------------------------------------------------------- */

constexpr int acc_local = IBV_ACCESS_LOCAL_WRITE;
constexpr int acc_remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

bool make_endpoint(endpoint &e, device_with_pd &d, const config &c)
{
	ibv_context *ctx = d.ctx.get();
	const int cqe = static_cast<int>(c.opt.depth) + 1;

	e.dev = &d;
	e.local.resize(c.local_size);
	e.recv.resize(c.recv_size);
	e.target.resize(c.target_size);
	e.shadow.resize(c.target_size);
	e.scq.reset(ibv_create_cq(ctx, cqe, nullptr, nullptr, 0));
	e.rcq.reset(ibv_create_cq(ctx, cqe, nullptr, nullptr, 0));
	if (!e.scq || !e.rcq) {
		std::printf("FAIL: create_cq on %s: %s\n", d.name.c_str(),
			    std::strerror(errno));
		return false;
	}
	for (mr_ptr &mr : e.local_mr)
		mr.reset(ibv_reg_mr(d.pd.get(), e.local.data(), e.local.size(),
				    acc_local));
	e.recv_mr.reset(ibv_reg_mr(d.pd.get(), e.recv.data(), e.recv.size(),
				   acc_local));
	e.target_mr.reset(ibv_reg_mr(d.pd.get(), e.target.data(),
				     e.target.size(), acc_remote));
	if (!e.local_mr[0] || !e.local_mr[1] || !e.recv_mr || !e.target_mr) {
		std::printf("FAIL: reg_mr on %s (%zu + %zu + %zu bytes): %s\n",
			    d.name.c_str(), e.local.size(), e.recv.size(),
			    e.target.size(), std::strerror(errno));
		return false;
	}

	ibv_qp_init_attr ia{};
	ia.send_cq = e.scq.get();
	ia.recv_cq = e.rcq.get();
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 1;
	ia.cap.max_send_wr = c.opt.depth;
	ia.cap.max_recv_wr = c.opt.depth;
	ia.cap.max_send_sge = std::max(c.send_sge, c.rd_sge);
	ia.cap.max_recv_sge = c.recv_sge;
	ia.cap.max_inline_data = c.max_inline;
	e.qp.reset(ibv_create_qp(d.pd.get(), &ia));
	if (!e.qp && ia.cap.max_inline_data != 0) {
		/* A device without inline data: sends without it. */
		ia.cap.max_inline_data = 0;
		e.qp.reset(ibv_create_qp(d.pd.get(), &ia));
	}
	if (!e.qp) {
		std::printf("FAIL: create_qp on %s (depth %u, %u SGEs, inline "
			    "%u): %s\n",
			    d.name.c_str(), c.opt.depth, ia.cap.max_send_sge,
			    c.max_inline, std::strerror(errno));
		return false;
	}
	return true;
}

/* Target memory of a stream: its init pattern, mirrored by the shadow. */
void init_target(endpoint &t, std::uint64_t skey)
{
	pattern_fill(t.target.data(), mix64(skey ^ salt_init), 0,
		     t.target.size());
	std::memcpy(t.shadow.data(), t.target.data(), t.target.size());
}

bool modify(ibv_qp *qp, ibv_qp_attr &a, int mask, const char *what)
{
	const int ret = ibv_modify_qp(qp, &a, mask);

	if (ret != 0)
		std::printf("FAIL: modify_qp to %s: %s\n", what,
			    std::strerror(ret));
	return ret == 0;
}

bool connect_one(const config &c, endpoint &e, const endpoint &peer)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = static_cast<unsigned int>(acc_remote);
	if (!modify(e.qp.get(), a, init_mask, "INIT"))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c.opt.mtu;
	a.dest_qp_num = peer.qp->qp_num;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = c.rd_atomic;
	a.min_rnr_timer = 12; /* 0.64 ms */
	a.ah_attr = roce_av(*e.dev, *peer.dev);
	return modify(e.qp.get(), a, rtr_mask, "RTR");
}

bool to_rts(const config &c, endpoint &e)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTS;
	a.timeout = static_cast<std::uint8_t>(c.opt.timeout);
	a.retry_cnt = static_cast<std::uint8_t>(c.opt.retry_cnt);
	a.rnr_retry = static_cast<std::uint8_t>(c.opt.rnr_retry);
	a.sq_psn = e.psn;
	a.max_rd_atomic = c.rd_atomic;
	return modify(e.qp.get(), a, rts_mask, "RTS");
}

/*
 * Pair i: endpoints on A and B, connected, and its two streams with their
 * share of the budget.  PSNs are seeded too; half start just below the
 * 2^24 wrap.
 */
bool make_pair(const config &c, pair_state &p, unsigned int i,
	       device_with_pd &a, device_with_pd &b)
{
	device_with_pd *devs[2] = {&a, &b};
	rng r{mix64(c.opt.seed ^ salt_psn ^ i)};
	const unsigned int streams = 2 * c.opt.qps;

	for (unsigned int x = 0; x < 2; ++x) {
		p.ep[x] = std::make_unique<endpoint>();
		if (!make_endpoint(*p.ep[x], *devs[x], c))
			return false;
		p.ep[x]->psn = r.below(2) != 0 ? 0xffffff - r.below32(2000)
					       : r.below32(0x1000000);
	}
	for (unsigned int x = 0; x < 2; ++x) {
		stream &s = p.st[x];
		const unsigned int n = 2 * i + x;

		s.qpi = i;
		s.dir = x;
		s.req = p.ep[x].get();
		s.resp = p.ep[1 - x].get();
		s.key = mix64(c.opt.seed ^ mix64(salt_stream + n));
		s.ops_budget = c.opt.ops == 0
				       ? UINT64_MAX
				       : c.opt.ops / streams +
						 (n < c.opt.ops % streams);
		s.bytes_budget = c.opt.bytes == 0
					 ? UINT64_MAX
					 : c.opt.bytes / streams +
						   (n < c.opt.bytes % streams);
		init_target(*s.resp, s.key);
	}
	return connect_one(c, *p.ep[0], *p.ep[1]) &&
	       connect_one(c, *p.ep[1], *p.ep[0]) && to_rts(c, *p.ep[0]) &&
	       to_rts(c, *p.ep[1]);
}

/* ---- posting --------------------------------------------------------------------- */

bool in_budget(const stream &s, std::uint64_t seq, std::uint64_t bytes_before)
{
	return seq < s.ops_budget && bytes_before < s.bytes_budget;
}

/* Receives for the coming SENDs and WRITE_IMMs, as one list. */
void post_recvs(const config &c, stream &s)
{
	std::vector<ibv_recv_wr> wrs;
	std::vector<ibv_sge> sges;
	endpoint &e = *s.resp;
	const std::uint32_t depth = c.opt.depth;

	/* Stable storage: no reallocation while the list is built. */
	wrs.reserve(depth);
	sges.reserve(std::size_t{depth} * c.recv_sge);
	for (unsigned int steps = 0;
	     !s.rcur_end && s.rq.size() < depth && steps < 256; ++steps) {
		if (!in_budget(s, s.rcur_seq, s.rcur_bytes)) {
			s.rcur_end = true;
			break;
		}
		op_desc d = make_desc(c, s.key, s.rcur_seq);
		const std::uint64_t seq = s.rcur_seq++;

		s.rcur_bytes += op_bytes(d);
		if (!consumes_recv(d.kind))
			continue;
		const std::size_t base = (s.recv_posted % depth) * c.recv_slot;
		const auto [lo, hi] = span_of(d.recv);

		guard_fill(c, e.recv.data(), base + lo, base + hi);
		ibv_recv_wr wr{};
		wr.wr_id = make_wrid(s, true, s.recv_posted);
		wr.num_sge = static_cast<int>(d.recv.size());
		wr.sg_list = sges.data() + sges.size();
		for (const piece &p : d.recv)
			sges.push_back({reinterpret_cast<std::uintptr_t>(
						e.recv.data() + base + p.off),
					p.len, e.recv_mr->lkey});
		if (wr.num_sge == 0)
			wr.sg_list = nullptr;
		wrs.push_back(wr);
		s.rq.push_back({s.recv_posted, seq, std::move(d)});
		if (s.rq.size() == 1)
			s.rq_progress = clock_type::now();
		++s.recv_posted;
	}
	if (wrs.empty())
		return;
	for (std::size_t i = 0; i + 1 < wrs.size(); ++i)
		wrs[i].next = &wrs[i + 1];
	ibv_recv_wr *bad = nullptr;
	const int ret = ibv_post_recv(e.qp.get(), wrs.data(), &bad);
	if (ret != 0)
		fatal(stream_name(s) + ": post_recv of " +
		      std::to_string(wrs.size()) +
		      " receives failed: " + std::strerror(ret));
}

/* Operations up to the depth, as one list. */
void post_sends(const config &c, stream &s)
{
	std::vector<ibv_send_wr> wrs;
	std::vector<ibv_sge> sges;
	endpoint &e = *s.req;
	endpoint &t = *s.resp;
	const std::uint32_t depth = c.opt.depth;

	wrs.reserve(depth);
	sges.reserve(std::size_t{depth} * std::max(c.send_sge, c.rd_sge));
	while (!s.done_posting && s.sq.size() < depth) {
		if (!in_budget(s, s.next_seq, s.bytes_posted)) {
			s.done_posting = true;
			break;
		}
		op_rec rec;
		rec.seq = s.next_seq;
		rec.d = make_desc(c, s.key, s.next_seq);
		const op_desc &d = rec.d;
		if (consumes_recv(d.kind)) {
			/* Never ahead of the receiver. */
			if (s.recv_posted <= s.consumers_posted)
				break;
			rec.recv_index = s.consumers_posted++;
		}
		const std::size_t base = (rec.seq % depth) * c.local_slot;
		const std::size_t tbase = (rec.seq % depth) * c.target_slot;
		unsigned char *lb = e.local.data() + base;

		if (d.kind == op_read || is_atomic(d.kind)) {
			const auto [lo, hi] = span_of(d.local);
			guard_fill(c, e.local.data(), base + lo, base + hi);
		} else {
			for (const piece &p : d.local)
				pattern_fill(lb + p.off, d.data_key, p.msg_off,
					     p.len);
		}
		ibv_send_wr wr{};
		wr.wr_id = make_wrid(s, false, rec.seq);
		wr.opcode = wr_opcode(d.kind);
		wr.send_flags = IBV_SEND_SIGNALED;
		if (d.inl)
			wr.send_flags |= IBV_SEND_INLINE;
		wr.num_sge = static_cast<int>(d.local.size());
		wr.sg_list =
			d.local.empty() ? nullptr : sges.data() + sges.size();
		for (const piece &p : d.local)
			sges.push_back(
				{reinterpret_cast<std::uintptr_t>(lb + p.off),
				 p.len, e.local_mr[p.alt ? 1 : 0]->lkey});
		if (has_imm(d.kind))
			wr.imm_data = htonl(d.imm);
		if (is_atomic(d.kind)) {
			const std::size_t co = counter_at(c, d.counter);
			const std::uint64_t cur = load64(t.shadow.data() + co);
			std::uint64_t now = cur + d.operand;

			wr.wr.atomic.remote_addr =
				reinterpret_cast<std::uintptr_t>(
					t.target.data() + co);
			wr.wr.atomic.rkey = t.target_mr->rkey;
			wr.wr.atomic.compare_add = d.operand;
			if (d.kind == op_cmp_swp) {
				const std::uint64_t cmp =
					d.cmp_match ? cur : d.operand;

				wr.wr.atomic.compare_add = cmp;
				wr.wr.atomic.swap = d.swap;
				rec.swaps = cmp == cur;
				now = rec.swaps ? d.swap : cur;
			}
			/* RC executes in order: the value it will see. */
			rec.expect = cur;
			store64(t.shadow.data() + co, now);
		} else if (d.kind != op_send && d.kind != op_send_imm) {
			wr.wr.rdma.remote_addr =
				reinterpret_cast<std::uintptr_t>(
					t.target.data() + tbase + d.remote_off);
			wr.wr.rdma.rkey = t.target_mr->rkey;
		}
		wrs.push_back(wr);
		s.bytes_posted += op_bytes(d);
		if (s.sq.empty())
			s.sq_progress = clock_type::now();
		s.sq.push_back(std::move(rec));
		++s.next_seq;
	}
	if (wrs.empty())
		return;
	for (std::size_t i = 0; i + 1 < wrs.size(); ++i)
		wrs[i].next = &wrs[i + 1];
	ibv_send_wr *bad = nullptr;
	const int ret = ibv_post_send(e.qp.get(), wrs.data(), &bad);
	if (ret != 0) {
		const std::size_t at =
			bad != nullptr
				? static_cast<std::size_t>(bad - wrs.data())
				: 0;
		const op_rec &r = s.sq[s.sq.size() - wrs.size() + at];

		fatal(op_label(s, r.seq, r.d) + ": post_send failed: " +
		      std::strerror(ret) + " (WR " + std::to_string(at) +
		      " of a list of " + std::to_string(wrs.size()) + ")");
	}
}

/* ---- completions ------------------------------------------------------------ */

/* A successful completion of r: its data checks. */
void verify_send(const config &c, stream &s, const op_rec &r)
{
	const op_desc &d = r.d;
	const std::size_t depth = c.opt.depth;
	const std::size_t base = (r.seq % depth) * c.local_slot;
	const std::size_t tbase = (r.seq % depth) * c.target_slot;
	endpoint &e = *s.req;
	endpoint &t = *s.resp;

	switch (d.kind) {
	case op_write:
	case op_write_imm: {
		/* The shadow learns the write, the target must match it. */
		pattern_fill(t.shadow.data() + tbase + d.remote_off, d.data_key,
			     0, d.len);
		check_target(op_label(s, r.seq, d), t, tbase,
			     d.remote_off - guard_len,
			     std::size_t{d.remote_off} + d.len + guard_len,
			     d.remote_off, std::size_t{d.remote_off} + d.len);
		break;
	}
	case op_read: {
		const source src{0, t.shadow.data() + tbase + d.remote_off};

		check_scatter(c, op_label(s, r.seq, d), "local", e.local.data(),
			      base, d.local, d.len, src);
		break;
	}
	case op_fetch_add:
	case op_cmp_swp: {
		unsigned char want[8];

		store64(want, r.expect);
		const source src{0, want};
		if (!check_scatter(c, op_label(s, r.seq, d), "result",
				   e.local.data(), base, d.local, 8, src) &&
		    total.data_errors <= data_errors_printed)
			std::printf(
				"  %s returned %#" PRIx64
				", expected the counter's %#" PRIx64
				" (operand %#" PRIx64 ")\n",
				op_names[d.kind],
				load64(e.local.data() + base + d.local[0].off),
				r.expect, d.operand);
		total.swapped += r.swaps;
		break;
	}
	default:
		break;
	}
}

void on_send_wc(const config &c, pair_state &p, unsigned int x,
		const ibv_wc &wc)
{
	stream &s = p.st[x];
	endpoint &e = *p.ep[x];

	if (s.sq.empty()) {
		print_wc(wc);
		fatal(stream_name(s) + ": a send completion (" +
		      wrid_str(wc.wr_id) +
		      ") with nothing outstanding: a duplicate?");
		return;
	}
	const op_rec &r = s.sq.front();
	const std::string what = op_label(s, r.seq, r.d);
	if (wc.wr_id != make_wrid(s, false, r.seq) ||
	    wc.qp_num != e.qp->qp_num) {
		print_wc(wc);
		fatal(what + ": expected its completion (" +
		      wrid_str(make_wrid(s, false, r.seq)) + ", qp " +
		      std::to_string(e.qp->qp_num) + "), got " +
		      wrid_str(wc.wr_id) + " on qp " +
		      std::to_string(wc.qp_num) +
		      ((wc.wr_id & wrid_num_mask) < r.seq ? ": a duplicate"
							  : ": out of order"));
		return;
	}
	s.sq_progress = clock_type::now();
	if (wc.status != IBV_WC_SUCCESS) {
		if (wc.status == IBV_WC_RETRY_EXC_ERR && c.opt.expect_fail_ok &&
		    !e.sq_error && !p.err_moved) {
			std::printf("%s: %s: transport retries exhausted; a "
				    "clean failure (--expect-fail-ok): the QP "
				    "pair stops\n",
				    what.c_str(), ibv_wc_status_str(wc.status));
			e.sq_error = true;
			p.stopping = true;
			p.failed = true;
			++total.clean_failures;
		} else if (wc.status == IBV_WC_WR_FLUSH_ERR &&
			   (e.sq_error || p.err_moved)) {
			++total.flushed;
		} else {
			print_wc(wc);
			fatal(what + ": completion status " +
			      ibv_wc_status_str(wc.status) + " (" +
			      std::to_string(wc.status) +
			      "), expected success" +
			      (e.sq_error ? " or a flush after the retry "
					    "error"
					  : ""));
			return;
		}
		/* Whatever it did to the target is unknown now. */
		s.poisoned = true;
		s.sq.pop_front();
		return;
	}
	if (wc.opcode != wc_opcode(r.d.kind)) {
		print_wc(wc);
		fatal(what + ": completion opcode " +
		      std::to_string(wc.opcode) + ", expected " +
		      std::to_string(wc_opcode(r.d.kind)));
		return;
	}
	verify_send(c, s, r);
	++total.ops[r.d.kind];
	total.bytes += op_bytes(r.d);
	total.inline_ops += r.d.inl;
	total.zero_len += r.d.len == 0;
	total.multi_sge += r.d.local.size() > 1;
	if (consumes_recv(r.d.kind)) {
		if (r.recv_index >= s.first_flushed) {
			fatal(what +
			      ": completed successfully, but its "
			      "receive (number " +
			      std::to_string(r.recv_index) + ") was flushed");
			return;
		}
		if (s.recv_ok == s.recv_due)
			s.rq_progress = clock_type::now();
		++s.recv_due;
	}
	s.sq.pop_front();
}

void poll_sq(const config &c, pair_state &p, unsigned int x, bool &moved)
{
	ibv_wc wc[16];

	while (!aborted) {
		const int n = ibv_poll_cq(p.ep[x]->scq.get(), 16, wc);

		if (n < 0) {
			fatal(stream_name(p.st[x]) + ": poll_cq (send) " +
			      "returned " + std::to_string(n));
			return;
		}
		if (n == 0)
			return;
		moved = true;
		for (int i = 0; i < n && !aborted; ++i)
			on_send_wc(c, p, x, wc[i]);
	}
}

/* A completion of ep[x]'s receive queue: stream st[1 - x]. */
void on_recv_wc(const config &c, pair_state &p, unsigned int x,
		const ibv_wc &wc)
{
	stream &s = p.st[1 - x];
	endpoint &e = *p.ep[x];

	if (s.rq.empty()) {
		print_wc(wc);
		fatal(stream_name(s) + ": a receive completion (" +
		      wrid_str(wc.wr_id) +
		      ") with no receive outstanding: a duplicate?");
		return;
	}
	const recv_rec &r = s.rq.front();
	const std::string what = op_label(s, r.seq, r.d) + ", receive " +
				 std::to_string(r.index);
	if (wc.wr_id != make_wrid(s, true, r.index) ||
	    wc.qp_num != e.qp->qp_num) {
		print_wc(wc);
		fatal(what + ": expected its completion (" +
		      wrid_str(make_wrid(s, true, r.index)) + "), got " +
		      wrid_str(wc.wr_id) + " on qp " +
		      std::to_string(wc.qp_num));
		return;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		bool explained = e.sq_error || p.err_moved;
		if (!explained && wc.status == IBV_WC_WR_FLUSH_ERR) {
			/* Its send queue's error may not be polled yet. */
			bool moved = false;

			poll_sq(c, p, x, moved);
			explained = e.sq_error || p.err_moved;
		}
		if (aborted)
			return;
		if (wc.status != IBV_WC_WR_FLUSH_ERR || !explained) {
			print_wc(wc);
			fatal(what + ": receive completion status " +
			      ibv_wc_status_str(wc.status) + " (" +
			      std::to_string(wc.status) + "), expected " +
			      (explained ? "success or a flush"
					 : "success (the QP reported no "
					   "error)"));
			return;
		}
		if (r.index < s.recv_due) {
			fatal(what + ": flushed, but its message's send "
				     "completed successfully");
			return;
		}
		s.first_flushed = std::min(s.first_flushed, r.index);
		++total.flushed;
		s.rq_progress = clock_type::now();
		s.rq.pop_front();
		return;
	}
	const op_desc &d = r.d;
	const bool imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
	const ibv_wc_opcode op = d.kind == op_write_imm
					 ? IBV_WC_RECV_RDMA_WITH_IMM
					 : IBV_WC_RECV;
	if (wc.opcode != op || wc.byte_len != d.len || imm != has_imm(d.kind) ||
	    (imm && wc.imm_data != htonl(d.imm))) {
		print_wc(wc);
		fatal(what + ": expected opcode " + std::to_string(op) +
		      ", byte_len " + std::to_string(d.len) +
		      (has_imm(d.kind) ? ", immediate " + std::to_string(d.imm)
				       : ", no immediate"));
		return;
	}
	const std::size_t base = (r.index % c.opt.depth) * c.recv_slot;
	/* WRITE_WITH_IMM: its receive buffer holds nothing of it. */
	const source src{d.data_key, nullptr};
	check_scatter(c, what, "receive", e.recv.data(), base, d.recv,
		      d.kind == op_write_imm ? 0 : d.len, src);
	++total.recvs;
	++s.recv_ok;
	s.rq_progress = clock_type::now();
	s.rq.pop_front();
}

void poll_rq(const config &c, pair_state &p, unsigned int x, bool &moved)
{
	ibv_wc wc[16];

	while (!aborted) {
		const int n = ibv_poll_cq(p.ep[x]->rcq.get(), 16, wc);

		if (n < 0) {
			fatal(stream_name(p.st[1 - x]) + ": poll_cq (recv) " +
			      "returned " + std::to_string(n));
			return;
		}
		if (n == 0)
			return;
		moved = true;
		for (int i = 0; i < n && !aborted; ++i)
			on_recv_wc(c, p, x, wc[i]);
	}
}

/* ---- the loop ------------------------------------------------------------------ */

double seconds(clock_type::duration d)
{
	return std::chrono::duration<double>(d).count();
}

std::string secs_str(clock_type::duration d)
{
	char buf[32];

	std::snprintf(buf, sizeof(buf), "%.1f", seconds(d));
	return buf;
}

void check_deadlines(const config &c, pair_state &p, clock_type::time_point now)
{
	for (stream &s : p.st) {
		if (!s.sq.empty() && now - s.sq_progress > c.deadline) {
			const op_rec &r = s.sq.front();

			fatal(op_label(s, r.seq, r.d) +
			      ": no completion within " + secs_str(c.deadline) +
			      " s (" + std::to_string(s.sq.size()) +
			      " outstanding): lost");
			return;
		}
		if (s.recv_ok < s.recv_due && !s.rq.empty() &&
		    now - s.rq_progress > c.deadline) {
			const recv_rec &r = s.rq.front();

			fatal(op_label(s, r.seq, r.d) +
			      ": its send completed, " + "but receive " +
			      std::to_string(r.index) + " did not within " +
			      secs_str(c.deadline) + " s: lost");
			return;
		}
		if (p.err_moved && !s.rq.empty() &&
		    now - s.rq_progress > c.deadline) {
			fatal(stream_name(s) + ": " +
			      std::to_string(s.rq.size()) +
			      " receives not flushed after the QP went to "
			      "ERROR");
			return;
		}
	}
}

/*
 * After a clean failure: the send queues drain (success, the retry error,
 * flushes), the receives of messages sent successfully complete, then
 * both QPs go to ERROR and the receives left flush.
 */
void advance_stop(pair_state &p)
{
	if (!p.st[0].sq.empty() || !p.st[1].sq.empty())
		return;
	if (!p.err_moved) {
		for (const stream &s : p.st)
			if (s.recv_ok < s.recv_due)
				return;
		for (auto &e : p.ep) {
			ibv_qp_attr a{};

			a.qp_state = IBV_QPS_ERR;
			if (ibv_modify_qp(e->qp.get(), &a, IBV_QP_STATE) != 0) {
				fatal(stream_name(p.st[0]) +
				      ": modify_qp to ERROR failed");
				return;
			}
		}
		p.err_moved = true;
		for (stream &s : p.st)
			s.rq_progress = clock_type::now();
	}
	if (p.st[0].rq.empty() && p.st[1].rq.empty())
		p.done = true;
}

bool stream_finished(const stream &s)
{
	return s.done_posting && s.sq.empty() && s.rcur_end && s.rq.empty();
}

struct progress_state {
	clock_type::time_point start;
	clock_type::time_point last;
	std::uint64_t last_bytes = 0;
};

std::size_t in_flight(const std::vector<std::unique_ptr<pair_state>> &pairs)
{
	std::size_t n = 0;

	for (const auto &p : pairs)
		for (const stream &s : p->st)
			n += s.sq.size();
	return n;
}

void print_counts()
{
	for (unsigned int k = 0; k < op_kinds; ++k)
		std::printf(" %s %" PRIu64, op_names[k], total.ops[k]);
}

std::uint64_t total_ops()
{
	std::uint64_t n = 0;

	for (const std::uint64_t v : total.ops)
		n += v;
	return n;
}

void print_progress(progress_state &ps,
		    const std::vector<std::unique_ptr<pair_state>> &pairs)
{
	const auto now = clock_type::now();
	const double t = seconds(now - ps.start);
	const double dt = seconds(now - ps.last);
	const double mib = static_cast<double>(total.bytes) / (1 << 20);

	std::printf("[%7.1f s] %" PRIu64 " ops, %.1f MiB, %.2f MB/s "
		    "(now %.2f):",
		    t, total_ops(), mib,
		    t > 0 ? static_cast<double>(total.bytes) / t / 1e6 : 0.0,
		    dt > 0 ? static_cast<double>(total.bytes - ps.last_bytes) /
				     dt / 1e6
			   : 0.0);
	print_counts();
	std::printf("; in flight %zu, errors %" PRIu64 "\n", in_flight(pairs),
		    total.data_errors + total.fatal);
	ps.last = now;
	ps.last_bytes = total.bytes;
}

void run(const config &c, std::vector<std::unique_ptr<pair_state>> &pairs,
	 progress_state &ps)
{
	const auto every = std::chrono::duration_cast<clock_type::duration>(
		std::chrono::duration<double>(c.opt.progress));
	auto next_progress = ps.start + every;
	unsigned int idle = 0;

	for (;;) {
		bool moved = false;
		bool all_done = true;

		for (auto &pp : pairs) {
			pair_state &p = *pp;

			if (p.done)
				continue;
			for (unsigned int x = 0; x < 2 && !aborted; ++x) {
				poll_sq(c, p, x, moved);
				poll_rq(c, p, x, moved);
			}
			if (aborted)
				return;
			if (p.stopping) {
				advance_stop(p);
			} else {
				for (stream &s : p.st) {
					const std::uint64_t before =
						s.next_seq + s.recv_posted;

					post_recvs(c, s);
					post_sends(c, s);
					moved |= s.next_seq + s.recv_posted !=
						 before;
				}
				p.done = stream_finished(p.st[0]) &&
					 stream_finished(p.st[1]);
			}
			if (aborted)
				return;
			const auto now = clock_type::now();
			check_deadlines(c, p, now);
			if (aborted)
				return;
			all_done &= p.done;
		}
		if (all_done)
			return;
		if (c.opt.progress > 0 && !c.opt.quiet) {
			const auto now = clock_type::now();

			if (now >= next_progress) {
				print_progress(ps, pairs);
				next_progress = now + every;
			}
		}
		/* Leave the CPU to the kernel's side when nothing moves. */
		if (moved) {
			idle = 0;
		} else if (++idle > 64) {
			usleep(50);
		}
	}
}

/*
 * After the run: no completion left over anywhere, every QP not failed
 * still in RTS, every target memory as its shadow says.
 */
void final_checks(const config &c,
		  std::vector<std::unique_ptr<pair_state>> &pairs)
{
	usleep(static_cast<useconds_t>(20000 * timeout_scale()));
	for (auto &pp : pairs) {
		pair_state &p = *pp;

		for (unsigned int x = 0; x < 2; ++x) {
			ibv_wc wc{};

			if (ibv_poll_cq(p.ep[x]->scq.get(), 1, &wc) != 0 ||
			    ibv_poll_cq(p.ep[x]->rcq.get(), 1, &wc) != 0) {
				print_wc(wc);
				fatal(stream_name(p.st[x]) +
				      ": a completion after all work was done "
				      "(" +
				      wrid_str(wc.wr_id) + ")");
			}
			if (!p.failed) {
				ibv_qp_attr a{};
				ibv_qp_init_attr ia{};

				if (ibv_query_qp(p.ep[x]->qp.get(), &a,
						 IBV_QP_STATE, &ia) != 0 ||
				    a.qp_state != IBV_QPS_RTS)
					fatal(stream_name(p.st[x]) +
					      ": the QP is not in RTS at the "
					      "end (state " +
					      std::to_string(a.qp_state) + ")");
			}
		}
		for (const stream &s : p.st) {
			if (s.poisoned)
				continue;
			const endpoint &t = *s.resp;
			const std::string what =
				stream_name(s) + ": final sweep of the target";

			check_target(what, t, 0, 0, c.counter_off, 0,
				     c.counter_off);
			check_target(what + " counters", t, c.counter_off, 0,
				     t.target.size() - c.counter_off, 0, 0);
		}
	}
}

/* ---- options ------------------------------------------------------------------- */

void usage(const char *argv0)
{
	std::fprintf(
		stderr,
		"usage: %s --dev-a NAME --dev-b NAME [--gid-a N] [--gid-b N]\n"
		"       [--qps N] [--seed S] [--bytes TOTAL] [--ops COUNT]\n"
		"       [--max-size BYTES] [--max-sge N] [--depth N]\n"
		"       [--mix send=W,write=W,write_imm=W,read=W,atomic=W]\n"
		"       [--mtu 256|512|1024|2048|4096] [--timeout T]\n"
		"       [--retry-cnt C] [--rnr-retry R] [--expect-fail-ok]\n"
		"       [--deadline SECONDS] [--progress SECONDS] [--quiet]\n",
		argv0);
}

/* A number with an optional K, M or G (binary) suffix. */
bool parse_num(const char *s, std::uint64_t &out, std::uint64_t max)
{
	char *end = nullptr;

	errno = 0;
	if (*s == '-' || *s == '\0')
		return false;
	std::uint64_t v = std::strtoull(s, &end, 0);
	if (errno != 0 || end == s)
		return false;
	unsigned int shift = 0;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift != 0) {
		++end;
		if (v > (UINT64_MAX >> shift))
			return false;
		v <<= shift;
	}
	if (*end != '\0' || v > max)
		return false;
	out = v;
	return true;
}

bool parse_double(const char *s, double &out)
{
	char *end = nullptr;
	const double v = std::strtod(s, &end);

	if (end == s || *end != '\0' || !(v >= 0))
		return false;
	out = v;
	return true;
}

bool parse_mix(std::string_view s, unsigned int (&w)[5])
{
	static constexpr std::string_view keys[5] = {
		"send", "write", "write_imm", "read", "atomic"};
	unsigned int v[5] = {};

	while (!s.empty()) {
		const std::size_t comma = s.find(',');
		const std::string_view item = s.substr(0, comma);
		const std::size_t eq = item.find('=');
		bool found = false;

		if (eq == std::string_view::npos)
			return false;
		const std::string num(item.substr(eq + 1));
		std::uint64_t n = 0;
		if (!parse_num(num.c_str(), n, 1000000))
			return false;
		for (std::size_t k = 0; k < 5; ++k) {
			if (item.substr(0, eq) == keys[k]) {
				v[k] = static_cast<unsigned int>(n);
				found = true;
			}
		}
		if (!found)
			return false;
		s = comma == std::string_view::npos ? std::string_view{}
						    : s.substr(comma + 1);
	}
	if (v[0] + v[1] + v[2] + v[3] + v[4] == 0)
		return false;
	std::copy(std::begin(v), std::end(v), std::begin(w));
	return true;
}

bool parse_mtu(const char *s, ibv_mtu &mtu)
{
	const std::string_view v = s;

	if (v == "256")
		mtu = IBV_MTU_256;
	else if (v == "512")
		mtu = IBV_MTU_512;
	else if (v == "1024")
		mtu = IBV_MTU_1024;
	else if (v == "2048")
		mtu = IBV_MTU_2048;
	else if (v == "4096")
		mtu = IBV_MTU_4096;
	else
		return false;
	return true;
}

enum opt_id : int {
	o_dev_a = 256,
	o_dev_b,
	o_gid_a,
	o_gid_b,
	o_qps,
	o_seed,
	o_bytes,
	o_ops,
	o_max_size,
	o_max_sge,
	o_depth,
	o_mix,
	o_mtu,
	o_timeout,
	o_retry_cnt,
	o_rnr_retry,
	o_expect_fail_ok,
	o_deadline,
	o_progress,
	o_quiet,
	o_help,
};

/* 0: parsed; 2: usage error (printed). */
int parse_options(int argc, char **argv, options &o)
{
	static const option longopts[] = {
		{"dev-a", required_argument, nullptr, o_dev_a},
		{"dev-b", required_argument, nullptr, o_dev_b},
		{"gid-a", required_argument, nullptr, o_gid_a},
		{"gid-b", required_argument, nullptr, o_gid_b},
		{"qps", required_argument, nullptr, o_qps},
		{"seed", required_argument, nullptr, o_seed},
		{"bytes", required_argument, nullptr, o_bytes},
		{"ops", required_argument, nullptr, o_ops},
		{"max-size", required_argument, nullptr, o_max_size},
		{"max-sge", required_argument, nullptr, o_max_sge},
		{"depth", required_argument, nullptr, o_depth},
		{"mix", required_argument, nullptr, o_mix},
		{"mtu", required_argument, nullptr, o_mtu},
		{"timeout", required_argument, nullptr, o_timeout},
		{"retry-cnt", required_argument, nullptr, o_retry_cnt},
		{"rnr-retry", required_argument, nullptr, o_rnr_retry},
		{"expect-fail-ok", no_argument, nullptr, o_expect_fail_ok},
		{"deadline", required_argument, nullptr, o_deadline},
		{"progress", required_argument, nullptr, o_progress},
		{"quiet", no_argument, nullptr, o_quiet},
		{"help", no_argument, nullptr, o_help},
		{nullptr, 0, nullptr, 0},
	};
	int ch = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
		std::uint64_t v = 0;
		bool ok = true;

		switch (ch) {
		case o_dev_a:
			o.dev_a = optarg;
			break;
		case o_dev_b:
			o.dev_b = optarg;
			break;
		case o_gid_a:
		case o_gid_b:
			ok = parse_num(optarg, v, 65535);
			(ch == o_gid_a ? o.gid_a : o.gid_b) =
				static_cast<int>(v);
			break;
		case o_qps:
			ok = parse_num(optarg, v, 4096) && v > 0;
			o.qps = static_cast<unsigned int>(v);
			break;
		case o_seed:
			ok = parse_num(optarg, o.seed, UINT64_MAX);
			o.seed_given = true;
			break;
		case o_bytes:
			ok = parse_num(optarg, o.bytes, UINT64_MAX) &&
			     o.bytes > 0;
			break;
		case o_ops:
			ok = parse_num(optarg, o.ops, UINT64_MAX) && o.ops > 0;
			break;
		case o_max_size:
			ok = parse_num(optarg, v, std::uint64_t{1} << 30U);
			o.max_size = static_cast<std::uint32_t>(v);
			break;
		case o_max_sge:
			ok = parse_num(optarg, v, 1024) && v > 0;
			o.max_sge = static_cast<std::uint32_t>(v);
			break;
		case o_depth:
			ok = parse_num(optarg, v, 65536) && v > 0;
			o.depth = static_cast<std::uint32_t>(v);
			break;
		case o_mix:
			ok = parse_mix(optarg, o.weight);
			break;
		case o_mtu:
			ok = parse_mtu(optarg, o.mtu);
			break;
		case o_timeout:
			ok = parse_num(optarg, v, 31);
			o.timeout = static_cast<unsigned int>(v);
			break;
		case o_retry_cnt:
			ok = parse_num(optarg, v, 7);
			o.retry_cnt = static_cast<unsigned int>(v);
			break;
		case o_rnr_retry:
			ok = parse_num(optarg, v, 7);
			o.rnr_retry = static_cast<unsigned int>(v);
			break;
		case o_expect_fail_ok:
			o.expect_fail_ok = true;
			break;
		case o_deadline:
			ok = parse_double(optarg, o.deadline) && o.deadline > 0;
			break;
		case o_progress:
			ok = parse_double(optarg, o.progress);
			break;
		case o_quiet:
			o.quiet = true;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
		if (!ok) {
			std::fprintf(stderr, "%s: bad value for %s: %s\n",
				     argv[0], argv[optind - 1], optarg);
			return 2;
		}
	}
	if (optind != argc || o.dev_a.empty() || o.dev_b.empty()) {
		usage(argv[0]);
		return 2;
	}
	if (o.ops == 0 && o.bytes == 0)
		o.ops = 10000;
	if (!o.seed_given) {
		const auto t = clock_type::now().time_since_epoch().count();

		o.seed = mix64(static_cast<std::uint64_t>(t) ^
			       static_cast<std::uint64_t>(getpid())) &
			 0xffffffffU;
	}
	return 0;
}

/* The command line that replays this run: the seed made explicit. */
std::string replay_line(int argc, char **argv, const options &o)
{
	std::string s = argv[0];

	for (int i = 1; i < argc; ++i)
		s += std::string(" ") + argv[i];
	if (!o.seed_given)
		s += " --seed " + std::to_string(o.seed);
	return s;
}

/*
 * Limits from both devices, buffer geometry, the deadline; false (with a
 * message) when the devices cannot run what was asked.
 */
bool configure(config &c, const device &a, const device &b)
{
	const options &o = c.opt;
	const auto dmin = [&](auto fa, auto fb) {
		return std::min<std::int64_t>(fa, fb);
	};

	c.mtu_bytes = 128U << static_cast<unsigned int>(o.mtu);
	for (const device *d : {&a, &b}) {
		if (d->port.state != IBV_PORT_ACTIVE) {
			std::printf("FAIL: %s: port 1 is not active\n",
				    d->name.c_str());
			return false;
		}
		if (o.mtu > d->port.active_mtu) {
			std::printf("FAIL: %s: path MTU %u is above the "
				    "active MTU %d\n",
				    d->name.c_str(), c.mtu_bytes,
				    128 << d->port.active_mtu);
			return false;
		}
		if (o.max_size > d->port.max_msg_sz) {
			std::printf("FAIL: %s: --max-size %u is above "
				    "max_msg_sz %u\n",
				    d->name.c_str(), o.max_size,
				    d->port.max_msg_sz);
			return false;
		}
		if (static_cast<std::int64_t>(o.depth) > d->attr.max_qp_wr) {
			std::printf("FAIL: %s: --depth %u is above max_qp_wr "
				    "%d\n",
				    d->name.c_str(), o.depth,
				    d->attr.max_qp_wr);
			return false;
		}
	}
	const auto sge = dmin(a.attr.max_sge, b.attr.max_sge);
	const auto sge_rd = dmin(a.attr.max_sge_rd, b.attr.max_sge_rd);
	c.send_sge = static_cast<std::uint32_t>(
		std::clamp<std::int64_t>(sge, 1, o.max_sge));
	c.recv_sge = c.send_sge;
	c.rd_sge = static_cast<std::uint32_t>(
		std::clamp<std::int64_t>(sge_rd, 1, c.send_sge));
	const auto rd = std::min(
		{dmin(a.attr.max_qp_init_rd_atom, b.attr.max_qp_init_rd_atom),
		 dmin(a.attr.max_qp_rd_atom, b.attr.max_qp_rd_atom),
		 std::int64_t{16}, static_cast<std::int64_t>(o.depth)});
	if (rd < 1 && (o.weight[3] != 0 || o.weight[4] != 0)) {
		std::printf("FAIL: the devices allow no outstanding READ or "
			    "atomic (max_qp_rd_atom)\n");
		return false;
	}
	c.rd_atomic = static_cast<std::uint8_t>(std::max<std::int64_t>(rd, 1));
	if (o.weight[4] != 0 && (a.attr.atomic_cap == IBV_ATOMIC_NONE ||
				 b.attr.atomic_cap == IBV_ATOMIC_NONE)) {
		std::printf("FAIL: atomics asked for, but a device has "
			    "atomic_cap NONE\n");
		return false;
	}
	c.max_inline = 128;
	c.local_slot = round_up(std::size_t{o.max_size} +
					std::size_t{c.send_sge + 1} * gap_max +
					2 * std::size_t{guard_len},
				64);
	c.recv_slot = round_up(std::size_t{o.max_size} + recv_slack_max +
				       std::size_t{c.recv_sge + 1} * gap_max +
				       2 * std::size_t{guard_len},
			       64);
	c.target_slot = round_up(std::size_t{o.max_size} + target_jitter +
					 2 * std::size_t{guard_len},
				 64);
	c.local_size = c.local_slot * o.depth + tail_pad;
	c.recv_size = c.recv_slot * o.depth + tail_pad;
	c.counter_off = c.target_slot * o.depth;
	c.target_size =
		c.counter_off + 16 * std::size_t{counters} + 8 + tail_pad;
	/* IBTA: 4.096 us << timeout, retry_cnt + 1 tries; 0 is forever. */
	const double t =
		o.timeout == 0
			? 0
			: 4.096e-6 * static_cast<double>(1ULL << o.timeout);
	double dl = o.deadline > 0 ? o.deadline
				   : std::max(20.0, 4 * t * (o.retry_cnt + 1));
	dl *= timeout_scale();
	c.deadline = std::chrono::duration_cast<clock_type::duration>(
		std::chrono::duration<double>(dl));
	c.guard_key = mix64(o.seed ^ salt_guard);
	return true;
}

/*
 * The QP pairs; then inline sends up to what every QP got (QPs are created
 * asking for c.max_inline bytes, or none where that fails).
 */
bool create_pairs(config &c, std::vector<std::unique_ptr<pair_state>> &pairs,
		  device_with_pd &a, device_with_pd &b)
{
	for (unsigned int i = 0; i < c.opt.qps; ++i) {
		auto p = std::make_unique<pair_state>();

		if (!make_pair(c, *p, i, a, b))
			return false;
		for (auto &e : p->ep) {
			ibv_qp_attr qa{};
			ibv_qp_init_attr ia{};

			if (ibv_query_qp(e->qp.get(), &qa, IBV_QP_CAP, &ia) !=
			    0) {
				std::printf("FAIL: query_qp: %s\n",
					    std::strerror(errno));
				return false;
			}
			c.max_inline =
				std::min(c.max_inline, qa.cap.max_inline_data);
		}
		pairs.push_back(std::move(p));
	}
	return true;
}

void print_summary(const config &c, const progress_state &ps,
		   const std::string &replay)
{
	const double t = seconds(clock_type::now() - ps.start);

	std::printf("summary: %" PRIu64 " ops, %.1f MiB in %.1f s, %.2f MB/s; "
		    "%u QP pairs, both directions\n",
		    total_ops(), static_cast<double>(total.bytes) / (1 << 20),
		    t, t > 0 ? static_cast<double>(total.bytes) / t / 1e6 : 0.0,
		    c.opt.qps);
	std::printf("  ops:");
	print_counts();
	std::printf("\n  receives %" PRIu64 ", CMP_SWP swapped %" PRIu64
		    ", inline %" PRIu64 ", zero-length %" PRIu64
		    ", multi-SGE %" PRIu64 ", bytes compared %" PRIu64 "\n",
		    total.recvs, total.swapped, total.inline_ops,
		    total.zero_len, total.multi_sge, total.checked);
	std::printf("  data errors %" PRIu64 ", completion errors %" PRIu64
		    ", clean failures %" PRIu64 " (flushed %" PRIu64 ")\n",
		    total.data_errors, total.fatal, total.clean_failures,
		    total.flushed);
	std::printf("  seed %" PRIu64 "; replay: %s\n", c.opt.seed,
		    replay.c_str());
}

} /* namespace */

int main(int argc, char **argv)
{
	config c;
	const int pr = parse_options(argc, argv, c.opt);

	if (pr != 0)
		return pr;
	setvbuf(stdout, nullptr, _IOLBF, 0);
	report_failure = report;
	const std::string replay = replay_line(argc, argv, c.opt);
	std::printf("sroce-torture: seed %" PRIu64 "\n", c.opt.seed);

	progress_state ps{clock_type::now(), clock_type::now(), 0};
	bool setup_ok = false;
	{
		/* Devices outlive the pairs (declared first). */
		device_with_pd a;
		device_with_pd b;
		std::vector<std::unique_ptr<pair_state>> pairs;

		setup_ok = open_dev(a, c.opt.dev_a, c.opt.gid_a, c.opt.quiet) &&
			   open_dev(b, c.opt.dev_b, c.opt.gid_b, c.opt.quiet) &&
			   configure(c, a, b) && create_pairs(c, pairs, a, b);
		if (setup_ok) {
			const options &o = c.opt;

			if (!o.quiet)
				std::printf(
					"%u QP pairs %s<->%s, depth %u, sizes "
					"0..%u, %u SGEs (%u for READ), inline "
					"up to %u, path MTU %u, timeout %u "
					"retry_cnt %u rnr_retry %u, "
					"max_rd_atomic %u, deadline %.0f s; "
					"budget %" PRIu64 " ops, %" PRIu64
					" bytes (0: none)\n",
					o.qps, a.name.c_str(), b.name.c_str(),
					o.depth, o.max_size, c.send_sge,
					c.rd_sge, c.max_inline, c.mtu_bytes,
					o.timeout, o.retry_cnt, o.rnr_retry,
					c.rd_atomic, seconds(c.deadline), o.ops,
					o.bytes);
			ps.start = clock_type::now();
			ps.last = ps.start;
			run(c, pairs, ps);
			if (!aborted)
				final_checks(c, pairs);
		}
		if (!setup_ok)
			++total.fatal;
		print_summary(c, ps, replay);
	}
	if (total.fatal != 0 || total.data_errors != 0 || failures != 0) {
		std::printf("FAIL\n");
		return 1;
	}
	if (total.clean_failures != 0) {
		std::printf("CLEAN FAILURE: %" PRIu64
			    " QP(s) ended with IBV_WC_RETRY_EXC_ERR, every "
			    "completion accounted for, everything completed "
			    "verified\n",
			    total.clean_failures);
		return 3;
	}
	std::printf("PASS\n");
	return 0;
}
