// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * map_ring(), the one helper that maps the CQ, SQ, RQ and SRQ rings: a
 * memfd plays the uverbs file, so the mapping is real (MAP_SHARED at the
 * ring's offset), and /proc/self/maps tells whether anything was mapped.
 * A refused description (sizes, offsets, counts that are no power of two,
 * lengths that overflow 32 bits, less than the object needs) maps nothing
 * and leaves the outputs alone.
 */
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "context.h"
#include "kernel_ring.h"
#include "ring_map.h"

namespace {

constexpr std::uint32_t page = sroce_test::kernel_page;
constexpr char memfd_name[] = "sroce-ring-map-test";

/* A ring of 8 64-byte entries at page 2 of the file: one page. */
sroce_ring_info good_info()
{
	return sroce_test::kernel_ring_info(8, 64, std::uint64_t{2} * page,
					    true);
}

constexpr sroce::ring_need need{
	.what = "test",
	.min_entry_size = 64,
	.min_entries = 8,
	.has_notify = true,
};

class RingMap : public ::testing::Test {
protected:
	void SetUp() override
	{
		fd_ = memfd_create(memfd_name, MFD_CLOEXEC);
		ASSERT_GE(fd_, 0) << std::strerror(errno);
		ASSERT_EQ(ftruncate(fd_, off_t{8} * page), 0);
		ctx_.vctx.context.cmd_fd = fd_;
		ctx_.params.page_size = page;
	}

	void TearDown() override { close(fd_); }

	ibv_context *ibctx() { return &ctx_.vctx.context; }

	/* How many mappings of the memfd this process has. */
	static int mappings()
	{
		std::ifstream maps("/proc/self/maps");
		std::string line;
		int n = 0;

		while (std::getline(maps, line))
			if (line.find(memfd_name) != std::string::npos)
				++n;
		return n;
	}

	int fd_ = -1;
	sroce::context ctx_{};
};

TEST_F(RingMap, MapsTheRingSharedAtItsOffset)
{
	sroce::ring_view view{};
	sroce::ring_mapping map{};

	ASSERT_EQ(sroce::map_ring(ibctx(), good_info(), need, &view, &map), 0);
	ASSERT_NE(map.base, nullptr);
	EXPECT_EQ(map.size, page);
	EXPECT_EQ(mappings(), 1);

	auto *const base = static_cast<unsigned char *>(map.base);
	EXPECT_EQ(reinterpret_cast<unsigned char *>(view.producer), base);
	EXPECT_EQ(reinterpret_cast<unsigned char *>(view.consumer), base + 128);
	EXPECT_EQ(reinterpret_cast<unsigned char *>(view.notify), base + 256);
	EXPECT_EQ(view.entries, base + 512);
	EXPECT_EQ(view.mask, 7U);
	EXPECT_EQ(view.entry_size, 64U);

	/* The kernel's side (the file at the ring's offset) is what we see. */
	const std::uint32_t prod = 0x12345678;
	ASSERT_EQ(pwrite(fd_, &prod, sizeof(prod), off_t{2} * page),
		  static_cast<ssize_t>(sizeof(prod)));
	EXPECT_EQ(*view.producer, prod);
	/* And what we write reaches it: slot 11 is slot 3. */
	std::memset(view.slot(11).data(), 0x5a, view.slot(11).size());
	unsigned char back[64] = {};
	ASSERT_EQ(pread(fd_, back, sizeof(back),
			off_t{2} * page + 512 + off_t{3} * 64),
		  static_cast<ssize_t>(sizeof(back)));
	for (unsigned char b : back)
		ASSERT_EQ(b, 0x5a);

	sroce::unmap_ring(&map);
	EXPECT_EQ(map.base, nullptr);
	EXPECT_EQ(map.size, 0U);
	EXPECT_EQ(mappings(), 0);
}

TEST_F(RingMap, RingWithoutNotifyWordHasNone)
{
	sroce_ring_info info = good_info();
	sroce::ring_need rq_need = need;
	sroce::ring_view view{};
	sroce::ring_mapping map{};

	info.notify_offset = 0;
	rq_need.has_notify = false;
	ASSERT_EQ(sroce::map_ring(ibctx(), info, rq_need, &view, &map), 0);
	EXPECT_EQ(view.notify, nullptr);
	sroce::unmap_ring(&map);
}

TEST_F(RingMap, RefusesBadDescriptionsAndMapsNothing)
{
	struct bad_case {
		const char *what;
		void (*edit)(sroce_ring_info &);
	};
	const bad_case cases[] = {
		{"entry smaller than the object needs",
		 [](sroce_ring_info &i) { i.entry_size = 56; }},
		{"entry size not 8-aligned",
		 [](sroce_ring_info &i) { i.entry_size = 68; }},
		{"fewer entries than granted",
		 [](sroce_ring_info &i) { i.num_entries = 4; }},
		{"entries not a power of two",
		 [](sroce_ring_info &i) { i.num_entries = 12; }},
		{"zero entries", [](sroce_ring_info &i) { i.num_entries = 0; }},
		{"size not a multiple of the page",
		 [](sroce_ring_info &i) { i.mmap_size = page + 512; }},
		{"zero size", [](sroce_ring_info &i) { i.mmap_size = 0; }},
		{"offset not page-aligned",
		 [](sroce_ring_info &i) { i.mmap_offset = 2 * page + 8; }},
		{"entries past the mapping",
		 [](sroce_ring_info &i) { i.num_entries = 64; }},
		{"entries length overflowing 32 bits",
		 [](sroce_ring_info &i) {
			 /* 2^26 * 128 = 2^33: 0 if computed in 32 bits */
			 i.num_entries = 1U << 26;
			 i.entry_size = 128;
		 }},
		{"entries offset overflowing 32 bits",
		 [](sroce_ring_info &i) { i.entries_offset = 0xffffffc0U; }},
		{"producer word at 2^32 - 4",
		 [](sroce_ring_info &i) { i.producer_offset = 0xfffffffcU; }},
		{"consumer word inside the entries",
		 [](sroce_ring_info &i) { i.consumer_offset = 520; }},
		{"notify word == producer word",
		 [](sroce_ring_info &i) { i.notify_offset = 0; }},
	};
	for (const bad_case &c : cases) {
		sroce_ring_info info = good_info();
		c.edit(info);
		sroce::ring_view view{};
		view.mask = 12345;
		sroce::ring_mapping map{};
		map.size = 54321;

		EXPECT_EQ(sroce::map_ring(ibctx(), info, need, &view, &map),
			  EPROTO)
			<< c.what;
		EXPECT_EQ(view.mask, 12345U) << c.what << ": view written";
		EXPECT_EQ(view.entries, nullptr) << c.what << ": view written";
		EXPECT_EQ(map.size, 54321U) << c.what << ": mapping written";
		EXPECT_EQ(map.base, nullptr) << c.what << ": mapping written";
		EXPECT_EQ(mappings(), 0) << c.what << ": something mapped";
	}
}

TEST_F(RingMap, UsesTheContextsPageSize)
{
	sroce::ring_view view{};
	sroce::ring_mapping map{};

	/* One 4 KiB page is no whole 8 KiB page. */
	ctx_.params.page_size = 2 * page;
	EXPECT_EQ(sroce::map_ring(ibctx(), good_info(), need, &view, &map),
		  EPROTO);
	ctx_.params.page_size = 0;
	EXPECT_EQ(sroce::map_ring(ibctx(), good_info(), need, &view, &map),
		  EPROTO);
	EXPECT_EQ(map.base, nullptr);
	EXPECT_EQ(mappings(), 0);
}

TEST_F(RingMap, MmapFailureIsItsErrno)
{
	sroce::ring_view view{};
	sroce::ring_mapping map{};

	ctx_.vctx.context.cmd_fd = -1;
	EXPECT_EQ(sroce::map_ring(ibctx(), good_info(), need, &view, &map),
		  EBADF);
	EXPECT_EQ(view.entries, nullptr);
	EXPECT_EQ(map.base, nullptr);
}

TEST(RingUnmap, NothingMappedIsNothingToDo)
{
	sroce::ring_mapping map{};

	sroce::unmap_ring(&map);
	EXPECT_EQ(map.base, nullptr);
	EXPECT_EQ(map.size, 0U);
}

} /* namespace */
