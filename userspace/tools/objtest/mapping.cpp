// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mapping.cpp - sroce-objtest's checks of the CQ ring mapped into the
 * process:
 *
 *   poll-no-syscall  poll_cq and req_notify_cq make no system call
 *                    (counted with a seccomp trap in a child process)
 *   mmap-checks      the uverbs mmap() refuses bogus offsets, sizes,
 *                    private and executable mappings of a CQ ring
 */
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "ktap.h"
#include "objtest.h"

namespace objtest {

using namespace verbs_util;

/* ---- counting system calls with a seccomp trap ------------------------ */

namespace {

volatile sig_atomic_t trapped;

void on_sigsys(int /*sig*/)
{
	trapped = trapped + 1;
}

/*
 * In a child: trap every system call but the exits and sigreturn, run
 * fn(), exit with the number of calls trapped (capped), 255 on a failure
 * of fn itself.
 */
template <typename F>
int count_syscalls(F fn)
{
	const pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sigaction sa {};
		sa.sa_handler = on_sigsys;
		sigaction(SIGSYS, &sa, nullptr);
		sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 3,
				 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 2, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigreturn, 1,
				 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		sock_fprog prog{static_cast<unsigned short>(std::size(filter)),
				filter};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(254);
		const bool ok = fn();
		syscall(SYS_exit_group,
			ok ? (trapped > 200 ? 200 : trapped) : 255);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

} /* namespace */

bool check_poll_no_syscall(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_cq *cq = ibv_create_cq(ctx, 64, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return false;

	/* The counter itself: one getpid() must be seen. */
	int n = count_syscalls([] {
		syscall(SYS_getpid);
		return true;
	});
	ktap::note("self-test: one getpid() counted as %d", n);
	CHECK(n == 1);

	n = count_syscalls([cq] {
		ibv_wc wc[16];
		for (int i = 0; i < 100000; ++i)
			if (ibv_poll_cq(cq, 16, wc) != 0)
				return false;
		for (int i = 0; i < 1000; ++i)
			if (ibv_req_notify_cq(cq, i & 1) != 0)
				return false;
		return true;
	});
	ktap::note("100000 polls of an empty CQ and 1000 arms: %d system "
		   "calls (255: a poll or arm failed)",
		   n);
	CHECK(n == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	return true;
}

/* ---- mmap ------------------------------------------------------------- */

namespace {

struct uverbs_map {
	unsigned long start = 0, end = 0;
	unsigned long long offset = 0;
	bool found = false;
};

/* The mapping of the uverbs device the provider made (one CQ open). */
uverbs_map find_uverbs_map()
{
	std::ifstream maps("/proc/self/maps");
	std::string line;
	uverbs_map m;

	while (std::getline(maps, line)) {
		if (line.find("/dev/infiniband/uverbs") == std::string::npos)
			continue;
		std::istringstream in(line);
		std::string range, perms, off;
		in >> range >> perms >> off;
		std::sscanf(range.c_str(), "%lx-%lx", &m.start, &m.end);
		m.offset = std::stoull(off, nullptr, 16);
		m.found = true;
		ktap::note("provider's mapping: %s", line.c_str());
	}
	return m;
}

bool try_map(ibv_context *ctx, std::size_t len, int prot, int flags,
	     unsigned long long off, const char *what)
{
	void *p = mmap(nullptr, len, prot, flags, ctx->cmd_fd,
		       static_cast<off_t>(off));
	if (p == MAP_FAILED) {
		ktap::note("%s: refused (%s)", what, std::strerror(errno));
		return false;
	}
	ktap::note("%s: mapped", what);
	munmap(p, len);
	return true;
}

} /* namespace */

bool check_mmap(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_cq *cq = ibv_create_cq(ctx, 64, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return false;
	const uverbs_map m = find_uverbs_map();
	CHECK(m.found);
	if (!m.found)
		return false;
	const std::size_t len = m.end - m.start;
	const long pg = sysconf(_SC_PAGESIZE);
	const int rw = PROT_READ | PROT_WRITE;

	CHECK(try_map(ctx, len, rw, MAP_SHARED, m.offset, "the ring again"));
	CHECK(!try_map(ctx, len, rw, MAP_SHARED, m.offset + 4096ULL * pg,
		       "a bogus offset"));
	CHECK(!try_map(ctx, len - pg, rw, MAP_SHARED, m.offset + pg,
		       "the ring from its second page"));
	CHECK(!try_map(ctx, len + pg, rw, MAP_SHARED, m.offset,
		       "one page too many"));
	CHECK(!try_map(ctx, len, rw, MAP_PRIVATE, m.offset, "MAP_PRIVATE"));
	CHECK(!try_map(ctx, len, rw | PROT_EXEC, MAP_SHARED, m.offset,
		       "PROT_EXEC"));
	void *p = mmap(nullptr, len, PROT_READ, MAP_SHARED, ctx->cmd_fd,
		       static_cast<off_t>(m.offset));
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK(mprotect(p, len, PROT_READ | PROT_EXEC) != 0);
		munmap(p, len);
	}
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(!try_map(ctx, len, rw, MAP_SHARED, m.offset,
		       "the ring of a destroyed CQ"));
	return true;
}

} /* namespace objtest */
