// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * register.cpp - the provider's only side effect at load time.
 *
 * libibverbs dlopen()s libsroce-rdmav34.so (named by a driver line in
 * /etc/libibverbs.d/ or by RDMAV_DRIVERS) and expects the library to register
 * itself from an ELF constructor.  Kept in its own file so that the host
 * tests can link the provider's code without registering it.
 *
 * Which libibverbs it may register with (Documentation/provider.md, "Which
 * rdma-core"):
 *  - another private ABI (rdma-core 57's IBVERBS_PRIVATE_57, ...) never
 *    loads it: that libibverbs looks for libsroce-rdmav57.so, and every
 *    import of this library is bound to IBVERBS_PRIVATE_34 (verbs_abi.h) and
 *    resolved at load time (-z now), so dlopen() fails and libibverbs says
 *    "couldn't load driver 'sroce': ... version `IBVERBS_PRIVATE_34' not
 *    found";
 *  - within IBVERBS_PRIVATE_34 (rdma-core 34 to 56) the layouts changed
 *    without a new version: verbs_abi.h pins rdma-core 44..56
 *    (SROCE_RDMA_CORE_MIN..MAX, from CMake).  The constructor reads the
 *    release from the file name rdma-core gives libibverbs
 *    (libibverbs.so.1.<minor>.<release>.<patch>) and, outside that range,
 *    registers nothing and says why on stderr, as libibverbs does for a
 *    driver it cannot load.  A libibverbs whose file name carries no
 *    release (not built by rdma-core's CMake) is trusted: the symbol
 *    versions matched.
 */
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

#include "device.h"
#include "sroce.h"

#if !defined(SROCE_RDMA_CORE_MIN) || !defined(SROCE_RDMA_CORE_MAX)
#error "SROCE_RDMA_CORE_MIN/MAX come from userspace/provider/CMakeLists.txt"
#endif

namespace {

/*
 * The rdma-core release of the libibverbs that defines the private ABI this
 * library is bound to (the object holding _verbs_init_and_alloc_context,
 * which the host tests never replace), or -1 if its file name does not say.
 * @path gets that file's real path (or "?").
 */
int libibverbs_release(char (&path)[PATH_MAX]) noexcept
{
	Dl_info info{};
	unsigned int so = 0;
	unsigned int minor = 0;
	int release = -1;
	char tail = 0;

	std::strcpy(path, "?");
	if (dladdr(reinterpret_cast<void *>(&_verbs_init_and_alloc_context),
		   &info) == 0 ||
	    info.dli_fname == nullptr ||
	    realpath(info.dli_fname, path) == nullptr)
		return -1;
	const char *base = std::strrchr(path, '/');
	base = base != nullptr ? base + 1 : path;
	/* "libibverbs.so.1.14.44.0": SONAME version, minor, release, patch */
	if (std::sscanf(base, "libibverbs.so.%u.%u.%d.%*u%c", &so, &minor,
			&release, &tail) != 3)
		return -1;
	return release;
}

__attribute__((constructor)) void sroce_register_driver() noexcept
{
	char path[PATH_MAX];
	const int saved_errno = errno;
	const int release = libibverbs_release(path);

	errno = saved_errno;
	if (release >= 0 &&
	    (release < SROCE_RDMA_CORE_MIN || release > SROCE_RDMA_CORE_MAX)) {
		std::fprintf(stderr,
			     "libsroce: Warning: not registering the sroce "
			     "provider: it is built for the private provider "
			     "ABI of rdma-core %d to %d, but libibverbs is "
			     "rdma-core %d (%s); rebuild sroce against it "
			     "(Documentation/provider.md)\n",
			     SROCE_RDMA_CORE_MIN, SROCE_RDMA_CORE_MAX, release,
			     path);
		return;
	}
	verbs_register_driver_34(&sroce::device_ops);
}

} /* namespace */
