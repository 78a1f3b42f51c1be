// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dm.cpp - sroce-objtest's checks of device memory:
 *
 *   dm          query_device_ex advertises max_dm_size; ibv_alloc_dm()
 *               refuses a length of 0 or above it, a comp_mask and an
 *               alignment above a page, and allocations beyond the
 *               device's budget (ENOMEM) until one is freed;
 *               ibv_memcpy_to_dm() / _from_dm() round-trip and refuse
 *               offsets and lengths outside the allocation or not
 *               multiples of 4 (nothing written); ibv_reg_dm_mr() refuses
 *               ranges beyond the DM, a region not zero-based and one
 *               on demand (IBV_ACCESS_ON_DEMAND), takes one of 0 bytes; a
 *               DM a region uses cannot be freed (EBUSY) and can after
 *               ibv_dereg_mr(); ibv_import_dm() of the handle from an
 *               imported context sees the same memory, a handle naming no
 *               DM is refused
 *   dm-traffic  a DM MR as the local SGE of a SEND and of a receive, as
 *               the target of RDMA WRITE, READ, fetch-and-add and
 *               compare-and-swap by its rkey between two QPs of the
 *               device, every byte checked through ibv_memcpy_from_dm();
 *               a WRITE past the DM MR's end and one with the rkey of a
 *               region without remote write end in
 *               IBV_WC_REM_ACCESS_ERR with the DM untouched
 */
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include "completion.h"
#include "ktap.h"
#include "objtest.h"
#include "qp_pair.h"

namespace objtest {

using namespace verbs_util;

namespace {

struct dm_deleter {
	void operator()(ibv_dm *dm) const
	{
		if (dm != nullptr && ibv_free_dm(dm) != 0)
			destroy_failed("dm", errno);
	}
};
using dm_ptr = std::unique_ptr<ibv_dm, dm_deleter>;

ibv_dm *alloc(ibv_context *ctx, std::size_t len, std::uint32_t log_align = 0,
	      std::uint32_t comp_mask = 0)
{
	ibv_alloc_dm_attr a{};

	a.length = len;
	a.log_align_req = log_align;
	a.comp_mask = comp_mask;
	return ibv_alloc_dm(ctx, &a);
}

std::uint64_t max_dm_size(ibv_context *ctx)
{
	ibv_device_attr_ex ax{};

	if (ibv_query_device_ex(ctx, nullptr, &ax) != 0)
		return 0;
	return ax.max_dm_size;
}

constexpr unsigned int dm_access =
	IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE |
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	IBV_ACCESS_REMOTE_ATOMIC;

/* The bytes of dm at [off, off + len). */
std::vector<unsigned char> read_dm(ibv_dm *dm, std::size_t off, std::size_t len)
{
	std::vector<unsigned char> v(len);

	if (ibv_memcpy_from_dm(v.data(), dm, off, len) != 0)
		v.clear();
	return v;
}

bool check_copies(ibv_dm *dm, std::size_t len)
{
	std::vector<unsigned char> src(len), zero(len, 0);

	fill(src.data(), len, 7);
	CHECK(read_dm(dm, 0, len) == zero); /* allocated zeroed */
	CHECK(ibv_memcpy_to_dm(dm, 0, src.data(), len) == 0);
	CHECK(read_dm(dm, 0, len) == src);
	const std::uint32_t word = 0xdeadbeef;
	CHECK(ibv_memcpy_to_dm(dm, len - 4, &word, 4) == 0);
	std::uint32_t back = 0;
	CHECK(ibv_memcpy_from_dm(&back, dm, len - 4, 4) == 0 && back == word);
	CHECK(ibv_memcpy_to_dm(dm, len - 4, src.data() + len - 4, 4) == 0);

	/* Refused, nothing written: past the end, unaligned, wrapping. */
	const std::size_t bad[][2] = {
		{len, 4},	{0, len + 4}, {len - 4, 8},
		{1, 4},		{4, 3},	      {static_cast<std::size_t>(-4), 8},
		{len + 4096, 4}};
	std::vector<unsigned char> junk(len + 8192, 0xaa);
	for (const auto &b : bad) {
		const int r1 = ibv_memcpy_to_dm(dm, b[0], junk.data(), b[1]);
		const int r2 = ibv_memcpy_from_dm(junk.data(), dm, b[0], b[1]);
		ktap::note("memcpy at %#zx of %zu: to %d, from %d", b[0], b[1],
			   r1, r2);
		CHECK(r1 == EINVAL && r2 == EINVAL);
	}
	CHECK(read_dm(dm, 0, len) == src);
	return true;
}

} /* namespace */

bool check_dm(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();
	const std::uint64_t max = max_dm_size(ctx);
	ktap::note("max_dm_size %llu", static_cast<unsigned long long>(max));
	REQUIRE(max >= 65536 && max % 4096 == 0);

	CHECK(refused(alloc(ctx, 0), EINVAL, "alloc_dm of 0 bytes"));
	CHECK(refused(alloc(ctx, max + 1), 0, "alloc_dm above max_dm_size"));
	CHECK(refused(alloc(ctx, 4096, 0, 1), EINVAL, "alloc_dm, comp_mask 1"));
	CHECK(refused(alloc(ctx, 4096, 20), EINVAL,
		      "alloc_dm aligned to 1 MiB"));

	/* The budget: max_dm_size in all, in pages, given back by free. */
	{
		dm_ptr whole(alloc(ctx, max, 6));
		REQUIRE(whole != nullptr);
		CHECK(refused(alloc(ctx, 4), ENOMEM, "alloc_dm beyond budget"));
	}
	std::vector<dm_ptr> quarters;
	for (int i = 0; i < 4; ++i)
		quarters.emplace_back(alloc(ctx, max / 4 - 100));
	for (const auto &q : quarters)
		CHECK(q != nullptr);
	CHECK(refused(alloc(ctx, 4), ENOMEM, "alloc_dm of a 5th quarter"));
	quarters.clear();

	const std::size_t len = 8192 + 100;
	dm_ptr dm(alloc(ctx, len, 3));
	REQUIRE(dm != nullptr);
	CHECK((dm->comp_mask & IBV_DM_MASK_HANDLE) != 0);
	REQUIRE(check_copies(dm.get(), len));

	pd_ptr pd(ibv_alloc_pd(ctx));
	REQUIRE(pd != nullptr);
	CHECK(refused(ibv_reg_dm_mr(pd.get(), dm.get(), 0, len + 4, dm_access),
		      EINVAL, "reg_dm_mr longer than the DM"));
	CHECK(refused(ibv_reg_dm_mr(pd.get(), dm.get(), 8, len, dm_access),
		      EINVAL, "reg_dm_mr running past the DM"));
	CHECK(refused(ibv_reg_dm_mr(pd.get(), dm.get(), len + 4, 4, dm_access),
		      EINVAL, "reg_dm_mr beyond the DM"));
	CHECK(refused(ibv_reg_dm_mr(pd.get(), dm.get(), 0, 64,
				    dm_access & ~IBV_ACCESS_ZERO_BASED),
		      EINVAL, "reg_dm_mr not zero-based"));
	CHECK(refused(
		ibv_reg_dm_mr(pd.get(), dm.get(), 0, 64,
			      IBV_ACCESS_ZERO_BASED | IBV_ACCESS_REMOTE_WRITE),
		EINVAL, "reg_dm_mr, remote write without local"));
	/*
	 * Device memory has no pages to fault in: a DM MR is never an
	 * on-demand one, though the device offers ODP for user regions.
	 */
	CHECK(refused(ibv_reg_dm_mr(pd.get(), dm.get(), 0, 64,
				    dm_access | IBV_ACCESS_ON_DEMAND),
		      EINVAL, "reg_dm_mr on demand"));
	/* A region of 0 bytes is a region (rdma-core's suite makes some). */
	ibv_mr *empty = ibv_reg_dm_mr(pd.get(), dm.get(), 8, 0, dm_access);
	CHECK(empty != nullptr && empty->length == 0);
	if (empty != nullptr)
		CHECK(ibv_dereg_mr(empty) == 0);
	ibv_mr *mr =
		ibv_reg_dm_mr(pd.get(), dm.get(), 4096, len - 4096, dm_access);
	REQUIRE(mr != nullptr);
	CHECK(mr->addr == nullptr && mr->length == len - 4096);
	errno = 0;
	CHECK(ibv_free_dm(dm.get()) == EBUSY);
	CHECK(read_dm(dm.get(), 0, 4).size() == 4); /* still there */

	/* The same DM through an imported context. */
	const int fd = dup(ctx->cmd_fd);
	REQUIRE(fd >= 0);
	ibv_context *imp = ibv_import_device(fd);
	REQUIRE(imp != nullptr);
	CHECK(refused(ibv_import_dm(imp, dm->handle + 1000), 0,
		      "import_dm of a handle that names no DM"));
	ibv_dm *idm = ibv_import_dm(imp, dm->handle);
	REQUIRE(idm != nullptr);
	const std::uint32_t word = 0x5eed1234;
	CHECK(ibv_memcpy_to_dm(idm, 16, &word, 4) == 0);
	std::uint32_t back = 0;
	CHECK(ibv_memcpy_from_dm(&back, dm.get(), 16, 4) == 0 && back == word);
	CHECK(ibv_memcpy_to_dm(idm, len, &word, 4) == EINVAL);
	ibv_unimport_dm(idm);
	CHECK(ibv_close_device(imp) == 0);

	CHECK(ibv_dereg_mr(mr) == 0);
	CHECK(ibv_free_dm(dm.release()) == 0);
	/* All of the budget is back. */
	dm_ptr whole(alloc(ctx, max));
	CHECK(whole != nullptr);
	return true;
}

namespace {

/* One RDMA or atomic WR of a to the DM MR of rkey at raddr. */
int post_to(endpoint &a, std::uint64_t wr_id, ibv_wr_opcode op,
	    std::size_t loff, std::uint32_t len, std::uint32_t rkey,
	    std::uint64_t raddr, std::uint64_t cmp_add = 0,
	    std::uint64_t swap = 0)
{
	ibv_sge sge{a.addr(loff), len, a.mr->lkey};

	return post_rdma_at(a, wr_id, op, &sge, 1, raddr, rkey, cmp_add, swap);
}

} /* namespace */

bool check_dm_traffic(device &d, const char * /*arg*/)
{
	endpoint a, b;
	qp_opts o;

	o.qp_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	o.max_rd_atomic = o.max_dest_rd_atomic = 4;
	/* device_check_main() opens the device without choosing a GID. */
	if (d.gid_index < 0)
		REQUIRE(use_gid(d));
	REQUIRE(make_qp_pair(a, b, d, d, o));

	const std::size_t len = 4096;
	dm_ptr dm(alloc(d.ctx.get(), 3 * len));
	REQUIRE(dm != nullptr);
	/* The region covers the DM's middle third only. */
	ibv_mr *mr = ibv_reg_dm_mr(b.pd, dm.get(), len, len, dm_access);
	REQUIRE(mr != nullptr);
	mr_ptr hold(mr);

	/* SEND from A's buffer into a receive on the DM MR. */
	fill(a.buf.data(), len, 1);
	ibv_sge rs{.addr = 0,
		   .length = static_cast<std::uint32_t>(len),
		   .lkey = mr->lkey};
	REQUIRE(post_recv_sges(b, 1, &rs, 1) == 0);
	REQUIRE(post_send(a, 2, 0, len) == 0);
	CHECK(expect_wc("send", a.scq, 2, IBV_WC_SUCCESS, IBV_WC_SEND));
	CHECK(expect_wc("recv into DM", b.rcq, 1, IBV_WC_SUCCESS, IBV_WC_RECV));
	CHECK(read_dm(dm.get(), len, len) ==
	      std::vector<unsigned char>(a.buf.begin(), a.buf.begin() + len));

	/* SEND from the DM MR (B) into A's buffer. */
	REQUIRE(post_recv(a, 3, len, len) == 0);
	ibv_sge ss{.addr = 0,
		   .length = static_cast<std::uint32_t>(len),
		   .lkey = mr->lkey};
	REQUIRE(post_sges(b, 4, &ss, 1) == 0);
	CHECK(expect_wc("send from DM", b.scq, 4, IBV_WC_SUCCESS, IBV_WC_SEND));
	CHECK(expect_wc("recv", a.rcq, 3, IBV_WC_SUCCESS, IBV_WC_RECV));
	CHECK(mismatch(a.buf.data() + len, len, 1) < 0);

	/* WRITE of 3000 bytes at 512 by the rkey; READ it back. */
	fill(a.buf.data(), 3000, 2);
	REQUIRE(post_to(a, 5, IBV_WR_RDMA_WRITE, 0, 3000, mr->rkey, 512) == 0);
	CHECK(expect_wc("write to DM", a.scq, 5, IBV_WC_SUCCESS,
			IBV_WC_RDMA_WRITE));
	std::vector<unsigned char> got = read_dm(dm.get(), len + 512, 3000);
	CHECK(got.size() == 3000 && mismatch(got.data(), 3000, 2) < 0);
	std::memset(a.buf.data() + 8192, 0, 3000);
	REQUIRE(post_to(a, 6, IBV_WR_RDMA_READ, 8192, 3000, mr->rkey, 512) ==
		0);
	CHECK(expect_wc("read of DM", a.scq, 6, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	CHECK(mismatch(a.buf.data() + 8192, 3000, 2) < 0);

	/* Atomics on the DM MR's last 8 bytes. */
	const std::uint64_t v0 = 1000;
	CHECK(ibv_memcpy_to_dm(dm.get(), 2 * len - 8, &v0, 8) == 0);
	REQUIRE(post_to(a, 7, IBV_WR_ATOMIC_FETCH_AND_ADD, 16384, 8, mr->rkey,
			len - 8, 5) == 0);
	CHECK(expect_wc("fetch-add on DM", a.scq, 7, IBV_WC_SUCCESS,
			IBV_WC_FETCH_ADD));
	CHECK(load64(a.buf.data() + 16384) == v0);
	REQUIRE(post_to(a, 8, IBV_WR_ATOMIC_CMP_AND_SWP, 16384, 8, mr->rkey,
			len - 8, v0 + 5, 77) == 0);
	CHECK(expect_wc("cmp-swap on DM", a.scq, 8, IBV_WC_SUCCESS,
			IBV_WC_COMP_SWAP));
	std::uint64_t now = 0;
	CHECK(ibv_memcpy_from_dm(&now, dm.get(), 2 * len - 8, 8) == 0 &&
	      now == 77);

	/* Past the region's end (into the DM's last third): refused. */
	const std::vector<unsigned char> before = read_dm(dm.get(), 0, 3 * len);
	REQUIRE(post_to(a, 9, IBV_WR_RDMA_WRITE, 0, 64, mr->rkey, len - 32) ==
		0);
	CHECK(expect_wc("write past the DM MR", a.scq, 9, IBV_WC_REM_ACCESS_ERR,
			IBV_WC_RDMA_WRITE));
	CHECK(read_dm(dm.get(), 0, 3 * len) == before);
	REQUIRE(reconnect(a, b));

	/* A DM MR without remote write, by its rkey: refused. */
	ibv_mr *ro =
		ibv_reg_dm_mr(b.pd, dm.get(), 0, len,
			      IBV_ACCESS_ZERO_BASED | IBV_ACCESS_REMOTE_READ);
	REQUIRE(ro != nullptr);
	mr_ptr hold_ro(ro);
	REQUIRE(post_to(a, 10, IBV_WR_RDMA_WRITE, 0, 64, ro->rkey, 0) == 0);
	CHECK(expect_wc("write to a read-only DM MR", a.scq, 10,
			IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE));
	CHECK(read_dm(dm.get(), 0, 3 * len) == before);
	return true;
}

} /* namespace objtest */
