// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The extended CQ's poll API (cq_ex.cpp) on a CQ built by hand over a
 * plain buffer: start/next/end poll over the CQEs the test produces as the
 * kernel would, the accessors' values, the consumer index moving only when
 * the poll ends, the 2^32 wrap, which accessors wc_flags installs, the
 * completion timestamps and the raw clock of ibv_query_rt_values_ex(), and
 * the attributes create_cq_ex() refuses before any command.
 */
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <gtest/gtest.h>

#include "cq.h"
#include "pd.h"
#include "kernel_ring.h"

namespace {

constexpr std::uint32_t entries = 4;

class CqEx : public ::testing::Test {
protected:
	void SetUp() override
	{
		c_ = static_cast<sroce::cq *>(
			std::calloc(1, sizeof(sroce::cq)));
		ASSERT_NE(c_, nullptr);
		ASSERT_EQ(pthread_spin_init(&c_->lock, 0), 0);
		sroce_test::ring_over_buffer(
			mem_,
			sroce_test::kernel_ring_info(entries, sizeof(sroce_cqe),
						     0, true),
			sizeof(sroce_cqe), true, &c_->ring);
		sroce::set_cq_ex_ops(c_, IBV_WC_STANDARD_FLAGS);
		x_ = &c_->vcq.cq_ex;
	}

	void TearDown() override
	{
		pthread_spin_destroy(&c_->lock);
		std::free(c_);
	}

	void set_indices(std::uint32_t v)
	{
		*c_->ring.producer = v;
		*c_->ring.consumer = v;
		prod_ = v;
	}

	/* The kernel's side: one CQE, published with release. */
	void post(const sroce_cqe &cqe)
	{
		std::memcpy(c_->ring.slot(prod_).data(), &cqe, sizeof(cqe));
		++prod_;
		std::atomic_ref<std::uint32_t>(*c_->ring.producer)
			.store(prod_, std::memory_order_release);
	}

	void post_recv(std::uint64_t wr_id, std::uint32_t len)
	{
		sroce_cqe c{};
		c.wr_id = wr_id;
		c.status = IBV_WC_SUCCESS;
		c.opcode = IBV_WC_RECV;
		c.byte_len = len;
		c.qp_num = 0x11;
		post(c);
	}

	/* The lock is free (no poll holds it). */
	bool unlocked()
	{
		if (pthread_spin_trylock(&c_->lock) != 0)
			return false;
		pthread_spin_unlock(&c_->lock);
		return true;
	}

	std::vector<unsigned char> mem_;
	sroce::cq *c_ = nullptr;
	ibv_cq_ex *x_ = nullptr;
	std::uint32_t prod_ = 0;
};

TEST_F(CqEx, EmptyCqIsEnoentAndHoldsNoLock)
{
	ibv_poll_cq_attr attr{};

	EXPECT_EQ(ibv_start_poll(x_, &attr), ENOENT);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(*c_->ring.consumer, 0U);
}

TEST_F(CqEx, PollsEachCqeInOrderAndConsumesAtEnd)
{
	ibv_poll_cq_attr attr{};

	post_recv(7, 100);
	post_recv(8, 200);
	post_recv(9, 300);
	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	EXPECT_FALSE(unlocked());
	EXPECT_EQ(x_->wr_id, 7U);
	EXPECT_EQ(x_->status, IBV_WC_SUCCESS);
	EXPECT_EQ(ibv_wc_read_opcode(x_), IBV_WC_RECV);
	EXPECT_EQ(ibv_wc_read_byte_len(x_), 100U);
	EXPECT_EQ(ibv_wc_read_qp_num(x_), 0x11U);
	ASSERT_EQ(ibv_next_poll(x_), 0);
	EXPECT_EQ(x_->wr_id, 8U);
	EXPECT_EQ(ibv_wc_read_byte_len(x_), 200U);
	/* Nothing is consumed until the poll ends. */
	EXPECT_EQ(*c_->ring.consumer, 0U);
	ibv_end_poll(x_);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(*c_->ring.consumer, 2U);

	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	EXPECT_EQ(x_->wr_id, 9U);
	/* The ring drained: next_poll ends the poll and consumes. */
	EXPECT_EQ(ibv_next_poll(x_), ENOENT);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(*c_->ring.consumer, 3U);
	EXPECT_EQ(ibv_start_poll(x_, &attr), ENOENT);
}

TEST_F(CqEx, AccessorsReadTheCqe)
{
	ibv_poll_cq_attr attr{};
	sroce_cqe c{};

	c.wr_id = 42;
	c.status = IBV_WC_REM_ACCESS_ERR;
	c.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
	c.vendor_err = 0x33;
	c.byte_len = 4096;
	c.imm_data = htonl(0xabcd1234);
	c.qp_num = 0x123;
	c.src_qp = 0x456;
	c.wc_flags = SROCE_WC_F_WITH_IMM | SROCE_WC_F_GRH;
	c.sl = 3;
	post(c);
	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	EXPECT_EQ(x_->wr_id, 42U);
	EXPECT_EQ(x_->status, IBV_WC_REM_ACCESS_ERR);
	EXPECT_EQ(ibv_wc_read_opcode(x_), IBV_WC_RECV_RDMA_WITH_IMM);
	EXPECT_EQ(ibv_wc_read_vendor_err(x_), 0x33U);
	EXPECT_EQ(ibv_wc_read_byte_len(x_), 4096U);
	EXPECT_EQ(ntohl(ibv_wc_read_imm_data(x_)), 0xabcd1234U);
	EXPECT_EQ(ibv_wc_read_qp_num(x_), 0x123U);
	EXPECT_EQ(ibv_wc_read_src_qp(x_), 0x456U);
	EXPECT_EQ(ibv_wc_read_wc_flags(x_),
		  unsigned{IBV_WC_WITH_IMM | IBV_WC_GRH});
	EXPECT_EQ(ibv_wc_read_sl(x_), 3);
	EXPECT_EQ(ibv_wc_read_slid(x_), 0U);
	EXPECT_EQ(ibv_wc_read_dlid_path_bits(x_), 0);
	ibv_end_poll(x_);
}

TEST_F(CqEx, UdGrhSlIsTheNetworkHeaderType)
{
	ibv_poll_cq_attr attr{};
	sroce_cqe c{};

	c.opcode = IBV_WC_RECV;
	c.wc_flags = SROCE_WC_F_GRH;
	c.network_hdr_type = 2; /* RDMA_NETWORK_IPV4 */
	post(c);
	c.network_hdr_type = 3; /* RDMA_NETWORK_IPV6 */
	post(c);
	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	EXPECT_EQ(ibv_wc_read_sl(x_), 2) << "IPv4";
	ASSERT_EQ(ibv_next_poll(x_), 0);
	EXPECT_EQ(ibv_wc_read_sl(x_), 1) << "IPv6";
	ibv_end_poll(x_);
}

TEST_F(CqEx, InvalidatedRkeyInHostOrder)
{
	ibv_poll_cq_attr attr{};
	sroce_cqe c{};

	c.opcode = IBV_WC_RECV;
	c.wc_flags = SROCE_WC_F_WITH_INV;
	c.imm_data = 0x1234ab;
	post(c);
	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	EXPECT_EQ(ibv_wc_read_wc_flags(x_), unsigned{IBV_WC_WITH_INV});
	EXPECT_EQ(ibv_wc_read_invalidated_rkey(x_), 0x1234abU);
	ibv_end_poll(x_);
}

TEST_F(CqEx, WrapsAround32Bits)
{
	ibv_poll_cq_attr attr{};

	set_indices(0xfffffffe);
	for (std::uint64_t i = 0; i < entries; ++i)
		post_recv(i, 1);
	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	for (std::uint64_t i = 1; i < entries; ++i) {
		ASSERT_EQ(ibv_next_poll(x_), 0);
		EXPECT_EQ(x_->wr_id, i);
	}
	ibv_end_poll(x_);
	EXPECT_EQ(*c_->ring.consumer, 2U);
}

TEST_F(CqEx, CorruptProducerIsAnError)
{
	ibv_poll_cq_attr attr{};

	*c_->ring.producer = entries + 1;
	EXPECT_EQ(ibv_start_poll(x_, &attr), EIO);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(*c_->ring.consumer, 0U);
}

TEST_F(CqEx, AttrCompMaskIsRefused)
{
	ibv_poll_cq_attr attr{};

	post_recv(1, 1);
	attr.comp_mask = 1;
	EXPECT_EQ(ibv_start_poll(x_, &attr), EINVAL);
	EXPECT_TRUE(unlocked());
}

TEST_F(CqEx, OnlyTheAccessorsAskedFor)
{
	ibv_cq_ex &x = c_->vcq.cq_ex;

	x = ibv_cq_ex{};
	sroce::set_cq_ex_ops(c_, IBV_WC_EX_WITH_BYTE_LEN);
	EXPECT_NE(x.start_poll, nullptr);
	EXPECT_NE(x.next_poll, nullptr);
	EXPECT_NE(x.end_poll, nullptr);
	EXPECT_NE(x.read_opcode, nullptr);
	EXPECT_NE(x.read_vendor_err, nullptr);
	EXPECT_NE(x.read_wc_flags, nullptr);
	EXPECT_NE(x.read_byte_len, nullptr);
	EXPECT_EQ(x.read_imm_data, nullptr);
	EXPECT_EQ(x.read_qp_num, nullptr);
	EXPECT_EQ(x.read_src_qp, nullptr);
	EXPECT_EQ(x.read_slid, nullptr);
	EXPECT_EQ(x.read_sl, nullptr);
	EXPECT_EQ(x.read_dlid_path_bits, nullptr);
	EXPECT_EQ(x.read_completion_ts, nullptr);
	EXPECT_EQ(x.read_completion_wallclock_ns, nullptr);
}

/* The kernel writes the two timestamps where the provider reads them. */
static_assert(offsetof(sroce_cqe, completion_ts) == 48);
static_assert(offsetof(sroce_cqe, wallclock_ns) == 56);

TEST_F(CqEx, TimestampAccessorsReadEachCqesStamps)
{
	ibv_cq_ex &x = c_->vcq.cq_ex;
	ibv_poll_cq_attr attr{};

	x = ibv_cq_ex{};
	sroce::set_cq_ex_ops(
		c_, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	ASSERT_NE(x.read_completion_ts, nullptr);
	ASSERT_NE(x.read_completion_wallclock_ns, nullptr);
	EXPECT_EQ(x.read_byte_len, nullptr);
	for (std::uint64_t i = 0; i < 3; ++i) {
		sroce_cqe c{};
		c.wr_id = i;
		c.opcode = IBV_WC_SEND;
		c.completion_ts = 0x1000000000ULL + i;
		c.wallclock_ns = 0x7000000000000000ULL + 100 * i;
		post(c);
	}
	ASSERT_EQ(ibv_start_poll(x_, &attr), 0);
	for (std::uint64_t i = 0; i < 3; ++i) {
		if (i != 0) {
			ASSERT_EQ(ibv_next_poll(x_), 0);
		}
		EXPECT_EQ(x_->wr_id, i);
		EXPECT_EQ(ibv_wc_read_completion_ts(x_), 0x1000000000ULL + i);
		EXPECT_EQ(ibv_wc_read_completion_wallclock_ns(x_),
			  0x7000000000000000ULL + 100 * i);
	}
	EXPECT_EQ(ibv_next_poll(x_), ENOENT);
}

TEST_F(CqEx, OnlyTheWallclockAskedFor)
{
	ibv_cq_ex &x = c_->vcq.cq_ex;

	x = ibv_cq_ex{};
	sroce::set_cq_ex_ops(c_, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	EXPECT_EQ(x.read_completion_ts, nullptr);
	EXPECT_NE(x.read_completion_wallclock_ns, nullptr);
}

/* What the CREATE_CQ tail asks sroce.ko to stamp. */
TEST(CqStamp, FlagsMapToTheCommandsBits)
{
	EXPECT_EQ(sroce::cq_stamp_flags(IBV_WC_STANDARD_FLAGS), 0U);
	EXPECT_EQ(sroce::cq_stamp_flags(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP),
		  std::uint32_t{SROCE_CQ_F_TIMESTAMP});
	EXPECT_EQ(sroce::cq_stamp_flags(
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK),
		  std::uint32_t{SROCE_CQ_F_WALLCLOCK});
	EXPECT_EQ(sroce::cq_stamp_flags(
			  std::uint64_t{IBV_WC_STANDARD_FLAGS} |
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK),
		  std::uint32_t{SROCE_CQ_F_TIMESTAMP | SROCE_CQ_F_WALLCLOCK});
}

std::uint64_t monotonic_ns()
{
	timespec t{};

	EXPECT_EQ(clock_gettime(CLOCK_MONOTONIC, &t), 0);
	return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ULL +
	       static_cast<std::uint64_t>(t.tv_nsec);
}

/* The raw clock is CLOCK_MONOTONIC in ns, all in tv_nsec (as mlx5). */
TEST(RtValues, RawClockIsMonotonicNanoseconds)
{
	ibv_values_ex v{};

	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	v.raw_clock.tv_sec = 99;
	const std::uint64_t before = monotonic_ns();
	ASSERT_EQ(sroce::query_rt_values(nullptr, &v), 0);
	const std::uint64_t after = monotonic_ns();
	EXPECT_EQ(v.comp_mask, std::uint32_t{IBV_VALUES_MASK_RAW_CLOCK});
	EXPECT_EQ(v.raw_clock.tv_sec, 0);
	const auto raw = static_cast<std::uint64_t>(v.raw_clock.tv_nsec);
	EXPECT_LE(before, raw);
	EXPECT_LE(raw, after);
}

TEST(RtValues, UnknownMaskIsEinvalAndNoneIsNothing)
{
	ibv_values_ex v{};

	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK | (1U << 5);
	EXPECT_EQ(sroce::query_rt_values(nullptr, &v), EINVAL);
	v = ibv_values_ex{};
	v.raw_clock.tv_nsec = 5;
	EXPECT_EQ(sroce::query_rt_values(nullptr, &v), 0);
	EXPECT_EQ(v.comp_mask, 0U);
	EXPECT_EQ(v.raw_clock.tv_nsec, 5);
}

TEST(CqInitAttr, StandardFlagsAndSingleThreadedAreAccepted)
{
	ibv_cq_init_attr_ex a{};

	a.cqe = 8;
	EXPECT_EQ(sroce::check_cq_init_attr(a), 0);
	a.wc_flags = IBV_WC_STANDARD_FLAGS;
	EXPECT_EQ(sroce::check_cq_init_attr(a), 0);
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	EXPECT_EQ(sroce::check_cq_init_attr(a), 0);
	a.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
		      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	EXPECT_EQ(sroce::check_cq_init_attr(a), 0);
}

TEST(CqInitAttr, WhatSroceCannotGiveIsEopnotsupp)
{
	for (std::uint64_t f : {std::uint64_t{IBV_WC_EX_WITH_CVLAN},
				std::uint64_t{IBV_WC_EX_WITH_FLOW_TAG},
				std::uint64_t{IBV_WC_EX_WITH_TM_INFO}}) {
		ibv_cq_init_attr_ex a{};

		a.wc_flags = std::uint64_t{IBV_WC_STANDARD_FLAGS} |
			     IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | f;
		EXPECT_EQ(sroce::check_cq_init_attr(a), EOPNOTSUPP) << f;
	}
	ibv_cq_init_attr_ex a{};
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	EXPECT_EQ(sroce::check_cq_init_attr(a), EOPNOTSUPP);
}

/* IBV_CQ_INIT_ATTR_MASK_PD wants a parent domain (ibv_create_cq_ex(3)). */
TEST(CqInitAttr, ParentDomainOnly)
{
	sroce::pd protection{};
	sroce::pd domain{};
	ibv_cq_init_attr_ex a{};

	domain.protection = &protection;
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	EXPECT_EQ(sroce::check_cq_init_attr(a), EINVAL) << "none";
	a.parent_domain = &protection.ibpd;
	EXPECT_EQ(sroce::check_cq_init_attr(a), EINVAL) << "a PD";
	a.parent_domain = &domain.ibpd;
	EXPECT_EQ(sroce::check_cq_init_attr(a), 0);
}

} /* namespace */
