// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Command and response buffers (byte layout as the kernel reads it) and the
 * validation of the GET_CONTEXT response.
 */
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "sroce.h"
#include "uverbs_cmd.h"

namespace {

template <typename T>
std::vector<unsigned char> bytes_of(const T &obj, std::size_t off,
				    std::size_t len)
{
	const auto *p = reinterpret_cast<const unsigned char *>(&obj);

	return {p + off, p + off + len};
}

TEST(CommandBuffer, GetContextTailFollowsCoreStruct)
{
	sroce::get_context_cmd cmd{};
	cmd.drv = sroce::make_ucontext_cmd();

	/* { hdr (8); ib_uverbs_get_context: response (8) } then the tail. */
	EXPECT_EQ(sroce::get_context_cmd::size, 24U);
	EXPECT_EQ(reinterpret_cast<unsigned char *>(&cmd.drv) -
			  reinterpret_cast<unsigned char *>(cmd.buf()),
		  16);

	const std::uint32_t want[2] = {SROCE_UVERBS_ABI_VERSION, 0};
	std::vector<unsigned char> tail = bytes_of(cmd, 16, 8);
	EXPECT_EQ(std::memcmp(tail.data(), want, sizeof(want)), 0);
	/* Header and core are libibverbs' to fill: left zero. */
	EXPECT_EQ(bytes_of(cmd, 0, 16), std::vector<unsigned char>(16, 0));
}

TEST(CommandBuffer, GetContextResponseTailFollowsCoreResponse)
{
	sroce::get_context_resp resp{};
	auto *raw = reinterpret_cast<unsigned char *>(&resp);

	EXPECT_EQ(sroce::get_context_resp::size,
		  8 + sizeof(sroce_alloc_ucontext_resp));
	EXPECT_EQ(static_cast<void *>(resp.core_ptr()),
		  static_cast<void *>(raw));

	/* What the kernel writes at response + sizeof(core) is the tail. */
	sroce_alloc_ucontext_resp k{};
	k.abi_version = 7;
	k.page_size = 4096;
	k.features = 0x1122334455667788ULL;
	std::memcpy(raw + sizeof(ib_uverbs_get_context_resp), &k, sizeof(k));
	EXPECT_EQ(resp.drv.abi_version, 7U);
	EXPECT_EQ(resp.drv.page_size, 4096U);
	EXPECT_EQ(resp.drv.features, 0x1122334455667788ULL);
}

TEST(CommandBuffer, QueryPortHasNoTail)
{
	sroce::query_port_cmd cmd{};

	EXPECT_EQ(sroce::query_port_cmd::size,
		  sizeof(ib_uverbs_cmd_hdr) + sizeof(ib_uverbs_query_port));
	EXPECT_EQ(static_cast<void *>(cmd.buf()), static_cast<void *>(&cmd));
}

sroce_alloc_ucontext_resp good_resp()
{
	sroce_alloc_ucontext_resp r{};

	r.abi_version = SROCE_UVERBS_ABI_VERSION;
	r.page_size = 4096;
	r.features = 0;
	r.max_inline_data = 64;
	return r;
}

TEST(UcontextResponse, AcceptsSupportedAbiAndKeepsFields)
{
	for (std::uint32_t v = SROCE_UVERBS_ABI_VERSION_MIN;
	     v <= SROCE_UVERBS_ABI_VERSION; ++v) {
		sroce_alloc_ucontext_resp r = good_resp();
		r.abi_version = v;
		r.page_size = 65536;
		r.features = 0x8000000000000001ULL; /* unknown bits kept */
		sroce::ucontext_params p{};

		ASSERT_EQ(sroce::parse_ucontext_resp(r, &p), 0) << v;
		EXPECT_EQ(p.abi_version, v);
		EXPECT_EQ(p.page_size, 65536U);
		EXPECT_EQ(p.features, 0x8000000000000001ULL);
		EXPECT_EQ(p.max_inline_data, 64U);
	}
}

TEST(UcontextResponse, RefusesAbiOutsideRange)
{
	const std::uint32_t bad[] = {
		SROCE_UVERBS_ABI_VERSION_MIN - 1, /* 0: kernel left it unset */
		SROCE_UVERBS_ABI_VERSION + 1,
		0xffffffffU,
	};

	for (std::uint32_t v : bad) {
		sroce_alloc_ucontext_resp r = good_resp();
		r.abi_version = v;
		sroce::ucontext_params p{};
		p.page_size = 12345;

		EXPECT_EQ(sroce::parse_ucontext_resp(r, &p), EPROTO) << v;
		EXPECT_EQ(p.page_size, 12345U) << "written on failure";
	}
}

TEST(UcontextResponse, RefusesZeroedResponse)
{
	const sroce_alloc_ucontext_resp r{};
	sroce::ucontext_params p{};

	EXPECT_EQ(sroce::parse_ucontext_resp(r, &p), EPROTO);
}

TEST(UcontextResponse, RefusesPageSizeNotPowerOfTwo)
{
	for (std::uint32_t ps : {0U, 3000U, 4097U, 0xffffffffU}) {
		sroce_alloc_ucontext_resp r = good_resp();
		r.page_size = ps;
		sroce::ucontext_params p{};

		EXPECT_EQ(sroce::parse_ucontext_resp(r, &p), EINVAL) << ps;
	}
}

} /* namespace */
