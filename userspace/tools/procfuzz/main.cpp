// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-procfuzz - a hostile process: it corrupts its own mapped rings and
 * the driver-specific data of its uverbs commands while other processes'
 * traffic runs on the same devices (tests/procfuzz.sh).
 *
 *   sroce-procfuzz DEV_A DEV_B [--mutations N] [--commands M] [--seed S]
 *
 * KTAP cases:
 *   setup        its objects: an RC pair between DEV_A and DEV_B, an RC
 *                pair whose DEV_B end receives from an SRQ, a UD QP, and
 *                the PD, CQ and QP the raw commands use
 *   rings        N mutations of its SQs, RQs, SRQ and CQs (rings.h;
 *                default 20000), a second thread storing random words
 *                into the same rings meanwhile
 *   udata        M uverbs commands with driver tails of its own making
 *                (udata.h; default 2000)
 *   still-works  a new RC pair of this process, on the same devices,
 *                carries a SEND, a WRITE and a READ, every byte checked
 *   teardown     every object of the process destroyed, the hostile ones
 *                included, within 30 s (scaled)
 *
 * That the other processes' QPs are unaffected is for the caller to show
 * (tests/procfuzz.sh runs sroce-torture meanwhile).
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "completion.h"
#include "ktap.h"
#include "pair_traffic.h"
#include "qp_pair.h"
#include "rings.h"
#include "udata.h"
#include "verbs_util.h"

namespace {

using namespace verbs_util;

struct options {
	std::string dev_a, dev_b;
	unsigned long mutations = 20000;
	unsigned long commands = 2000;
	unsigned long seed = 1;
};

[[noreturn]] void usage()
{
	std::fprintf(stderr, "usage: sroce-procfuzz DEV_A DEV_B [--mutations "
			     "N] [--commands M] [--seed S]\n");
	std::exit(2);
}

options parse(int argc, char **argv)
{
	options o;
	if (argc < 3)
		usage();
	o.dev_a = argv[1];
	o.dev_b = argv[2];
	for (int i = 3; i + 1 < argc; i += 2) {
		std::string k = argv[i];
		unsigned long v = std::strtoul(argv[i + 1], nullptr, 0);
		if (k == "--mutations")
			o.mutations = v;
		else if (k == "--commands")
			o.commands = v;
		else if (k == "--seed")
			o.seed = v;
		else
			usage();
	}
	if (argc % 2 == 0)
		usage();
	return o;
}

struct run {
	options o;
	device a, b;
	std::optional<procfuzz::rings> rings;
	std::optional<procfuzz::udata> udata;
};

bool setup(run &r)
{
	REQUIRE(open_device(r.a, r.o.dev_a.c_str()) && use_gid(r.a));
	REQUIRE(open_device(r.b, r.o.dev_b.c_str()) && use_gid(r.b));
	r.rings.emplace(r.o.seed);
	r.udata.emplace(r.o.seed * 7919 + 1);
	REQUIRE(r.rings->make(r.a, r.b));
	REQUIRE(r.udata->make(r.a));
	return true;
}

double since(clock_type::time_point t)
{
	return std::chrono::duration<double>(clock_type::now() - t).count();
}

bool rings(run &r)
{
	auto start = clock_type::now();
	unsigned long step = std::max(1ul, r.o.mutations / 10);
	r.rings->start_scribbling();
	for (unsigned long i = 0; i < r.o.mutations; i++) {
		if (!r.rings->mutate()) {
			r.rings->stop_scribbling();
			return false;
		}
		if ((i + 1) % step == 0)
			ktap::note("%lu mutations, %.0f s", i + 1,
				   since(start));
	}
	r.rings->stop_scribbling();
	ktap::note("the racing thread stored %lu words", r.rings->scribbled());
	for (const auto &[k, n] : r.rings->done())
		ktap::note("  %-10s %lu", k.c_str(), n);
	return true;
}

bool udata(run &r)
{
	for (unsigned long i = 0; i < r.o.commands; i++)
		if (!r.udata->command())
			return false;
	for (const auto &[k, n] : r.udata->sent()) {
		auto it = r.udata->accepted().find(k);
		ktap::note("  %-12s %lu sent, %lu accepted", k.c_str(), n,
			   it == r.udata->accepted().end() ? 0 : it->second);
	}
	return true;
}

// A new RC pair carries SENDs, a WRITE and a READ, every byte checked.
bool still_works(run &r)
{
	return new_rc_pair_works(r.a, r.b);
}

bool teardown(run &r)
{
	auto start = clock_type::now();
	r.udata.reset();
	r.rings.reset();
	r.a = device{};
	r.b = device{};
	double s = since(start);
	ktap::note("every object destroyed in %.1f s", s);
	CHECK(s < 30.0 * timeout_scale());
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	run r;
	r.o = parse(argc, argv);
	ktap::header(5);
	ktap::note("sroce-procfuzz: %lu ring mutations, %lu commands, seed "
		   "%lu",
		   r.o.mutations, r.o.commands, r.o.seed);
	ktap::begin();
	const bool set_up = ktap::end("setup", setup(r));
	const char *const later[] = {"rings", "udata", "still-works"};
	bool (*fns[])(run &) = {rings, udata, still_works};
	for (int i = 0; i < 3; i++) {
		ktap::begin();
		if (!set_up)
			ktap::fail("no setup");
		ktap::end(later[i], set_up && fns[i](r));
	}
	ktap::begin();
	ktap::end("teardown", teardown(r));
	return ktap::exit_status();
}
