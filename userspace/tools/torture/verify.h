// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verify.h - sroce-torture's verifier: what a buffer must hold after an
 * operation, compared byte for byte, guard bytes included.
 *
 * Every destination range (receive buffers, READ and atomic results,
 * WRITE targets) is surrounded by guard bytes, and the gaps between the
 * SGEs of a scatter list are guard bytes too; all are compared after the
 * completion, so a stray or long write shows as well as a wrong byte.
 * WRITE targets are compared with a shadow of what the target memory must
 * hold (both sides live in this process).  A mismatch is a data error:
 * the first ten are failures of the run (ktap.h) that say where; all are
 * counted.
 */
#ifndef SROCE_TOOLS_TORTURE_VERIFY_H
#define SROCE_TOOLS_TORTURE_VERIFY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workload.h"

namespace torture {

/*
 * Where the expected bytes of a scattered message come from: the pattern
 * key, or (READ, atomics) a copy of what the remote side held.
 */
struct source {
	std::uint64_t key = 0;
	const unsigned char *copy = nullptr;
};

class verifier {
public:
	/* The data errors that are reported one by one. */
	static constexpr std::uint64_t printed = 10;

	explicit verifier(std::uint64_t guard_key)
	    : guard_key_(guard_key)
	{
	}

	/* Guard bytes over [lo, hi) of buf, a function of the offset. */
	void guard_fill(unsigned char *buf, std::size_t lo,
			std::size_t hi) const;

	/*
	 * After a scatter of data_len bytes of src into the pieces v of the
	 * slot at base in buf: the span of v holds the message where pieces
	 * hold message bytes below data_len, guard bytes everywhere else.
	 * what (the operation) and bufname say where a mismatch is.
	 */
	bool scatter(const std::string &what, const char *bufname,
		     const unsigned char *buf, std::size_t base,
		     const std::vector<piece> &v, std::uint32_t data_len,
		     const source &src);

	/*
	 * target[base + lo, base + hi) equals shadow there; [data_lo,
	 * data_hi) is the range an operation wrote, the rest its guards.
	 */
	bool target(const std::string &what, const unsigned char *target,
		    const unsigned char *shadow, std::size_t base,
		    std::size_t lo, std::size_t hi, std::size_t data_lo,
		    std::size_t data_hi);

	/* Bytes compared, guards included; data errors found. */
	[[nodiscard]] std::uint64_t checked() const { return checked_; }
	[[nodiscard]] std::uint64_t errors() const { return errors_; }

private:
	std::uint64_t guard_key_;
	std::uint64_t checked_ = 0;
	std::uint64_t errors_ = 0;
	std::vector<unsigned char> expected_;
};

} /* namespace torture */

#endif /* SROCE_TOOLS_TORTURE_VERIFY_H */
