// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Send and receive WQE encoding as the provider writes it into a slot:
 * gather lists, inline data, immediate data, RDMA, atomic, atomic write,
 * UD, XRC and memory window bind fields, and the requests it refuses.
 * Posting into a ring (full rings, index wrap, the doorbell) is
 * wq_post_test.cpp.
 */
#include <arpa/inet.h>
#include <cstddef>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "ah.h"
#include "kernel_ring.h"
#include "wqe.h"

namespace {

constexpr std::uint32_t max_sge = 4;
constexpr std::uint32_t max_inline = 64;

using sroce_test::read_as;

/* One send WR encoded into a slot-sized buffer. */
struct encoded {
	int ret;
	std::vector<unsigned char> slot;

	[[nodiscard]] sroce_send_wqe wqe() const
	{
		return read_as<sroce_send_wqe>(slot.data());
	}
};

encoded encode(const ibv_send_wr &wr, ibv_qp_type type = IBV_QPT_RC)
{
	encoded e{0, std::vector<unsigned char>(
			     sroce::sq_entry_min(max_sge, max_inline), 0xab)};

	e.ret = sroce::encode_send_wqe(wr, type, max_sge, max_inline, e.slot);
	return e;
}

TEST(WqeEncoding, SendWithSgesHasHeaderThenGatherList)
{
	ibv_sge sg[3] = {
		{0x1000, 100, 0x11},
		{0x7fff00000000ULL, 0xffffffffU, 0x22},
		{0, 0, 0x33},
	};
	ibv_send_wr wr{};
	wr.wr_id = 0xfeedfacecafebeefULL;
	wr.sg_list = sg;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_SOLICITED;
	wr.imm_data = htonl(0xa1b2c3d4U);
	wr.wr.rdma.remote_addr = 0x123456789abcULL;
	wr.wr.rdma.rkey = 0x4242;

	const encoded e = encode(wr);
	ASSERT_EQ(e.ret, 0);
	const sroce_send_wqe w = e.wqe();
	EXPECT_EQ(w.wr_id, 0xfeedfacecafebeefULL);
	EXPECT_EQ(w.opcode,
		  static_cast<std::uint32_t>(IB_UVERBS_WR_RDMA_WRITE_WITH_IMM));
	EXPECT_EQ(w.send_flags, static_cast<std::uint32_t>(
					SROCE_SEND_SIGNALED | SROCE_SEND_FENCE |
					SROCE_SEND_SOLICITED));
	EXPECT_EQ(w.num_sge, 3U);
	EXPECT_EQ(w.inline_len, 0U);
	EXPECT_EQ(w.imm_data, htonl(0xa1b2c3d4U));
	EXPECT_EQ(w.op.rdma.remote_addr, 0x123456789abcULL);
	EXPECT_EQ(w.op.rdma.rkey, 0x4242U);
	EXPECT_EQ(w.op.rdma.reserved, 0U);
	/* Nothing of the union past the operation's own fields. */
	for (std::size_t i = sizeof(w.op.rdma); i < sizeof(w.op.reserved); ++i)
		EXPECT_EQ(w.op.reserved[i], 0U) << i;
	EXPECT_EQ(w.xrc_srqn, 0U);
	for (std::uint32_t r : w.reserved)
		EXPECT_EQ(r, 0U);

	for (int i = 0; i < 3; ++i) {
		const auto s = read_as<sroce_sge>(e.slot.data() + 80 +
						  std::size_t{16} * i);
		EXPECT_EQ(s.addr, sg[i].addr) << i;
		EXPECT_EQ(s.length, sg[i].length) << i;
		EXPECT_EQ(s.lkey, sg[i].lkey) << i;
	}
	/* Nothing written past the list. */
	EXPECT_EQ(e.slot[80 + 16 * 3], 0xab);
}

TEST(WqeEncoding, InlineCopiesThePayloadAfterTheHeader)
{
	const char a[] = "hello, ";
	const char b[] = "inline world";
	ibv_sge sg[3] = {
		{reinterpret_cast<std::uintptr_t>(a), 7, 0x99},
		{0, 0, 0}, /* empty: skipped, address never read */
		{reinterpret_cast<std::uintptr_t>(b), 12, 0x98},
	};
	ibv_send_wr wr{};
	wr.wr_id = 7;
	wr.sg_list = sg;
	wr.num_sge = 3;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;

	const encoded e = encode(wr);
	ASSERT_EQ(e.ret, 0);
	const sroce_send_wqe w = e.wqe();
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(IB_UVERBS_WR_SEND));
	EXPECT_EQ(w.send_flags,
		  static_cast<std::uint32_t>(SROCE_SEND_INLINE |
					     SROCE_SEND_SIGNALED));
	EXPECT_EQ(w.num_sge, 0U);
	EXPECT_EQ(w.inline_len, 19U);
	EXPECT_EQ(std::memcmp(e.slot.data() + 80, "hello, inline world", 19),
		  0);
	EXPECT_EQ(e.slot[80 + 19], 0xab);
}

TEST(WqeEncoding, InlineUpToMaxInlineOnly)
{
	std::vector<unsigned char> data(max_inline + 1, 0x5a);
	ibv_sge sg[2] = {
		{reinterpret_cast<std::uintptr_t>(data.data()), 40, 1},
		{reinterpret_cast<std::uintptr_t>(data.data()), 24, 1},
	};
	ibv_send_wr wr{};
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_INLINE;

	encoded e = encode(wr);
	ASSERT_EQ(e.ret, 0) << "exactly max_inline_data bytes";
	EXPECT_EQ(e.wqe().inline_len, max_inline);

	sg[1].length = 25;
	e = encode(wr);
	EXPECT_EQ(e.ret, EINVAL);
	EXPECT_EQ(e.slot, std::vector<unsigned char>(e.slot.size(), 0xab))
		<< "a refused request wrote into the slot";

	/* Lengths whose 32-bit sum wraps are still too long. */
	sg[0].length = 0xffffffffU;
	sg[1].length = 2;
	EXPECT_EQ(encode(wr).ret, EINVAL);
}

TEST(WqeEncoding, InlineOnlyForOperationsWithPayload)
{
	ibv_send_wr wr{};
	wr.send_flags = IBV_SEND_INLINE;

	for (ibv_wr_opcode op :
	     {IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
	      IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV}) {
		wr.opcode = op;
		EXPECT_EQ(encode(wr).ret, EINVAL) << op;
	}
	for (ibv_wr_opcode op :
	     {IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_INV,
	      IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM}) {
		wr.opcode = op;
		EXPECT_EQ(encode(wr).ret, 0) << op;
	}
}

TEST(WqeEncoding, ImmediateDataKeepsNetworkByteOrder)
{
	ibv_send_wr wr{};
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(0x01020304U);

	const encoded e = encode(wr);
	ASSERT_EQ(e.ret, 0);
	const unsigned char want[4] = {1, 2, 3, 4};
	EXPECT_EQ(
		std::memcmp(e.slot.data() + offsetof(sroce_send_wqe, imm_data),
			    want, 4),
		0);
	/* No immediate data for a plain send. */
	wr.opcode = IBV_WR_SEND;
	EXPECT_EQ(encode(wr).wqe().imm_data, 0U);
}

TEST(WqeEncoding, InvalidateCarriesTheRkeyInHostOrder)
{
	ibv_send_wr wr{};
	wr.invalidate_rkey = 0x00c0ffeeU;

	for (ibv_wr_opcode op : {IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV}) {
		wr.opcode = op;
		const encoded e = encode(wr);
		ASSERT_EQ(e.ret, 0) << op;
		EXPECT_EQ(e.wqe().invalidate_rkey, 0x00c0ffeeU) << op;
	}
}

TEST(WqeEncoding, RdmaReadAndAtomicFields)
{
	ibv_sge sg{0x5000, 8, 0x77};
	ibv_send_wr wr{};
	wr.sg_list = &sg;
	wr.num_sge = 1;

	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0xaaaabbbbccccULL;
	wr.wr.rdma.rkey = 0x1001;
	sroce_send_wqe w = encode(wr).wqe();
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(IB_UVERBS_WR_RDMA_READ));
	EXPECT_EQ(w.op.rdma.remote_addr, 0xaaaabbbbccccULL);
	EXPECT_EQ(w.op.rdma.rkey, 0x1001U);

	wr = ibv_send_wr{};
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0x10000008ULL;
	wr.wr.atomic.compare_add = 0x1111222233334444ULL;
	wr.wr.atomic.swap = 0x5555666677778888ULL;
	wr.wr.atomic.rkey = 0x2002;
	w = encode(wr).wqe();
	EXPECT_EQ(w.opcode,
		  static_cast<std::uint32_t>(IB_UVERBS_WR_ATOMIC_CMP_AND_SWP));
	EXPECT_EQ(w.op.atomic.remote_addr, 0x10000008ULL);
	EXPECT_EQ(w.op.atomic.compare_add, 0x1111222233334444ULL);
	EXPECT_EQ(w.op.atomic.swap, 0x5555666677778888ULL);
	EXPECT_EQ(w.op.atomic.rkey, 0x2002U);
	EXPECT_EQ(w.op.atomic.reserved, 0U);
	EXPECT_EQ(w.num_sge, 1U);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w = encode(wr).wqe();
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(
				    IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD));
	EXPECT_EQ(w.op.atomic.compare_add, 0x1111222233334444ULL);
}

TEST(WqeEncoding, OpcodesMapToUverbsValues)
{
	const struct {
		ibv_wr_opcode ibv;
		std::uint32_t uverbs;
	} map[] = {
		{IBV_WR_SEND, IB_UVERBS_WR_SEND},
		{IBV_WR_SEND_WITH_IMM, IB_UVERBS_WR_SEND_WITH_IMM},
		{IBV_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE},
		{IBV_WR_RDMA_WRITE_WITH_IMM, IB_UVERBS_WR_RDMA_WRITE_WITH_IMM},
		{IBV_WR_RDMA_READ, IB_UVERBS_WR_RDMA_READ},
		{IBV_WR_ATOMIC_CMP_AND_SWP, IB_UVERBS_WR_ATOMIC_CMP_AND_SWP},
		{IBV_WR_ATOMIC_FETCH_AND_ADD,
		 IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD},
		{IBV_WR_SEND_WITH_INV, IB_UVERBS_WR_SEND_WITH_INV},
		{IBV_WR_LOCAL_INV, IB_UVERBS_WR_LOCAL_INV},
	};

	for (const auto &m : map) {
		ibv_send_wr wr{};
		wr.opcode = m.ibv;
		const encoded e = encode(wr);
		ASSERT_EQ(e.ret, 0) << m.ibv;
		EXPECT_EQ(e.wqe().opcode, m.uverbs) << m.ibv;
	}
}

TEST(WqeEncoding, RefusesWhatCannotBePosted)
{
	ibv_sge sg[max_sge + 1] = {};
	ibv_send_wr wr{};
	wr.sg_list = sg;

	wr.opcode = IBV_WR_SEND;
	wr.num_sge = max_sge;
	EXPECT_EQ(encode(wr).ret, 0);
	wr.num_sge = max_sge + 1;
	EXPECT_EQ(encode(wr).ret, EINVAL) << "more SGEs than max_send_sge";
	wr.num_sge = -1;
	EXPECT_EQ(encode(wr).ret, EINVAL) << "negative num_sge";
	wr.num_sge = 0;

	for (ibv_wr_opcode op :
	     {IBV_WR_TSO, IBV_WR_DRIVER1, static_cast<ibv_wr_opcode>(200)}) {
		wr.opcode = op;
		EXPECT_EQ(encode(wr).ret, EINVAL) << op;
	}
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_IP_CSUM;
	EXPECT_EQ(encode(wr).ret, EINVAL) << "unknown send flag";
	wr.send_flags = 1U << 20;
	EXPECT_EQ(encode(wr).ret, EINVAL) << "unknown send flag";
	wr.send_flags = 0;

	/* What the transport does not carry. */
	wr.opcode = IBV_WR_RDMA_READ;
	EXPECT_EQ(encode(wr, IBV_QPT_UC).ret, EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	EXPECT_EQ(encode(wr, IBV_QPT_UC).ret, EINVAL);
	wr.opcode = IBV_WR_RDMA_WRITE;
	EXPECT_EQ(encode(wr, IBV_QPT_UC).ret, 0);
	EXPECT_EQ(encode(wr, IBV_QPT_UD).ret, EINVAL);
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	EXPECT_EQ(encode(wr, IBV_QPT_UD).ret, 0);
	/* UC has no SEND with invalidate on the wire (IBTA 9.2.6). */
	wr.opcode = IBV_WR_SEND_WITH_INV;
	EXPECT_EQ(encode(wr, IBV_QPT_RC).ret, 0);
	EXPECT_EQ(encode(wr, IBV_QPT_UC).ret, EINVAL);
	EXPECT_EQ(encode(wr, IBV_QPT_UD).ret, EINVAL);
}

/* A context, a region and a window of it, as libibverbs leaves them. */
struct bind_objects {
	ibv_context ctx{};
	ibv_pd pd{};
	ibv_mr mr{};
	ibv_mw mw{};

	explicit bind_objects(ibv_mw_type type)
	{
		pd.context = &ctx;
		mr.context = &ctx;
		mr.pd = &pd;
		mr.lkey = 0x00abcd07U;
		mr.rkey = 0x00abcd07U;
		mw.context = &ctx;
		mw.pd = &pd;
		mw.rkey = 0x001234feU;
		mw.handle = 9;
		mw.type = type;
	}

	/* A bind of [addr, addr + length) with the window's next key. */
	[[nodiscard]] ibv_send_wr bind_wr(std::uint64_t addr,
					  std::uint64_t length)
	{
		ibv_send_wr wr{};

		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = &mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw.rkey);
		wr.bind_mw.bind_info.mr = &mr;
		wr.bind_mw.bind_info.addr = addr;
		wr.bind_mw.bind_info.length = length;
		wr.bind_mw.bind_info.mw_access_flags =
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
		return wr;
	}
};

TEST(WqeEncoding, BindMwFieldsAsTheAbiDocumentsThem)
{
	for (ibv_mw_type type : {IBV_MW_TYPE_1, IBV_MW_TYPE_2}) {
		bind_objects o(type);
		ibv_send_wr wr = o.bind_wr(0x7f0000001000ULL, 0x123456789ULL);
		wr.wr_id = 0x1122334455667788ULL;
		wr.send_flags =
			IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_SOLICITED;
		wr.bind_mw.bind_info.mw_access_flags =
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ZERO_BASED;
		wr.bind_mw.rkey = 0x00123401U;

		const encoded e = encode(wr);
		ASSERT_EQ(e.ret, 0) << type;
		const sroce_send_wqe w = e.wqe();
		EXPECT_EQ(w.wr_id, 0x1122334455667788ULL);
		EXPECT_EQ(w.opcode,
			  static_cast<std::uint32_t>(IB_UVERBS_WR_BIND_MW));
		EXPECT_EQ(w.send_flags,
			  static_cast<std::uint32_t>(SROCE_SEND_SIGNALED |
						     SROCE_SEND_FENCE |
						     SROCE_SEND_SOLICITED));
		EXPECT_EQ(w.num_sge, 0U);
		EXPECT_EQ(w.inline_len, 0U);
		EXPECT_EQ(w.imm_data, 0U);
		EXPECT_EQ(w.op.bind.mr_lkey, 0x00abcd07U)
			<< "the region's lkey";
		EXPECT_EQ(w.op.bind.rkey, 0x00123401U)
			<< "the new key, as given";
		EXPECT_EQ(w.op.bind.addr, 0x7f0000001000ULL);
		EXPECT_EQ(w.op.bind.length, 0x123456789ULL);
		/* Access flags as libibverbs' values, unconverted. */
		EXPECT_EQ(w.op.bind.access,
			  static_cast<std::uint32_t>(IBV_ACCESS_REMOTE_READ |
						     IBV_ACCESS_REMOTE_WRITE |
						     IBV_ACCESS_REMOTE_ATOMIC |
						     IBV_ACCESS_ZERO_BASED));
		EXPECT_EQ(w.op.bind.reserved, 0U);
		EXPECT_EQ(w.xrc_srqn, 0U);
		for (std::uint32_t r : w.reserved)
			EXPECT_EQ(r, 0U);
		/* Nothing after the header. */
		EXPECT_EQ(e.slot[sizeof(sroce_send_wqe)], 0xab);
	}
}

TEST(WqeEncoding, BindMwIgnoresTheGatherList)
{
	bind_objects o(IBV_MW_TYPE_2);
	ibv_sge sg[max_sge + 1] = {};
	ibv_send_wr wr = o.bind_wr(0x1000, 0x100);
	wr.sg_list = sg;

	for (int n : {1, static_cast<int>(max_sge) + 1, -1}) {
		wr.num_sge = n;
		const encoded e = encode(wr);
		ASSERT_EQ(e.ret, 0) << n;
		EXPECT_EQ(e.wqe().num_sge, 0U) << n;
		EXPECT_EQ(e.slot[sizeof(sroce_send_wqe)], 0xab) << n;
	}
}

TEST(WqeEncoding, UnbindOfAType1WindowNeedsNoRegion)
{
	bind_objects o(IBV_MW_TYPE_1);
	ibv_send_wr wr = o.bind_wr(0, 0);

	/* With the region given, its lkey is still not sent. */
	sroce_send_wqe w = encode(wr).wqe();
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(IB_UVERBS_WR_BIND_MW));
	EXPECT_EQ(w.op.bind.length, 0U);
	EXPECT_EQ(w.op.bind.mr_lkey, 0U);

	wr.bind_mw.bind_info.mr = nullptr;
	const encoded e = encode(wr);
	ASSERT_EQ(e.ret, 0);
	w = e.wqe();
	EXPECT_EQ(w.op.bind.length, 0U);
	EXPECT_EQ(w.op.bind.mr_lkey, 0U);
	EXPECT_EQ(w.op.bind.rkey, 0x001234ffU);
}

TEST(WqeEncoding, BindMwOnRcAndUcOnly)
{
	bind_objects o(IBV_MW_TYPE_2);
	const ibv_send_wr wr = o.bind_wr(0x1000, 0x100);

	EXPECT_EQ(encode(wr, IBV_QPT_RC).ret, 0);
	EXPECT_EQ(encode(wr, IBV_QPT_UC).ret, 0);
	EXPECT_EQ(encode(wr, IBV_QPT_UD).ret, EINVAL);
}

TEST(WqeEncoding, BindMwRefusals)
{
	/* Each case changes one thing of a good type 2 bind. */
	const struct {
		const char *what;
		void (*spoil)(bind_objects &o, ibv_send_wr &wr);
	} cases[] = {
		{"inline",
		 [](bind_objects &, ibv_send_wr &wr) {
			 wr.send_flags = IBV_SEND_INLINE;
		 }},
		{"unknown send flag",
		 [](bind_objects &, ibv_send_wr &wr) {
			 wr.send_flags = IBV_SEND_IP_CSUM;
		 }},
		{"no window", [](bind_objects &,
				 ibv_send_wr &wr) { wr.bind_mw.mw = nullptr; }},
		{"a key of another window",
		 [](bind_objects &, ibv_send_wr &wr) {
			 wr.bind_mw.rkey = 0x00123501U;
		 }},
		{"a key of another window, same low byte",
		 [](bind_objects &, ibv_send_wr &wr) {
			 wr.bind_mw.rkey = 0x801234ffU;
		 }},
		{"type 2 with length 0",
		 [](bind_objects &, ibv_send_wr &wr) {
			 wr.bind_mw.bind_info.length = 0;
		 }},
		{"a length without a region",
		 [](bind_objects &, ibv_send_wr &wr) {
			 wr.bind_mw.bind_info.mr = nullptr;
		 }},
		{"a region of another context",
		 [](bind_objects &o, ibv_send_wr &) {
			 static ibv_context other{};
			 o.mr.context = &other;
		 }},
		{"an unknown window type",
		 [](bind_objects &o, ibv_send_wr &) {
			 o.mw.type = static_cast<ibv_mw_type>(3);
		 }},
	};

	for (const auto &c : cases) {
		bind_objects o(IBV_MW_TYPE_2);
		ibv_send_wr wr = o.bind_wr(0x1000, 0x100);
		ASSERT_EQ(encode(wr).ret, 0) << c.what;

		c.spoil(o, wr);
		const encoded e = encode(wr);
		EXPECT_EQ(e.ret, EINVAL) << c.what;
		EXPECT_EQ(e.slot[0], 0xab) << c.what << ": slot written";
	}

	/* The same key is the window's: the kernel decides on it. */
	bind_objects o(IBV_MW_TYPE_2);
	ibv_send_wr wr = o.bind_wr(0x1000, 0x100);
	wr.bind_mw.rkey = o.mw.rkey;
	EXPECT_EQ(encode(wr).ret, 0);
}

TEST(WqeEncoding, UdSendCarriesDestinationQp)
{
	ibv_send_wr wr{};
	sroce::ah ah{};
	ah.num = 0x77;
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = &ah.ibah;
	wr.wr.ud.remote_qpn = 0x123456;
	wr.wr.ud.remote_qkey = 0x80010000U;

	sroce_send_wqe w = encode(wr, IBV_QPT_UD).wqe();
	EXPECT_EQ(w.op.ud.remote_qpn, 0x123456U);
	EXPECT_EQ(w.op.ud.remote_qkey, 0x80010000U);
	EXPECT_EQ(w.op.ud.ah, 0x77U) << "the AH's number from CREATE_AH";
	EXPECT_EQ(w.op.ud.reserved, 0U);

	/* No AH: number 0, which the kernel refuses (a local error). */
	wr.wr.ud.ah = nullptr;
	EXPECT_EQ(encode(wr, IBV_QPT_UD).wqe().op.ud.ah, 0U);

	/* On RC the union is not written for a send. */
	w = encode(wr, IBV_QPT_RC).wqe();
	EXPECT_EQ(w.op.ud.remote_qpn, 0U);
	EXPECT_EQ(w.op.ud.remote_qkey, 0U);
}

TEST(WqeEncoding, XrcSendCarriesTheRemoteSrqNumber)
{
	ibv_send_wr wr{};
	wr.opcode = IBV_WR_RDMA_READ;
	wr.qp_type.xrc.remote_srqn = 0xabcdef;
	wr.wr.rdma.rkey = 0x4242;

	/* An XRC INI QP posts RC's opcodes, each naming the target SRQ. */
	const encoded e = encode(wr, IBV_QPT_XRC_SEND);
	ASSERT_EQ(e.ret, 0);
	EXPECT_EQ(e.wqe().xrc_srqn, 0xabcdefU);
	EXPECT_EQ(e.wqe().op.rdma.rkey, 0x4242U);
	/* Other QP types leave it zero; an XRC TGT QP posts nothing. */
	EXPECT_EQ(encode(wr, IBV_QPT_RC).wqe().xrc_srqn, 0U);
	EXPECT_EQ(encode(wr, IBV_QPT_XRC_RECV).ret, EINVAL);
	wr.opcode = IBV_WR_SEND;
	EXPECT_EQ(encode(wr, IBV_QPT_XRC_RECV).ret, EINVAL);
}

/* The 8 bytes of an atomic write, as they lie in memory. */
constexpr unsigned char aw_bytes[8] = {0x01, 0x23, 0x45, 0x67,
				       0x89, 0xab, 0xcd, 0xef};

TEST(WqeEncoding, AtomicWriteCarriesItsBytesInTheHeader)
{
	unsigned char buf[8];
	std::memcpy(buf, aw_bytes, sizeof(buf));
	ibv_sge sg{reinterpret_cast<std::uintptr_t>(buf), 8, 0x77};
	ibv_send_wr wr{};
	wr.wr_id = 0x99;
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	wr.wr.rdma.remote_addr = 0x7f0000001008ULL;
	wr.wr.rdma.rkey = 0x3003;
	wr.sg_list = &sg;
	wr.num_sge = 1;

	const encoded e = encode(wr);
	ASSERT_EQ(e.ret, 0);
	const sroce_send_wqe w = e.wqe();
	EXPECT_EQ(w.wr_id, 0x99U);
	EXPECT_EQ(w.opcode, 15U) << "IB_UVERBS_WR_ATOMIC_WRITE of Linux 6.2";
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(SROCE_WR_ATOMIC_WRITE));
	EXPECT_EQ(w.send_flags, static_cast<std::uint32_t>(SROCE_SEND_SIGNALED |
							   SROCE_SEND_FENCE));
	/* The bytes are read now, into the header: no gather list. */
	EXPECT_EQ(w.num_sge, 0U);
	EXPECT_EQ(w.inline_len, 0U);
	EXPECT_EQ(w.op.atomic_write.remote_addr, 0x7f0000001008ULL);
	EXPECT_EQ(w.op.atomic_write.rkey, 0x3003U);
	EXPECT_EQ(w.op.atomic_write.reserved, 0U);
	EXPECT_EQ(0, std::memcmp(w.op.atomic_write.data, aw_bytes, 8));
	for (std::size_t i = sizeof(w.op.atomic_write);
	     i < sizeof(w.op.reserved); ++i)
		EXPECT_EQ(w.op.reserved[i], 0U) << i;
	EXPECT_EQ(e.slot[80], 0xab) << "written past the header";
	/* A later change of the buffer changes nothing posted. */
	buf[0] = 0;
	EXPECT_EQ(encode(wr).wqe().op.atomic_write.data[0], 0U);
	EXPECT_EQ(w.op.atomic_write.data[0], 0x01U);
}

TEST(WqeEncoding, AtomicWriteGathersItsBytesFromSeveralSges)
{
	/* 3 + 0 + 5 bytes, with IBV_SEND_INLINE and no inline room. */
	ibv_sge sg[3] = {
		{reinterpret_cast<std::uintptr_t>(aw_bytes), 3, 1},
		{0, 0, 2},
		{reinterpret_cast<std::uintptr_t>(aw_bytes + 3), 5, 3},
	};
	ibv_send_wr wr{};
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.send_flags = IBV_SEND_INLINE;
	wr.sg_list = sg;
	wr.num_sge = 3;
	std::vector<unsigned char> slot(sroce::sq_entry_min(max_sge, 0), 0xab);

	ASSERT_EQ(sroce::encode_send_wqe(wr, IBV_QPT_RC, max_sge, 0, slot), 0);
	const auto w = read_as<sroce_send_wqe>(slot.data());
	EXPECT_EQ(0, std::memcmp(w.op.atomic_write.data, aw_bytes, 8));
	EXPECT_EQ(w.send_flags, 0U) << "never inline in the WQE";
	EXPECT_EQ(w.num_sge, 0U);
	EXPECT_EQ(w.inline_len, 0U);
}

TEST(WqeEncoding, AtomicWriteFromItsOwnBytesTakesNoSge)
{
	ibv_send_wr wr{};
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.wr.rdma.rkey = 0x5005;
	std::vector<unsigned char> slot(sroce::sq_entry_min(0, 0), 0xab);

	/* ibv_wr_atomic_write(): the bytes given, even with max_sge 0. */
	ASSERT_EQ(sroce::encode_send_wqe(wr, IBV_QPT_RC, 0, 0, slot, aw_bytes),
		  0);
	const auto w = read_as<sroce_send_wqe>(slot.data());
	EXPECT_EQ(0, std::memcmp(w.op.atomic_write.data, aw_bytes, 8));
	EXPECT_EQ(w.op.atomic_write.rkey, 0x5005U);

	/* A gather list besides them is refused, the slot untouched. */
	ibv_sge sg{reinterpret_cast<std::uintptr_t>(aw_bytes), 8, 1};
	wr.sg_list = &sg;
	wr.num_sge = 1;
	slot.assign(sroce::sq_entry_min(max_sge, 0), 0xab);
	EXPECT_EQ(sroce::encode_send_wqe(wr, IBV_QPT_RC, max_sge, 0, slot,
					 aw_bytes),
		  EINVAL);
	EXPECT_EQ(slot, std::vector<unsigned char>(slot.size(), 0xab));
}

TEST(WqeEncoding, AtomicWriteRefusals)
{
	ibv_sge sg[max_sge + 1] = {};
	ibv_send_wr wr{};
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.sg_list = sg;
	auto refused = [&wr](ibv_qp_type type, const char *why) {
		const encoded e = encode(wr, type);

		EXPECT_EQ(e.ret, EINVAL) << why;
		EXPECT_EQ(e.slot,
			  std::vector<unsigned char>(e.slot.size(), 0xab))
			<< why << ": a refused request wrote";
	};

	/* Not 8 bytes in all. */
	wr.num_sge = 0;
	refused(IBV_QPT_RC, "no bytes");
	sg[0] = {reinterpret_cast<std::uintptr_t>(aw_bytes), 7, 1};
	wr.num_sge = 1;
	refused(IBV_QPT_RC, "7 bytes");
	sg[0].length = 9;
	refused(IBV_QPT_RC, "9 bytes");
	sg[0].length = 0xffffffffU;
	sg[1] = {reinterpret_cast<std::uintptr_t>(aw_bytes), 9, 1};
	wr.num_sge = 2;
	refused(IBV_QPT_RC, "lengths adding up past 2^32");
	/* More SGEs than max_send_sge, even of 8 bytes in all. */
	for (std::uint32_t i = 0; i <= max_sge; ++i)
		sg[i] = {reinterpret_cast<std::uintptr_t>(aw_bytes),
			 i < 2 ? 4U : 0U, 1};
	wr.num_sge = max_sge + 1;
	refused(IBV_QPT_RC, "more SGEs than max_send_sge");
	/* RC only: no XRC opcode for it, none on UC or UD. */
	sg[0].length = 8;
	wr.num_sge = 1;
	EXPECT_EQ(encode(wr, IBV_QPT_RC).ret, 0);
	refused(IBV_QPT_XRC_SEND, "XRC INI");
	refused(IBV_QPT_UC, "UC");
	refused(IBV_QPT_UD, "UD");
	refused(IBV_QPT_RAW_PACKET, "raw packet");
}

TEST(WqeEncoding, RecvHasHeaderThenScatterList)
{
	ibv_sge sg[2] = {{0x2000, 4096, 0x10}, {0x9000, 64, 0x20}};
	ibv_recv_wr wr{};
	wr.wr_id = 0x1122334455667788ULL;
	wr.sg_list = sg;
	wr.num_sge = 2;
	std::vector<unsigned char> slot(sroce::rq_entry_min(max_sge), 0xab);

	ASSERT_EQ(sroce::encode_recv_wqe(wr, max_sge, slot), 0);
	const auto w = read_as<sroce_recv_wqe>(slot.data());
	EXPECT_EQ(w.wr_id, 0x1122334455667788ULL);
	EXPECT_EQ(w.num_sge, 2U);
	EXPECT_EQ(w.reserved, 0U);
	for (int i = 0; i < 2; ++i) {
		const auto s = read_as<sroce_sge>(slot.data() + 16 +
						  std::size_t{16} * i);
		EXPECT_EQ(s.addr, sg[i].addr);
		EXPECT_EQ(s.length, sg[i].length);
		EXPECT_EQ(s.lkey, sg[i].lkey);
	}
	EXPECT_EQ(slot[16 + 32], 0xab);

	std::fill(slot.begin(), slot.end(), 0xab);
	wr.num_sge = max_sge + 1;
	EXPECT_EQ(sroce::encode_recv_wqe(wr, max_sge, slot), EINVAL);
	wr.num_sge = -2;
	EXPECT_EQ(sroce::encode_recv_wqe(wr, max_sge, slot), EINVAL);
	EXPECT_EQ(slot, std::vector<unsigned char>(slot.size(), 0xab));
}

/*
 * The encoders write into the slot's span only: a WQE one byte larger than
 * the slot is refused with the slot untouched, one that fits exactly is
 * taken.  (The provider's slots are sq_entry_min/rq_entry_min large, so
 * its own requests always fit.)
 */
TEST(WqeEncoding, WqeLargerThanTheSlotIsRefused)
{
	char data[24] = "twenty-three bytes ....";
	ibv_sge sg[2] = {{0x1000, 8, 1}, {0x2000, 8, 2}};
	ibv_send_wr swr{};
	swr.opcode = IBV_WR_SEND;
	swr.sg_list = sg;
	swr.num_sge = 2;
	auto send_into = [&swr](std::size_t size, int want) {
		std::vector<unsigned char> slot(size, 0xab);

		EXPECT_EQ(sroce::encode_send_wqe(swr, IBV_QPT_RC, max_sge,
						 max_inline, slot),
			  want)
			<< size;
		if (want != 0) {
			EXPECT_EQ(slot, std::vector<unsigned char>(size, 0xab))
				<< size << ": a refused request wrote";
		}
	};

	/* Header and two SGEs. */
	send_into(80 + 2 * 16 - 1, EINVAL);
	send_into(80 + 2 * 16, 0);
	/* Header and 24 inline bytes. */
	sg[0] = {reinterpret_cast<std::uintptr_t>(data), sizeof(data), 1};
	swr.num_sge = 1;
	swr.send_flags = IBV_SEND_INLINE;
	send_into(80 + sizeof(data) - 1, EINVAL);
	send_into(80 + sizeof(data), 0);

	ibv_recv_wr rwr{};
	rwr.sg_list = sg;
	rwr.num_sge = 2;
	std::vector<unsigned char> slot(16 + 2 * 16 - 1, 0xab);
	EXPECT_EQ(sroce::encode_recv_wqe(rwr, max_sge, slot), EINVAL);
	EXPECT_EQ(slot, std::vector<unsigned char>(slot.size(), 0xab));
	slot.assign(16 + 2 * 16, 0xab);
	EXPECT_EQ(sroce::encode_recv_wqe(rwr, max_sge, slot), 0);
}

TEST(WqeEncoding, EntrySizesCoverSgesOrInline)
{
	EXPECT_EQ(sroce::sq_entry_min(4, 0), 80U + 64U);
	EXPECT_EQ(sroce::sq_entry_min(4, 64), 80U + 64U);
	EXPECT_EQ(sroce::sq_entry_min(1, 200), 80U + 200U);
	EXPECT_EQ(sroce::sq_entry_min(0, 0), 80U);
	EXPECT_EQ(sroce::rq_entry_min(2), 16U + 32U);
	EXPECT_EQ(sroce::rq_entry_min(0), 16U);
}

} /* namespace */
