// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * objtest.h - the checks of sroce-objtest (main.cpp) on one device, each
 * in the file named for what it tests:
 *
 *   objects.cpp    objects, mr-errors, cq-errors, cq-resize, channel
 *   mapping.cpp    poll-no-syscall, mmap-checks
 *   qp_errors.cpp  qp-errors
 *   hold.cpp       hold, leak
 *   domains.cpp    parent-domain, import
 *   dm.cpp         dm, dm-traffic
 *   identifiers.cpp  identifiers
 *
 * Each returns false when it gave up; arg is the command line's ARG.
 */
#ifndef SROCE_TOOLS_OBJTEST_H
#define SROCE_TOOLS_OBJTEST_H

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <sys/mman.h>

#include "ktap.h"
#include "verbs_util.h"

namespace objtest {

using verbs_util::device;

bool check_objects(device &d, const char *arg);
bool check_mr_errors(device &d, const char *arg);
bool check_cq_errors(device &d, const char *arg);
bool check_cq_resize(device &d, const char *arg);
bool check_channel(device &d, const char *arg);
bool check_poll_no_syscall(device &d, const char *arg);
bool check_mmap(device &d, const char *arg);
bool check_qp_errors(device &d, const char *arg);
bool check_hold(device &d, const char *arg);
bool check_leak(device &d, const char *arg);
bool check_parent_domain(device &d, const char *arg);
bool check_import(device &d, const char *arg);
bool check_dm(device &d, const char *arg);
bool check_dm_traffic(device &d, const char *arg);
bool check_identifiers(device &d, const char *arg);

/* The size of the buffers the checks register. */
constexpr std::size_t buf_len = std::size_t{4} * 4096;

/* buf_len bytes of anonymous memory, never unmapped (the process exits). */
void *alloc_buf(int prot = PROT_READ | PROT_WRITE);

/* obj was refused: nullptr with errno want (0: any errno); noted. */
template <typename T>
bool refused(T *obj, int want, const char *what)
{
	const int err = errno;

	if (obj != nullptr) {
		ktap::note("%s: unexpectedly succeeded", what);
		return false;
	}
	ktap::note("%s: refused, errno %d (%s)", what, err, std::strerror(err));
	return want == 0 || err == want;
}

} /* namespace objtest */

#endif /* SROCE_TOOLS_OBJTEST_H */
