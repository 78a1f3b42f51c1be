// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The CQ ring as the provider consumes it: ring descriptions, free-running
 * indices across the 2^32 wrap, empty and full rings, CQE -> ibv_wc, arming.
 * A plain buffer plays the mapping; the test plays the kernel's producer.
 */
#include <cstring>
#include <span>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "kernel_ring.h"
#include "ring.h"

namespace {

using sroce_test::ring_over_buffer;

constexpr std::uint32_t page = sroce_test::kernel_page;

/* What sroce.ko hands out for a CQ of n entries. */
sroce_ring_info kernel_info(std::uint32_t n)
{
	return sroce_test::kernel_ring_info(n, sizeof(sroce_cqe),
					    std::uint64_t{5} * page, true);
}

/* A mapped ring and the kernel's side of it. */
class Ring : public ::testing::Test {
protected:
	void make(std::uint32_t n)
	{
		info_ = kernel_info(n);
		ring_over_buffer(mem_, info_, sizeof(sroce_cqe), true, &view_,
				 &layout_);
	}

	/* Start both indices at value (as after a long run). */
	void set_indices(std::uint32_t value)
	{
		*view_.producer = value;
		*view_.consumer = value;
		prod_ = value;
	}

	/* The kernel's sroce_cq_post(), minus locking and arming. */
	bool post(std::uint64_t wr_id)
	{
		if (prod_ - *view_.consumer >= layout_.num_entries)
			return false;
		sroce_cqe c{};
		c.wr_id = wr_id;
		c.status = IBV_WC_SUCCESS;
		c.opcode = IBV_WC_RECV;
		c.byte_len = static_cast<std::uint32_t>(wr_id);
		std::memcpy(view_.entries +
				    std::size_t{prod_ & view_.mask} * 64,
			    &c, sizeof(c));
		++prod_;
		std::atomic_ref<std::uint32_t>(*view_.producer)
			.store(prod_, std::memory_order_release);
		return true;
	}

	/* A receive completion of QP qpn. */
	void post_qp(std::uint64_t wr_id, std::uint32_t qpn)
	{
		sroce_cqe c{};
		c.wr_id = wr_id;
		c.opcode = IBV_WC_RECV;
		c.qp_num = qpn;
		std::memcpy(view_.slot(prod_).data(), &c, sizeof(c));
		++prod_;
		std::atomic_ref<std::uint32_t>(*view_.producer)
			.store(prod_, std::memory_order_release);
	}

	/* Poll everything: the wr_ids in order. */
	std::vector<std::uint64_t> drain()
	{
		ibv_wc wc[16];
		const int n = sroce::cq_ring_poll(view_, wc);
		std::vector<std::uint64_t> ids(
			n > 0 ? static_cast<std::size_t>(n) : 0);

		for (std::size_t i = 0; i < ids.size(); ++i)
			ids[i] = wc[i].wr_id;
		return ids;
	}

	sroce_ring_info info_{};
	sroce::ring_layout layout_{};
	std::vector<unsigned char> mem_;
	sroce::ring_view view_{};
	std::uint32_t prod_ = 0;
};

TEST_F(Ring, EmptyPollsNothingAndLeavesConsumer)
{
	make(8);
	ibv_wc wc[4];

	EXPECT_EQ(sroce::cq_ring_poll(view_, wc), 0);
	EXPECT_EQ(*view_.consumer, 0U);
}

TEST_F(Ring, FullHoldsExactlyNumEntries)
{
	make(8);
	for (std::uint64_t i = 0; i < 8; ++i)
		ASSERT_TRUE(post(i));
	EXPECT_FALSE(post(99)) << "a ring of 8 took a 9th entry";

	ibv_wc wc[16];
	ASSERT_EQ(sroce::cq_ring_poll(view_, wc), 8);
	for (int i = 0; i < 8; ++i)
		EXPECT_EQ(wc[i].wr_id, static_cast<std::uint64_t>(i));
	EXPECT_EQ(*view_.consumer, 8U);
	EXPECT_TRUE(post(8)) << "room again after polling";
}

TEST_F(Ring, PollTakesAtMostWhatIsAsked)
{
	make(8);
	for (std::uint64_t i = 0; i < 5; ++i)
		ASSERT_TRUE(post(i));
	ibv_wc wc[2];

	ASSERT_EQ(sroce::cq_ring_poll(view_, wc), 2);
	EXPECT_EQ(wc[1].wr_id, 1U);
	ASSERT_EQ(sroce::cq_ring_poll(view_, wc), 2);
	EXPECT_EQ(wc[0].wr_id, 2U);
	ASSERT_EQ(sroce::cq_ring_poll(view_, wc), 1);
	EXPECT_EQ(wc[0].wr_id, 4U);
	EXPECT_EQ(sroce::cq_ring_poll(view_, wc), 0);
}

TEST_F(Ring, IndicesWrapAround32Bits)
{
	make(4);
	set_indices(0xfffffffeU);
	std::uint64_t next = 0, want = 0;
	ibv_wc wc[4];

	/* Cross 2^32 several times, with the ring full at the wrap. */
	for (int round = 0; round < 6; ++round) {
		for (int i = 0; i < 4; ++i)
			ASSERT_TRUE(post(next++));
		EXPECT_FALSE(post(1000));
		ASSERT_EQ(sroce::cq_ring_poll(view_, std::span(wc).first(3)),
			  3);
		for (int i = 0; i < 3; ++i)
			EXPECT_EQ(wc[i].wr_id, want++);
		ASSERT_EQ(sroce::cq_ring_poll(view_, wc), 1);
		EXPECT_EQ(wc[0].wr_id, want++);
	}
	EXPECT_EQ(*view_.consumer, 0xfffffffeU + 24U);
	EXPECT_LT(*view_.consumer, 100U) << "did not wrap";
}

TEST_F(Ring, ProducerTooFarAheadIsAnError)
{
	make(4);
	*view_.producer = 5; /* more than a ring ahead of consumer 0 */
	ibv_wc wc[8];

	EXPECT_EQ(sroce::cq_ring_poll(view_, wc), -1);
	EXPECT_EQ(*view_.consumer, 0U) << "consumed from a corrupt ring";
}

TEST(RingArithmetic, UsedAndSlot)
{
	EXPECT_EQ(sroce::ring_used(3, 0xfffffffdU), 6U);
	EXPECT_EQ(sroce::ring_used(7, 7), 0U);
	EXPECT_EQ(sroce::ring_slot(0xffffffffU, 7), 7U);
	EXPECT_EQ(sroce::ring_slot(0x100000000ULL & 0xffffffffU, 7), 0U);
}

TEST_F(Ring, SlotIsTheEntryOfTheFreeRunningIndex)
{
	make(8);
	for (std::uint32_t index : {0U, 5U, 8U, 13U, 0xffffffffU}) {
		const std::span<unsigned char> s = view_.slot(index);

		EXPECT_EQ(s.data(),
			  mem_.data() + 512 + std::size_t{index & 7} * 64)
			<< index;
		EXPECT_EQ(s.size(), 64U) << index;
	}
}

TEST_F(Ring, PurgeDropsOneQpsCqesAndKeepsTheOrder)
{
	make(8);
	post_qp(1, 7);
	post_qp(2, 9);
	post_qp(3, 7);
	post_qp(4, 9);
	post_qp(5, 7);
	EXPECT_EQ(sroce::cq_ring_purge(view_, 7), 3U);
	EXPECT_EQ(*view_.consumer, 3U);
	EXPECT_EQ(drain(), (std::vector<std::uint64_t>{2, 4}));
	/* Nothing of that QP left: nothing dropped, nothing moves. */
	post_qp(6, 9);
	EXPECT_EQ(sroce::cq_ring_purge(view_, 7), 0U);
	EXPECT_EQ(drain(), (std::vector<std::uint64_t>{6}));
}

TEST_F(Ring, PurgeAcrossTheWrapAndOfAFullRing)
{
	make(4);
	set_indices(0xfffffffe);
	post_qp(1, 5);
	post_qp(2, 6);
	post_qp(3, 5);
	post_qp(4, 6);
	EXPECT_EQ(sroce::cq_ring_purge(view_, 6), 2U);
	EXPECT_EQ(*view_.consumer, 0U);
	EXPECT_EQ(drain(), (std::vector<std::uint64_t>{1, 3}));
	post_qp(5, 6);
	post_qp(6, 6);
	EXPECT_EQ(sroce::cq_ring_purge(view_, 6), 2U);
	EXPECT_EQ(drain(), std::vector<std::uint64_t>{});
}

TEST_F(Ring, PurgeLeavesACorruptedRingAlone)
{
	make(4);
	*view_.producer = 5;
	EXPECT_EQ(sroce::cq_ring_purge(view_, 0), 0U);
	EXPECT_EQ(*view_.consumer, 0U);
}

TEST_F(Ring, ArmSetsTheBitItIsAsked)
{
	make(4);
	sroce::cq_ring_arm(view_, true);
	EXPECT_EQ(*view_.notify,
		  static_cast<std::uint32_t>(SROCE_CQ_NOTIFY_SOLICITED));
	sroce::cq_ring_arm(view_, false);
	EXPECT_EQ(*view_.notify,
		  static_cast<std::uint32_t>(SROCE_CQ_NOTIFY_SOLICITED |
					     SROCE_CQ_NOTIFY_NEXT_COMP));
	/* The word lives where the kernel said, not in an index. */
	EXPECT_EQ(reinterpret_cast<unsigned char *>(view_.notify) - mem_.data(),
		  256);
	EXPECT_EQ(*view_.producer, 0U);
	EXPECT_EQ(*view_.consumer, 0U);
}

TEST(RingInfo, AcceptsKernelLayouts)
{
	for (std::uint32_t n : {1U, 2U, 64U, 65536U}) {
		sroce::ring_layout l{};
		ASSERT_EQ(sroce::parse_ring_info(kernel_info(n), 64, true, page,
						 &l),
			  0)
			<< n;
		EXPECT_EQ(l.num_entries, n);
		EXPECT_EQ(l.mmap_offset, 5U * page);
	}
}

TEST(RingInfo, RefusesBadDescriptions)
{
	struct bad_case {
		const char *what;
		void (*edit)(sroce_ring_info &);
	};
	const bad_case cases[] = {
		{"zero entries", [](sroce_ring_info &i) { i.num_entries = 0; }},
		{"entries not a power of two",
		 [](sroce_ring_info &i) { i.num_entries = 6; }},
		{"entry smaller than a CQE",
		 [](sroce_ring_info &i) { i.entry_size = 32; }},
		{"entry size not 8-aligned",
		 [](sroce_ring_info &i) { i.entry_size = 68; }},
		{"entries past the mapping",
		 [](sroce_ring_info &i) { i.num_entries = 128; }},
		{"mapping size not page-aligned",
		 [](sroce_ring_info &i) { i.mmap_size = 4000; }},
		{"zero mapping size",
		 [](sroce_ring_info &i) { i.mmap_size = 0; }},
		{"offset not page-aligned",
		 [](sroce_ring_info &i) { i.mmap_offset = 100; }},
		{"producer inside the entries",
		 [](sroce_ring_info &i) { i.producer_offset = 512; }},
		{"producer unaligned",
		 [](sroce_ring_info &i) { i.producer_offset = 2; }},
		{"consumer past the end",
		 [](sroce_ring_info &i) { i.consumer_offset = 4094; }},
		{"consumer == producer",
		 [](sroce_ring_info &i) { i.consumer_offset = 0; }},
		{"notify == consumer",
		 [](sroce_ring_info &i) { i.notify_offset = 128; }},
		{"huge entry count overflowing 32 bits",
		 [](sroce_ring_info &i) {
			 i.num_entries = 0x80000000U;
			 i.entry_size = 64;
		 }},
	};
	for (const bad_case &c : cases) {
		sroce_ring_info info = kernel_info(8);
		c.edit(info);
		sroce::ring_layout l{};
		l.num_entries = 12345;

		EXPECT_EQ(sroce::parse_ring_info(info, 64, true, page, &l),
			  EPROTO)
			<< c.what;
		EXPECT_EQ(l.num_entries, 12345U) << "written on failure";
	}
}

TEST(CqeToWc, CopiesEveryField)
{
	sroce_cqe c{};
	c.wr_id = 0x1122334455667788ULL;
	c.status = IBV_WC_REM_ACCESS_ERR;
	c.opcode = IBV_WC_RDMA_READ;
	c.vendor_err = 0x42;
	c.byte_len = 4096;
	c.qp_num = 0x123456;
	c.src_qp = 0x654321;
	c.pkey_index = 3;
	c.slid = 7;
	c.sl = 5;
	c.dlid_path_bits = 1;
	ibv_wc wc{};

	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.wr_id, c.wr_id);
	EXPECT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);
	EXPECT_EQ(wc.opcode, IBV_WC_RDMA_READ);
	EXPECT_EQ(wc.vendor_err, 0x42U);
	EXPECT_EQ(wc.byte_len, 4096U);
	EXPECT_EQ(wc.qp_num, 0x123456U);
	EXPECT_EQ(wc.src_qp, 0x654321U);
	EXPECT_EQ(wc.wc_flags, 0U);
	EXPECT_EQ(wc.pkey_index, 3);
	EXPECT_EQ(wc.slid, 7);
	EXPECT_EQ(wc.sl, 5);
	EXPECT_EQ(wc.dlid_path_bits, 1);
}

TEST(CqeToWc, FlagsAreTranslatedNotCopied)
{
	sroce_cqe c{};
	ibv_wc wc{};

	c.wc_flags = SROCE_WC_F_GRH | SROCE_WC_F_WITH_IMM;
	c.imm_data = htonl(0xdeadbeef);
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.wc_flags,
		  static_cast<unsigned>(IBV_WC_GRH | IBV_WC_WITH_IMM));
	EXPECT_EQ(ntohl(wc.imm_data), 0xdeadbeefU) << "byte order changed";

	c.wc_flags = SROCE_WC_F_WITH_INV; /* 4: IBV_WC_IP_CSUM_OK in ibv */
	c.imm_data = 0xabcd12;
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.wc_flags, static_cast<unsigned>(IBV_WC_WITH_INV));
	EXPECT_EQ(wc.invalidated_rkey, 0xabcd12U);
}

/*
 * A RoCE UD receive reports its L3 header type in sl, as mlx5 and hns do:
 * UCX 1.11-1.18 read it ((sl & 7) == 2: IPv4) before checking the
 * destination address in the GRH area, and drop what does not match.
 */
TEST(CqeToWc, UdGrhReportsTheNetworkHeaderTypeInSl)
{
	sroce_cqe c{};
	ibv_wc wc{};

	c.opcode = IBV_WC_RECV;
	c.wc_flags = SROCE_WC_F_GRH;
	c.network_hdr_type = 2; /* RDMA_NETWORK_IPV4 */
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.sl, 2) << "IPv4";
	EXPECT_EQ(wc.wc_flags, static_cast<unsigned>(IBV_WC_GRH));

	c.network_hdr_type = 3; /* RDMA_NETWORK_IPV6 */
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.sl, 1) << "IPv6";

	c.network_hdr_type = 0; /* no type: sl as the kernel wrote it */
	c.sl = 4;
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.sl, 4);

	/* Without a GRH the type means nothing: sl as the kernel wrote it. */
	c.wc_flags = 0;
	c.network_hdr_type = 2;
	c.sl = 0;
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.sl, 0);
	c.sl = 5;
	sroce::cqe_to_wc(c, &wc);
	EXPECT_EQ(wc.sl, 5);
}

TEST(CqeToWc, OpcodeAndStatusValuesMatchTheKernelUapi)
{
	/* The CQE carries ib_uverbs_wc_opcode values; ibv uses the same. */
	EXPECT_EQ(IB_UVERBS_WC_SEND, IBV_WC_SEND);
	EXPECT_EQ(IB_UVERBS_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE);
	EXPECT_EQ(IB_UVERBS_WC_RDMA_READ, IBV_WC_RDMA_READ);
	EXPECT_EQ(IB_UVERBS_WC_COMP_SWAP, IBV_WC_COMP_SWAP);
	EXPECT_EQ(IB_UVERBS_WC_FETCH_ADD, IBV_WC_FETCH_ADD);
	EXPECT_EQ(IB_UVERBS_WC_BIND_MW, IBV_WC_BIND_MW);
	EXPECT_EQ(IB_UVERBS_WC_LOCAL_INV, IBV_WC_LOCAL_INV);
	EXPECT_EQ(IB_UVERBS_WC_TSO, IBV_WC_TSO);
}

} /* namespace */
