// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_wr_*() post API (qp_ex.cpp, wr_builder.cpp) on a QP built by
 * hand over plain buffers, as qp_test.cpp builds one: the WQEs equal what
 * post_send's encoder writes for the same request, a batch is published
 * at ibv_wr_complete() only and not at all when one request fails or the
 * batch is aborted, inline data is copied when it is set, the doorbell,
 * and the attributes create_qp_ex() refuses before any command.
 */
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "ah.h"
#include "kernel_ring.h"
#include "qp.h"

namespace {

constexpr std::uint32_t entries = 4;
constexpr std::uint32_t max_sge = 2;
constexpr std::uint32_t max_inline = 32;

constexpr std::uint64_t all_rc_ops =
	IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
	IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
	IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
	IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |
	IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV;

class QpEx : public ::testing::Test {
protected:
	void SetUp() override
	{
		ASSERT_EQ(pipe2(pipe_, O_NONBLOCK | O_CLOEXEC), 0);
		ctx_.cmd_fd = pipe_[1];
		q_ = static_cast<sroce::qp *>(
			std::calloc(1, sizeof(sroce::qp)));
		ASSERT_NE(q_, nullptr);
		ibv_qp *ibqp = &q_->vqp.qp;
		ibqp->context = &ctx_;
		ibqp->handle = 0x77;
		ibqp->qp_type = IBV_QPT_RC;
		ibqp->state = IBV_QPS_RTS;
		ASSERT_EQ(pthread_spin_init(&q_->sq_lock, 0), 0);
		ASSERT_EQ(pthread_spin_init(&q_->rq_lock, 0), 0);
		esize_ = sroce::sq_entry_min(max_sge, max_inline);
		sroce_test::ring_over_buffer(
			mem_,
			sroce_test::kernel_ring_info(
				entries, static_cast<std::uint32_t>(esize_), 0,
				true),
			esize_, true, &q_->sq.ring);
		q_->sq.max_sge = max_sge;
		q_->sq.max_inline = max_inline;
		q_->sq.atomic_write = true;
		ASSERT_EQ(sroce::wrb_alloc(q_->wrb, max_sge, max_inline), 0);
		sroce::set_qp_ex_ops(q_,
				     all_rc_ops | IBV_QP_EX_WITH_ATOMIC_WRITE);
		x_ = &q_->vqp.qp_ex;
	}

	void TearDown() override
	{
		sroce::wrb_free(q_->wrb);
		pthread_spin_destroy(&q_->sq_lock);
		pthread_spin_destroy(&q_->rq_lock);
		std::free(q_);
		close(pipe_[0]);
		close(pipe_[1]);
	}

	std::vector<unsigned char> slot(std::uint32_t i)
	{
		const auto s = q_->sq.ring.slot(i);
		return {s.begin(), s.end()};
	}

	sroce_send_wqe wqe(std::uint32_t i)
	{
		sroce_send_wqe w;
		std::memcpy(&w, q_->sq.ring.slot(i).data(), sizeof(w));
		return w;
	}

	/* What post_send's encoder writes for wr, into a fresh slot. */
	std::vector<unsigned char> encoded(const ibv_send_wr &wr)
	{
		std::vector<unsigned char> s(esize_, 0);

		EXPECT_EQ(sroce::encode_send_wqe(wr, q_->vqp.qp.qp_type,
						 max_sge, max_inline, s),
			  0);
		return s;
	}

	std::uint32_t producer() { return *q_->sq.ring.producer; }

	bool unlocked()
	{
		if (pthread_spin_trylock(&q_->sq_lock) != 0)
			return false;
		pthread_spin_unlock(&q_->sq_lock);
		return true;
	}

	std::size_t written()
	{
		unsigned char buf[256];
		std::size_t total = 0;
		ssize_t n;

		while ((n = read(pipe_[0], buf, sizeof(buf))) > 0)
			total += static_cast<std::size_t>(n);
		return total;
	}

	int pipe_[2] = {-1, -1};
	ibv_context ctx_{};
	sroce::qp *q_ = nullptr;
	ibv_qp_ex *x_ = nullptr;
	std::size_t esize_ = 0;
	std::vector<unsigned char> mem_;
};

TEST_F(QpEx, ToQpExOnlyWithSendOps)
{
	EXPECT_NE(q_->vqp.comp_mask & VERBS_QP_EX, 0U);
	EXPECT_EQ(ibv_qp_to_qp_ex(&q_->vqp.qp), x_);
}

TEST_F(QpEx, SendIsWhatPostSendEncodes)
{
	ibv_sge sges[2] = {{.addr = 0x1000, .length = 10, .lkey = 5},
			   {.addr = 0x2000, .length = 20, .lkey = 6}};
	ibv_send_wr wr{};

	ibv_wr_start(x_);
	EXPECT_FALSE(unlocked());
	x_->wr_id = 99;
	x_->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	ibv_wr_send(x_);
	ibv_wr_set_sge_list(x_, 2, sges);
	EXPECT_EQ(producer(), 0U) << "published before ibv_wr_complete";
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(producer(), 1U);

	wr.wr_id = 99;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr.sg_list = sges;
	wr.num_sge = 2;
	EXPECT_EQ(slot(0), encoded(wr));
}

TEST_F(QpEx, RdmaAndAtomicAsPostSendEncodesThem)
{
	ibv_send_wr wr[3] = {};

	ibv_wr_start(x_);
	x_->wr_flags = 0;
	x_->wr_id = 1;
	ibv_wr_rdma_write_imm(x_, 0x1111, 0xa000, htonl(0x5));
	ibv_wr_set_sge(x_, 7, 0x3000, 64);
	x_->wr_id = 2;
	ibv_wr_rdma_read(x_, 0x2222, 0xb000);
	ibv_wr_set_sge(x_, 7, 0x3000, 64);
	x_->wr_id = 3;
	ibv_wr_atomic_cmp_swp(x_, 0x3333, 0xc000, 10, 20);
	ibv_wr_set_sge(x_, 7, 0x3000, 8);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(producer(), 3U);

	const ibv_sge sge64{.addr = 0x3000, .length = 64, .lkey = 7};
	const ibv_sge sge8{.addr = 0x3000, .length = 8, .lkey = 7};
	wr[0].wr_id = 1;
	wr[0].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr[0].imm_data = htonl(0x5);
	wr[0].wr.rdma = {.remote_addr = 0xa000, .rkey = 0x1111};
	wr[0].sg_list = const_cast<ibv_sge *>(&sge64);
	wr[0].num_sge = 1;
	wr[1] = wr[0];
	wr[1].wr_id = 2;
	wr[1].opcode = IBV_WR_RDMA_READ;
	wr[1].imm_data = 0;
	wr[1].wr.rdma = {.remote_addr = 0xb000, .rkey = 0x2222};
	wr[2].wr_id = 3;
	wr[2].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr[2].wr.atomic = {.remote_addr = 0xc000,
			   .compare_add = 10,
			   .swap = 20,
			   .rkey = 0x3333};
	wr[2].sg_list = const_cast<ibv_sge *>(&sge8);
	wr[2].num_sge = 1;
	for (std::uint32_t i = 0; i < 3; ++i)
		EXPECT_EQ(slot(i), encoded(wr[i])) << i;
}

TEST_F(QpEx, LaterOpcodesEncodeAsPostSend)
{
	ibv_send_wr wr{};

	ibv_wr_start(x_);
	x_->wr_id = 4;
	x_->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(x_, 0x4444, 0xd000, 3);
	ibv_wr_set_sge(x_, 7, 0x3000, 8);
	x_->wr_id = 5;
	ibv_wr_send_inv(x_, 0x5555);
	x_->wr_id = 6;
	ibv_wr_local_inv(x_, 0x6666);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(producer(), 3U);

	const ibv_sge sge8{.addr = 0x3000, .length = 8, .lkey = 7};
	wr.wr_id = 4;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic = {.remote_addr = 0xd000,
			.compare_add = 3,
			.swap = 0,
			.rkey = 0x4444};
	wr.sg_list = const_cast<ibv_sge *>(&sge8);
	wr.num_sge = 1;
	EXPECT_EQ(slot(0), encoded(wr));
	wr = ibv_send_wr{};
	wr.wr_id = 5;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x5555;
	EXPECT_EQ(slot(1), encoded(wr));
	wr.wr_id = 6;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0x6666;
	EXPECT_EQ(slot(2), encoded(wr));
}

TEST_F(QpEx, AtomicWriteIsWhatPostSendEncodes)
{
	unsigned char v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	const unsigned char want[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	ibv_send_wr wr{};

	ibv_wr_start(x_);
	x_->wr_id = 7;
	x_->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(x_, 0x7777, 0xe008, v);
	v[0] = 0xff; /* copied when set: the buffer is free at once */
	x_->wr_id = 8;
	x_->wr_flags = 0;
	ibv_wr_send(x_);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(producer(), 2U);

	const ibv_sge sge{.addr = reinterpret_cast<std::uintptr_t>(want),
			  .length = 8,
			  .lkey = 0};
	wr.wr_id = 7;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.wr.rdma = {.remote_addr = 0xe008, .rkey = 0x7777};
	wr.sg_list = const_cast<ibv_sge *>(&sge);
	wr.num_sge = 1;
	EXPECT_EQ(slot(0), encoded(wr));
	EXPECT_EQ(0, std::memcmp(wqe(0).op.atomic_write.data, want, 8));
	EXPECT_EQ(wqe(1).wr_id, 8U);
}

TEST_F(QpEx, AtomicWriteTakesNoDataBesidesItsBytes)
{
	const unsigned char v[8] = {};
	char data[4] = "abc";

	/* A gather list or inline data on it fails the batch. */
	ibv_wr_start(x_);
	ibv_wr_atomic_write(x_, 1, 0x1000, v);
	ibv_wr_set_sge(x_, 1, 0x2000, 8);
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_EQ(producer(), 0U);
	ibv_wr_start(x_);
	ibv_wr_atomic_write(x_, 1, 0x1000, v);
	ibv_wr_set_inline_data(x_, data, sizeof(data));
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_EQ(producer(), 0U);
	/* No bytes at all. */
	ibv_wr_start(x_);
	ibv_wr_atomic_write(x_, 1, 0x1000, nullptr);
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_EQ(producer(), 0U);
	/* A queue whose kernel does not carry it. */
	q_->sq.atomic_write = false;
	ibv_wr_start(x_);
	ibv_wr_atomic_write(x_, 1, 0x1000, v);
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_EQ(producer(), 0U);
	EXPECT_TRUE(unlocked());
}

TEST_F(QpEx, FailedRequestPublishesNothing)
{
	const ibv_sge sges[3] = {};

	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ibv_wr_set_sge(x_, 1, 0x1000, 4);
	ibv_wr_send(x_);
	ibv_wr_set_sge_list(x_, 3, sges); /* max_sge is 2 */
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(producer(), 0U);
	EXPECT_EQ(q_->sq.prod, 0U);

	/* The next batch starts at the same slot. */
	ibv_wr_start(x_);
	x_->wr_id = 17;
	ibv_wr_send(x_);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(producer(), 1U);
	EXPECT_EQ(wqe(0).wr_id, 17U);
}

TEST_F(QpEx, FullRingFailsTheWholeBatch)
{
	ibv_wr_start(x_);
	for (std::uint32_t i = 0; i <= entries; ++i)
		ibv_wr_send(x_);
	EXPECT_EQ(ibv_wr_complete(x_), ENOMEM);
	EXPECT_EQ(producer(), 0U);

	ibv_wr_start(x_);
	for (std::uint32_t i = 0; i < entries; ++i)
		ibv_wr_send(x_);
	EXPECT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(producer(), entries);
}

TEST_F(QpEx, AbortPublishesNothing)
{
	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ibv_wr_send(x_);
	ibv_wr_abort(x_);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(producer(), 0U);
	EXPECT_EQ(written(), 0U);
}

TEST_F(QpEx, SetterWithoutOpcodeFailsTheBatch)
{
	ibv_wr_start(x_);
	ibv_wr_set_sge(x_, 1, 0x1000, 4);
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_EQ(producer(), 0U);
}

TEST_F(QpEx, InlineDataIsCopiedWhenSet)
{
	char a[] = "hello ";
	char b[] = "world";
	const ibv_data_buf bufs[2] = {{.addr = a, .length = 6},
				      {.addr = b, .length = 5}};

	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ibv_wr_set_inline_data_list(x_, 2, bufs);
	std::memset(a, 'x', sizeof(a));
	std::memset(b, 'x', sizeof(b));
	ASSERT_EQ(ibv_wr_complete(x_), 0);

	const sroce_send_wqe w = wqe(0);
	EXPECT_EQ(w.inline_len, 11U);
	EXPECT_EQ(w.num_sge, 0U);
	EXPECT_NE(w.send_flags & SROCE_SEND_INLINE, 0U);
	EXPECT_EQ(std::memcmp(q_->sq.ring.slot(0).data() + sizeof(w),
			      "hello world", 11),
		  0);
}

TEST_F(QpEx, InlineBeyondMaxInlineFails)
{
	std::vector<char> big(max_inline + 1, 'a');

	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ibv_wr_set_inline_data(x_, big.data(), big.size());
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_EQ(producer(), 0U);
}

TEST_F(QpEx, UdAddress)
{
	sroce::ah ah{};

	ah.num = 0x99;
	q_->vqp.qp.qp_type = IBV_QPT_UD;
	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ibv_wr_set_ud_addr(x_, &ah.ibah, 0x123, 0x11111111);
	ibv_wr_set_sge(x_, 1, 0x1000, 4);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	const sroce_send_wqe w = wqe(0);
	EXPECT_EQ(w.op.ud.ah, 0x99U);
	EXPECT_EQ(w.op.ud.remote_qpn, 0x123U);
	EXPECT_EQ(w.op.ud.remote_qkey, 0x11111111U);
	EXPECT_EQ(w.num_sge, 1U);
}

TEST_F(QpEx, CompleteRefusedOutsideTheSendStates)
{
	q_->vqp.qp.state = IBV_QPS_INIT;
	ibv_wr_start(x_);
	ibv_wr_send(x_);
	EXPECT_EQ(ibv_wr_complete(x_), EINVAL);
	EXPECT_TRUE(unlocked());
	EXPECT_EQ(producer(), 0U);
}

TEST_F(QpEx, DoorbellOnlyWhenTheKernelIsIdle)
{
	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(written(), 0U);

	*q_->sq.ring.notify = SROCE_SQ_NOTIFY_DOORBELL;
	ibv_wr_start(x_);
	ibv_wr_send(x_);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(written(), sroce::post_send_cmd::size);

	/* An empty batch rings nothing. */
	ibv_wr_start(x_);
	ASSERT_EQ(ibv_wr_complete(x_), 0);
	EXPECT_EQ(written(), 0U);
}

TEST_F(QpEx, DoorbellEverySixteenPostsWhileTheKernelSends)
{
	for (std::uint32_t i = 1; i <= 32; ++i) {
		*q_->sq.ring.consumer = *q_->sq.ring.producer;
		ibv_wr_start(x_);
		ibv_wr_send(x_);
		ASSERT_EQ(ibv_wr_complete(x_), 0) << i;
		EXPECT_EQ(written(),
			  i % 16 == 0 ? sroce::post_send_cmd::size : 0U)
			<< i;
	}
}

TEST(QpInitAttr, SendOpsTheQpTypeCanPost)
{
	ibv_pd pd{};
	ibv_qp_init_attr_ex a{};

	a.pd = &pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.qp_type = IBV_QPT_RC;
	a.send_ops_flags = all_rc_ops;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), 0);
	a.qp_type = IBV_QPT_UC;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), 0);
	a.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP);
	a.qp_type = IBV_QPT_UD;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), 0);
	a.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP);
	a.qp_type = IBV_QPT_RC;
	for (std::uint64_t f : {std::uint64_t{IBV_QP_EX_WITH_TSO},
				std::uint64_t{IBV_QP_EX_WITH_ATOMIC_WRITE}}) {
		a.send_ops_flags = IBV_QP_EX_WITH_SEND | f;
		EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP) << f;
	}
	/* The atomic write: RC, when the kernel carries it. */
	constexpr std::uint64_t aw = SROCE_UCTX_F_ATOMIC_WRITE;
	a.send_ops_flags = all_rc_ops | IBV_QP_EX_WITH_ATOMIC_WRITE;
	EXPECT_EQ(sroce::check_qp_init_attr(a, aw), 0);
	a.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
	EXPECT_EQ(sroce::check_qp_init_attr(a, aw), 0);
	EXPECT_EQ(sroce::check_qp_init_attr(a, ~aw), EOPNOTSUPP);
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO;
	EXPECT_EQ(sroce::check_qp_init_attr(a, aw), EOPNOTSUPP);
	a.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
	for (ibv_qp_type t :
	     {IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND, IBV_QPT_RAW_PACKET}) {
		a.qp_type = t;
		EXPECT_EQ(sroce::check_qp_init_attr(a, aw), EOPNOTSUPP) << t;
	}
	a.qp_type = IBV_QPT_RC;
	/* An XRC INI QP posts what RC posts; an XRC TGT QP nothing. */
	a.qp_type = IBV_QPT_XRC_SEND;
	a.send_ops_flags = all_rc_ops;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), 0);
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP);
	ibv_xrcd xrcd{};
	a.qp_type = IBV_QPT_XRC_RECV;
	a.xrcd = &xrcd;
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP);
}

TEST(QpInitAttr, RefusedAttributes)
{
	ibv_pd pd{};
	ibv_qp_init_attr_ex a{};

	a.qp_type = IBV_QPT_RC;
	a.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EINVAL) << "no PD";
	a.pd = &pd;
	/* An XRC TGT QP needs its domain, not a PD. */
	ibv_xrcd xrcd{};
	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EINVAL) << "no domain";
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EINVAL) << "a NULL domain";
	a.xrcd = &xrcd;
	a.pd = nullptr;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), 0) << "no PD";
	a.qp_type = IBV_QPT_XRC_SEND;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EINVAL) << "INI without PD";
	a.qp_type = IBV_QPT_RC;
	a.pd = &pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), 0) << "no flag";
	a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP);
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	EXPECT_EQ(sroce::check_qp_init_attr(a, 0), EOPNOTSUPP);
}

} /* namespace */
