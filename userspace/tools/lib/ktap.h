// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ktap.h - the output of every test tool: KTAP (the kernel's
 * Documentation/dev-tools/ktap.rst), and the failures of the running case.
 *
 *   KTAP version 1
 *   1..3
 *   # what case 1 saw
 *   ok 1 wrap
 *   # FAILED: why case 2 failed
 *   not ok 2 full
 *   ok 3 mw1-unbound-read # SKIP memory windows not supported by rxe0
 *   ok 4 atomic-misaligned # XFAIL the device's known deviation
 *
 * A tool prints the plan (header()), then runs each case between begin()
 * and end(): the case fails when anything recorded a failure while it ran
 * (fail(), CHECK, REQUIRE, EXPECT, the helpers of verbs_util.h and
 * completion.h) or when it gave up, is skipped when it called skip() and
 * nothing failed, and passes otherwise.  What it saw goes out as
 * diagnostics ("# ...").  A failure outside every case (closing a device)
 * makes the exit status 1 as well.
 *
 * The guest selftests pass this output through as the subtests of one of
 * their own cases (tests/lib.sh: ktap_tool), and scripts/check counts every
 * result, nested ones included.
 */
#ifndef SROCE_TOOLS_KTAP_H
#define SROCE_TOOLS_KTAP_H

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ktap {

/* "KTAP version 1" and the plan "1..cases"; stdout line-buffered. */
void header(std::size_t cases);

/* A diagnostic line: "# " and the text. */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);

/* A failure of the running case (or of the tool, outside every case). */
__attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...);

/* The running case cannot run here, for this reason. */
__attribute__((format(printf, 1, 2))) void skip(const char *fmt, ...);

/* Failures recorded so far, in every case and outside them. */
unsigned int failures();

/* The failures of the running case, in order. */
const std::vector<std::string> &reasons();

/* A case starts: it has no failure and no skip yet. */
void begin();

/*
 * xfail: the case failed exactly as a known deviation of the device says
 * ("ok ... # XFAIL why", counted apart from the passes); xpass: it passed
 * where the deviation was expected ("not ok ... # XPASS why": the
 * expectation is out of date).
 */
enum class verdict { ok, not_ok, skip, xfail, xpass };

/*
 * What the running case comes to: not_ok when it recorded a failure or,
 * finished false, gave up; skip when it called skip(); ok otherwise.
 */
verdict outcome(bool finished = true);

/* The reason given to skip() in the running case. */
const std::string &skip_reason();

/* The result line of the next case, named name. */
void result(verdict v, std::string_view name, std::string_view why = {});

/* end(): result(outcome(finished), name, skip_reason()); true unless not ok. */
bool end(std::string_view name, bool finished = true);

/* 0 when no case failed and nothing failed outside the cases, else 1. */
int exit_status();

/*
 * Checks.  errno is cleared first: what it says afterwards comes from
 * cond.  CHECK notes a pass and records a failure; REQUIRE gives up on the
 * check (returns false) when cond is false; EXPECT, for loops of many
 * iterations, says nothing when cond holds and gives up when it does not.
 */
#define CHECK(cond)                                                            \
	do {                                                                   \
		errno = 0;                                                     \
		if (cond) {                                                    \
			ktap::note("ok: %s", #cond);                           \
		} else {                                                       \
			ktap::fail("%s (%s:%d, errno %d %s)", #cond, __FILE__, \
				   __LINE__, errno, std::strerror(errno));     \
		}                                                              \
	} while (0)

#define REQUIRE(cond)                                                   \
	do {                                                            \
		const unsigned int failures_before_ = ktap::failures(); \
		CHECK(cond);                                            \
		if (ktap::failures() != failures_before_)               \
			return false;                                   \
	} while (0)

#define EXPECT(cond, ...)                                              \
	do {                                                           \
		if (!(cond)) {                                         \
			ktap::fail("%s (%s:%d): %s", #cond, __FILE__,  \
				   __LINE__,                           \
				   ktap::format(__VA_ARGS__).c_str()); \
			return false;                                  \
		}                                                      \
	} while (0)

/* printf into a string (for EXPECT). */
__attribute__((format(printf, 1, 2))) std::string format(const char *fmt, ...);

} /* namespace ktap */

#endif /* SROCE_TOOLS_KTAP_H */
