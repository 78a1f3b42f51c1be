// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-odptest - on-demand paging (IBV_ACCESS_ON_DEMAND regions and
 * ibv_advise_mr()) on one RDMA device, through the public libibverbs API
 * only, as tests/odp.sh needs it.
 *
 *   sroce-odptest DEV CHECK|all
 *
 * An RC QP pair on the one device (its loopback path): A's buffers are
 * ordinary regions, B's an on-demand paging region over memory mmap()ed
 * for the check and never touched by the process before the device uses
 * it (so every page the device reaches must be faulted in by the driver),
 * or the reverse.  Each CHECK is a KTAP case (ktap.h).
 *
 *   caps       query_device_ex advertises ODP for RC (send, receive,
 *              WRITE, READ, atomics, SRQ receive, the atomic write) and
 *              UD sends
 *   untouched  into and out of an ODP region whose pages were never
 *              touched: RDMA WRITE (several packets), READ, SEND (to an
 *              ODP receive buffer and from an ODP send buffer), READ into
 *              an ODP buffer, fetch-and-add and an atomic write on it;
 *              every byte checked
 *   dontneed   pages of the ODP region given back with
 *              madvise(MADV_DONTNEED) after use: the CPU sees zeros there;
 *              a WRITE into them and a READ out of them see the new pages
 *   munmap     part of the ODP region unmapped: a WRITE into it completes
 *              with IBV_WC_REM_ACCESS_ERR (no hang), a SEND from it with
 *              IBV_WC_LOC_PROT_ERR; bytes before it stayed usable
 *   prefetch   ibv_advise_mr(): PREFETCH_WRITE (synchronous) and
 *              PREFETCH_NO_FAULT, then traffic; refused for an ordinary
 *              region and for a range no longer mapped
 *   implicit   an implicit ODP region (address 0, length SIZE_MAX): WRITE,
 *              READ and SEND through it into never-touched memory, a
 *              WRITE to an address not mapped fails (IBV_WC_REM_ACCESS_ERR)
 *   reset      a fault of the responder fails while the requester gave up
 *              (RNR retry 0); after RESET -> RTS a WRITE into never-touched
 *              pages succeeds: the old failure is gone with the reset
 *   dead-recv  a receive WQE held for a missing page of its ODP buffer,
 *              the region deregistered meanwhile: the SEND never lands,
 *              the receive completes with an error, the memory untouched
 *   huge       a 1 TiB ODP registration fails with EINVAL (sroce(7):
 *              larger than SROCE_MAX_ODP_MR_SIZE), 1 GiB works
 *   implicit-leak  WRITEs through an implicit region at 256 distinct
 *              2 MiB chunks never mapped, half of them in the kernel's
 *              half of the address space: each fails, and the kernel's
 *              kmalloc-4k objects (a child umem's two page arrays) do not
 *              grow by them
 *   fuse-block CTL  12 RC pairs SEND 32 SGEs each from an ODP region
 *              over a FUSE file whose server holds back every READ
 *              (stuck_file.h); with those faults blocked it creates
 *              CTL/blocked and waits for CTL/release (tests/odp.sh frees
 *              a region of another device and deletes it meanwhile), then
 *              the server answers and every SEND must complete (not in
 *              "all": root, and the test's part)
 *   mr-cycle   a region registered and deregistered (not in "all")
 *   all        every check above
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "stuck_file.h"

namespace {

using namespace verbs_util;

constexpr std::size_t odp_len = std::size_t{256} * 1024;
constexpr int odp_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			   IBV_ACCESS_ON_DEMAND;

/* Anonymous memory the process never touches; unmapped on destruction. */
struct mapping {
	unsigned char *p = nullptr;
	std::size_t len = 0;

	mapping() = default;
	mapping(const mapping &) = delete;
	mapping &operator=(const mapping &) = delete;
	mapping(mapping &&) = delete;
	mapping &operator=(mapping &&) = delete;
	~mapping()
	{
		if (p != nullptr)
			munmap(p, len);
	}
	bool map(std::size_t n)
	{
		void *m = mmap(nullptr, n, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return false;
		p = static_cast<unsigned char *>(m);
		len = n;
		return true;
	}
	std::uint64_t addr(std::size_t off = 0) const
	{
		return reinterpret_cast<std::uintptr_t>(p + off);
	}
};

/* The pair and the ODP region of B (on B's PD), remote rights for A. */
struct odp_pair {
	endpoint a;
	endpoint b;
	mapping m;
	mr_ptr mr;
};

bool setup(odp_pair &s, device &d, std::uint8_t rnr_retry = 7,
	   std::uint8_t min_rnr_timer = 12)
{
	qp_opts o;

	if (d.gid_index < 0)
		REQUIRE(use_gid(d));
	o.mr_access = acc_lw | acc_rw | acc_rr | acc_ra;
	o.qp_access = acc_lw | acc_rw | acc_rr | acc_ra;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	o.rnr_retry = rnr_retry;
	o.min_rnr_timer = min_rnr_timer;
	REQUIRE(make_qp_pair(s.a, s.b, d, d, o));
	REQUIRE(s.m.map(odp_len));
	s.mr.reset(ibv_reg_mr(s.b.pd, s.m.p, odp_len, odp_access));
	REQUIRE(s.mr != nullptr);
	return true;
}

/* One work request from A: op on A's buffer at aoff, len bytes. */
int post_a(odp_pair &s, std::uint64_t wr_id, ibv_wr_opcode op, std::size_t aoff,
	   std::uint32_t len, std::uint64_t raddr = 0, std::uint32_t rkey = 0,
	   std::uint64_t add = 0)
{
	ibv_sge sge{s.a.addr(aoff), len, s.a.mr->lkey};

	return post_rdma_at(s.a, wr_id, op, &sge, 1, raddr, rkey, add);
}

/* A's WRITE of len bytes (pattern msg) to the ODP region at off. */
bool write_odp(odp_pair &s, std::size_t off, std::uint32_t len,
	       std::uint32_t msg, ibv_wc_status want = IBV_WC_SUCCESS)
{
	fill(s.a.buf.data(), len, msg);
	REQUIRE(post_a(s, msg, IBV_WR_RDMA_WRITE, 0, len, s.m.addr(off),
		       s.mr->rkey) == 0);
	REQUIRE(expect_wc("WRITE to ODP", s.a.scq, msg, want,
			  IBV_WC_RDMA_WRITE));
	if (want == IBV_WC_SUCCESS)
		EXPECT(mismatch(s.m.p + off, len, msg) < 0,
		       "byte %ld of the WRITE into the ODP region differs",
		       mismatch(s.m.p + off, len, msg));
	return true;
}

/* A's READ of len bytes of the ODP region at off; they must be msg's. */
bool read_odp(odp_pair &s, std::size_t off, std::uint32_t len,
	      std::uint32_t msg, std::uint64_t wr_id)
{
	std::memset(s.a.buf.data(), 0xee, len);
	REQUIRE(post_a(s, wr_id, IBV_WR_RDMA_READ, 0, len, s.m.addr(off),
		       s.mr->rkey) == 0);
	REQUIRE(expect_wc("READ from ODP", s.a.scq, wr_id, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_READ));
	EXPECT(mismatch(s.a.buf.data(), len, msg) < 0,
	       "byte %ld of the READ from the ODP region differs",
	       mismatch(s.a.buf.data(), len, msg));
	return true;
}

/* A SEND of len bytes from A into an ODP receive buffer of B at off. */
bool send_to_odp(odp_pair &s, std::size_t off, std::uint32_t len,
		 std::uint32_t msg)
{
	ibv_sge rsge{s.m.addr(off), len, s.mr->lkey};

	REQUIRE(post_recv_sges(s.b, msg, &rsge, 1) == 0);
	fill(s.a.buf.data(), len, msg);
	REQUIRE(post_a(s, msg, IBV_WR_SEND, 0, len) == 0);
	REQUIRE(expect_wc("SEND to ODP", s.a.scq, msg, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	const std::optional<ibv_wc> wc = expect_wc(
		"receive into ODP", s.b.rcq, msg, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	EXPECT(wc->byte_len == len, "byte_len %u, expected %u", wc->byte_len,
	       len);
	EXPECT(mismatch(s.m.p + off, len, msg) < 0,
	       "byte %ld received into the ODP region differs",
	       mismatch(s.m.p + off, len, msg));
	return true;
}

/* A SEND from B's ODP region at off to A's buffer (B's QP sends). */
bool send_from_odp(odp_pair &s, std::size_t off, std::uint32_t len,
		   std::uint64_t wr_id, ibv_wc_status want = IBV_WC_SUCCESS)
{
	ibv_sge sge{s.m.addr(off), len, s.mr->lkey};

	if (want == IBV_WC_SUCCESS)
		REQUIRE(post_recv(s.a, wr_id, 0, len) == 0);
	std::memset(s.a.buf.data(), 0, len);
	REQUIRE(post_sges(s.b, wr_id, &sge, 1) == 0);
	REQUIRE(expect_wc("SEND from ODP", s.b.scq, wr_id, want, IBV_WC_SEND));
	if (want != IBV_WC_SUCCESS)
		return true;
	REQUIRE(expect_wc("receive from ODP", s.a.rcq, wr_id, IBV_WC_SUCCESS,
			  IBV_WC_RECV));
	EXPECT(std::memcmp(s.a.buf.data(), s.m.p + off, len) == 0,
	       "the SEND from the ODP region arrived changed");
	return true;
}

bool check_caps(device &d, const char * /*arg*/)
{
	ibv_device_attr_ex ax{};
	constexpr std::uint32_t rc =
		IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;

	REQUIRE(ibv_query_device_ex(d.ctx.get(), nullptr, &ax) == 0);
	ktap::note("odp general %#" PRIx64 " rc %#x ud %#x xrc %#x",
		   ax.odp_caps.general_caps,
		   ax.odp_caps.per_transport_caps.rc_odp_caps,
		   ax.odp_caps.per_transport_caps.ud_odp_caps, ax.xrc_odp_caps);
	CHECK((ax.odp_caps.general_caps & IBV_ODP_SUPPORT) != 0);
	CHECK((ax.odp_caps.per_transport_caps.rc_odp_caps & rc) == rc);
	CHECK((ax.xrc_odp_caps & rc) == rc);
	CHECK((ax.odp_caps.per_transport_caps.ud_odp_caps &
	       IBV_ODP_SUPPORT_SEND) != 0);
	/* rdma-core 45's IBV_ODP_SUPPORT_ATOMIC_WRITE, for RC only. */
	CHECK((ax.odp_caps.per_transport_caps.rc_odp_caps & (1U << 7)) != 0);
	CHECK((ax.xrc_odp_caps & (1U << 7)) == 0);
	return true;
}

bool check_untouched(device &d, const char * /*arg*/)
{
	odp_pair s;

	REQUIRE(setup(s, d));
	/* Several packets (path MTU 1024), crossing pages. */
	REQUIRE(write_odp(s, 100, 9000, 1));
	REQUIRE(read_odp(s, 100, 9000, 1, 2));
	/* Pages the WRITE did not reach, read first. */
	REQUIRE(write_odp(s, 5 * 4096 + 7, 3000, 3));
	REQUIRE(read_odp(s, 5 * 4096 + 7, 3000, 3, 4));
	REQUIRE(send_to_odp(s, 40000, 5000, 5));
	REQUIRE(send_from_odp(s, 40000, 5000, 6));
	/* A READ into an ODP buffer of B (B's QP requests). */
	{
		ibv_sge sge{s.m.addr(80000), 6000, s.mr->lkey};

		fill(s.a.buf.data() + 1000, 6000, 7);
		REQUIRE(post_rdma(s.b, s.a, 7, IBV_WR_RDMA_READ, &sge, 1,
				  1000) == 0);
		REQUIRE(expect_wc("READ into ODP", s.b.scq, 7, IBV_WC_SUCCESS,
				  IBV_WC_RDMA_READ));
		EXPECT(mismatch(s.m.p + 80000, 6000, 7) < 0,
		       "byte %ld READ into the ODP region differs",
		       mismatch(s.m.p + 80000, 6000, 7));
	}
	/* Fetch-and-add on an untouched page of the ODP region. */
	REQUIRE(post_a(s, 8, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8,
		       s.m.addr(120000), s.mr->rkey, 5) == 0);
	REQUIRE(expect_wc("fetch-and-add on ODP", s.a.scq, 8, IBV_WC_SUCCESS,
			  IBV_WC_FETCH_ADD));
	CHECK(load64(s.a.buf.data()) == 0);
	CHECK(load64(s.m.p + 120000) == 5);
	/* An atomic write on another untouched page of it. */
	store64(s.a.buf.data(), 0x0123456789abcdefULL);
	REQUIRE(post_a(s, 9, IBV_WR_ATOMIC_WRITE, 0, 8, s.m.addr(160000),
		       s.mr->rkey) == 0);
	REQUIRE(expect_wc("atomic write on ODP", s.a.scq, 9, IBV_WC_SUCCESS,
			  IBV_WC_ATOMIC_WRITE));
	CHECK(load64(s.m.p + 160000) == 0x0123456789abcdefULL);
	CHECK(load64(s.m.p + 160008) == 0);
	return true;
}

bool check_dontneed(device &d, const char * /*arg*/)
{
	odp_pair s;
	const long pg = sysconf(_SC_PAGESIZE);
	const std::size_t half = odp_len / 2;

	REQUIRE(setup(s, d));
	REQUIRE(write_odp(s, half - 2000, 8000, 1));
	REQUIRE(madvise(s.m.p + half, half, MADV_DONTNEED) == 0);
	/* Private anonymous pages given back read as zeros. */
	CHECK(mismatch(s.m.p + half - 2000, 2000, 1) < 0);
	CHECK(s.m.p[half] == 0 && s.m.p[half + 5999] == 0);
	/* The device must not see the old pages either. */
	{
		std::vector<unsigned char> zero(4096, 0);

		REQUIRE(post_a(s, 2, IBV_WR_RDMA_READ, 0, 4096, s.m.addr(half),
			       s.mr->rkey) == 0);
		REQUIRE(expect_wc("READ of given-back pages", s.a.scq, 2,
				  IBV_WC_SUCCESS, IBV_WC_RDMA_READ));
		EXPECT(std::memcmp(s.a.buf.data(), zero.data(), 4096) == 0,
		       "a READ of given-back pages returned the old bytes");
	}
	REQUIRE(write_odp(s, half + static_cast<std::size_t>(pg) - 100, 7000,
			  3));
	REQUIRE(read_odp(s, half + static_cast<std::size_t>(pg) - 100, 7000, 3,
			 4));
	REQUIRE(send_to_odp(s, half + 30000, 3000, 5));
	return true;
}

bool check_munmap(device &d, const char * /*arg*/)
{
	odp_pair s;
	const std::size_t half = odp_len / 2;

	REQUIRE(setup(s, d));
	REQUIRE(write_odp(s, 0, 4000, 1));
	REQUIRE(munmap(s.m.p + half, half) == 0);
	s.m.len = half;
	/* A WRITE into the unmapped half: an error completion, no hang. */
	REQUIRE(write_odp(s, half + 100, 2000, 2, IBV_WC_REM_ACCESS_ERR));
	CHECK(qp_state(s.a.qp.get()) == IBV_QPS_ERR);
	/* A SEND from it, on a fresh pair: a local protection error. */
	{
		odp_pair t;

		REQUIRE(setup(t, d));
		REQUIRE(munmap(t.m.p + half, half) == 0);
		t.m.len = half;
		REQUIRE(send_from_odp(t, half + 10, 100, 3,
				      IBV_WC_LOC_PROT_ERR));
	}
	/* What stayed mapped still works, on a fresh pair over it. */
	{
		odp_pair t;

		REQUIRE(setup(t, d));
		REQUIRE(write_odp(t, 1000, 3000, 4));
		REQUIRE(read_odp(t, 1000, 3000, 4, 5));
	}
	return true;
}

bool check_prefetch(device &d, const char * /*arg*/)
{
	odp_pair s;

	REQUIRE(setup(s, d));
	{
		ibv_sge sge{s.m.addr(0), 64 * 1024, s.mr->lkey};

		CHECK(ibv_advise_mr(s.b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1) == 0);
	}
	REQUIRE(write_odp(s, 100, 9000, 1));
	REQUIRE(read_odp(s, 100, 9000, 1, 2));
	{
		ibv_sge sge{s.m.addr(64 * 1024), 64 * 1024, s.mr->lkey};

		CHECK(ibv_advise_mr(s.b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				    &sge, 1) == 0);
		CHECK(ibv_advise_mr(s.b.pd,
				    IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0,
				    &sge, 1) == 0);
	}
	REQUIRE(send_to_odp(s, 70000, 3000, 3));
	/* An ordinary region is not on-demand paging: refused. */
	{
		ibv_sge sge{s.b.addr(0), 4096, s.b.mr->lkey};
		const int ret = ibv_advise_mr(
			s.b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);

		CHECK(ret != 0);
	}
	/* A range no longer mapped: refused, the region still works. */
	REQUIRE(munmap(s.m.p + odp_len / 2, odp_len / 2) == 0);
	s.m.len = odp_len / 2;
	{
		ibv_sge sge{s.m.addr(odp_len / 2), 4096, s.mr->lkey};
		const int ret = ibv_advise_mr(
			s.b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);

		CHECK(ret != 0);
	}
	REQUIRE(write_odp(s, 20000, 2000, 4));
	return true;
}

bool check_implicit(device &d, const char * /*arg*/)
{
	odp_pair s;
	ibv_device_attr_ex ax{};

	REQUIRE(ibv_query_device_ex(d.ctx.get(), nullptr, &ax) == 0);
	CHECK((ax.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT) != 0);
	REQUIRE(setup(s, d));
	/* The implicit region replaces the explicit one: same checks. */
	s.mr.reset(ibv_reg_mr(s.b.pd, nullptr, SIZE_MAX, odp_access));
	REQUIRE(s.mr != nullptr);
	/* The keys' addresses are the process's own. */
	REQUIRE(write_odp(s, 100, 9000, 1));
	REQUIRE(read_odp(s, 100, 9000, 1, 2));
	/* Across a 2 MiB chunk boundary, if the mapping has one. */
	REQUIRE(write_odp(s, odp_len - 5000, 4000, 3));
	REQUIRE(read_odp(s, odp_len - 5000, 4000, 3, 4));
	REQUIRE(send_to_odp(s, 50000, 3000, 5));
	REQUIRE(send_from_odp(s, 50000, 3000, 6));
	{
		ibv_sge sge{s.m.addr(0), 64 * 1024, s.mr->lkey};

		CHECK(ibv_advise_mr(s.b.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1) == 0);
	}
	/* No mapping there: the WRITE fails, nothing hangs. */
	REQUIRE(munmap(s.m.p + odp_len / 2, odp_len / 2) == 0);
	s.m.len = odp_len / 2;
	REQUIRE(write_odp(s, odp_len / 2 + 64, 100, 7, IBV_WC_REM_ACCESS_ERR));
	return true;
}

bool check_reset(device &d, const char * /*arg*/)
{
	odp_pair s;
	const std::size_t half = odp_len / 2;

	/* No RNR retry: the first RNR NAK ends the WRITE at A. */
	REQUIRE(setup(s, d, 0));
	REQUIRE(munmap(s.m.p + half, half) == 0);
	s.m.len = half;
	REQUIRE(write_odp(s, half + 100, 2000, 1, IBV_WC_RNR_RETRY_EXC_ERR));
	/* B's fault fails meanwhile, and nothing asks B again. */
	usleep(static_cast<useconds_t>(300000 * timeout_scale()));
	s.a.opts.rnr_retry = 7;
	REQUIRE(reconnect(s.a, s.b));
	/* A new connection: never-touched pages are faulted in, no error. */
	REQUIRE(write_odp(s, 100, 2000, 2));
	REQUIRE(read_odp(s, 100, 2000, 2, 3));
	return true;
}

bool check_dead_recv(device &d, const char * /*arg*/)
{
	odp_pair s;
	constexpr std::size_t off = 8192;
	constexpr std::uint32_t len = 3000;

	/* RNR NAKs ask for 491 ms: the deregistration comes in between. */
	REQUIRE(setup(s, d, 7, 31));
	ibv_sge rsge{s.m.addr(off), len, s.mr->lkey};

	REQUIRE(post_recv_sges(s.b, 1, &rsge, 1) == 0);
	fill(s.a.buf.data(), len, 1);
	REQUIRE(post_a(s, 1, IBV_WR_SEND, 0, len) == 0);
	usleep(100000);
	REQUIRE(ibv_dereg_mr(s.mr.release()) == 0);
	const std::optional<ibv_wc> wc = wait_wc(s.b.rcq, 10000);

	REQUIRE(wc.has_value());
	CHECK(wc->wr_id == 1);
	EXPECT(wc->status != IBV_WC_SUCCESS,
	       "the receive into a deregistered region succeeded");
	CHECK(wait_wc(s.a.scq, 10000).has_value());
	for (std::size_t i = 0; i < len; i++)
		EXPECT(s.m.p[off + i] == 0,
		       "byte %zu of the deregistered region was written", i);
	return true;
}

bool check_huge(device &d, const char * /*arg*/)
{
	odp_pair s;

	REQUIRE(setup(s, d));
	errno = 0;
	ibv_mr *mr =
		ibv_reg_mr(s.b.pd, s.m.p, std::size_t{1} << 40, odp_access);
	const int err = errno;

	if (mr != nullptr)
		ibv_dereg_mr(mr);
	EXPECT(mr == nullptr && err == EINVAL,
	       "a 1 TiB ODP registration: %s, errno %d, expected EINVAL",
	       mr != nullptr ? "registered" : "refused", err);
	mr = ibv_reg_mr(s.b.pd, s.m.p, std::size_t{1} << 30, odp_access);
	EXPECT(mr != nullptr, "a 1 GiB ODP registration failed: errno %d",
	       errno);
	if (mr != nullptr)
		CHECK(ibv_dereg_mr(mr) == 0);
	return true;
}

/* Active objects of a slab cache (/proc/slabinfo), -1 if not found. */
long slab_objs(const char *cache)
{
	FILE *f = std::fopen("/proc/slabinfo", "r");
	char name[64];
	long active = -1;
	char line[512];

	if (f == nullptr)
		return -1;
	while (std::fgets(line, sizeof(line), f) != nullptr) {
		long n = 0;

		if (std::sscanf(line, "%63s %ld", name, &n) == 2 &&
		    std::strcmp(name, cache) == 0) {
			active = n;
			break;
		}
	}
	std::fclose(f);
	return active;
}

bool check_implicit_leak(device &d, const char * /*arg*/)
{
	odp_pair s;
	constexpr std::size_t chunk = std::size_t{2} << 20;
	constexpr int n = 256;

	REQUIRE(setup(s, d));
	s.mr.reset(ibv_reg_mr(s.b.pd, nullptr, SIZE_MAX, odp_access));
	REQUIRE(s.mr != nullptr);
	/* Address space nothing maps: mapped, then given back. */
	void *hole = mmap(nullptr, (n / 2 + 1) * chunk, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	REQUIRE(hole != MAP_FAILED);
	REQUIRE(munmap(hole, (n / 2 + 1) * chunk) == 0);
	const std::uint64_t user =
		(reinterpret_cast<std::uintptr_t>(hole) + chunk - 1) &
		~(chunk - 1);
	const long before = slab_objs("kmalloc-4k");

	REQUIRE(before >= 0);
	for (int i = 0; i < n; i++) {
		const std::uint64_t at =
			i % 2 == 0 ? user + (i / 2) * chunk
				   : 0xffff888000000000ULL + (i / 2) * chunk;

		fill(s.a.buf.data(), 64, i);
		REQUIRE(post_a(s, i, IBV_WR_RDMA_WRITE, 0, 64, at,
			       s.mr->rkey) == 0);
		REQUIRE(expect_wc("WRITE to an unmapped chunk", s.a.scq, i,
				  IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE,
				  false));
		REQUIRE(reconnect(s.a, s.b));
	}
	const long after = slab_objs("kmalloc-4k");

	ktap::note("kmalloc-4k: %ld before, %ld after %d failed WRITEs", before,
		   after, n);
	EXPECT(after - before < n / 2,
	       "kmalloc-4k grew by %ld objects over %d failed WRITEs",
	       after - before, n);
	/* The region still works where memory is mapped. */
	REQUIRE(write_odp(s, 100, 4000, 1));
	return true;
}

/* Does path exist by now?  Waits up to ms for it (no allocation). */
bool appears(const std::string &path, int ms)
{
	struct stat st {};

	for (int t = 0; t < ms; t += 50) {
		if (stat(path.c_str(), &st) == 0)
			return true;
		usleep(50000);
	}
	return false;
}

/*
 * While the faults block, nothing here may map or unmap memory: each
 * blocked fault holds the mm's lock for reading (hmm_range_fault()), and
 * mmap() would wait for them.  So the other device is the business of
 * another process (tests/odp.sh), told by the files "blocked" and
 * "release" in the directory arg.
 */
bool check_fuse_block(device &d, const char *arg)
{
	constexpr int pairs = 12;
	constexpr int sges = 32;
	constexpr std::size_t pg = 4096;
	constexpr std::size_t flen = std::size_t{pairs} * sges * 2 * pg;
	const int scale = timeout_scale();
	stuck_file f;
	endpoint a[pairs];
	endpoint b[pairs];
	mr_ptr mr[pairs];
	qp_opts o;

	REQUIRE(arg != nullptr);
	const std::string ctl = arg;

	if (d.gid_index < 0)
		REQUIRE(use_gid(d));
	REQUIRE(f.start(flen));
	const int fd = open(f.path().c_str(), O_RDONLY | O_CLOEXEC);

	REQUIRE(fd >= 0);
	void *mp = mmap(nullptr, flen, PROT_READ, MAP_SHARED, fd, 0);

	close(fd);
	REQUIRE(mp != MAP_FAILED);
	const auto base = reinterpret_cast<std::uintptr_t>(mp);

	o.send_sge = sges;
	for (int i = 0; i < pairs; i++) {
		REQUIRE(make_qp_pair(a[i], b[i], d, d, o));
		mr[i].reset(
			ibv_reg_mr(b[i].pd, mp, flen, IBV_ACCESS_ON_DEMAND));
		REQUIRE(mr[i] != nullptr);
		REQUIRE(post_recv(a[i], i, 0, sges * 16) == 0);
	}
	ktap::note("%d pairs, each a SEND of %d SGEs on their own file pages",
		   pairs, sges);
	/* Each pair sends 32 SGEs of 16 bytes, each on its own file page. */
	for (int i = 0; i < pairs; i++) {
		ibv_sge sge[sges];

		for (int j = 0; j < sges; j++)
			sge[j] = {base + ((i * sges + j) * 2 * pg), 16,
				  mr[i]->lkey};
		REQUIRE(post_sges(b[i], i, sge, sges) == 0);
	}
	usleep(static_cast<useconds_t>(2000000 * scale));
	const std::size_t held = f.held();
	const int bfd = open((ctl + "/blocked").c_str(),
			     O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (bfd >= 0)
		close(bfd);
	const bool told = appears(ctl + "/release", 60000 * scale);

	f.release();
	ktap::note("%zu READs of the file were held back", held);
	CHECK(held > 0);
	CHECK(bfd >= 0);
	EXPECT(told, "no release from the test within %d s", 60 * scale);
	/* The file answers: every fault ends, every SEND completes. */
	for (int i = 0; i < pairs; i++)
		CHECK(expect_wc("SEND from the stuck file", b[i].scq, i,
				IBV_WC_SUCCESS, IBV_WC_SEND, false));
	for (auto &m : mr)
		m.reset();
	munmap(mp, flen);
	return true;
}

/* A region registered and deregistered on d (tests/odp.sh's R2-1). */
bool check_mr_cycle(device &d, const char * /*arg*/)
{
	pd_ptr pd(ibv_alloc_pd(d.ctx.get()));
	std::vector<unsigned char> buf(4096);

	REQUIRE(pd != nullptr);
	ibv_mr *m = ibv_reg_mr(pd.get(), buf.data(), buf.size(),
			       IBV_ACCESS_LOCAL_WRITE);

	REQUIRE(m != nullptr);
	CHECK(ibv_dereg_mr(m) == 0);
	return true;
}

constexpr device_check checks[] = {
	{"caps", check_caps},
	{"untouched", check_untouched},
	{"dontneed", check_dontneed},
	{"munmap", check_munmap},
	{"prefetch", check_prefetch},
	{"implicit", check_implicit},
	{"reset", check_reset},
	{"dead-recv", check_dead_recv},
	{"huge", check_huge},
	{"implicit-leak", check_implicit_leak},
	{"fuse-block", check_fuse_block, false},
	{"mr-cycle", check_mr_cycle, false},
};

} /* namespace */

int main(int argc, char **argv)
{
	return device_check_main(argc, argv, checks);
}
