// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* check_main.cpp - main() of a tool of named checks (check_main.h). */
#include "check_main.h"

#include <cstdio>
#include <vector>

#include "ktap.h"

namespace verbs_util {

namespace {

bool in_all(const check & /*c*/)
{
	return true;
}

bool in_all(const device_check &c)
{
	return c.in_all;
}

/*
 * The checks named what ("all": every one meant for it), in order; empty,
 * with a usage message, for an unknown name.
 */
template <typename Check>
std::vector<const Check *> select(std::span<const Check> checks,
				  std::string_view what)
{
	std::vector<const Check *> run;

	for (const Check &c : checks)
		if ((what == "all" && in_all(c)) || c.name == what)
			run.push_back(&c);
	if (run.empty())
		std::fprintf(stderr, "unknown check %.*s\n",
			     static_cast<int>(what.size()), what.data());
	return run;
}

/* Every check of run a case: not ok, without running, unless opened. */
template <typename Check, typename Fn>
void run_cases(const std::vector<const Check *> &run, bool opened, Fn call)
{
	for (const Check *c : run) {
		ktap::begin();
		if (!opened) {
			ktap::fail("the devices could not be opened");
			ktap::end(c->name);
			continue;
		}
		const bool finished = call(*c);
		ktap::end(c->name, finished);
	}
}

} /* namespace */

int check_main(int argc, char **argv, std::span<const check> checks,
	       void (*describe)(const device &))
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: %s DEV_A DEV_B CHECK|all\n",
			     argv[0]);
		return 2;
	}
	const std::vector<const check *> run = select(checks, argv[3]);
	if (run.empty())
		return 2;

	ktap::header(run.size());
	{
		device a, b;
		const auto open = [describe](device &d, const char *name) {
			if (!open_device(d, name) || !use_gid(d))
				return false;
			describe(d);
			return true;
		};
		const bool opened = open(a, argv[1]) && open(b, argv[2]);

		run_cases(run, opened,
			  [&](const check &c) { return c.fn(a, b); });
	}
	return ktap::exit_status();
}

int device_check_main(int argc, char **argv,
		      std::span<const device_check> checks)
{
	if (argc != 3 && argc != 4) {
		std::fprintf(stderr, "usage: %s DEV CHECK|all [ARG]\n",
			     argv[0]);
		return 2;
	}
	const std::vector<const device_check *> run = select(checks, argv[2]);
	if (run.empty())
		return 2;
	const char *arg = argc == 4 ? argv[3] : nullptr;

	ktap::header(run.size());
	{
		device d;
		const bool opened = open_device(d, argv[1]);

		run_cases(run, opened,
			  [&](const device_check &c) { return c.fn(d, arg); });
	}
	return ktap::exit_status();
}

} /* namespace verbs_util */
