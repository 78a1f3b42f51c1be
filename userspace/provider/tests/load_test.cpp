// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The built provider inside the real libibverbs, against a fake kernel (see
 * fake_kernel.h).  libibverbs' own code initialises the context inside the
 * provider's allocation, takes and drops the device reference at
 * verbs_device.refcount and dispatches ibv_query_port(),
 * ibv_query_device_ex() and ibv_close_device() through the provider's
 * verbs_context_ops: a wrong offset in verbs_abi.h shows up here.  The same
 * goes for ibv_modify_qp(), ibv_query_qp(), ibv_post_send(),
 * ibv_post_recv() and ibv_destroy_qp() on a QP built by the test (creating
 * one needs the kernel's mmap()): the provider's hand-declared
 * ibv_cmd_modify_qp/query_qp/destroy_qp run inside the real libibverbs.
 * Likewise ibv_alloc_mw(), ibv_bind_mw(), ibv_dealloc_mw(),
 * ibv_rereg_mr(), ibv_attach_mcast() and ibv_detach_mcast() with
 * ibv_cmd_alloc_mw/dealloc_mw/rereg_mr/attach_mcast/detach_mcast, and
 * ibv_query_rt_values_ex() reaching the provider's clock.
 */
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "fake_kernel.h"
#include "context.h"
#include "pd.h"
#include "qp.h"
#include "uverbs_cmd.h"

namespace {

bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

int open_null()
{
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

class ProviderLoad : public ::testing::Test {
protected:
	static void SetUpTestSuite()
	{
		handle_ = dlopen(SROCE_PROVIDER_SO, RTLD_NOW | RTLD_LOCAL);
		ASSERT_NE(handle_, nullptr) << dlerror();
	}

	void SetUp() override
	{
		ops_ = registered_ops();
		ASSERT_NE(ops_, nullptr) << "the constructor did not register";

		sysfs_ = {};
		std::strcpy(sysfs_.sysfs_name, "uverbs0");
		std::strcpy(sysfs_.ibdev_name, "s0");
		sysfs_.driver_id = SROCE_DRIVER_ID;
		sysfs_.abi_ver = SROCE_UVERBS_ABI_VERSION;
		sysfs_.node_type = IBV_NODE_CA;
		sysfs_.num_ports = 1;

		/* What libibverbs' try_driver() does after alloc_device(). */
		vdev_ = ops_->alloc_device(&sysfs_);
		ASSERT_NE(vdev_, nullptr);
		vdev_->ops = ops_;
		vdev_->sysfs = &sysfs_;
		vdev_->refcount = held; /* ours: never dropped by the test */
		vdev_->device.node_type = IBV_NODE_CA;
		vdev_->device.transport_type = IBV_TRANSPORT_IB;
		std::strcpy(vdev_->device.name, "s0");
		std::strcpy(vdev_->device.dev_name, "uverbs0");

		fake_kernel &k = the_fake_kernel();
		k = fake_kernel{};
		k.ucontext.abi_version = SROCE_UVERBS_ABI_VERSION;
		k.ucontext.page_size = 4096;
		k.ucontext.features = 0;
		k.ucontext.max_inline_data = 64;
		k.fd = open_null();
		k.async_fd = open_null();
		ASSERT_GE(k.fd, 0);
		ASSERT_GE(k.async_fd, 0);
	}

	void TearDown() override
	{
		fake_kernel &k = the_fake_kernel();

		if (vdev_ != nullptr) {
			EXPECT_EQ(vdev_->refcount.load(), held)
				<< "device reference leaked or over-released";
			ops_->uninit_device(vdev_);
		}
		k.fd = -1;
	}

	/* Opens the device as verbs_open_device() would; cmd_fd is given. */
	ibv_context *open_device()
	{
		verbs_context *vctx = ops_->alloc_context(
			&vdev_->device, the_fake_kernel().fd, nullptr);

		return vctx == nullptr ? nullptr : &vctx->context;
	}

	/* A refused open must close both fds and drop the reference. */
	void expect_refused(int err)
	{
		const int fd = the_fake_kernel().fd;
		const int async_fd = the_fake_kernel().async_fd;

		errno = 0;
		EXPECT_EQ(open_device(), nullptr);
		EXPECT_EQ(errno, err);
		EXPECT_FALSE(fd_is_open(fd)) << "cmd_fd leaked";
		if (the_fake_kernel().get_context_errno == 0)
			EXPECT_FALSE(fd_is_open(async_fd)) << "async_fd leaked";
		else
			close(async_fd);
		EXPECT_EQ(vdev_->refcount.load(), held);
	}

	static constexpr int held = 2;
	static void *handle_;
	const verbs_device_ops *ops_ = nullptr;
	verbs_sysfs_dev sysfs_{};
	verbs_device *vdev_ = nullptr;
};

void *ProviderLoad::handle_ = nullptr;

TEST_F(ProviderLoad, ConstructorRegistersOnceFromTheLibrary)
{
	Dl_info info{};

	EXPECT_EQ(register_calls(), 1);
	ASSERT_NE(dladdr(ops_, &info), 0);
	EXPECT_STREQ(info.dli_fname, SROCE_PROVIDER_SO);
	EXPECT_STREQ(ops_->name, "sroce");
	ASSERT_NE(ops_->match_table, nullptr);
	EXPECT_EQ(ops_->match_table[0].kind, VERBS_MATCH_DRIVER_ID);
	EXPECT_EQ(ops_->match_table[0].u.driver_id, 0x5352U);
}

TEST_F(ProviderLoad, OpenQueryClose)
{
	fake_kernel &k = the_fake_kernel();
	const int fd = k.fd;
	const int async_fd = k.async_fd;

	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);
	EXPECT_EQ(ctx->device, &vdev_->device);
	EXPECT_EQ(ctx->cmd_fd, fd);
	EXPECT_EQ(ctx->async_fd, async_fd);
	EXPECT_EQ(vdev_->refcount.load(), held + 1);

	/* The GET_CONTEXT the kernel saw: header, core, then our tail. */
	ASSERT_EQ(k.commands.size(), 1U);
	const std::vector<unsigned char> &c = k.commands[0];
	ASSERT_EQ(c.size(), 24U);
	ib_uverbs_cmd_hdr hdr{};
	std::memcpy(&hdr, c.data(), sizeof(hdr));
	EXPECT_EQ(hdr.command, IB_USER_VERBS_CMD_GET_CONTEXT);
	EXPECT_EQ(hdr.in_words, 24 / 4);
	EXPECT_EQ(hdr.out_words, (8 + sizeof(sroce_alloc_ucontext_resp)) / 4);
	sroce_alloc_ucontext_cmd tail{};
	std::memcpy(&tail, c.data() + 16, sizeof(tail));
	EXPECT_EQ(tail.provider_abi,
		  static_cast<std::uint32_t>(SROCE_UVERBS_ABI_VERSION));
	EXPECT_EQ(tail.reserved, 0U);

	/* What the provider kept from the response. */
	const sroce::context *sctx = sroce::to_ctx(ctx);
	EXPECT_EQ(sctx->params.abi_version,
		  static_cast<std::uint32_t>(SROCE_UVERBS_ABI_VERSION));
	EXPECT_EQ(sctx->params.page_size, 4096U);
	EXPECT_EQ(sctx->params.max_inline_data, 64U);

	/* query_port through libibverbs' dispatch. */
	k.port.state = IBV_PORT_ACTIVE;
	k.port.phys_state = 5; /* LinkUp */
	k.port.link_layer = IBV_LINK_LAYER_ETHERNET;
	k.port.gid_tbl_len = 16;
	k.port.max_mtu = IBV_MTU_4096;
	k.port.active_mtu = IBV_MTU_1024;
	ibv_port_attr pa{};
	ASSERT_EQ(ibv_query_port(ctx, 1, &pa), 0);
	EXPECT_EQ(k.ports_queried, std::vector<unsigned>{1});
	EXPECT_EQ(pa.state, IBV_PORT_ACTIVE);
	EXPECT_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	EXPECT_EQ(pa.gid_tbl_len, 16);
	EXPECT_EQ(pa.active_mtu, IBV_MTU_1024);

	/* query_device_ex: the provider formats the firmware version. */
	k.fw_ver = (1ULL << 32) | (2ULL << 16) | 3ULL;
	ibv_device_attr_ex attr{};
	ASSERT_EQ(ibv_query_device_ex(ctx, nullptr, &attr), 0);
	EXPECT_STREQ(attr.orig_attr.fw_ver, "1.2.3");
	EXPECT_EQ(attr.orig_attr.phys_port_cnt, 1);

	/* free_context through libibverbs' dispatch. */
	EXPECT_EQ(ibv_close_device(ctx), 0);
	EXPECT_EQ(vdev_->refcount.load(), held);
	EXPECT_FALSE(fd_is_open(fd));
	EXPECT_FALSE(fd_is_open(async_fd));
}

/*
 * A QP as create_qp leaves it, built by hand: rings in anonymous mappings
 * (destroy_qp unmaps them) laid out like the kernel's, libibverbs' fields
 * as ibv_cmd_create_qp sets them.
 */
sroce::qp *make_qp(ibv_context *ctx, std::uint32_t handle)
{
	constexpr std::uint32_t page = 4096;
	auto *q = static_cast<sroce::qp *>(std::calloc(1, sizeof(sroce::qp)));

	if (q == nullptr)
		return nullptr;
	ibv_qp &ibqp = q->vqp.qp;
	ibqp.context = ctx;
	ibqp.handle = handle;
	ibqp.qp_num = 0x99;
	ibqp.qp_type = IBV_QPT_RC;
	ibqp.state = IBV_QPS_RESET;
	pthread_mutex_init(&ibqp.mutex, nullptr);
	pthread_cond_init(&ibqp.cond, nullptr);
	pthread_spin_init(&q->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&q->rq_lock, PTHREAD_PROCESS_PRIVATE);

	auto ring = [](sroce::work_queue *wq, sroce::ring_mapping *map,
		       std::uint32_t entry_size, bool notify) {
		void *m = mmap(nullptr, page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		auto *b = static_cast<unsigned char *>(m);
		auto word = [b](std::size_t off) {
			return reinterpret_cast<std::uint32_t *>(b + off);
		};

		*map = sroce::ring_mapping{
			.base = m, .size = page, .offset = 0};
		wq->ring = sroce::ring_view{
			.entries = b + 512,
			.producer = word(0),
			.consumer = word(128),
			.notify = notify ? word(256) : nullptr,
			.mask = 7,
			.entry_size = entry_size,
		};
		wq->max_sge = 2;
	};
	ring(&q->sq, &q->sq_map,
	     static_cast<std::uint32_t>(sroce::sq_entry_min(2, 32)), true);
	ring(&q->rq, &q->rq_map,
	     static_cast<std::uint32_t>(sroce::rq_entry_min(2)), false);
	q->sq.max_inline = 32;
	return q;
}

/* The core struct of the last command the fake kernel saw. */
template <typename T>
T last_command(std::uint32_t want_cmd)
{
	const std::vector<unsigned char> &c = the_fake_kernel().commands.back();
	ib_uverbs_cmd_hdr hdr{};
	T core{};

	std::memcpy(&hdr, c.data(), sizeof(hdr));
	EXPECT_EQ(hdr.command, want_cmd);
	EXPECT_EQ(c.size(), sizeof(hdr) + sizeof(T));
	std::memcpy(&core, c.data() + sizeof(hdr),
		    std::min(sizeof(T), c.size() - sizeof(hdr)));
	return core;
}

TEST_F(ProviderLoad, QpVerbsThroughLibibverbs)
{
	fake_kernel &k = the_fake_kernel();
	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);
	sroce::qp *q = make_qp(ctx, 0x1234);
	ASSERT_NE(q, nullptr);
	ibv_qp *qp = &q->vqp.qp;

	/* modify_qp: the core command, libibverbs keeps the state. */
	ibv_qp_attr attr{};
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	const int mask = IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	ASSERT_EQ(ibv_modify_qp(qp, &attr, mask), 0);
	EXPECT_EQ(qp->state, IBV_QPS_INIT);
	auto mod =
		last_command<ib_uverbs_modify_qp>(IB_USER_VERBS_CMD_MODIFY_QP);
	EXPECT_EQ(mod.qp_handle, 0x1234U);
	EXPECT_EQ(mod.attr_mask, static_cast<std::uint32_t>(mask));
	EXPECT_EQ(mod.qp_state, IBV_QPS_INIT);
	EXPECT_EQ(mod.port_num, 1);
	EXPECT_EQ(mod.qp_access_flags,
		  static_cast<std::uint32_t>(IBV_ACCESS_REMOTE_WRITE));

	/* A refused modify leaves the state alone. */
	k.qp_errno = EINVAL;
	attr.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), EINVAL);
	EXPECT_EQ(qp->state, IBV_QPS_INIT);
	k.qp_errno = 0;

	/* Receives in INIT, without a system call; sends not yet. */
	std::size_t ncmd = k.commands.size();
	ibv_recv_wr rwr{};
	rwr.wr_id = 5;
	ibv_recv_wr *rbad = nullptr;
	ASSERT_EQ(ibv_post_recv(qp, &rwr, &rbad), 0);
	EXPECT_EQ(*q->rq.ring.producer, 1U);
	ibv_send_wr swr{};
	swr.opcode = IBV_WR_SEND;
	ibv_send_wr *sbad = nullptr;
	EXPECT_EQ(ibv_post_send(qp, &swr, &sbad), EINVAL);
	EXPECT_EQ(sbad, &swr);
	EXPECT_EQ(k.commands.size(), ncmd);

	for (ibv_qp_state s : {IBV_QPS_RTR, IBV_QPS_RTS}) {
		attr.qp_state = s;
		ASSERT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
	}
	EXPECT_EQ(qp->state, IBV_QPS_RTS);

	/* The doorbell reaches the kernel only when it asks for it. */
	ncmd = k.commands.size();
	*q->sq.ring.notify = 0;
	ASSERT_EQ(ibv_post_send(qp, &swr, &sbad), 0);
	EXPECT_EQ(k.commands.size(), ncmd);
	*q->sq.ring.notify = SROCE_SQ_NOTIFY_DOORBELL;
	ASSERT_EQ(ibv_post_send(qp, &swr, &sbad), 0);
	ASSERT_EQ(k.commands.size(), ncmd + 1);
	auto db =
		last_command<ib_uverbs_post_send>(IB_USER_VERBS_CMD_POST_SEND);
	EXPECT_EQ(db.qp_handle, 0x1234U);
	EXPECT_EQ(db.wr_count, 0U);
	EXPECT_EQ(*q->sq.ring.producer, 2U);
	k.qp_errno = EIO;
	EXPECT_EQ(ibv_post_send(qp, &swr, &sbad), EIO);
	EXPECT_EQ(sbad, &swr);
	k.qp_errno = 0;

	/* query_qp: the kernel's answer, and libibverbs keeps the state. */
	k.query_qp.qp_state = IBV_QPS_SQE;
	k.query_qp.max_send_wr = 8;
	k.query_qp.max_recv_sge = 2;
	k.query_qp.dest_qp_num = 0x4242;
	ibv_qp_attr qa{};
	ibv_qp_init_attr ia{};
	const int qmask = IBV_QP_STATE | IBV_QP_CAP | IBV_QP_DEST_QPN;
	ASSERT_EQ(ibv_query_qp(qp, &qa, qmask, &ia), 0);
	auto qq = last_command<ib_uverbs_query_qp>(IB_USER_VERBS_CMD_QUERY_QP);
	EXPECT_EQ(qq.qp_handle, 0x1234U);
	EXPECT_EQ(qq.attr_mask, static_cast<std::uint32_t>(qmask));
	EXPECT_EQ(qa.qp_state, IBV_QPS_SQE);
	EXPECT_EQ(qa.dest_qp_num, 0x4242U);
	EXPECT_EQ(qa.cap.max_send_wr, 8U);
	EXPECT_EQ(ia.cap.max_recv_sge, 2U);
	EXPECT_EQ(qp->state, IBV_QPS_SQE);

	/* RESET: the provider forgets its producer indices. */
	attr.qp_state = IBV_QPS_RESET;
	ASSERT_EQ(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
	EXPECT_EQ(qp->state, IBV_QPS_RESET);
	EXPECT_EQ(q->sq.prod, 0U);
	EXPECT_EQ(q->rq.prod, 0U);

	/* A refused destroy leaves the QP to the caller. */
	k.qp_errno = EBUSY;
	EXPECT_EQ(ibv_destroy_qp(qp), EBUSY);
	k.qp_errno = 0;
	ASSERT_EQ(ibv_destroy_qp(qp), 0);
	auto dq = last_command<ib_uverbs_destroy_qp>(
		IB_USER_VERBS_CMD_DESTROY_QP);
	EXPECT_EQ(dq.qp_handle, 0x1234U);

	EXPECT_EQ(ibv_close_device(ctx), 0);
}

TEST_F(ProviderLoad, MemoryWindowsThroughLibibverbs)
{
	fake_kernel &k = the_fake_kernel();
	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);
	ibv_pd pd{};
	pd.context = ctx;
	pd.handle = 0x21;

	/* alloc_mw: the core command, the window from its response. */
	k.mw_handle = 0x31;
	k.mw_rkey = 0x000044ffU;
	ibv_mw *mw = ibv_alloc_mw(&pd, IBV_MW_TYPE_1);
	ASSERT_NE(mw, nullptr) << std::strerror(errno);
	const std::vector<unsigned char> &c = k.commands.back();
	ASSERT_EQ(c.size(), 24U);
	ib_uverbs_cmd_hdr hdr{};
	std::memcpy(&hdr, c.data(), sizeof(hdr));
	EXPECT_EQ(hdr.command,
		  static_cast<std::uint32_t>(IB_USER_VERBS_CMD_ALLOC_MW));
	EXPECT_EQ(hdr.in_words, 24 / 4);
	EXPECT_EQ(hdr.out_words, sizeof(ib_uverbs_alloc_mw_resp) / 4);
	auto am = last_command<ib_uverbs_alloc_mw>(IB_USER_VERBS_CMD_ALLOC_MW);
	EXPECT_EQ(am.pd_handle, 0x21U);
	EXPECT_EQ(am.mw_type, IBV_MW_TYPE_1);
	EXPECT_EQ(am.reserved[0] | am.reserved[1] | am.reserved[2], 0);
	EXPECT_EQ(mw->context, ctx);
	EXPECT_EQ(mw->pd, &pd);
	EXPECT_EQ(mw->handle, 0x31U);
	EXPECT_EQ(mw->rkey, 0x000044ffU);
	EXPECT_EQ(mw->type, IBV_MW_TYPE_1);

	/* Refused: an unknown type (no command), the kernel's error. */
	std::size_t ncmd = k.commands.size();
	errno = 0;
	EXPECT_EQ(ibv_alloc_mw(&pd, static_cast<ibv_mw_type>(3)), nullptr);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(k.commands.size(), ncmd);
	k.mw_errno = ENOSPC;
	errno = 0;
	EXPECT_EQ(ibv_alloc_mw(&pd, IBV_MW_TYPE_2), nullptr);
	EXPECT_EQ(errno, ENOSPC);
	k.mw_errno = 0;

	/* ibv_bind_mw() reaches the provider's bind_mw: a WQE, a new key. */
	sroce::qp *q = make_qp(ctx, 0x1234);
	ASSERT_NE(q, nullptr);
	q->vqp.qp.state = IBV_QPS_RTS;
	q->vqp.qp.pd = &pd;
	ibv_mr mr{};
	mr.context = ctx;
	mr.pd = &pd;
	mr.lkey = 0x00000a01U;
	ibv_mw_bind b{};
	b.wr_id = 7;
	b.send_flags = IBV_SEND_SIGNALED;
	b.bind_info.mr = &mr;
	b.bind_info.addr = 0x4000;
	b.bind_info.length = 0x100;
	b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ASSERT_EQ(ibv_bind_mw(&q->vqp.qp, mw, &b), 0);
	EXPECT_EQ(mw->rkey, 0x00004400U);
	EXPECT_EQ(*q->sq.ring.producer, 1U);
	sroce_send_wqe w{};
	std::memcpy(&w, q->sq.ring.entries, sizeof(w));
	EXPECT_EQ(w.opcode, static_cast<std::uint32_t>(IB_UVERBS_WR_BIND_MW));
	EXPECT_EQ(w.op.bind.rkey, 0x00004400U);
	EXPECT_EQ(w.op.bind.mr_lkey, 0x00000a01U);
	EXPECT_EQ(w.op.bind.addr, 0x4000U);
	EXPECT_EQ(w.op.bind.length, 0x100U);
	EXPECT_EQ(w.op.bind.access,
		  static_cast<std::uint32_t>(IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(w.wr_id, 7U);
	ASSERT_EQ(ibv_destroy_qp(&q->vqp.qp), 0);

	/* dealloc_mw: a refused one stays the caller's. */
	k.mw_errno = EBUSY;
	EXPECT_EQ(ibv_dealloc_mw(mw), EBUSY);
	k.mw_errno = 0;
	ASSERT_EQ(ibv_dealloc_mw(mw), 0);
	auto dm = last_command<ib_uverbs_dealloc_mw>(
		IB_USER_VERBS_CMD_DEALLOC_MW);
	EXPECT_EQ(dm.mw_handle, 0x31U);

	EXPECT_EQ(ibv_close_device(ctx), 0);
}

/* ibv_attach_mcast()/ibv_detach_mcast() reach the kernel's commands. */
TEST_F(ProviderLoad, McastThroughLibibverbs)
{
	fake_kernel &k = the_fake_kernel();
	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);
	sroce::qp *q = make_qp(ctx, 0x1234);
	ASSERT_NE(q, nullptr);
	ibv_qp *qp = &q->vqp.qp;
	qp->qp_type = IBV_QPT_UD;
	ibv_gid gid{};
	gid.raw[10] = 0xff;
	gid.raw[11] = 0xff;
	gid.raw[12] = 239;
	gid.raw[15] = 7;

	ASSERT_EQ(ibv_attach_mcast(qp, &gid, 0xc001), 0);
	auto am = last_command<ib_uverbs_attach_mcast>(
		IB_USER_VERBS_CMD_ATTACH_MCAST);
	EXPECT_EQ(std::memcmp(am.gid, gid.raw, sizeof(gid.raw)), 0);
	EXPECT_EQ(am.qp_handle, 0x1234U);
	EXPECT_EQ(am.mlid, 0xc001U);
	ASSERT_EQ(ibv_detach_mcast(qp, &gid, 0xc001), 0);
	auto dm = last_command<ib_uverbs_detach_mcast>(
		IB_USER_VERBS_CMD_DETACH_MCAST);
	EXPECT_EQ(std::memcmp(dm.gid, gid.raw, sizeof(gid.raw)), 0);
	EXPECT_EQ(dm.qp_handle, 0x1234U);
	EXPECT_EQ(dm.mlid, 0xc001U);

	/* The kernel's refusals come back as they are. */
	k.mcast_errno = ENOMEM;
	EXPECT_EQ(ibv_attach_mcast(qp, &gid, 0), ENOMEM);
	k.mcast_errno = EINVAL;
	EXPECT_EQ(ibv_detach_mcast(qp, &gid, 0), EINVAL);
	k.mcast_errno = 0;

	ASSERT_EQ(ibv_destroy_qp(qp), 0);
	EXPECT_EQ(ibv_close_device(ctx), 0);
}

/*
 * ibv_create_qp_ex() reaches the provider's create_qp_ex (without it,
 * libibverbs answers EOPNOTSUPP itself), which refuses what sroce cannot
 * give before any command and sends the rest as the plain CREATE_QP with
 * the driver tail.  (ibv_create_cq_ex() goes through a libibverbs wrapper
 * that verbs_open_device() installs and open_device() here does not: the
 * guest's rdma-core suite covers it.)
 */
TEST_F(ProviderLoad, CreateQpExReachesTheProvider)
{
	fake_kernel &k = the_fake_kernel();
	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);
	/* The provider's PD object, as ibv_alloc_pd() would have made it. */
	sroce::pd provider_pd{};
	ibv_pd &pd = provider_pd.ibpd;
	pd.context = ctx;
	const std::size_t ncmd = k.commands.size();

	ibv_cq cq{};
	cq.context = ctx;
	cq.handle = 0x77;
	ibv_qp_init_attr_ex qa{};
	qa.qp_type = IBV_QPT_RC;
	qa.pd = &pd;
	qa.send_cq = &cq;
	qa.recv_cq = &cq;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO;
	errno = 0;
	EXPECT_EQ(ibv_create_qp_ex(ctx, &qa), nullptr);
	EXPECT_EQ(errno, EOPNOTSUPP);
	/* Without a PD: EINVAL, which only the provider says. */
	qa.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	errno = 0;
	EXPECT_EQ(ibv_create_qp_ex(ctx, &qa), nullptr);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(k.commands.size(), ncmd) << "a refusal sent a command";

	/* Accepted: CREATE_QP (which the fake kernel refuses). */
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	EXPECT_EQ(ibv_create_qp_ex(ctx, &qa), nullptr);
	EXPECT_EQ(k.commands.size(), ncmd + 1);
	if (k.commands.size() == ncmd + 1) {
		const std::vector<unsigned char> &c = k.commands.back();
		ib_uverbs_cmd_hdr hdr{};

		std::memcpy(&hdr, c.data(), sizeof(hdr));
		EXPECT_EQ(hdr.command, IB_USER_VERBS_CMD_CREATE_QP);
		EXPECT_EQ(c.size(), sroce::create_qp_cmd::size);
	}
	EXPECT_EQ(ibv_close_device(ctx), 0);
}

TEST_F(ProviderLoad, ReregMrThroughLibibverbs)
{
	fake_kernel &k = the_fake_kernel();
	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);
	static unsigned char buf[64];
	static unsigned char buf2[256];
	ibv_pd pd{};
	pd.context = ctx;
	pd.handle = 0x21;
	ibv_pd pd2{};
	pd2.context = ctx;
	pd2.handle = 0x22;
	/* As ibv_reg_mr() leaves it (a verbs_mr: libibverbs reads mr_type). */
	verbs_mr vmr{};
	ibv_mr *mr = &vmr.mr;
	mr->context = ctx;
	mr->pd = &pd;
	mr->addr = buf;
	mr->length = sizeof(buf);
	mr->handle = 0x41;
	mr->lkey = 0x00000500U;
	mr->rkey = 0x00000500U;

	/* Everything changes: the command carries it all, the MR takes it. */
	k.rereg_lkey = 0x00000601U;
	k.rereg_rkey = 0x00000602U;
	const int flags = IBV_REREG_MR_CHANGE_TRANSLATION |
			  IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS;
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_MW_BIND;
	ASSERT_EQ(ibv_rereg_mr(mr, flags, &pd2, buf2, sizeof(buf2), access), 0)
		<< std::strerror(errno);
	const std::vector<unsigned char> &c = k.commands.back();
	ASSERT_EQ(c.size(), 56U);
	ib_uverbs_cmd_hdr hdr{};
	std::memcpy(&hdr, c.data(), sizeof(hdr));
	EXPECT_EQ(hdr.in_words, 56 / 4);
	EXPECT_EQ(hdr.out_words, sizeof(ib_uverbs_rereg_mr_resp) / 4);
	auto rr = last_command<ib_uverbs_rereg_mr>(IB_USER_VERBS_CMD_REREG_MR);
	EXPECT_EQ(rr.mr_handle, 0x41U);
	EXPECT_EQ(rr.flags, static_cast<std::uint32_t>(flags));
	EXPECT_EQ(rr.start, reinterpret_cast<std::uintptr_t>(buf2));
	EXPECT_EQ(rr.length, sizeof(buf2));
	EXPECT_EQ(rr.hca_va, reinterpret_cast<std::uintptr_t>(buf2));
	EXPECT_EQ(rr.pd_handle, 0x22U);
	EXPECT_EQ(rr.access_flags, static_cast<std::uint32_t>(access));
	EXPECT_EQ(mr->lkey, 0x00000601U);
	EXPECT_EQ(mr->rkey, 0x00000602U);
	EXPECT_EQ(mr->pd, &pd2);
	EXPECT_EQ(mr->addr, buf2);
	EXPECT_EQ(mr->length, sizeof(buf2));
	EXPECT_EQ(mr->handle, 0x41U);
	EXPECT_EQ(mr->context, ctx);

	/* Access only: no PD handle, no translation; new keys again. */
	k.rereg_lkey = 0x00000703U;
	k.rereg_rkey = 0x00000703U;
	ASSERT_EQ(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, nullptr, nullptr,
			       0, IBV_ACCESS_LOCAL_WRITE),
		  0);
	rr = last_command<ib_uverbs_rereg_mr>(IB_USER_VERBS_CMD_REREG_MR);
	EXPECT_EQ(rr.flags,
		  static_cast<std::uint32_t>(IBV_REREG_MR_CHANGE_ACCESS));
	EXPECT_EQ(rr.pd_handle, 0U);
	EXPECT_EQ(rr.start, 0U);
	EXPECT_EQ(rr.length, 0U);
	EXPECT_EQ(rr.access_flags,
		  static_cast<std::uint32_t>(IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(mr->lkey, 0x00000703U);
	EXPECT_EQ(mr->pd, &pd2);
	EXPECT_EQ(mr->addr, buf2);

	/* The kernel refuses: libibverbs' ERR_CMD, errno, keys kept. */
	k.rereg_errno = EBUSY;
	errno = 0;
	EXPECT_EQ(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, &pd, nullptr, 0, 0),
		  IBV_REREG_MR_ERR_CMD);
	EXPECT_EQ(errno, EBUSY);
	EXPECT_EQ(mr->lkey, 0x00000703U);
	EXPECT_EQ(mr->pd, &pd2);
	k.rereg_errno = 0;

	/* A PD of another context never reaches the kernel. */
	ibv_context other{};
	ibv_pd foreign{};
	foreign.context = &other;
	const std::size_t ncmd = k.commands.size();
	errno = 0;
	EXPECT_EQ(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, &foreign, nullptr, 0,
			       0),
		  IBV_REREG_MR_ERR_CMD);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(k.commands.size(), ncmd);
	EXPECT_EQ(mr->pd, &pd2);

	EXPECT_EQ(ibv_close_device(ctx), 0);
}

TEST_F(ProviderLoad, RefusesNewerDriverAbi)
{
	the_fake_kernel().ucontext.abi_version = SROCE_UVERBS_ABI_VERSION + 1;
	expect_refused(EPROTO);
}

TEST_F(ProviderLoad, RefusesOlderDriverAbi)
{
	the_fake_kernel().ucontext.abi_version =
		SROCE_UVERBS_ABI_VERSION_MIN - 1;
	expect_refused(EPROTO);
}

TEST_F(ProviderLoad, RefusesKernelThatSendsNoDriverData)
{
	the_fake_kernel().ucontext_len = 0;
	expect_refused(EPROTO);
}

TEST_F(ProviderLoad, RefusesBadPageSize)
{
	the_fake_kernel().ucontext.page_size = 4095;
	expect_refused(EINVAL);
}

TEST_F(ProviderLoad, PassesKernelErrorOn)
{
	the_fake_kernel().get_context_errno = EMFILE;
	expect_refused(EMFILE);
}

/*
 * The device clock through libibverbs: ibv_query_rt_values_ex() reaches
 * the provider's query_rt_values (without it libibverbs answers
 * EOPNOTSUPP), which reads CLOCK_MONOTONIC.  (The CREATE_CQ tail of
 * ibv_create_cq_ex() with timestamps: rctest timestamps in the guest.)
 */
TEST_F(ProviderLoad, RtValuesReadTheDeviceClock)
{
	ibv_context *ctx = open_device();
	ASSERT_NE(ctx, nullptr) << std::strerror(errno);

	ibv_values_ex v{};
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	timespec t{};
	clock_gettime(CLOCK_MONOTONIC, &t);
	const auto before =
		static_cast<std::uint64_t>(t.tv_sec) * 1000000000ULL +
		static_cast<std::uint64_t>(t.tv_nsec);
	ASSERT_EQ(ibv_query_rt_values_ex(ctx, &v), 0);
	clock_gettime(CLOCK_MONOTONIC, &t);
	const auto after =
		static_cast<std::uint64_t>(t.tv_sec) * 1000000000ULL +
		static_cast<std::uint64_t>(t.tv_nsec);
	EXPECT_EQ(v.comp_mask, std::uint32_t{IBV_VALUES_MASK_RAW_CLOCK});
	EXPECT_EQ(v.raw_clock.tv_sec, 0);
	EXPECT_LE(before, static_cast<std::uint64_t>(v.raw_clock.tv_nsec));
	EXPECT_LE(static_cast<std::uint64_t>(v.raw_clock.tv_nsec), after);

	EXPECT_EQ(ibv_close_device(ctx), 0);
}

} /* namespace */
