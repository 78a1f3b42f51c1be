// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * provider_abi_child PROVIDER_SO: load the provider as libibverbs'
 * load_driver() does (dlopen with RTLD_NOW; on failure the same warning),
 * into whatever libibverbs.so.1 the dynamic loader found for this program
 * (provider_abi_test points LD_LIBRARY_PATH at doctored copies), and report
 * whether its constructor registered it.  The registration is taken here:
 * this program exports verbs_register_driver_34, which the provider's
 * import binds to before libibverbs' own (as in provider_load_test).
 *
 * Exit status: 0 registered once, 2 loaded but not registered, 3 not
 * loaded (dlopen failed), 1 bad usage.
 */
#include <cstdio>
#include <dlfcn.h>

#include <infiniband/verbs.h>

namespace {
int registrations;
} /* namespace */

extern "C" __attribute__((visibility("default"))) void
verbs_register_driver_34(const void * /* ops */)
{
	++registrations;
}

int main(int argc, char **argv)
{
	Dl_info info{};

	if (argc != 2) {
		std::fprintf(stderr, "usage: %s PROVIDER_SO\n", argv[0]);
		return 1;
	}
	/*
	 * Which libibverbs this program got (no call into it: without an
	 * RDMA device ibv_get_device_list() fails on a build host).
	 */
	if (dladdr(reinterpret_cast<void *>(&ibv_get_device_list), &info) != 0)
		std::printf("libibverbs: %s\n", info.dli_fname);
	std::fflush(stdout);

	void *handle = dlopen(argv[1], RTLD_NOW);
	if (handle == nullptr) {
		std::fprintf(stderr,
			     "libibverbs: Warning: couldn't load driver '%s': "
			     "%s\n",
			     argv[1], dlerror());
		return 3;
	}
	std::printf("registered %d\n", registrations);
	return registrations == 1 ? 0 : 2;
}
