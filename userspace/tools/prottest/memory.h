// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * memory.h - the memory of sroce-prottest's cases: page-aligned mappings
 * of their own (a region's neighbours are real memory of the same pages),
 * a large region that costs little memory, and the byte-for-byte
 * comparison of what a buffer holds with what it must hold.
 */
#ifndef SROCE_TOOLS_PROTTEST_MEMORY_H
#define SROCE_TOOLS_PROTTEST_MEMORY_H

#include <cstddef>
#include <cstdint>

namespace prottest {

extern const std::size_t page_size;

/* Page-aligned memory of its own mapping, unmapped with the object. */
class mapping {
public:
	mapping() = default;
	mapping(const mapping &) = delete;
	mapping &operator=(const mapping &) = delete;
	mapping(mapping &&) = delete;
	mapping &operator=(mapping &&) = delete;
	~mapping();

	/* len bytes of zeroed anonymous memory. */
	bool anon(std::size_t len);

	/*
	 * len bytes (a multiple of chunk) that are chunk bytes of one memfd
	 * mapped again and again: a region of 2^31 bytes costs chunk bytes of
	 * memory, and a write anywhere in it shows in the first chunk.
	 */
	bool alias(std::size_t len, std::size_t chunk);

	unsigned char *data() { return p_; }
	[[nodiscard]] std::size_t size() const { return len_; }
	std::uint64_t addr(std::size_t off = 0)
	{
		return reinterpret_cast<std::uintptr_t>(p_ + off);
	}

private:
	unsigned char *p_ = nullptr;
	std::size_t len_ = 0;
};

/*
 * got must equal want byte for byte: noted if so, a failure of the case
 * saying where not.
 */
void compare_bytes(const char *what, const unsigned char *got,
		   const unsigned char *want, std::size_t len);

} /* namespace prottest */

#endif /* SROCE_TOOLS_PROTTEST_MEMORY_H */
