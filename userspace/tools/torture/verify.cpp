// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* verify.cpp - sroce-torture's verifier (verify.h). */
#include "verify.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ktap.h"
#include "verbs_util.h"

namespace torture {

void verifier::guard_fill(unsigned char *buf, std::size_t lo,
			  std::size_t hi) const
{
	pattern_fill(buf + lo, guard_key_, lo, hi - lo);
}

bool verifier::scatter(const std::string &what, const char *bufname,
		       const unsigned char *buf, std::size_t base,
		       const std::vector<piece> &v, std::uint32_t data_len,
		       const source &src)
{
	const auto [lo, hi] = span_of(v);

	expected_.resize(hi - lo);
	pattern_fill(expected_.data(), guard_key_, base + lo, hi - lo);
	for (const piece &p : v) {
		if (p.msg_off >= data_len)
			continue;
		const std::uint32_t n = std::min(p.len, data_len - p.msg_off);
		unsigned char *e = expected_.data() + (p.off - lo);

		if (src.copy != nullptr)
			std::memcpy(e, src.copy + p.msg_off, n);
		else
			pattern_fill(e, src.key, p.msg_off, n);
	}
	checked_ += hi - lo;
	const unsigned char *got = buf + base + lo;
	if (std::memcmp(got, expected_.data(), hi - lo) == 0)
		return true;

	const verbs_util::byte_diff diff =
		verbs_util::diff_bytes(got, expected_.data(), hi - lo);
	const std::size_t first = diff.first;
	const std::size_t bad = diff.count;
	++errors_;
	if (errors_ > printed)
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
	ktap::fail("%s: %s byte at slot offset %zu (%s) is %#04x, "
		   "expected %#04x; %zu of %zu bytes differ",
		   what.c_str(), bufname, at, where.c_str(), got[first],
		   expected_[first], bad, hi - lo);
	return false;
}

bool verifier::target(const std::string &what, const unsigned char *target,
		      const unsigned char *shadow, std::size_t base,
		      std::size_t lo, std::size_t hi, std::size_t data_lo,
		      std::size_t data_hi)
{
	const unsigned char *got = target + base;
	const unsigned char *want = shadow + base;

	checked_ += hi - lo;
	if (std::memcmp(got + lo, want + lo, hi - lo) == 0)
		return true;
	const verbs_util::byte_diff diff =
		verbs_util::diff_bytes(got + lo, want + lo, hi - lo);
	const std::size_t first = lo + diff.first;
	const std::size_t bad = diff.count;
	++errors_;
	if (errors_ > printed)
		return false;
	const char *where = first < data_lo    ? "guard before the range"
			    : first >= data_hi ? "guard after the range"
					       : "written range";
	ktap::fail("%s: target byte at slot offset %zu (%s, byte %td "
		   "of the range) is %#04x, expected %#04x; %zu of %zu bytes "
		   "differ",
		   what.c_str(), first, where,
		   static_cast<std::ptrdiff_t>(first) -
			   static_cast<std::ptrdiff_t>(data_lo),
		   got[first], want[first], bad, hi - lo);
	return false;
}

} /* namespace torture */
