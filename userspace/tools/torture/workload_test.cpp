// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * workload_test.cpp - host tests of sroce-torture's workload generator
 * (workload.h): the same seed gives the same operations, and another seed
 * or stream others; the mix has the proportions its weights say; sizes,
 * SGE layouts, remote offsets and receives stay inside their slots and
 * limits; the expected results of atomics follow FETCH_ADD's and
 * CMP_SWP's definitions; patterns, budgets and PSNs are what the driver
 * relies on.
 */
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "workload.h"

namespace {

using namespace torture;

/* The workload of tests/torture.sh's runs on sroce: 4 SGEs, 128 inline. */
workload default_workload(std::uint32_t depth = 16)
{
	workload w;

	w.max_size = 256 * 1024;
	w.mtu_bytes = 1024;
	w.send_sge = 4;
	w.recv_sge = 4;
	w.rd_sge = 4;
	w.max_inline = 128;
	w.target_slot = make_geometry(w, depth).target_slot;
	return w;
}

bool same_pieces(const std::vector<piece> &a, const std::vector<piece> &b)
{
	return std::equal(a.begin(), a.end(), b.begin(), b.end(),
			  [](const piece &x, const piece &y) {
				  return x.off == y.off && x.len == y.len &&
					 x.msg_off == y.msg_off &&
					 x.alt == y.alt;
			  });
}

bool same_op(const op_desc &a, const op_desc &b)
{
	return a.kind == b.kind && a.len == b.len && a.imm == b.imm &&
	       a.inl == b.inl && a.data_key == b.data_key &&
	       same_pieces(a.local, b.local) && a.remote_off == b.remote_off &&
	       a.counter == b.counter && a.operand == b.operand &&
	       a.cmp_match == b.cmp_match && a.swap == b.swap &&
	       same_pieces(a.recv, b.recv) && a.recv_total == b.recv_total;
}

family family_of(op_kind k)
{
	switch (k) {
	case op_send:
	case op_send_imm:
		return fam_send;
	case op_write:
		return fam_write;
	case op_write_imm:
		return fam_write_imm;
	case op_read:
		return fam_read;
	default:
		return fam_atomic;
	}
}

/* n operations of the stream keyed by skey, from seq 0. */
std::vector<op_desc> ops_of(const workload &w, std::uint64_t skey,
			    std::uint64_t n)
{
	std::vector<op_desc> v;

	for (std::uint64_t seq = 0; seq < n; ++seq)
		v.push_back(make_desc(w, skey, seq));
	return v;
}

/*
 * v's pieces hold bytes 0..total of a message, each at least one byte,
 * in order of msg_off without a hole; they do not overlap in the slot and
 * lie guard_len or more inside its [0, slot).
 */
void expect_layout(const std::vector<piece> &v, std::uint32_t total,
		   std::uint32_t max_n, std::size_t slot)
{
	if (total == 0) {
		EXPECT_TRUE(v.empty());
		return;
	}
	ASSERT_FALSE(v.empty());
	EXPECT_LE(v.size(), max_n);
	std::uint32_t msg = 0;
	for (const piece &p : v) {
		EXPECT_GE(p.len, 1U);
		EXPECT_EQ(p.msg_off, msg);
		msg += p.len;
	}
	EXPECT_EQ(msg, total);
	std::vector<piece> by_off = v;
	std::sort(by_off.begin(), by_off.end(),
		  [](const piece &a, const piece &b) { return a.off < b.off; });
	EXPECT_GE(by_off.front().off, guard_len);
	for (std::size_t i = 1; i < by_off.size(); ++i)
		EXPECT_GE(by_off[i].off, by_off[i - 1].off + by_off[i - 1].len);
	const auto [lo, hi] = span_of(v);
	EXPECT_EQ(lo, by_off.front().off - guard_len);
	EXPECT_EQ(hi, std::size_t{by_off.back().off} + by_off.back().len +
			      guard_len);
	EXPECT_LE(hi, slot);
}

TEST(Workload, SameSeedSameOperations)
{
	const workload w = default_workload();
	const std::uint64_t key = stream_key(42, 3);

	const std::vector<op_desc> a = ops_of(w, key, 500);
	const std::vector<op_desc> b = ops_of(w, key, 500);
	for (std::size_t i = 0; i < a.size(); ++i)
		EXPECT_TRUE(same_op(a[i], b[i])) << "seq " << i;
	/* Out of order, too: seq alone decides. */
	for (std::uint64_t seq = 499; seq > 400; --seq)
		EXPECT_TRUE(same_op(make_desc(w, key, seq), a[seq]));
	EXPECT_EQ(stream_key(42, 3), key);
	EXPECT_EQ(initial_psns(7, 2), initial_psns(7, 2));
	EXPECT_EQ(guard_key(7), guard_key(7));
}

TEST(Workload, OtherSeedOrStreamOtherOperations)
{
	const workload w = default_workload();
	std::set<std::uint64_t> keys;

	for (std::uint64_t seed : {1U, 2U, 3U})
		for (unsigned int n = 0; n < 8; ++n)
			keys.insert(stream_key(seed, n));
	EXPECT_EQ(keys.size(), 24U);
	const std::vector<op_desc> a = ops_of(w, stream_key(1, 0), 200);
	const std::vector<op_desc> b = ops_of(w, stream_key(2, 0), 200);
	const std::vector<op_desc> c = ops_of(w, stream_key(1, 1), 200);
	unsigned int same_ab = 0, same_ac = 0;
	for (std::size_t i = 0; i < a.size(); ++i) {
		same_ab += same_op(a[i], b[i]) ? 1 : 0;
		same_ac += same_op(a[i], c[i]) ? 1 : 0;
	}
	EXPECT_EQ(same_ab, 0U);
	EXPECT_EQ(same_ac, 0U);
	EXPECT_NE(guard_key(1), guard_key(2));
	EXPECT_NE(target_init_key(stream_key(1, 0)),
		  target_init_key(stream_key(1, 1)));
}

/* The mix: each family's share within 2 points of its weight's. */
void expect_mix(const unsigned int (&weight)[families])
{
	workload w = default_workload();
	std::copy(std::begin(weight), std::end(weight), std::begin(w.weight));
	constexpr std::uint64_t n = 40000;
	std::array<std::uint64_t, families> fam{};
	std::array<std::uint64_t, op_kinds> kind{};
	std::uint64_t match = 0;
	unsigned int sum = 0;

	for (const unsigned int x : weight)
		sum += x;
	for (std::uint64_t seq = 0; seq < n; ++seq) {
		const op_desc d = make_desc(w, stream_key(9, 0), seq);

		++fam[family_of(d.kind)];
		++kind[d.kind];
		match += d.kind == op_cmp_swp && d.cmp_match ? 1 : 0;
	}
	for (unsigned int f = 0; f < families; ++f) {
		const double want = static_cast<double>(weight[f]) / sum;
		const double got = static_cast<double>(fam[f]) / n;

		EXPECT_NEAR(got, want, 0.02) << "family " << f;
		if (weight[f] == 0) {
			EXPECT_EQ(fam[f], 0U) << "family " << f;
		}
	}
	/* Half the sends with immediate data, atomics half each kind. */
	if (fam[fam_send] != 0) {
		EXPECT_NEAR(static_cast<double>(kind[op_send_imm]) /
				    static_cast<double>(fam[fam_send]),
			    0.5, 0.03);
	}
	if (fam[fam_atomic] != 0) {
		EXPECT_NEAR(static_cast<double>(kind[op_cmp_swp]) /
				    static_cast<double>(fam[fam_atomic]),
			    0.5, 0.03);
		EXPECT_NEAR(static_cast<double>(match) /
				    static_cast<double>(kind[op_cmp_swp]),
			    0.75, 0.03);
	}
}

TEST(Workload, MixFollowsTheWeights)
{
	expect_mix({4, 3, 2, 3, 2});
	expect_mix({4, 3, 2, 0, 0}); /* tests/torture.sh: payload only */
	expect_mix({0, 0, 0, 3, 2}); /* READ and atomics only */
	expect_mix({1, 0, 0, 0, 0});
}

TEST(Workload, SizesLogUniformAndNearTheMtu)
{
	workload w = default_workload();
	/* Not a power of two: its bucket is not all one multiple of 1024. */
	w.max_size = 200000;
	w.target_slot = make_geometry(w, 16).target_slot;
	constexpr std::uint64_t n = 40000;
	std::map<unsigned int, std::uint64_t> bits;
	std::uint64_t near_mtu = 0, zero = 0, payload = 0;

	for (std::uint64_t seq = 0; seq < n; ++seq) {
		const op_desc d = make_desc(w, stream_key(5, 1), seq);

		if (is_atomic(d.kind)) {
			EXPECT_EQ(d.len, 8U);
			continue;
		}
		++payload;
		EXPECT_LE(d.len, w.max_size);
		++bits[static_cast<unsigned int>(std::bit_width(d.len))];
		zero += d.len == 0 ? 1 : 0;
		const std::uint32_t r = d.len % w.mtu_bytes;
		near_mtu += d.len >= w.mtu_bytes - 1 &&
					    (r <= 1 || r == w.mtu_bytes - 1)
				    ? 1
				    : 0;
	}
	/* 0, 1, 2..3, ... 2^17..max: every bucket of the log-uniform draw. */
	const auto top = static_cast<unsigned int>(std::bit_width(w.max_size));
	for (unsigned int b = 0; b <= top; ++b)
		EXPECT_GT(bits[b], 0U) << "no size of bit width " << b;
	EXPECT_GT(zero, 0U);
	/* One in eight near a multiple of the MTU (and a few by chance). */
	EXPECT_GT(static_cast<double>(near_mtu) / payload, 0.11);
	EXPECT_LT(static_cast<double>(near_mtu) / payload, 0.145);
}

TEST(Workload, LayoutsStayInTheirSlots)
{
	for (const std::uint32_t sge : {1U, 2U, 4U, 30U}) {
		workload w = default_workload();
		w.send_sge = w.recv_sge = sge;
		w.rd_sge = std::min(sge, 2U);
		w.max_size = sge == 30 ? 4096 : w.max_size;
		const geometry g = make_geometry(w, 16);
		w.target_slot = g.target_slot;

		for (std::uint64_t seq = 0; seq < 5000; ++seq) {
			const op_desc d = make_desc(w, stream_key(sge, 2), seq);
			const std::uint32_t max_n = d.kind == op_read ? w.rd_sge
						    : is_atomic(d.kind)
							    ? 1
							    : w.send_sge;

			SCOPED_TRACE(seq);
			expect_layout(d.local, d.len, max_n, g.local_slot);
			if (d.kind == op_write || d.kind == op_write_imm ||
			    d.kind == op_read) {
				EXPECT_GE(d.remote_off, guard_len);
				EXPECT_LE(std::size_t{d.remote_off} + d.len +
						  guard_len,
					  g.target_slot);
			}
			if (consumes_recv(d.kind)) {
				expect_layout(d.recv, d.recv_total, w.recv_sge,
					      g.recv_slot);
				if (d.kind == op_write_imm) {
					EXPECT_LE(d.recv_total, 64U);
				} else {
					EXPECT_GE(d.recv_total, d.len);
					EXPECT_LE(d.recv_total,
						  d.len + recv_slack_max);
				}
			} else {
				EXPECT_TRUE(d.recv.empty());
			}
			if (d.inl) {
				EXPECT_LE(d.len, w.max_inline);
				EXPECT_FALSE(d.kind == op_read ||
					     is_atomic(d.kind));
			}
			if (is_atomic(d.kind)) {
				EXPECT_LT(d.counter, counters);
			}
		}
	}
}

TEST(Workload, GeometryHoldsEveryCounterAndSlot)
{
	const workload w = default_workload();
	const geometry g = make_geometry(w, 16);

	EXPECT_EQ(g.local_size, g.local_slot * 16 + tail_pad);
	EXPECT_EQ(g.recv_size, g.recv_slot * 16 + tail_pad);
	EXPECT_EQ(g.counter_off, g.target_slot * 16);
	for (unsigned int i = 0; i < counters; ++i) {
		EXPECT_EQ(counter_at(g, i) % 8, 0U);
		EXPECT_GE(counter_at(g, i), g.counter_off + 8);
		EXPECT_LE(counter_at(g, i) + 8, g.target_size - tail_pad);
	}
	EXPECT_GE(g.target_slot, std::size_t{w.max_size} + target_jitter +
					 2 * std::size_t{guard_len});
}

TEST(Workload, FetchAddReturnsTheOldValueAndAdds)
{
	op_desc d;
	d.kind = op_fetch_add;
	d.operand = 5;

	atomic_effect e = apply_atomic(d, 1000);
	EXPECT_EQ(e.returned, 1000U);
	EXPECT_EQ(e.after, 1005U);
	EXPECT_EQ(e.compare_add, 5U);
	EXPECT_FALSE(e.swaps);
	/* Modulo 2^64. */
	d.operand = 3;
	e = apply_atomic(d, UINT64_MAX - 1);
	EXPECT_EQ(e.returned, UINT64_MAX - 1);
	EXPECT_EQ(e.after, 1U);
}

TEST(Workload, CmpSwpSwapsExactlyWhenTheCompareMatches)
{
	op_desc d;
	d.kind = op_cmp_swp;
	d.swap = 0xabcdef;
	d.operand = 77;

	d.cmp_match = true;
	atomic_effect e = apply_atomic(d, 1234);
	EXPECT_EQ(e.compare_add, 1234U);
	EXPECT_TRUE(e.swaps);
	EXPECT_EQ(e.returned, 1234U);
	EXPECT_EQ(e.after, 0xabcdefU);

	d.cmp_match = false;
	e = apply_atomic(d, 1234);
	EXPECT_EQ(e.compare_add, 77U);
	EXPECT_FALSE(e.swaps);
	EXPECT_EQ(e.returned, 1234U);
	EXPECT_EQ(e.after, 1234U);
	/* A compare meant to fail that happens to match swaps. */
	e = apply_atomic(d, 77);
	EXPECT_TRUE(e.swaps);
	EXPECT_EQ(e.after, 0xabcdefU);
}

/*
 * A stream's atomics on its counters, one after the other: what each
 * returns is the value the one before left, as a plain model of the
 * counters computes it.
 */
TEST(Workload, AtomicsOfAStreamChainOnItsCounters)
{
	const workload w = default_workload();
	std::array<std::uint64_t, counters> model{1, 2, 3, 4};
	std::array<std::uint64_t, counters> chained = model;
	unsigned int atomics = 0, swapped = 0;

	for (std::uint64_t seq = 0; seq < 5000; ++seq) {
		const op_desc d = make_desc(w, stream_key(11, 4), seq);

		if (!is_atomic(d.kind))
			continue;
		++atomics;
		const atomic_effect e = apply_atomic(d, chained[d.counter]);
		chained[d.counter] = e.after;
		std::uint64_t &m = model[d.counter];
		EXPECT_EQ(e.returned, m);
		if (d.kind == op_fetch_add) {
			m += d.operand;
		} else {
			const std::uint64_t cmp = d.cmp_match ? m : d.operand;
			if (cmp == m) {
				m = d.swap;
				++swapped;
			}
		}
		EXPECT_EQ(chained[d.counter], m);
	}
	EXPECT_GT(atomics, 500U);
	EXPECT_GT(swapped, 100U);
}

TEST(Workload, PatternBytesDependOnKeyAndPlaceOnly)
{
	std::vector<unsigned char> whole(1000), part(1000), other(1000);

	pattern_fill(whole.data(), 99, 0, whole.size());
	/* Any slice equals the same bytes of the whole. */
	for (const std::size_t from : {0U, 1U, 7U, 8U, 13U, 500U}) {
		const std::size_t len = whole.size() - from;

		pattern_fill(part.data(), 99, from, len);
		EXPECT_TRUE(std::equal(part.begin(), part.begin() + len,
				       whole.begin() + from));
	}
	pattern_fill(other.data(), 100, 0, other.size());
	std::size_t same = 0;
	for (std::size_t i = 0; i < whole.size(); ++i)
		same += whole[i] == other[i] ? 1 : 0;
	EXPECT_LT(same, 20U);
}

TEST(Workload, BudgetsShareTheTotalExactly)
{
	for (const std::uint64_t total : {1U, 7U, 8U, 1000U, 1000003U}) {
		std::uint64_t sum = 0;

		for (unsigned int n = 0; n < 8; ++n) {
			const std::uint64_t s = budget_share(total, 8, n);

			EXPECT_LE(s, total / 8 + 1);
			sum += s;
		}
		EXPECT_EQ(sum, total);
	}
	EXPECT_EQ(budget_share(0, 8, 3), UINT64_MAX);
}

TEST(Workload, PsnsAre24BitsHalfNearTheWrap)
{
	unsigned int near_wrap = 0;

	for (unsigned int i = 0; i < 2000; ++i) {
		const auto [a, b] = initial_psns(1, i);

		EXPECT_LE(a, 0xffffffU);
		EXPECT_LE(b, 0xffffffU);
		near_wrap += a > 0xffffff - 2000 ? 1 : 0;
		near_wrap += b > 0xffffff - 2000 ? 1 : 0;
	}
	EXPECT_NEAR(near_wrap / 4000.0, 0.5, 0.05);
}

} /* namespace */
