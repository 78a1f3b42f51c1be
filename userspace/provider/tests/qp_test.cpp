// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The provider's post_send, post_recv and bind_mw entry points on a QP
 * built by hand over plain buffers: the QP states in which they post, what
 * they leave alone when they refuse, the type 1 window's new key, and the
 * doorbell, whose write() goes to a pipe standing in for the uverbs file.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_ring.h"
#include "mw.h"
#include "qp.h"
#include "wr_list.h"

namespace {

constexpr std::uint32_t entries = 8;

class QpPost : public ::testing::Test {
protected:
	void SetUp() override
	{
		ASSERT_EQ(pipe2(pipe_, O_NONBLOCK | O_CLOEXEC), 0);
		ctx_.cmd_fd = pipe_[1];

		q_ = static_cast<sroce::qp *>(
			std::calloc(1, sizeof(sroce::qp)));
		ASSERT_NE(q_, nullptr);
		ibqp_ = &q_->vqp.qp;
		ibqp_->context = &ctx_;
		ibqp_->handle = 0x5151;
		ibqp_->qp_type = IBV_QPT_RC;
		ibqp_->state = IBV_QPS_RESET;
		ASSERT_EQ(pthread_spin_init(&q_->sq_lock, 0), 0);
		ASSERT_EQ(pthread_spin_init(&q_->rq_lock, 0), 0);

		map(sq_mem_, sroce::sq_entry_min(2, 32), true, &q_->sq);
		map(rq_mem_, sroce::rq_entry_min(2), false, &q_->rq);
		q_->sq.max_sge = 2;
		q_->sq.max_inline = 32;
		q_->rq.max_sge = 2;

		swr_.opcode = IBV_WR_SEND;
		swr_.wr_id = 1;
		rwr_.wr_id = 2;
	}

	void TearDown() override
	{
		pthread_spin_destroy(&q_->sq_lock);
		pthread_spin_destroy(&q_->rq_lock);
		std::free(q_);
		close(pipe_[0]);
		if (pipe_[1] >= 0)
			close(pipe_[1]);
	}

	/* A ring of 8 entries of entry_size bytes, as sroce.ko gives it. */
	static void map(std::vector<unsigned char> &mem, std::size_t entry_size,
			bool notify, sroce::work_queue *wq)
	{
		sroce_test::ring_over_buffer(
			mem,
			sroce_test::kernel_ring_info(
				entries, static_cast<std::uint32_t>(entry_size),
				0, notify),
			entry_size, notify, &wq->ring);
	}

	/* What reached the "uverbs file" since the last call. */
	std::vector<unsigned char> written()
	{
		std::vector<unsigned char> out;
		unsigned char buf[256];
		ssize_t n;

		while ((n = read(pipe_[0], buf, sizeof(buf))) > 0)
			out.insert(out.end(), buf, buf + n);
		return out;
	}

	void set_doorbell(bool on)
	{
		*q_->sq.ring.notify = on ? SROCE_SQ_NOTIFY_DOORBELL : 0;
	}

	int post_send(ibv_send_wr **bad)
	{
		return sroce::post_send(ibqp_, &swr_, bad);
	}

	int post_recv(ibv_recv_wr **bad)
	{
		return sroce::post_recv(ibqp_, &rwr_, bad);
	}

	int pipe_[2] = {-1, -1};
	ibv_context ctx_{};
	sroce::qp *q_ = nullptr;
	ibv_qp *ibqp_ = nullptr;
	std::vector<unsigned char> sq_mem_;
	std::vector<unsigned char> rq_mem_;
	ibv_send_wr swr_{};
	ibv_recv_wr rwr_{};
};

TEST_F(QpPost, SendRefusedBeforeRts)
{
	set_doorbell(true);
	for (ibv_qp_state s : {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR}) {
		ibqp_->state = s;
		ibv_send_wr *bad = nullptr;

		EXPECT_EQ(post_send(&bad), EINVAL) << s;
		EXPECT_EQ(bad, &swr_) << s;
		EXPECT_EQ(*q_->sq.ring.producer, 0U) << s;
		EXPECT_EQ(q_->sq.prod, 0U) << s;
	}
	EXPECT_TRUE(written().empty()) << "doorbell rung for nothing";
}

TEST_F(QpPost, SendPostedInRtsSqdSqeAndError)
{
	std::uint32_t n = 0;

	for (ibv_qp_state s :
	     {IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR}) {
		ibqp_->state = s;
		ibv_send_wr *bad = nullptr;

		EXPECT_EQ(post_send(&bad), 0) << s;
		EXPECT_EQ(*q_->sq.ring.producer, ++n) << s;
	}
}

TEST_F(QpPost, RecvRefusedOnlyInReset)
{
	ibv_recv_wr *bad = nullptr;

	EXPECT_EQ(post_recv(&bad), EINVAL);
	EXPECT_EQ(bad, &rwr_);
	EXPECT_EQ(*q_->rq.ring.producer, 0U);

	std::uint32_t n = 0;
	for (ibv_qp_state s : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
			       IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR}) {
		ibqp_->state = s;
		EXPECT_EQ(post_recv(&bad), 0) << s;
		EXPECT_EQ(*q_->rq.ring.producer, ++n) << s;
	}
	EXPECT_TRUE(written().empty()) << "post_recv made a system call";
}

TEST_F(QpPost, DoorbellOnlyWhenTheKernelIsIdle)
{
	ibqp_->state = IBV_QPS_RTS;
	ibv_send_wr *bad = nullptr;

	set_doorbell(false);
	ASSERT_EQ(post_send(&bad), 0);
	EXPECT_TRUE(written().empty());

	set_doorbell(true);
	ASSERT_EQ(post_send(&bad), 0);
	const std::vector<unsigned char> cmd = written();
	ASSERT_EQ(cmd.size(), 32U);
	ib_uverbs_cmd_hdr hdr{};
	std::memcpy(&hdr, cmd.data(), sizeof(hdr));
	EXPECT_EQ(hdr.command,
		  static_cast<std::uint32_t>(IB_USER_VERBS_CMD_POST_SEND));
	EXPECT_EQ(hdr.in_words, 8);
	EXPECT_EQ(hdr.out_words, 1);
	ib_uverbs_post_send core{};
	std::memcpy(&core, cmd.data() + 8, sizeof(core));
	EXPECT_EQ(core.qp_handle, 0x5151U);
	EXPECT_EQ(core.wr_count, 0U);
	EXPECT_EQ(core.sge_count, 0U);
	EXPECT_GE(core.wqe_size, sizeof(ib_uverbs_send_wr));
	EXPECT_EQ(*q_->sq.ring.producer, 2U);

	/* A whole list rings once. */
	ibv_send_wr more[3];
	sroce_test::chain_sends(more);
	ASSERT_EQ(sroce::post_send(ibqp_, more, &bad), 0);
	EXPECT_EQ(written().size(), 32U);
}

TEST_F(QpPost, DoorbellEverySixteenPostsWhileTheKernelSends)
{
	ibqp_->state = IBV_QPS_RTS;
	ibv_send_wr *bad = nullptr;
	std::uint32_t *cons = q_->sq.ring.consumer;

	/* The kernel waits for an answer: the bit stays clear. */
	set_doorbell(false);
	for (std::uint32_t i = 1; i <= 40; ++i) {
		*cons = *q_->sq.ring.producer; /* the ring has 8 slots */
		ASSERT_EQ(post_send(&bad), 0) << i;
		EXPECT_EQ(written().size(), i % 16 == 0 ? 32U : 0U) << i;
	}
	/* A list rings once when it reaches a multiple (48), else not. */
	ibv_send_wr more[8];
	sroce_test::chain_sends(more);
	*cons = *q_->sq.ring.producer;
	ASSERT_EQ(sroce::post_send(ibqp_, more, &bad), 0);
	EXPECT_EQ(written().size(), 32U);
	more[6].next = nullptr;
	*cons = *q_->sq.ring.producer;
	ASSERT_EQ(sroce::post_send(ibqp_, more, &bad), 0);
	EXPECT_TRUE(written().empty());
	EXPECT_EQ(*q_->sq.ring.producer, 55U);
}

TEST_F(QpPost, NoDoorbellWhenNothingWasPosted)
{
	ibqp_->state = IBV_QPS_RTS;
	set_doorbell(true);
	swr_.num_sge = 3; /* above max_send_sge */
	ibv_send_wr *bad = nullptr;

	EXPECT_EQ(post_send(&bad), EINVAL);
	EXPECT_EQ(bad, &swr_);
	EXPECT_TRUE(written().empty());
}

TEST_F(QpPost, FailedDoorbellReturnsItsErrno)
{
	ibqp_->state = IBV_QPS_RTS;
	set_doorbell(true);
	close(pipe_[1]);
	pipe_[1] = -1;
	ctx_.cmd_fd = -1;
	ibv_send_wr *bad = nullptr;

	EXPECT_EQ(post_send(&bad), EBADF);
	EXPECT_EQ(bad, &swr_);
}

TEST_F(QpPost, FullSendQueueIsEnomem)
{
	ibqp_->state = IBV_QPS_RTS;
	ibv_send_wr *bad = nullptr;

	for (std::uint32_t i = 0; i < entries; ++i)
		ASSERT_EQ(post_send(&bad), 0) << i;
	EXPECT_EQ(post_send(&bad), ENOMEM);
	EXPECT_EQ(bad, &swr_);
	*q_->sq.ring.consumer = 1;
	EXPECT_EQ(post_send(&bad), 0);
}

/* QpPost with a region and a type 1 window of the QP's context. */
class QpBind : public QpPost {
protected:
	void SetUp() override
	{
		QpPost::SetUp();
		pd_.context = &ctx_;
		mr_.context = &ctx_;
		mr_.pd = &pd_;
		mr_.lkey = 0x00beef11U;
		mr_.rkey = 0x00beef11U;
		mw_.context = &ctx_;
		mw_.pd = &pd_;
		mw_.rkey = 0x000777ffU;
		mw_.handle = 3;
		mw_.type = IBV_MW_TYPE_1;
		bind_.wr_id = 0x4242;
		bind_.send_flags = IBV_SEND_SIGNALED;
		bind_.bind_info.mr = &mr_;
		bind_.bind_info.addr = 0x10000;
		bind_.bind_info.length = 0x800;
		bind_.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	}

	int bind() { return sroce::bind_mw(ibqp_, &mw_, &bind_); }

	/* The send WQE at index i of the SQ ring. */
	[[nodiscard]] sroce_send_wqe sq_wqe(std::uint32_t i) const
	{
		const sroce::ring_view &r = q_->sq.ring;
		sroce_send_wqe w{};

		std::memcpy(&w,
			    r.entries + std::size_t{i & r.mask} * r.entry_size,
			    sizeof(w));
		return w;
	}

	ibv_pd pd_{};
	ibv_mr mr_{};
	ibv_mw mw_{};
	ibv_mw_bind bind_{};
};

TEST_F(QpBind, Type1BindPostsTheNextKeyAndTakesIt)
{
	ibqp_->state = IBV_QPS_RTS;
	set_doorbell(true);

	ASSERT_EQ(bind(), 0);
	/* ibv_inc_rkey(): the low byte wraps, the index stays. */
	EXPECT_EQ(mw_.rkey, 0x00077700U);
	EXPECT_EQ(*q_->sq.ring.producer, 1U);
	sroce_send_wqe w = sq_wqe(0);
	EXPECT_EQ(w.wr_id, 0x4242U);
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(IB_UVERBS_WR_BIND_MW));
	EXPECT_EQ(w.send_flags,
		  static_cast<std::uint32_t>(SROCE_SEND_SIGNALED));
	EXPECT_EQ(w.num_sge, 0U);
	EXPECT_EQ(w.op.bind.rkey, 0x00077700U);
	EXPECT_EQ(w.op.bind.mr_lkey, 0x00beef11U);
	EXPECT_EQ(w.op.bind.addr, 0x10000U);
	EXPECT_EQ(w.op.bind.length, 0x800U);
	EXPECT_EQ(w.op.bind.access,
		  static_cast<std::uint32_t>(IBV_ACCESS_REMOTE_READ));
	EXPECT_EQ(written().size(), 32U) << "the doorbell, like any post";

	/* The next bind steps from the key the window has now. */
	ASSERT_EQ(bind(), 0);
	EXPECT_EQ(mw_.rkey, 0x00077701U);
	EXPECT_EQ(sq_wqe(1).op.bind.rkey, 0x00077701U);
}

TEST_F(QpBind, Type1UnbindWithoutARegion)
{
	ibqp_->state = IBV_QPS_RTS;
	bind_.bind_info = ibv_mw_bind_info{};

	ASSERT_EQ(bind(), 0);
	EXPECT_EQ(mw_.rkey, 0x00077700U);
	const sroce_send_wqe w = sq_wqe(0);
	EXPECT_EQ(w.op.bind.length, 0U);
	EXPECT_EQ(w.op.bind.mr_lkey, 0U);
	EXPECT_EQ(w.op.bind.rkey, 0x00077700U);
}

TEST_F(QpBind, KeyUnchangedWhenNothingWasPosted)
{
	/* Not in a state that posts. */
	ibqp_->state = IBV_QPS_RTR;
	EXPECT_EQ(bind(), EINVAL);
	EXPECT_EQ(mw_.rkey, 0x000777ffU);
	EXPECT_EQ(*q_->sq.ring.producer, 0U);

	/* A full send queue. */
	ibqp_->state = IBV_QPS_RTS;
	for (std::uint32_t i = 0; i < entries; ++i)
		ASSERT_EQ(bind(), 0) << i;
	const std::uint32_t key = mw_.rkey;
	EXPECT_EQ(bind(), ENOMEM);
	EXPECT_EQ(mw_.rkey, key);
	EXPECT_EQ(*q_->sq.ring.producer, entries);

	/* A bind the encoder refuses (unknown send flag). */
	*q_->sq.ring.consumer = entries;
	bind_.send_flags = IBV_SEND_IP_CSUM;
	EXPECT_EQ(bind(), EINVAL);
	EXPECT_EQ(mw_.rkey, key);
	EXPECT_EQ(*q_->sq.ring.producer, entries);
}

TEST_F(QpBind, KeyUnchangedWhenTheDoorbellFails)
{
	ibqp_->state = IBV_QPS_RTS;
	set_doorbell(true);
	close(pipe_[1]);
	pipe_[1] = -1;
	ctx_.cmd_fd = -1;

	EXPECT_EQ(bind(), EBADF);
	EXPECT_EQ(mw_.rkey, 0x000777ffU);
}

TEST_F(QpBind, RefusesWhatIsNotAType1BindOfThisContext)
{
	ibv_context other{};
	ibqp_->state = IBV_QPS_RTS;

	mw_.type = IBV_MW_TYPE_2;
	EXPECT_EQ(bind(), EINVAL) << "type 2: ibv_post_send only";
	mw_.type = IBV_MW_TYPE_1;

	mr_.context = &other;
	EXPECT_EQ(bind(), EINVAL) << "region of another context";
	mr_.context = &ctx_;

	mw_.context = &other;
	EXPECT_EQ(bind(), EINVAL) << "window of another context";
	mw_.context = &ctx_;

	bind_.bind_info.mr = nullptr;
	EXPECT_EQ(bind(), EINVAL) << "a length without a region";
	bind_.bind_info.length = 0;
	EXPECT_EQ(bind(), EINVAL) << "an address without a region";

	EXPECT_EQ(mw_.rkey, 0x000777ffU);
	EXPECT_EQ(*q_->sq.ring.producer, 0U);
	EXPECT_TRUE(written().empty());
}

TEST_F(QpBind, Type2BindThroughPostSend)
{
	ibqp_->state = IBV_QPS_RTS;
	mw_.type = IBV_MW_TYPE_2;
	swr_.opcode = IBV_WR_BIND_MW;
	swr_.bind_mw.mw = &mw_;
	swr_.bind_mw.rkey = 0x00077742U; /* the application's choice */
	swr_.bind_mw.bind_info = bind_.bind_info;
	ibv_send_wr *bad = nullptr;

	ASSERT_EQ(post_send(&bad), 0);
	EXPECT_EQ(sq_wqe(0).op.bind.rkey, 0x00077742U);
	EXPECT_EQ(sq_wqe(0).opcode,
		  static_cast<std::uint32_t>(IB_UVERBS_WR_BIND_MW));
	EXPECT_EQ(mw_.rkey, 0x000777ffU) << "the application keeps the key";

	ibqp_->qp_type = IBV_QPT_UD;
	EXPECT_EQ(post_send(&bad), EINVAL);
	EXPECT_EQ(bad, &swr_);
}

} /* namespace */
