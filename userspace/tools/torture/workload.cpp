// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* workload.cpp - sroce-torture's workload generator (workload.h). */
#include "workload.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <numeric>

namespace torture {

const char *const op_names[op_kinds] = {
	"SEND", "SEND_IMM",  "WRITE",	"WRITE_IMM",
	"READ", "FETCH_ADD", "CMP_SWP",
};

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

std::uint64_t stream_key(std::uint64_t seed, unsigned int n)
{
	return mix64(seed ^ mix64(salt_stream + n));
}

std::uint64_t guard_key(std::uint64_t seed)
{
	return mix64(seed ^ salt_guard);
}

std::uint64_t target_init_key(std::uint64_t skey)
{
	return mix64(skey ^ salt_init);
}

std::pair<std::uint32_t, std::uint32_t> initial_psns(std::uint64_t seed,
						     unsigned int i)
{
	rng r{mix64(seed ^ salt_psn ^ i)};
	std::uint32_t psn[2] = {};

	for (std::uint32_t &p : psn)
		p = r.below(2) != 0 ? 0xffffff - r.below32(2000)
				    : r.below32(0x1000000);
	return {psn[0], psn[1]};
}

std::uint64_t budget_share(std::uint64_t total, unsigned int streams,
			   unsigned int n)
{
	if (total == 0)
		return UINT64_MAX;
	return total / streams + (n < total % streams ? 1 : 0);
}

namespace {

std::size_t round_up(std::size_t v, std::size_t to)
{
	return (v + to - 1) / to * to;
}

} /* namespace */

geometry make_geometry(const workload &w, std::uint32_t depth)
{
	geometry g;
	const std::size_t guards = 2 * std::size_t{guard_len};

	g.local_slot =
		round_up(std::size_t{w.max_size} +
				 std::size_t{w.send_sge + 1} * gap_max + guards,
			 64);
	g.recv_slot =
		round_up(std::size_t{w.max_size} + recv_slack_max +
				 std::size_t{w.recv_sge + 1} * gap_max + guards,
			 64);
	g.target_slot =
		round_up(std::size_t{w.max_size} + target_jitter + guards, 64);
	g.local_size = g.local_slot * depth + tail_pad;
	g.recv_size = g.recv_slot * depth + tail_pad;
	g.counter_off = g.target_slot * depth;
	g.target_size =
		g.counter_off + 16 * std::size_t{counters} + 8 + tail_pad;
	return g;
}

std::size_t counter_at(const geometry &g, unsigned int i)
{
	/* A guard word before each counter. */
	return g.counter_off + 8 + 16 * std::size_t{i};
}

std::uint32_t draw_size(const workload &w, rng &r)
{
	const std::uint32_t max = w.max_size;

	if (r.below(8) == 0 && max >= w.mtu_bytes) {
		const std::uint64_t k = 1 + r.below(max / w.mtu_bytes);
		const std::uint64_t v = k * w.mtu_bytes + r.below(3);

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

op_kind pick_kind(const workload &w, rng &r)
{
	const unsigned int *wt = w.weight;
	const unsigned int sum = wt[0] + wt[1] + wt[2] + wt[3] + wt[4];
	auto x = r.below32(sum);

	if (x < wt[0])
		return r.below(2) != 0 ? op_send_imm : op_send;
	x -= wt[0];
	if (x < wt[1])
		return op_write;
	x -= wt[1];
	if (x < wt[2])
		return op_write_imm;
	x -= wt[2];
	if (x < wt[3])
		return op_read;
	return r.below(2) != 0 ? op_cmp_swp : op_fetch_add;
}

op_desc make_desc(const workload &w, std::uint64_t skey, std::uint64_t seq)
{
	rng r{mix64(skey ^ mix64(seq))};
	op_desc d;

	d.data_key = r.next();
	d.kind = pick_kind(w, r);
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
	d.len = draw_size(w, r);
	d.local = place(r, d.len, d.kind == op_read ? w.rd_sge : w.send_sge,
			true);
	if (d.kind != op_read && d.len <= w.max_inline)
		d.inl = r.below(4) == 0;
	if (d.kind == op_write || d.kind == op_write_imm || d.kind == op_read)
		d.remote_off =
			guard_len +
			r.below32(w.target_slot - 2 * std::size_t{guard_len} -
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
		d.recv = place(r, d.recv_total, w.recv_sge, false);
	}
	return d;
}

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

atomic_effect apply_atomic(const op_desc &d, std::uint64_t current)
{
	atomic_effect e;

	e.returned = current;
	if (d.kind == op_cmp_swp) {
		e.compare_add = d.cmp_match ? current : d.operand;
		e.swaps = e.compare_add == current;
		e.after = e.swaps ? d.swap : current;
	} else {
		e.compare_add = d.operand;
		e.after = current + d.operand;
	}
	return e;
}

} /* namespace torture */
