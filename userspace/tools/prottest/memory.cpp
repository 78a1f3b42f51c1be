// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* memory.cpp - the memory of sroce-prottest's cases (memory.h). */
#include "memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include "ktap.h"
#include "verbs_util.h"

namespace prottest {

const std::size_t page_size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

mapping::~mapping()
{
	if (p_ != nullptr)
		munmap(p_, len_);
}

bool mapping::anon(std::size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return false;
	p_ = static_cast<unsigned char *>(p);
	len_ = len;
	return true;
}

bool mapping::alias(std::size_t len, std::size_t chunk)
{
	const int fd = memfd_create("sroce-prottest", MFD_CLOEXEC);

	if (fd < 0)
		return false;
	void *p = nullptr;
	if (ftruncate(fd, static_cast<off_t>(chunk)) == 0)
		p = mmap(nullptr, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == nullptr || p == MAP_FAILED) {
		close(fd);
		return false;
	}
	p_ = static_cast<unsigned char *>(p);
	len_ = len;
	for (std::size_t off = 0; off < len; off += chunk) {
		void *q = mmap(p_ + off, chunk, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_FIXED, fd, 0);

		if (q == MAP_FAILED) {
			close(fd);
			return false;
		}
	}
	close(fd);
	return true;
}

void compare_bytes(const char *what, const unsigned char *got,
		   const unsigned char *want, std::size_t len)
{
	const verbs_util::byte_diff d = verbs_util::diff_bytes(got, want, len);
	const std::size_t n = d.count, first = d.first, last = d.last;

	if (n == 0) {
		ktap::note("%s: all %zu bytes as expected", what, len);
		return;
	}
	ktap::fail(
		"%s: %zu of %zu bytes changed, offsets %zu..%zu (byte %zu is "
		"%#x, expected %#x)",
		what, n, len, first, last, first, got[first], want[first]);
}

} /* namespace prottest */
