// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-prottest - memory protection of RDMA WRITE, READ, atomics and the
 * atomic write between two RDMA devices, through the public libibverbs API only, as
 * tests/protection.sh needs it.
 *
 *   sroce-prottest --dev-a NAME --dev-b NAME [--gid-a N] [--gid-b N]
 *                  [--case REGEX] [--deviation NAME=ERE]...
 *   sroce-prottest --list [--case REGEX]
 *
 * A is the requester, B the responder.  One process opens both devices
 * (A and B may also be one device, whose QPs then meet in its loopback)
 * and connects RC QPs directly (qp_pair.h).  Each device uses its first
 * RoCE v2 GID holding an IPv4 address unless --gid-a or --gid-b names
 * one.  Every case (the table: cases.cpp) runs on fresh PDs, CQs, QPs,
 * regions and buffers (case_setup.cpp, run_case.cpp) and is a KTAP case
 * (ktap.h): what it saw as diagnostics, then ok, not ok (every reason a
 * "# FAILED:" line before it), or a skip.  The exit status is 0 when no
 * case failed, 1 otherwise, 2 for a usage error.  --list prints the case
 * names, --case runs only those matching an extended regular expression.
 *
 * --deviation NAME=ERE: the device is known to depart from the tool's
 * expectation in case NAME (tests/protection.sh: rdma_rxe).  The case
 * passes when it fails with reasons that, joined by "; ", match ERE as a
 * whole, and fails otherwise (passing included: then the deviation is
 * gone, and the list is wrong).
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
 * missing REMOTE_READ/WRITE/ATOMIC right (REMOTE_WRITE for an atomic
 * write): IBV_WC_REM_ACCESS_ERR.  An operation B's QP does not enable (its
 * qp_access_flags) and a misaligned atomic or atomic write:
 * IBV_WC_REM_INV_REQ_ERR, the invalid request NAK (the status'
 * description: "the operation is not supported by this receive queue").
 * An atomic write of another length than 8: EINVAL from ibv_post_send(),
 * nothing posted, no completion, both QPs in RTS.
 * A bad lkey, an SGE outside its region, a READ or atomic result into a
 * region without LOCAL_WRITE: IBV_WC_LOC_PROT_ERR at A.
 *
 * Allowed cases (first and last byte of a region, the whole region, atomics
 * at its first and last 8 aligned bytes, zero-length operations, zero-based
 * regions, windows inside a region) must succeed and change exactly the
 * bytes they name.
 *
 * Skips: atomics when a device reports IBV_ATOMIC_NONE; the atomic write
 * when A's device does not report Linux 6.2's IB_UVERBS_DEVICE_ATOMIC_WRITE
 * (bit 40 of device_cap_flags_ex); memory windows when ibv_alloc_mw()
 * fails with EOPNOTSUPP or ENOSYS.  Never ok in their place.
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <cstdio>
#include <cstdlib>
#include <getopt.h>
#include <map>
#include <regex.h>
#include <string>
#include <vector>

#include "case_state.h"
#include "cases.h"
#include "ktap.h"
#include "verbs_util.h"

namespace {

using namespace verbs_util;
using namespace prottest;

void usage(const char *argv0)
{
	std::fprintf(stderr,
		     "usage: %s --dev-a NAME --dev-b NAME [--gid-a N] "
		     "[--gid-b N] [--case REGEX] [--deviation NAME=ERE]...\n"
		     "       %s --list [--case REGEX]\n",
		     argv0, argv0);
}

/* An extended regular expression, freed with the object. */
class ere {
public:
	ere() = default;
	ere(const ere &) = delete;
	ere &operator=(const ere &) = delete;
	ere(ere &&) = delete;
	ere &operator=(ere &&) = delete;
	~ere()
	{
		if (compiled_)
			regfree(&re_);
	}

	/* pattern compiled; false if it is no regular expression. */
	bool compile(const std::string &pattern)
	{
		compiled_ = regcomp(&re_, pattern.c_str(),
				    REG_EXTENDED | REG_NOSUB) == 0;
		return compiled_;
	}
	[[nodiscard]] bool matches(const std::string &s) const
	{
		return regexec(&re_, s.c_str(), 0, nullptr, 0) == 0;
	}

private:
	regex_t re_{};
	bool compiled_ = false;
};

/* Open name (its GID as use_gid() finds it) and say what it offers. */
bool open_dev(device &d, const char *name, int gid_index)
{
	if (!open_device(d, name) || !use_gid(d, gid_index))
		return false;
	ktap::note("%s: GID %d %s, active MTU %d, max_msg_sz %u, "
		   "atomic_cap %d, max_mw %d",
		   name, d.gid_index, gid_str(d.gid).c_str(),
		   128 << d.port.active_mtu, d.port.max_msg_sz,
		   d.attr.atomic_cap, d.attr.max_mw);
	return true;
}

/* The reasons of the case's failures, joined by "; ". */
std::string joined_reasons()
{
	std::string why;

	for (const std::string &r : ktap::reasons())
		why += (why.empty() ? "" : "; ") + r;
	return why;
}

/*
 * What a case with the known deviation dev comes to: an XFAIL when it
 * failed exactly so, an XPASS (a failure: the deviation is gone) when it
 * passed, a failure when it failed otherwise.
 */
ktap::verdict judge_deviation(const std::string &dev)
{
	const ktap::verdict v = ktap::outcome();
	ere re;

	if (v == ktap::verdict::skip)
		return v;
	if (v == ktap::verdict::ok) {
		ktap::note("the device was expected to deviate here (%s)",
			   dev.c_str());
		return ktap::verdict::xpass;
	}
	const std::string why = joined_reasons();
	if (!re.compile("^(" + dev + ")$") || !re.matches(why)) {
		ktap::fail("not the device's known deviation: %s", dev.c_str());
		return ktap::verdict::not_ok;
	}
	ktap::note("the device's known deviation, as expected: %s",
		   dev.c_str());
	return ktap::verdict::xfail;
}

/* The reason a case's result line gives for its verdict. */
std::string_view verdict_reason(ktap::verdict v)
{
	switch (v) {
	case ktap::verdict::skip:
		return ktap::skip_reason();
	case ktap::verdict::xfail:
		return "the device's known deviation";
	case ktap::verdict::xpass:
		return "the device's known deviation is gone";
	default:
		return {};
	}
}

struct options {
	const char *dev_a = nullptr;
	const char *dev_b = nullptr;
	int gid_a = -1;
	int gid_b = -1;
	const char *pattern = nullptr;
	bool list = false;
	std::map<std::string, std::string> deviations;
};

/* 0: parsed; 2: a usage error (said). */
int parse_options(int argc, char **argv, options &o)
{
	static const option opts[] = {
		{"dev-a", required_argument, nullptr, 'a'},
		{"dev-b", required_argument, nullptr, 'b'},
		{"gid-a", required_argument, nullptr, 'A'},
		{"gid-b", required_argument, nullptr, 'B'},
		{"case", required_argument, nullptr, 'c'},
		{"deviation", required_argument, nullptr, 'd'},
		{"list", no_argument, nullptr, 'l'},
		{nullptr, 0, nullptr, 0},
	};

	for (;;) {
		const int c = getopt_long(argc, argv, "", opts, nullptr);

		if (c == -1)
			break;
		switch (c) {
		case 'a':
			o.dev_a = optarg;
			break;
		case 'b':
			o.dev_b = optarg;
			break;
		case 'A':
			o.gid_a = std::atoi(optarg);
			break;
		case 'B':
			o.gid_b = std::atoi(optarg);
			break;
		case 'c':
			o.pattern = optarg;
			break;
		case 'd': {
			const std::string d = optarg;
			const std::size_t eq = d.find('=');

			if (eq == std::string::npos || eq == 0) {
				std::fprintf(stderr, "bad --deviation %s\n",
					     optarg);
				return 2;
			}
			o.deviations[d.substr(0, eq)] = d.substr(eq + 1);
			break;
		}
		case 'l':
			o.list = true;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind != argc ||
	    (!o.list && (o.dev_a == nullptr || o.dev_b == nullptr))) {
		usage(argv[0]);
		return 2;
	}
	for (const auto &[name, dev] : o.deviations) {
		bool known = false;

		for (const prot_case &c : cases())
			known = known || name == c.name;
		if (!known) {
			std::fprintf(stderr, "--deviation: no case %s\n",
				     name.c_str());
			return 2;
		}
	}
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	options o;
	const int pr = parse_options(argc, argv, o);

	if (pr != 0)
		return pr;
	ere re;
	if (o.pattern != nullptr && !re.compile(o.pattern)) {
		std::fprintf(stderr, "bad regular expression '%s'\n",
			     o.pattern);
		return 2;
	}
	std::vector<const prot_case *> run;
	for (const prot_case &c : cases())
		if (o.pattern == nullptr || re.matches(c.name))
			run.push_back(&c);
	if (o.list) {
		for (const prot_case *c : run)
			std::printf("%s\n", c->name);
		return 0;
	}

	ktap::header(run.size());
	{
		device a, b;
		const bool opened = open_dev(a, o.dev_a, o.gid_a) &&
				    open_dev(b, o.dev_b, o.gid_b);

		for (const prot_case *c : run) {
			/* The seed of a case is its place in the table. */
			const auto seed = static_cast<std::uint32_t>(
				4 * (c - cases().data() + 1));
			const auto dev = o.deviations.find(c->name);

			ktap::begin();
			ktap::note("case %s: %s", c->name, c->what);
			if (!opened)
				ktap::fail("the devices could not be opened");
			else
				run_case(*c, seed, a, b);
			const ktap::verdict v =
				dev == o.deviations.end()
					? ktap::outcome()
					: judge_deviation(dev->second);
			ktap::result(v, c->name, verdict_reason(v));
		}
	}
	return ktap::exit_status();
}
