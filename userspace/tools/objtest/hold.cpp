// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * hold.cpp - sroce-objtest's objects held for the shell test to look at:
 *
 *   hold CMD    create a PD, an MR and a CQ, run CMD (sh -c, its output
 *               and errors as diagnostics), which must exit 0, then
 *               destroy them
 *   leak        create a PD, an MR and a CQ and exit without destroying
 *               them (after the case's result): the kernel cleans up
 */
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "ktap.h"
#include "objtest.h"

namespace objtest {

using namespace verbs_util;

namespace {

struct held {
	ibv_pd *pd = nullptr;
	ibv_mr *mr = nullptr;
	ibv_cq *cq = nullptr;
};

/* A PD, an MR of buf_len bytes and a CQ of 32 entries on ctx. */
bool make_held(held &h, ibv_context *ctx)
{
	void *buf = alloc_buf();

	h.pd = ibv_alloc_pd(ctx);
	h.mr = h.pd != nullptr ? ibv_reg_mr(h.pd, buf, buf_len, acc_lw)
			       : nullptr;
	h.cq = ibv_create_cq(ctx, 32, nullptr, nullptr, 0);
	REQUIRE(h.pd != nullptr && h.mr != nullptr && h.cq != nullptr);
	ktap::note("holding pd, mr %#x, cq", h.mr->lkey);
	return true;
}

/* cmd under sh -c, every line it prints a diagnostic; its exit status. */
int run_command(const char *cmd)
{
	const std::string both = std::string("(") + cmd + ") 2>&1";
	FILE *f = popen(both.c_str(), "r");

	if (f == nullptr)
		return -1;
	char *line = nullptr;
	std::size_t cap = 0;
	ssize_t n = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		ktap::note("%s", line);
	}
	std::free(line);
	const int status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} /* namespace */

bool check_hold(device &d, const char *cmd)
{
	held h;

	if (cmd == nullptr) {
		ktap::fail("hold: no command given");
		return false;
	}
	REQUIRE(make_held(h, d.ctx.get()));
	ktap::note("running: %s", cmd);
	const int rc = run_command(cmd);
	if (rc != 0)
		ktap::fail("the command exited with status %d", rc);
	CHECK(ibv_destroy_cq(h.cq) == 0);
	CHECK(ibv_dereg_mr(h.mr) == 0);
	CHECK(ibv_dealloc_pd(h.pd) == 0);
	return true;
}

bool check_leak(device &d, const char * /*arg*/)
{
	held h;

	REQUIRE(make_held(h, d.ctx.get()));
	ktap::end("leak");
	std::fflush(stdout);
	_exit(ktap::exit_status());
}

} /* namespace objtest */
