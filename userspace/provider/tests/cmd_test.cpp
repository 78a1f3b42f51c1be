// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Command and response buffers (byte layout as the kernel reads it), the
 * validation of the GET_CONTEXT response, the capabilities its features
 * add to QUERY_DEVICE's, and what rereg_mr checks before and changes after
 * its command.
 */
#include <cstddef>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "context.h"
#include "mr.h"
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

TEST(CommandBuffer, MemoryCommandsHaveNoTail)
{
	/* { hdr (8); core } and nothing after: sizes as the kernel checks. */
	EXPECT_EQ(sroce::rereg_mr_cmd::size,
		  sizeof(ib_uverbs_cmd_hdr) + sizeof(ib_uverbs_rereg_mr));
	EXPECT_EQ(sroce::rereg_mr_cmd::size, 56U);
	EXPECT_EQ(sroce::alloc_mw_cmd::size,
		  sizeof(ib_uverbs_cmd_hdr) + sizeof(ib_uverbs_alloc_mw));
	EXPECT_EQ(sroce::alloc_mw_cmd::size, 24U);
	EXPECT_EQ(sizeof(ib_uverbs_rereg_mr_resp), 8U);
	EXPECT_EQ(sizeof(ib_uverbs_alloc_mw_resp), 8U);
}

/* An MR of context ctx in pd, as ibv_reg_mr() leaves it. */
struct mr_objects {
	ibv_context ctx{};
	ibv_context other_ctx{};
	ibv_pd pd{};
	ibv_pd pd2{};
	ibv_pd other_pd{};
	ibv_mr mr{};
	unsigned char buf[64] = {};
	unsigned char buf2[128] = {};

	mr_objects()
	{
		pd.context = &ctx;
		pd2.context = &ctx;
		other_pd.context = &other_ctx;
		mr.context = &ctx;
		mr.pd = &pd;
		mr.addr = buf;
		mr.length = sizeof(buf);
		mr.handle = 5;
		mr.lkey = 0x00000100U;
		mr.rkey = 0x00000100U;
	}
};

TEST(ReregMr, CheckAcceptsEveryKnownFlag)
{
	mr_objects o;

	EXPECT_EQ(sroce::rereg_mr_check(o.mr, IBV_REREG_MR_CHANGE_ACCESS,
					nullptr, nullptr, 0),
		  0);
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, IBV_REREG_MR_CHANGE_PD, &o.pd2,
					nullptr, 0),
		  0);
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, IBV_REREG_MR_CHANGE_TRANSLATION,
					nullptr, o.buf2, sizeof(o.buf2)),
		  0);
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, IBV_REREG_MR_FLAGS_SUPPORTED,
					&o.pd2, o.buf2, sizeof(o.buf2)),
		  0);
	/* Nothing to change: the kernel's to refuse. */
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, 0, nullptr, nullptr, 0), 0);
}

TEST(ReregMr, CheckRefusesBadInput)
{
	mr_objects o;
	const int pd = IBV_REREG_MR_CHANGE_PD;
	const int tr = IBV_REREG_MR_CHANGE_TRANSLATION;

	EXPECT_EQ(sroce::rereg_mr_check(o.mr, IBV_REREG_MR_FLAGS_SUPPORTED + 1,
					&o.pd2, o.buf2, 1),
		  EINVAL)
		<< "unknown flag";
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, -1, &o.pd2, o.buf2, 1), EINVAL)
		<< "unknown flags";
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, pd, nullptr, nullptr, 0), EINVAL)
		<< "no PD";
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, pd, &o.other_pd, nullptr, 0),
		  EINVAL)
		<< "PD of another context";
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, tr, nullptr, nullptr, 16), EINVAL)
		<< "no address";
	EXPECT_EQ(sroce::rereg_mr_check(o.mr, tr, nullptr, o.buf2, 0), EINVAL)
		<< "no length";
}

TEST(ReregMr, UpdateTakesTheNewKeysAlways)
{
	mr_objects o;
	ib_uverbs_rereg_mr_resp resp{};
	resp.lkey = 0x00000201U;
	resp.rkey = 0x00000202U;

	sroce::rereg_mr_update(&o.mr, IBV_REREG_MR_CHANGE_ACCESS, &o.pd2,
			       o.buf2, sizeof(o.buf2), resp);
	EXPECT_EQ(o.mr.lkey, 0x00000201U);
	EXPECT_EQ(o.mr.rkey, 0x00000202U);
	/* What the flags did not change stays. */
	EXPECT_EQ(o.mr.pd, &o.pd);
	EXPECT_EQ(o.mr.addr, o.buf);
	EXPECT_EQ(o.mr.length, sizeof(o.buf));
	EXPECT_EQ(o.mr.handle, 5U);
	EXPECT_EQ(o.mr.context, &o.ctx);
}

TEST(ReregMr, UpdateTakesWhatTheFlagsChanged)
{
	mr_objects o;
	ib_uverbs_rereg_mr_resp resp{};
	resp.lkey = 0x00000301U;
	resp.rkey = 0x00000301U;

	sroce::rereg_mr_update(&o.mr, IBV_REREG_MR_CHANGE_PD, &o.pd2, nullptr,
			       0, resp);
	EXPECT_EQ(o.mr.pd, &o.pd2);
	EXPECT_EQ(o.mr.addr, o.buf);
	EXPECT_EQ(o.mr.length, sizeof(o.buf));

	resp.lkey = 0x00000402U;
	resp.rkey = 0x00000402U;
	sroce::rereg_mr_update(&o.mr, IBV_REREG_MR_CHANGE_TRANSLATION, nullptr,
			       o.buf2, sizeof(o.buf2), resp);
	EXPECT_EQ(o.mr.pd, &o.pd2);
	EXPECT_EQ(o.mr.addr, o.buf2);
	EXPECT_EQ(o.mr.length, sizeof(o.buf2));
	EXPECT_EQ(o.mr.lkey, 0x00000402U);
	EXPECT_EQ(o.mr.rkey, 0x00000402U);
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
		SROCE_UVERBS_ABI_VERSION_MIN - 1, /* an older kernel's */
		0, /* kernel left it unset */
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

TEST(FeatureCaps, AtomicWriteAddsItsCapabilities)
{
	ibv_device_attr_ex a{};
	a.device_cap_flags_ex = 0x5;
	a.odp_caps.per_transport_caps.rc_odp_caps = IBV_ODP_SUPPORT_WRITE;
	a.odp_caps.per_transport_caps.uc_odp_caps = IBV_ODP_SUPPORT_WRITE;

	/* Without the feature nothing changes. */
	ibv_device_attr_ex b = a;
	sroce::add_feature_caps(0, &b, sizeof(b));
	EXPECT_EQ(b.device_cap_flags_ex, 0x5U);
	EXPECT_EQ(b.odp_caps.per_transport_caps.rc_odp_caps,
		  IBV_ODP_SUPPORT_WRITE);

	sroce::add_feature_caps(SROCE_UCTX_F_ATOMIC_WRITE, &b, sizeof(b));
	EXPECT_EQ(b.device_cap_flags_ex, 0x5 | (std::uint64_t{1} << 40))
		<< "Linux 6.2's IB_UVERBS_DEVICE_ATOMIC_WRITE";
	EXPECT_EQ(b.odp_caps.per_transport_caps.rc_odp_caps,
		  IBV_ODP_SUPPORT_WRITE | (1U << 7))
		<< "rdma-core 45's IBV_ODP_SUPPORT_ATOMIC_WRITE";
	EXPECT_EQ(b.odp_caps.per_transport_caps.uc_odp_caps,
		  IBV_ODP_SUPPORT_WRITE);

	/* No ODP writes on RC: no ODP atomic write. */
	b = a;
	b.odp_caps.per_transport_caps.rc_odp_caps = 0;
	sroce::add_feature_caps(SROCE_UCTX_F_ATOMIC_WRITE, &b, sizeof(b));
	EXPECT_EQ(b.odp_caps.per_transport_caps.rc_odp_caps, 0U);

	/* A caller's shorter struct: nothing beyond it is written. */
	b = a;
	sroce::add_feature_caps(
		SROCE_UCTX_F_ATOMIC_WRITE, &b,
		offsetof(ibv_device_attr_ex, device_cap_flags_ex));
	EXPECT_EQ(b.device_cap_flags_ex, 0x5U);
	EXPECT_EQ(b.odp_caps.per_transport_caps.rc_odp_caps,
		  IBV_ODP_SUPPORT_WRITE | (1U << 7));
	b = a;
	sroce::add_feature_caps(SROCE_UCTX_F_ATOMIC_WRITE, &b,
				sizeof(ibv_device_attr));
	EXPECT_EQ(b.device_cap_flags_ex, 0x5U);
	EXPECT_EQ(b.odp_caps.per_transport_caps.rc_odp_caps,
		  IBV_ODP_SUPPORT_WRITE);
}

} /* namespace */
