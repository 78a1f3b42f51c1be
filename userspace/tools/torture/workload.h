// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * workload.h - sroce-torture's workload generator: what operation number
 * seq of a stream is, and what it must leave behind, as pure functions of
 * (seed, stream, seq).  No libibverbs, no state: the driver (streams.cpp,
 * completions.cpp) posts what this says and the verifier (verify.cpp)
 * compares with it; torture/workload_test.cpp tests it on the host.
 *
 * An operation has a kind (the mix's weights: SEND, half with immediate
 * data; WRITE; WRITE_WITH_IMM; READ; atomics, half FETCH_ADD, half
 * CMP_SWP, three CMP_SWP in four comparing with the counter's value), a
 * size (log-uniform up to the largest, one in eight near a multiple of the
 * path MTU), its SGE layout on both sides (in a slot of the buffer, random
 * offsets and gaps, guard bytes around), a remote offset, immediate data,
 * atomic operands and a payload (a pattern of its data key).
 */
#ifndef SROCE_TOOLS_TORTURE_WORKLOAD_H
#define SROCE_TOOLS_TORTURE_WORKLOAD_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace torture {

/* ---- random numbers and patterns ------------------------------------------ */

/* splitmix64's finaliser: a good 64-bit mix. */
constexpr std::uint64_t mix64(std::uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31U);
}

/* splitmix64. */
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
		  std::size_t len);

/* Salts: the pattern of each purpose differs from every other. */
constexpr std::uint64_t salt_stream = 0x73747265616d0001ULL;
constexpr std::uint64_t salt_guard = 0x6775617264000002ULL;
constexpr std::uint64_t salt_init = 0x696e697400000003ULL;
constexpr std::uint64_t salt_psn = 0x70736e0000000004ULL;

/* The key of stream n (2 * QP pair + direction) of a run seeded seed. */
std::uint64_t stream_key(std::uint64_t seed, unsigned int n);

/* The key of the guard bytes of a run, and of a stream's target memory. */
std::uint64_t guard_key(std::uint64_t seed);
std::uint64_t target_init_key(std::uint64_t skey);

/*
 * The first PSNs of QP pair i's two QPs: seeded, half of them just below
 * the 2^24 wrap.
 */
std::pair<std::uint32_t, std::uint32_t> initial_psns(std::uint64_t seed,
						     unsigned int i);

/* Stream n's share of total (0: no limit, UINT64_MAX) over streams. */
std::uint64_t budget_share(std::uint64_t total, unsigned int streams,
			   unsigned int n);

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

extern const char *const op_names[op_kinds];

/* The families of the mix, the weights of --mix. */
enum family : std::uint8_t {
	fam_send, /* op_send, op_send_imm */
	fam_write,
	fam_write_imm,
	fam_read,
	fam_atomic, /* op_fetch_add, op_cmp_swp */
	families,
};

constexpr bool consumes_recv(op_kind k)
{
	return k == op_send || k == op_send_imm || k == op_write_imm;
}

constexpr bool is_atomic(op_kind k)
{
	return k == op_fetch_add || k == op_cmp_swp;
}

constexpr bool has_imm(op_kind k)
{
	return k == op_send_imm || k == op_write_imm;
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

/* ---- the shape of a run ------------------------------------------------------- */

/* What operations may be: the options, within the devices' limits. */
struct workload {
	unsigned int weight[families] = {4, 3, 2, 3, 2};
	std::uint32_t max_size = 256 * 1024;
	std::uint32_t mtu_bytes = 1024;
	std::uint32_t send_sge = 1; /* gather, and receive scatter */
	std::uint32_t recv_sge = 1;
	std::uint32_t rd_sge = 1; /* READ scatter */
	std::uint32_t max_inline = 0;
	std::size_t target_slot = 0; /* geometry::target_slot */
};

/*
 * The buffers of an endpoint: depth slots each (a slot belongs to one
 * outstanding operation), then tail_pad; the target's counters after its
 * slots, each behind a guard word.
 */
struct geometry {
	std::size_t local_slot = 0;
	std::size_t recv_slot = 0;
	std::size_t target_slot = 0;
	std::size_t counter_off = 0; /* in the target buffer */
	std::size_t local_size = 0;
	std::size_t recv_size = 0;
	std::size_t target_size = 0;
};

/* Slots large enough for every operation of w, depth of them. */
geometry make_geometry(const workload &w, std::uint32_t depth);

/* The offset of atomic counter i in the target buffer. */
std::size_t counter_at(const geometry &g, unsigned int i);

/* ---- drawing ------------------------------------------------------------------ */

/*
 * A message size: log-uniform over 0..max (2^(k-1)..2^k-1 for k drawn
 * uniformly, 0 for k = 0), one in eight a multiple of the path MTU, or
 * one byte less or more.
 */
std::uint32_t draw_size(const workload &w, rng &r);

/*
 * total bytes in pieces of at least one byte, at most max_n of them (one
 * piece half the time), laid out in the slot in a random order with random
 * gaps, guard_len or more from the slot's start.
 */
std::vector<piece> place(rng &r, std::uint32_t total, std::uint32_t max_n,
			 bool alt_keys);

/* An operation kind as the weights of the mix say. */
op_kind pick_kind(const workload &w, rng &r);

/* Operation seq of the stream keyed by skey: a pure function. */
op_desc make_desc(const workload &w, std::uint64_t skey, std::uint64_t seq);

/* The payload bytes an operation counts for. */
inline std::uint64_t op_bytes(const op_desc &d)
{
	return d.len;
}

/* The byte range [lo, hi) of a slot that a scatter list may touch. */
std::pair<std::size_t, std::size_t> span_of(const std::vector<piece> &v);

/* ---- expected results ---------------------------------------------------------- */

/*
 * An atomic d on a counter holding current: the compare value it carries
 * (CMP_SWP), whether it swaps, what it returns (always the value before)
 * and what the counter holds after it.
 */
struct atomic_effect {
	std::uint64_t compare_add = 0; /* the work request's compare_add */
	bool swaps = false;
	std::uint64_t returned = 0;
	std::uint64_t after = 0;
};

atomic_effect apply_atomic(const op_desc &d, std::uint64_t current);

} /* namespace torture */

#endif /* SROCE_TOOLS_TORTURE_WORKLOAD_H */
