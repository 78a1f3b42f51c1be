// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP rings as the provider posts into them: full rings, a bad request
 * stopping a list, free-running indices across the 2^32 wrap, reset,
 * atomic write only where the kernel carries it, the doorbell decision
 * and the doorbell command's bytes, the states that take work requests.
 * A plain buffer plays the mapping; the test plays the kernel's
 * consumer.  What one WQE holds is wqe_test.cpp.
 */
#include <cstddef>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_ring.h"
#include "wqe.h"
#include "wr_list.h"

namespace {

constexpr std::uint32_t page = sroce_test::kernel_page;
constexpr std::uint32_t max_sge = 4;
constexpr std::uint32_t max_inline = 64;

using sroce_test::read_as;

/* An SQ or RQ ring of n entries over a buffer. */
class WqRing : public ::testing::Test {
protected:
	void make(std::uint32_t n, bool send)
	{
		const std::size_t esize =
			send ? sroce::sq_entry_min(max_sge, max_inline)
			     : sroce::rq_entry_min(max_sge);
		const sroce_ring_info info = sroce_test::kernel_ring_info(
			n, static_cast<std::uint32_t>(esize),
			std::uint64_t{3} * page, true);

		send_ = send;
		wq_ = sroce::work_queue{
			.ring = {},
			.prod = 0,
			.max_sge = max_sge,
			.max_inline = send ? max_inline : 0,
			.atomic_write = send,
		};
		sroce_test::ring_over_buffer(mem_, info, esize, send,
					     &wq_.ring);
	}

	/* Start all indices at value (as after a long run). */
	void set_indices(std::uint32_t value)
	{
		*wq_.ring.producer = value;
		*wq_.ring.consumer = value;
		wq_.prod = value;
	}

	/* The kernel retires n WQEs. */
	void retire(std::uint32_t n) { *wq_.ring.consumer += n; }

	[[nodiscard]] const unsigned char *slot(std::uint32_t index) const
	{
		return wq_.ring.entries +
		       std::size_t{index & wq_.ring.mask} * wq_.ring.entry_size;
	}

	[[nodiscard]] sroce_send_wqe send_wqe(std::uint32_t index) const
	{
		return read_as<sroce_send_wqe>(slot(index));
	}

	[[nodiscard]] sroce_recv_wqe recv_wqe(std::uint32_t index) const
	{
		return read_as<sroce_recv_wqe>(slot(index));
	}

	/* A list of n send (or receive) requests, wr_id = first + i. */
	void make_send_list(std::size_t n, std::uint64_t first)
	{
		swr_.resize(n);
		sroce_test::chain_sends(swr_, first);
	}

	void make_recv_list(std::size_t n, std::uint64_t first)
	{
		rwr_.assign(n, ibv_recv_wr{});
		for (std::size_t i = 0; i < n; ++i) {
			rwr_[i].wr_id = first + i;
			rwr_[i].next = i + 1 < n ? &rwr_[i + 1] : nullptr;
		}
	}

	int post_sends(ibv_send_wr **bad, std::uint32_t *posted = nullptr)
	{
		return sroce::wq_post_send(wq_, IBV_QPT_RC, swr_.data(), bad,
					   posted);
	}

	int post_recvs(ibv_recv_wr **bad)
	{
		return sroce::wq_post_recv(wq_, rwr_.data(), bad);
	}

	[[nodiscard]] std::uint32_t published() const
	{
		return *wq_.ring.producer;
	}

	bool send_ = false;
	std::vector<unsigned char> mem_;
	sroce::work_queue wq_{};
	std::vector<ibv_send_wr> swr_;
	std::vector<ibv_recv_wr> rwr_;
};

TEST_F(WqRing, AtomicWriteOnlyWhereTheKernelCarriesIt)
{
	make(4, true);
	const unsigned char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	ibv_sge sg{reinterpret_cast<std::uintptr_t>(bytes), 8, 1};
	make_send_list(2, 10);
	swr_[1].opcode = IBV_WR_ATOMIC_WRITE;
	swr_[1].sg_list = &sg;
	swr_[1].num_sge = 1;

	ibv_send_wr *bad = nullptr;
	ASSERT_EQ(post_sends(&bad), 0);
	EXPECT_EQ(published(), 2U);
	EXPECT_EQ(send_wqe(1).opcode,
		  static_cast<std::uint32_t>(SROCE_WR_ATOMIC_WRITE));

	/* A kernel without SROCE_UCTX_F_ATOMIC_WRITE: refused, not posted. */
	wq_.atomic_write = false;
	std::uint32_t posted = 9;
	EXPECT_EQ(post_sends(&bad, &posted), EINVAL);
	EXPECT_EQ(bad, &swr_[1]);
	EXPECT_EQ(posted, 1U);
	EXPECT_EQ(published(), 3U);
	EXPECT_EQ(
		sroce::wq_encode_send_at(wq_, IBV_QPT_RC, swr_[1], 3, nullptr),
		EINVAL);
}

TEST_F(WqRing, SendRingFullExactlyAtNumEntries)
{
	make(8, true);
	make_send_list(9, 100);
	ibv_send_wr *bad = nullptr;
	std::uint32_t posted = 0;

	EXPECT_EQ(post_sends(&bad, &posted), ENOMEM);
	EXPECT_EQ(bad, &swr_[8]);
	EXPECT_EQ(posted, 8U);
	EXPECT_EQ(published(), 8U);
	for (std::uint32_t i = 0; i < 8; ++i)
		EXPECT_EQ(send_wqe(i).wr_id, 100U + i);

	/* Still full: nothing is written, the index does not move. */
	make_send_list(1, 200);
	bad = nullptr;
	EXPECT_EQ(post_sends(&bad, &posted), ENOMEM);
	EXPECT_EQ(bad, &swr_[0]);
	EXPECT_EQ(posted, 0U);
	EXPECT_EQ(send_wqe(0).wr_id, 100U) << "overwrote an unretired WQE";

	/* The kernel retires one: exactly one more fits. */
	retire(1);
	make_send_list(2, 300);
	EXPECT_EQ(post_sends(&bad, &posted), ENOMEM);
	EXPECT_EQ(bad, &swr_[1]);
	EXPECT_EQ(posted, 1U);
	EXPECT_EQ(published(), 9U);
	EXPECT_EQ(send_wqe(8).wr_id, 300U);
}

TEST_F(WqRing, RecvRingFullExactlyAtNumEntries)
{
	make(4, false);
	make_recv_list(5, 10);
	ibv_recv_wr *bad = nullptr;

	EXPECT_EQ(post_recvs(&bad), ENOMEM);
	EXPECT_EQ(bad, &rwr_[4]);
	EXPECT_EQ(published(), 4U);
	retire(4);
	make_recv_list(4, 20);
	bad = nullptr;
	EXPECT_EQ(post_recvs(&bad), 0);
	EXPECT_EQ(bad, nullptr) << "bad_wr written on success";
	EXPECT_EQ(published(), 8U);
	for (std::uint32_t i = 4; i < 8; ++i)
		EXPECT_EQ(recv_wqe(i).wr_id, 20U + i - 4);
}

TEST_F(WqRing, BadRequestStopsTheListAfterPublishingThoseBefore)
{
	make(8, true);
	make_send_list(3, 1);
	swr_[1].opcode = IBV_WR_BIND_MW;
	ibv_send_wr *bad = nullptr;
	std::uint32_t posted = 0;

	EXPECT_EQ(post_sends(&bad, &posted), EINVAL);
	EXPECT_EQ(bad, &swr_[1]);
	EXPECT_EQ(posted, 1U);
	EXPECT_EQ(published(), 1U);
	EXPECT_EQ(wq_.prod, 1U);

	make_recv_list(2, 1);
	rwr_[0].num_sge = max_sge + 1;
	make(8, false);
	ibv_recv_wr *rbad = nullptr;
	EXPECT_EQ(post_recvs(&rbad), EINVAL);
	EXPECT_EQ(rbad, &rwr_[0]);
	EXPECT_EQ(published(), 0U);
}

TEST_F(WqRing, SendIndicesWrapAround32Bits)
{
	make(4, true);
	set_indices(0xfffffffeU);
	std::uint64_t next = 0;

	for (int round = 0; round < 6; ++round) {
		const std::uint32_t first = wq_.prod;
		make_send_list(5, next);
		ibv_send_wr *bad = nullptr;

		EXPECT_EQ(post_sends(&bad), ENOMEM) << round;
		EXPECT_EQ(bad, &swr_[4]);
		EXPECT_EQ(published(), first + 4U);
		for (std::uint32_t i = 0; i < 4; ++i)
			EXPECT_EQ(send_wqe(first + i).wr_id, next + i)
				<< "round " << round << " index " << first + i;
		next += 4;
		retire(4);
	}
	EXPECT_EQ(published(), 0xfffffffeU + 24U);
	EXPECT_LT(published(), 100U) << "did not wrap";
}

TEST_F(WqRing, RecvIndicesWrapAround32Bits)
{
	make(2, false);
	set_indices(0xffffffffU);
	ibv_recv_wr *bad = nullptr;

	for (std::uint32_t i = 0; i < 5; ++i) {
		make_recv_list(2, std::uint64_t{10} * i);
		ASSERT_EQ(post_recvs(&bad), 0) << i;
		EXPECT_EQ(recv_wqe(wq_.prod - 2).wr_id, 10U * i);
		EXPECT_EQ(recv_wqe(wq_.prod - 1).wr_id, 10U * i + 1);
		make_recv_list(1, 99);
		EXPECT_EQ(post_recvs(&bad), ENOMEM);
		retire(2);
	}
	EXPECT_EQ(published(), 0xffffffffU + 10U);
}

TEST_F(WqRing, NonsensicalConsumerIndexReadsAsFull)
{
	make(4, true);
	make_send_list(1, 1);
	ibv_send_wr *bad = nullptr;

	*wq_.ring.consumer = 3; /* ahead of the producer (0) */
	EXPECT_EQ(post_sends(&bad), ENOMEM);
	*wq_.ring.consumer = 0xfffffff0U; /* far behind */
	EXPECT_EQ(post_sends(&bad), ENOMEM);
	EXPECT_EQ(published(), 0U);
}

TEST_F(WqRing, ResetForgetsTheProducerIndex)
{
	make(4, true);
	make_send_list(3, 1);
	ibv_send_wr *bad = nullptr;

	ASSERT_EQ(post_sends(&bad), 0);
	EXPECT_EQ(wq_.prod, 3U);
	/* What the kernel does when the QP enters RESET, then us. */
	*wq_.ring.producer = 0;
	*wq_.ring.consumer = 0;
	sroce::wq_reset(wq_);
	make_send_list(1, 50);
	ASSERT_EQ(post_sends(&bad), 0);
	EXPECT_EQ(published(), 1U);
	EXPECT_EQ(send_wqe(0).wr_id, 50U);
}

TEST(SqDoorbellDue, EveryMultipleOfSixteenPassed)
{
	constexpr std::uint32_t every = sroce::sq_doorbell_every;

	static_assert(every == 16);
	/* One at a time from 0: due at 16, 32, ... and never between. */
	for (std::uint32_t prod = 1; prod <= 4 * every; ++prod)
		EXPECT_EQ(sroce::sq_doorbell_due(prod, 1), prod % every == 0)
			<< prod;
	/* A list passes a multiple inside it, or lands on one. */
	EXPECT_FALSE(sroce::sq_doorbell_due(15, 15));
	EXPECT_TRUE(sroce::sq_doorbell_due(16, 15));
	EXPECT_TRUE(sroce::sq_doorbell_due(17, 3));
	EXPECT_FALSE(sroce::sq_doorbell_due(31, 14));
	EXPECT_TRUE(sroce::sq_doorbell_due(40, every));
	EXPECT_TRUE(sroce::sq_doorbell_due(41, 1000));
	/* The free-running index wraps: 0 is a multiple like any other. */
	EXPECT_TRUE(sroce::sq_doorbell_due(0, 1));
	EXPECT_TRUE(sroce::sq_doorbell_due(3, 5));
	EXPECT_FALSE(sroce::sq_doorbell_due(0xfffffffeU, 1));
	EXPECT_FALSE(sroce::sq_doorbell_due(0xfffffff2U, 2));
}

TEST_F(WqRing, DoorbellOnlyWhenTheKernelAsks)
{
	make(4, true);

	EXPECT_FALSE(sroce::sq_doorbell_needed(wq_.ring));
	*wq_.ring.notify = SROCE_SQ_NOTIFY_DOORBELL;
	EXPECT_TRUE(sroce::sq_doorbell_needed(wq_.ring));
	*wq_.ring.notify = 0x2; /* other bits mean nothing yet */
	EXPECT_FALSE(sroce::sq_doorbell_needed(wq_.ring));
	*wq_.ring.notify = 0xffffffffU;
	EXPECT_TRUE(sroce::sq_doorbell_needed(wq_.ring));

	EXPECT_FALSE(sroce::doorbell_wanted(0));
	EXPECT_TRUE(sroce::doorbell_wanted(SROCE_SQ_NOTIFY_DOORBELL));
	EXPECT_FALSE(sroce::doorbell_wanted(
		~std::uint32_t{SROCE_SQ_NOTIFY_DOORBELL}));
	/* The word is where the kernel said, not an index. */
	EXPECT_EQ(reinterpret_cast<unsigned char *>(wq_.ring.notify) -
			  mem_.data(),
		  256);
}

TEST(Doorbell, CommandIsAPostSendWithoutWorkRequests)
{
	ib_uverbs_post_send_resp resp{};
	const sroce::post_send_cmd cmd =
		sroce::make_doorbell_cmd(0xabcdef01U, &resp);
	unsigned char bytes[32];

	static_assert(sizeof(cmd) == sizeof(bytes));
	std::memcpy(bytes, &cmd, sizeof(bytes));
	const auto hdr = read_as<ib_uverbs_cmd_hdr>(bytes);
	EXPECT_EQ(hdr.command,
		  static_cast<std::uint32_t>(IB_USER_VERBS_CMD_POST_SEND));
	EXPECT_EQ(hdr.in_words, 32 / 4);
	EXPECT_EQ(hdr.out_words, 1);
	const auto core = read_as<ib_uverbs_post_send>(bytes + 8);
	EXPECT_EQ(core.response, reinterpret_cast<std::uintptr_t>(&resp));
	EXPECT_EQ(core.qp_handle, 0xabcdef01U);
	EXPECT_EQ(core.wr_count, 0U);
	EXPECT_EQ(core.sge_count, 0U);
	EXPECT_GE(core.wqe_size, sizeof(ib_uverbs_send_wr));
}

TEST(QpStates, WhereWorkRequestsMayBePosted)
{
	const struct {
		ibv_qp_state state;
		bool sq;
		bool rq;
	} table[] = {
		{IBV_QPS_RESET, false, false}, {IBV_QPS_INIT, false, true},
		{IBV_QPS_RTR, false, true},    {IBV_QPS_RTS, true, true},
		{IBV_QPS_SQD, true, true},     {IBV_QPS_SQE, true, true},
		{IBV_QPS_ERR, true, true},
	};

	for (const auto &t : table) {
		EXPECT_EQ(sroce::sq_state_can_post(t.state), t.sq) << t.state;
		EXPECT_EQ(sroce::rq_state_can_post(t.state), t.rq) << t.state;
	}
}
} /* namespace */
