// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-objtest - protection domains, memory regions and completion queues
 * of an RDMA device, through libibverbs, as tests/objects.sh needs them.
 *
 *   sroce-objtest DEV CHECK [ARGS]
 *
 * Each CHECK prints what it does and exits 0 when everything behaved as
 * expected, 1 otherwise (2 for a usage error):
 *
 *   objects         create and destroy a PD, MRs and CQs; attributes
 *   mr-errors       reg_mr/dereg_mr refuse bad input with the right errno
 *   cq-errors       create_cq refuses bad sizes and vectors
 *   cq-resize       resize_cq up and down, bad sizes refused
 *   poll-no-syscall poll_cq and req_notify_cq make no system call
 *                   (counted with a seccomp trap in a child process)
 *   mmap-checks     the uverbs mmap() refuses bogus offsets, sizes, private
 *                   and executable mappings of a CQ ring
 *   channel         a CQ on a completion channel can be armed; no event
 *   qp-errors       create_qp and modify_qp refuse bad attributes (the QP
 *                   state stays as it was), and malformed uverbs commands
 *                   (CREATE_QP driver data, POST_SEND with work requests,
 *                   POST_RECV) are refused
 *   hold [CMD]      create a PD, an MR and a CQ, run CMD (sh -c), destroy
 *   leak            create a PD, an MR and a CQ, exit without destroying
 */
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "verbs_util.h"

namespace {

using namespace verbs_util;

/* Expect NULL with errno want (0: any errno). */
template <typename T>
bool refused(T *obj, int want, const char *what)
{
	const int err = errno;

	if (obj != nullptr) {
		std::printf("  %s: unexpectedly succeeded\n", what);
		return false;
	}
	std::printf("  %s: refused, errno %d (%s)\n", what, err,
		    std::strerror(err));
	return want == 0 || err == want;
}

ibv_context *open_dev(const char *name)
{
	ibv_context *ctx = open_context(name);

	if (ctx == nullptr) {
		std::printf("cannot open %s: %s\n", name, std::strerror(errno));
		std::exit(1);
	}
	return ctx;
}

bool is_pow2(int v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

constexpr std::size_t buf_len = std::size_t{4} * 4096;

/* As an int: libibverbs mixes two enum types in these flags. */
constexpr int acc_mw = IBV_ACCESS_MW_BIND;

void *alloc_buf(int prot = PROT_READ | PROT_WRITE)
{
	void *p = mmap(nullptr, buf_len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	if (p == MAP_FAILED) {
		std::perror("mmap");
		std::exit(1);
	}
	return p;
}

int check_objects(ibv_context *ctx)
{
	ibv_device_attr attr{};
	CHECK(ibv_query_device(ctx, &attr) == 0);
	std::printf("  max_cq %d max_cqe %d max_mr %d max_mr_size %#llx "
		    "page_size_cap %#llx max_qp %d max_pd %d\n",
		    attr.max_cq, attr.max_cqe, attr.max_mr,
		    static_cast<unsigned long long>(attr.max_mr_size),
		    static_cast<unsigned long long>(attr.page_size_cap),
		    attr.max_qp, attr.max_pd);
	CHECK(attr.max_cq > 0 && attr.max_cqe > 0 && attr.max_mr > 0);
	CHECK(attr.max_mr_size >= buf_len && attr.page_size_cap != 0);
	CHECK(attr.max_qp > 0 && attr.max_qp_wr > 0 && attr.max_sge > 0);

	ibv_pd *pd = ibv_alloc_pd(ctx);
	CHECK(pd != nullptr);
	void *buf = alloc_buf();
	ibv_mr *mr = ibv_reg_mr(pd, buf, buf_len, acc_lw | acc_rw | acc_rr);
	CHECK(mr != nullptr);
	if (mr != nullptr) {
		std::printf("  mr lkey %#x rkey %#x\n", mr->lkey, mr->rkey);
		CHECK(mr->lkey == mr->rkey && (mr->lkey >> 8) != 0);
		CHECK(mr->addr == buf && mr->length == buf_len);
	}
	/* A read-only region of read-only memory is fine. */
	void *ro = alloc_buf(PROT_READ);
	ibv_mr *mr_ro = ibv_reg_mr(pd, ro, buf_len, 0);
	CHECK(mr_ro != nullptr);
	/* Two registrations of one buffer get different keys. */
	ibv_mr *mr2 = ibv_reg_mr(pd, buf, 4096, acc_lw);
	CHECK(mr2 != nullptr && mr != nullptr && mr2->lkey != mr->lkey);

	ibv_cq *cq = ibv_create_cq(ctx, 100, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq != nullptr) {
		std::printf("  cq of 100 has %d entries\n", cq->cqe);
		CHECK(cq->cqe >= 100 && is_pow2(cq->cqe));
	}
	ibv_cq *cq_max = ibv_create_cq(ctx, attr.max_cqe, nullptr, nullptr, 0);
	CHECK(cq_max != nullptr && cq_max->cqe == attr.max_cqe);
	ibv_cq *cq1 = ibv_create_cq(ctx, 1, nullptr, nullptr, 0);
	CHECK(cq1 != nullptr && cq1->cqe == 1);

	/* The PD is in use: it cannot go first. */
	CHECK(ibv_dealloc_pd(pd) != 0);

	if (cq1 != nullptr)
		CHECK(ibv_destroy_cq(cq1) == 0);
	if (cq_max != nullptr)
		CHECK(ibv_destroy_cq(cq_max) == 0);
	if (cq != nullptr)
		CHECK(ibv_destroy_cq(cq) == 0);
	if (mr2 != nullptr)
		CHECK(ibv_dereg_mr(mr2) == 0);
	if (mr_ro != nullptr)
		CHECK(ibv_dereg_mr(mr_ro) == 0);
	if (mr != nullptr)
		CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
	return 0;
}

int check_mr_errors(ibv_context *ctx)
{
	ibv_pd *pd = ibv_alloc_pd(ctx);
	CHECK(pd != nullptr);
	if (pd == nullptr)
		return 1;
	void *buf = alloc_buf();

	CHECK(refused(ibv_reg_mr(pd, buf, buf_len, acc_rw), EINVAL,
		      "remote write without local write"));
	CHECK(refused(ibv_reg_mr(pd, buf, buf_len, acc_ra), EINVAL,
		      "remote atomic without local write"));
	/* Memory windows exist: a region may allow binding them. */
	ibv_mr *mw_mr = ibv_reg_mr(pd, buf, buf_len, acc_lw | acc_mw);
	CHECK(mw_mr != nullptr);
	if (mw_mr != nullptr)
		CHECK(ibv_dereg_mr(mw_mr) == 0);

	void *gone = alloc_buf();
	munmap(gone, buf_len);
	CHECK(refused(ibv_reg_mr(pd, gone, buf_len, acc_lw), EFAULT,
		      "unmapped memory"));
	void *ro = alloc_buf(PROT_READ);
	CHECK(refused(ibv_reg_mr(pd, ro, buf_len, acc_lw), EFAULT,
		      "writable region of read-only memory"));
	CHECK(refused(ibv_reg_mr(pd, buf, 0, acc_lw), 0, "length 0"));
	CHECK(refused(ibv_reg_mr(pd, buf, std::size_t{1} << 41, acc_lw), 0,
		      "length 2 TiB"));
	CHECK(refused(ibv_reg_mr(pd, buf, SIZE_MAX - 4096, acc_lw), 0,
		      "length wrapping the address space"));

	/* Deregistering a handle twice, or one that never existed. */
	ibv_mr *mr = ibv_reg_mr(pd, buf, buf_len, acc_lw);
	CHECK(mr != nullptr);
	if (mr != nullptr) {
		/* verbs_mr: ibv_mr plus 8 bytes; keep a copy to reuse. */
		alignas(8) unsigned char copy[128] = {};
		std::memcpy(copy, mr, sizeof(*mr));
		auto *stale = reinterpret_cast<ibv_mr *>(copy);
		CHECK(ibv_dereg_mr(mr) == 0);
		errno = 0;
		int ret = ibv_dereg_mr(stale);
		std::printf("  dereg twice: %d (%s)\n", ret,
			    std::strerror(ret));
		CHECK(ret != 0);
		stale->handle = 0x7ffffff0;
		ret = ibv_dereg_mr(stale);
		std::printf("  dereg of an unknown handle: %d (%s)\n", ret,
			    std::strerror(ret));
		CHECK(ret != 0);
	}
	CHECK(ibv_dealloc_pd(pd) == 0);
	return 0;
}

int check_cq_errors(ibv_context *ctx)
{
	ibv_device_attr attr{};
	CHECK(ibv_query_device(ctx, &attr) == 0);

	CHECK(refused(ibv_create_cq(ctx, 0, nullptr, nullptr, 0), EINVAL,
		      "0 CQEs"));
	CHECK(refused(ibv_create_cq(ctx, -1, nullptr, nullptr, 0), EINVAL,
		      "-1 CQEs"));
	CHECK(refused(ibv_create_cq(ctx, attr.max_cqe + 1, nullptr, nullptr, 0),
		      EINVAL, "max_cqe + 1 CQEs"));
	CHECK(refused(
		ibv_create_cq(ctx, 16, nullptr, nullptr, ctx->num_comp_vectors),
		EINVAL, "comp_vector out of range"));
	return 0;
}

int check_cq_resize(ibv_context *ctx)
{
	ibv_device_attr attr{};
	CHECK(ibv_query_device(ctx, &attr) == 0);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return 1;
	ibv_wc wc[4];

	CHECK(ibv_resize_cq(cq, 100) == 0);
	std::printf("  resized to 100: %d entries\n", cq->cqe);
	CHECK(cq->cqe == 128);
	CHECK(ibv_poll_cq(cq, 4, wc) == 0);
	CHECK(ibv_req_notify_cq(cq, 0) == 0);
	CHECK(ibv_resize_cq(cq, 3) == 0);
	CHECK(cq->cqe == 4);
	CHECK(ibv_poll_cq(cq, 4, wc) == 0);
	CHECK(ibv_resize_cq(cq, 0) == EINVAL);
	CHECK(ibv_resize_cq(cq, attr.max_cqe + 1) == EINVAL);
	CHECK(cq->cqe == 4);
	CHECK(ibv_poll_cq(cq, 4, wc) == 0);
	CHECK(ibv_resize_cq(cq, attr.max_cqe) == 0);
	CHECK(cq->cqe == attr.max_cqe);
	CHECK(ibv_destroy_cq(cq) == 0);
	return 0;
}

/* ---- counting system calls with a seccomp trap ------------------------ */

volatile sig_atomic_t trapped;

void on_sigsys(int /*sig*/)
{
	trapped = trapped + 1;
}

/*
 * In a child: trap every system call but the exits and sigreturn, run
 * fn(), exit with the number of calls trapped (capped), 255 on a failure
 * of fn itself.
 */
template <typename F>
int count_syscalls(F fn)
{
	const pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sigaction sa {};
		sa.sa_handler = on_sigsys;
		sigaction(SIGSYS, &sa, nullptr);
		sock_filter filter[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 3,
				 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 2, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigreturn, 1,
				 0),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		sock_fprog prog{static_cast<unsigned short>(std::size(filter)),
				filter};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(254);
		const bool ok = fn();
		syscall(SYS_exit_group,
			ok ? (trapped > 200 ? 200 : trapped) : 255);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int check_poll_no_syscall(ibv_context *ctx)
{
	ibv_cq *cq = ibv_create_cq(ctx, 64, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return 1;

	/* The counter itself: one getpid() must be seen. */
	int n = count_syscalls([] {
		syscall(SYS_getpid);
		return true;
	});
	std::printf("  self-test: one getpid() counted as %d\n", n);
	CHECK(n == 1);

	n = count_syscalls([cq] {
		ibv_wc wc[16];
		for (int i = 0; i < 100000; ++i)
			if (ibv_poll_cq(cq, 16, wc) != 0)
				return false;
		for (int i = 0; i < 1000; ++i)
			if (ibv_req_notify_cq(cq, i & 1) != 0)
				return false;
		return true;
	});
	std::printf("  100000 polls of an empty CQ and 1000 arms: %d system "
		    "calls (255: a poll or arm failed)\n",
		    n);
	CHECK(n == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	return 0;
}

/* ---- mmap ------------------------------------------------------------- */

struct uverbs_map {
	unsigned long start = 0, end = 0;
	unsigned long long offset = 0;
	bool found = false;
};

/* The mapping of the uverbs device the provider made (one CQ open). */
uverbs_map find_uverbs_map()
{
	std::ifstream maps("/proc/self/maps");
	std::string line;
	uverbs_map m;

	while (std::getline(maps, line)) {
		if (line.find("/dev/infiniband/uverbs") == std::string::npos)
			continue;
		std::istringstream in(line);
		std::string range, perms, off;
		in >> range >> perms >> off;
		std::sscanf(range.c_str(), "%lx-%lx", &m.start, &m.end);
		m.offset = std::stoull(off, nullptr, 16);
		m.found = true;
		std::printf("  provider's mapping: %s\n", line.c_str());
	}
	return m;
}

bool try_map(ibv_context *ctx, std::size_t len, int prot, int flags,
	     unsigned long long off, const char *what)
{
	void *p = mmap(nullptr, len, prot, flags, ctx->cmd_fd,
		       static_cast<off_t>(off));
	if (p == MAP_FAILED) {
		std::printf("  %s: refused (%s)\n", what, std::strerror(errno));
		return false;
	}
	std::printf("  %s: mapped\n", what);
	munmap(p, len);
	return true;
}

int check_mmap(ibv_context *ctx)
{
	ibv_cq *cq = ibv_create_cq(ctx, 64, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return 1;
	const uverbs_map m = find_uverbs_map();
	CHECK(m.found);
	if (!m.found)
		return 1;
	const std::size_t len = m.end - m.start;
	const long pg = sysconf(_SC_PAGESIZE);
	const int rw = PROT_READ | PROT_WRITE;

	CHECK(try_map(ctx, len, rw, MAP_SHARED, m.offset, "the ring again"));
	CHECK(!try_map(ctx, len, rw, MAP_SHARED, m.offset + 4096ULL * pg,
		       "a bogus offset"));
	CHECK(!try_map(ctx, len - pg, rw, MAP_SHARED, m.offset + pg,
		       "the ring from its second page"));
	CHECK(!try_map(ctx, len + pg, rw, MAP_SHARED, m.offset,
		       "one page too many"));
	CHECK(!try_map(ctx, len, rw, MAP_PRIVATE, m.offset, "MAP_PRIVATE"));
	CHECK(!try_map(ctx, len, rw | PROT_EXEC, MAP_SHARED, m.offset,
		       "PROT_EXEC"));
	void *p = mmap(nullptr, len, PROT_READ, MAP_SHARED, ctx->cmd_fd,
		       static_cast<off_t>(m.offset));
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK(mprotect(p, len, PROT_READ | PROT_EXEC) != 0);
		munmap(p, len);
	}
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(!try_map(ctx, len, rw, MAP_SHARED, m.offset,
		       "the ring of a destroyed CQ"));
	return 0;
}

int check_channel(ibv_context *ctx)
{
	ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	CHECK(ch != nullptr);
	if (ch == nullptr)
		return 1;
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, ch, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return 1;
	CHECK(ibv_req_notify_cq(cq, 0) == 0);
	CHECK(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK) == 0);
	ibv_cq *ev_cq = nullptr;
	void *ev_ctx = nullptr;
	errno = 0;
	CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) != 0 && errno == EAGAIN);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_destroy_comp_channel(ch) == 0);
	return 0;
}

int hold(ibv_context *ctx, const char *cmd, bool destroy)
{
	ibv_pd *pd = ibv_alloc_pd(ctx);
	void *buf = alloc_buf();
	ibv_mr *mr =
		pd != nullptr ? ibv_reg_mr(pd, buf, buf_len, acc_lw) : nullptr;
	ibv_cq *cq = ibv_create_cq(ctx, 32, nullptr, nullptr, 0);
	CHECK(pd != nullptr && mr != nullptr && cq != nullptr);
	if (failures != 0)
		return 1;
	std::printf("holding pd, mr %#x, cq\n", mr->lkey);
	std::fflush(stdout);
	int ret = 0;
	if (cmd != nullptr) {
		ret = std::system(cmd);
		ret = WIFEXITED(ret) ? WEXITSTATUS(ret) : 1;
	} else if (!destroy) {
		_exit(0); /* leak: the kernel cleans up */
	} else {
		pause();
	}
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
	return ret;
}

/* ---- qp-errors ----------------------------------------------------------- */

ibv_qp *make_qp(ibv_pd *pd, ibv_cq *cq, ibv_qp_type type, std::uint32_t wr,
		std::uint32_t sge, std::uint32_t inl)
{
	ibv_qp_init_attr ia{};

	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = wr;
	ia.cap.max_recv_wr = wr;
	ia.cap.max_send_sge = sge;
	ia.cap.max_recv_sge = sge;
	ia.cap.max_inline_data = inl;
	return ibv_create_qp(pd, &ia);
}

/* CREATE_QP as a raw write() command, with a driver tail of our choosing. */
struct raw_create_qp {
	ib_uverbs_cmd_hdr hdr;
	std::uint64_t response;
	std::uint64_t user_handle;
	std::uint32_t pd_handle, send_cq_handle, recv_cq_handle, srq_handle;
	std::uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	std::uint32_t max_inline_data;
	std::uint8_t sq_sig_all, qp_type, is_srq, reserved;
	sroce_create_qp_cmd drv;
	std::uint64_t extra;
};
static_assert(offsetof(raw_create_qp, drv) == 64);

/* 0 if the kernel accepted the command, else the errno of write(). */
int raw_create(ibv_pd *pd, ibv_cq *cq, std::size_t in_bytes,
	       std::size_t out_bytes, const sroce_create_qp_cmd &drv,
	       std::uint64_t extra)
{
	alignas(8) unsigned char resp[32 + sizeof(sroce_create_qp_resp)] = {};
	raw_create_qp cmd{};

	cmd.hdr.command = IB_USER_VERBS_CMD_CREATE_QP;
	cmd.hdr.in_words = static_cast<std::uint16_t>(in_bytes / 4);
	cmd.hdr.out_words = static_cast<std::uint16_t>(out_bytes / 4);
	cmd.response = reinterpret_cast<std::uintptr_t>(resp);
	cmd.pd_handle = pd->handle;
	cmd.send_cq_handle = cq->handle;
	cmd.recv_cq_handle = cq->handle;
	cmd.max_send_wr = 4;
	cmd.max_recv_wr = 4;
	cmd.max_send_sge = 1;
	cmd.max_recv_sge = 1;
	cmd.qp_type = IBV_QPT_RC;
	cmd.drv = drv;
	cmd.extra = extra;
	if (write(pd->context->cmd_fd, &cmd, in_bytes) ==
	    static_cast<ssize_t>(in_bytes))
		return 0;
	return errno;
}

bool raw_refused(int err, const char *what)
{
	std::printf("  %s: %s\n", what,
		    err != 0 ? std::strerror(err) : "accepted");
	return err == EINVAL;
}

int check_qp_errors(ibv_context *ctx)
{
	ibv_device_attr dattr{};
	CHECK(ibv_query_device(ctx, &dattr) == 0);
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	CHECK(pd != nullptr && cq != nullptr);
	if (pd == nullptr || cq == nullptr)
		return 1;

	const auto max_wr = static_cast<std::uint32_t>(dattr.max_qp_wr);
	const auto max_sge = static_cast<std::uint32_t>(dattr.max_sge);
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RC, max_wr + 1, 1, 0), EINVAL,
		      "max_qp_wr + 1 WRs"));
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RC, 4, max_sge + 1, 0), EINVAL,
		      "max_sge + 1 SGEs"));
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RC, 4, 1, 1U << 20), EINVAL,
		      "1 MiB of inline data"));
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RAW_PACKET, 4, 1, 0), EOPNOTSUPP,
		      "raw packet QP"));

	/* Malformed driver data of CREATE_QP. */
	const sroce_create_qp_cmd good{
		.send_wqe_size = sizeof(sroce_send_wqe),
		.recv_wqe_size = sizeof(sroce_recv_wqe),
		.reserved = {0, 0},
	};
	constexpr std::size_t core_in = 64;
	constexpr std::size_t full_in = core_in + sizeof(sroce_create_qp_cmd);
	constexpr std::size_t full_out = 32 + sizeof(sroce_create_qp_resp);
	sroce_create_qp_cmd bad = good;
	CHECK(raw_refused(raw_create(pd, cq, core_in, full_out, good, 0),
			  "no driver command"));
	CHECK(raw_refused(raw_create(pd, cq, full_in, 32, good, 0),
			  "no room for the driver response"));
	bad.send_wqe_size = 64;
	CHECK(raw_refused(raw_create(pd, cq, full_in, full_out, bad, 0),
			  "wrong send WQE size"));
	bad = good;
	bad.recv_wqe_size = 0;
	CHECK(raw_refused(raw_create(pd, cq, full_in, full_out, bad, 0),
			  "wrong receive WQE size"));
	bad = good;
	bad.reserved[1] = 1;
	CHECK(raw_refused(raw_create(pd, cq, full_in, full_out, bad, 0),
			  "reserved field set"));
	CHECK(raw_refused(raw_create(pd, cq, full_in + 8, full_out, good, 1),
			  "unknown trailing data"));

	ibv_qp *qp = make_qp(pd, cq, IBV_QPT_RC, 4, 1, 0);
	CHECK(qp != nullptr);
	if (qp == nullptr)
		return 1;

	/* POST_SEND with a work request, and POST_RECV, as raw commands. */
	struct {
		ib_uverbs_cmd_hdr hdr;
		std::uint64_t response;
		std::uint32_t qp_handle, wr_count, sge_count, wqe_size;
		ib_uverbs_send_wr wr;
	} ps{};
	std::uint32_t ps_resp[2] = {};
	ps.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	ps.hdr.in_words = sizeof(ps) / 4;
	ps.hdr.out_words = sizeof(ps_resp) / 4;
	ps.response = reinterpret_cast<std::uintptr_t>(ps_resp);
	ps.qp_handle = qp->handle;
	ps.wr_count = 1;
	ps.wqe_size = sizeof(ib_uverbs_send_wr);
	errno = 0;
	CHECK(write(ctx->cmd_fd, &ps, sizeof(ps)) < 0 && errno == EINVAL);
	ps.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	errno = 0;
	const ssize_t pr = write(ctx->cmd_fd, &ps, sizeof(ps));
	std::printf("  POST_RECV command: %zd (%s)\n", pr,
		    std::strerror(errno));
	CHECK(pr < 0);

	/* Transitions and attributes that are refused; state unchanged. */
	ibv_port_attr pattr{};
	CHECK(ibv_query_port(ctx, 1, &pattr) == 0);
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_RTR;
	CHECK(modify_refused(qp, a, IBV_QP_STATE, "RESET -> RTR"));
	a.qp_state = IBV_QPS_RTS;
	CHECK(modify_refused(qp, a, IBV_QP_STATE, "RESET -> RTS"));
	a = ibv_qp_attr{};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	CHECK(modify_refused(qp, a, IBV_QP_STATE | IBV_QP_PORT,
			     "INIT without P_Key index and access"));
	a.port_num = 2;
	CHECK(modify_refused(qp, a, init_mask, "INIT on port 2"));
	a.port_num = 1;
	a.pkey_index = 1;
	CHECK(modify_refused(qp, a, init_mask, "INIT with P_Key index 1"));
	a.pkey_index = 0;
	a.qp_access_flags = 1U << 20;
	CHECK(modify_refused(qp, a, init_mask, "INIT with unknown access"));
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK(ibv_modify_qp(qp, &a, init_mask) == 0);
	CHECK(qp_state(qp) == IBV_QPS_INIT);

	ibv_qp_attr r{};
	r.qp_state = IBV_QPS_RTR;
	r.path_mtu = pattr.active_mtu;
	r.dest_qp_num = qp->qp_num;
	r.rq_psn = 1;
	r.min_rnr_timer = 12;
	r.ah_attr.is_global = 1;
	r.ah_attr.grh.sgid_index = 1;
	r.ah_attr.grh.hop_limit = 1;
	CHECK(ibv_query_gid(ctx, 1, 1, &r.ah_attr.grh.dgid) == 0);
	r.ah_attr.port_num = 1;
	ibv_qp_attr b = r;
	b.ah_attr.is_global = 0;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with an AV without GRH"));
	b = r;
	b.path_mtu = static_cast<ibv_mtu>(pattr.active_mtu + 1);
	if (pattr.active_mtu < IBV_MTU_4096)
		CHECK(modify_refused(qp, b, rtr_mask,
				     "RTR with a path MTU above the port's"));
	b = r;
	b.dest_qp_num = 1U << 24;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with a 25-bit QPN"));
	/* A 25-bit PSN never reaches the driver: the core masks it. */
	b = r;
	b.min_rnr_timer = 32;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with RNR timer 32"));
	b = r;
	b.max_dest_rd_atomic = 255;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with 255 RD atomics"));
	CHECK(ibv_modify_qp(qp, &r, rtr_mask) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RTR);

	ibv_qp_attr t{};
	t.qp_state = IBV_QPS_RTS;
	t.timeout = 14;
	t.retry_cnt = 7;
	t.rnr_retry = 7;
	t.sq_psn = 1;
	b = t;
	b.timeout = 32;
	CHECK(modify_refused(qp, b, rts_mask, "RTS with timeout 32"));
	b = t;
	b.retry_cnt = 8;
	CHECK(modify_refused(qp, b, rts_mask, "RTS with retry count 8"));
	b = t;
	b.rnr_retry = 8;
	CHECK(modify_refused(qp, b, rts_mask, "RTS with RNR retry 8"));
	CHECK(modify_refused(qp, t, IBV_QP_STATE,
			     "RTS without its required attributes"));
	CHECK(ibv_modify_qp(qp, &t, rts_mask) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RTS);
	a = ibv_qp_attr{};
	a.qp_state = IBV_QPS_RTR;
	CHECK(modify_refused(qp, a, IBV_QP_STATE, "RTS -> RTR"));

	a.qp_state = IBV_QPS_RESET;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RESET);
	CHECK(ibv_destroy_qp(qp) == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: %s DEV CHECK [ARGS]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	ibv_context *ctx = open_dev(argv[1]);
	const std::string check = argv[2];
	int ret;

	if (check == "objects")
		ret = check_objects(ctx);
	else if (check == "mr-errors")
		ret = check_mr_errors(ctx);
	else if (check == "cq-errors")
		ret = check_cq_errors(ctx);
	else if (check == "cq-resize")
		ret = check_cq_resize(ctx);
	else if (check == "poll-no-syscall")
		ret = check_poll_no_syscall(ctx);
	else if (check == "mmap-checks")
		ret = check_mmap(ctx);
	else if (check == "channel")
		ret = check_channel(ctx);
	else if (check == "qp-errors")
		ret = check_qp_errors(ctx);
	else if (check == "hold")
		ret = hold(ctx, argc > 3 ? argv[3] : nullptr, true);
	else if (check == "leak")
		ret = hold(ctx, nullptr, false);
	else {
		std::fprintf(stderr, "unknown check %s\n", check.c_str());
		return 2;
	}
	ibv_close_device(ctx);
	std::printf("%d failure(s)\n", failures);
	return ret != 0 || failures != 0 ? 1 : 0;
}
