// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * atomic_write.cpp - sroce-rctest's check of the IBTA 1.5 atomic write:
 *
 *   atomic-write  8 bytes stored in B's region at once, posted with
 *                 ibv_post_send() (IBV_WR_ATOMIC_WRITE: from an SGE, from
 *                 inline data over two SGEs) and with ibv_wr_atomic_write()
 *                 (a batch, the bytes copied when the call returns), each
 *                 completing with IBV_WC_ATOMIC_WRITE and 8 bytes, the
 *                 bytes around it untouched; a burst alternating atomic
 *                 writes and RDMA WRITEs to the same 8 bytes ends with the
 *                 last one's; what is refused when posted (not 8 bytes, a
 *                 QP type without it) changes nothing; the capability
 *                 ibv_query_device_ex() reports
 *
 * B's region has REMOTE_WRITE alone (and LOCAL_WRITE), as rdma-core's
 * test_qp_ex_rc_atomic_write registers it.  The refusals at the responder
 * (keys, bounds, rights, alignment) are sroce-prottest's; forged packets
 * of another length and duplicates are sroce-hostile's.
 */
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstring>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

namespace {

/* Linux 6.2's IB_UVERBS_DEVICE_ATOMIC_WRITE; rdma-core 44 names none. */
constexpr std::uint64_t cap_atomic_write = std::uint64_t{1} << 40;

constexpr std::uint64_t aw_ops = IBV_QP_EX_WITH_ATOMIC_WRITE |
				 IBV_QP_EX_WITH_RDMA_WRITE |
				 IBV_QP_EX_WITH_SEND;

/* The 8 bytes of atomic write i (no byte of one is another's). */
std::uint64_t aw_value(std::uint64_t i)
{
	return 0xa5a5000000000000ULL | (i << 24) | (i * 0x10101U);
}

/* An atomic write by ibv_post_send() of sges to off of b's buffer. */
int post_aw(endpoint &a, endpoint &b, std::uint64_t id, ibv_sge *sges,
	    int num_sge, std::size_t off, unsigned int flags = 0)
{
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED | flags;
	wr.wr.rdma.remote_addr = b.addr(off);
	wr.wr.rdma.rkey = b.mr->rkey;
	const int ret = ibv_post_send(a.qp.get(), &wr, &bad);
	if (ret != 0 && bad != &wr)
		ktap::fail("post_send: bad_wr is not the request");
	return ret;
}

/* The completion of atomic write id: a success of 8 bytes. */
bool aw_done(const char *what, endpoint &a, std::uint64_t id)
{
	const auto wc = expect_wc(what, a.scq, id, IBV_WC_SUCCESS,
				  IBV_WC_ATOMIC_WRITE, false);

	EXPECT(wc && wc->byte_len == 8, "%s: byte_len %u", what,
	       wc ? wc->byte_len : 0);
	return true;
}

/* B's 8 bytes at off are v, the 8 before and after them still 0. */
bool holds(const endpoint &b, std::size_t off, std::uint64_t v)
{
	EXPECT(load64(b.buf.data() + off) == v,
	       "B's 8 bytes at %zu: %#" PRIx64 ", expected %#" PRIx64, off,
	       load64(b.buf.data() + off), v);
	EXPECT(load64(b.buf.data() + off - 8) == 0 &&
		       load64(b.buf.data() + off + 8) == 0,
	       "B's bytes around %zu changed", off);
	return true;
}

/* What ibv_post_send() refuses: EINVAL, nothing posted, nothing sent. */
bool refusals(endpoint &a, endpoint &b, device &da)
{
	unsigned char v[16] = {};
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(v), 7, 0};

	std::memset(v, 0x5a, sizeof(v));
	for (const std::uint32_t len : {0U, 7U, 9U, 16U}) {
		sge.length = len;
		EXPECT(post_aw(a, b, 900 + len, &sge, len != 0 ? 1 : 0, 256) ==
			       EINVAL,
		       "an atomic write of %u bytes was not refused", len);
	}
	CHECK(no_wc("after the refused atomic writes", a.scq, 200));
	CHECK(holds(b, 256, 0));

	/* RC only: a UC QP is refused it at creation. */
	qp_opts uo;
	uo.type = IBV_QPT_UC;
	uo.send_ops = aw_ops;
	pd_ptr pd(ibv_alloc_pd(da.ctx.get()));
	cq_ptr cq(ibv_create_cq(da.ctx.get(), 4, nullptr, nullptr, 0));
	REQUIRE(pd && cq);
	errno = 0;
	qp_ptr uc(create_qp(pd.get(), cq.get(), cq.get(), uo));
	const int err = errno;
	ktap::note("create_qp_ex of a UC QP with it: %s", std::strerror(err));
	CHECK(!uc && err == EOPNOTSUPP);
	return true;
}

} /* namespace */

bool check_atomic_write(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;
	std::uint64_t id = 1;

	/* The capability user space is shown. */
	ibv_device_attr_ex ax{};
	REQUIRE(ibv_query_device_ex(da.ctx.get(), nullptr, &ax) == 0);
	ktap::note("%s: device_cap_flags_ex %#" PRIx64, da.name.c_str(),
		   ax.device_cap_flags_ex);
	CHECK((ax.device_cap_flags_ex & cap_atomic_write) != 0);

	o.buf_size = std::size_t{64} * 1024;
	o.send_wr = 128;
	o.cqe = 256;
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	o.qp_access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		      IBV_ACCESS_REMOTE_ATOMIC;
	o.send_ops = aw_ops;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	REQUIRE(make_qp_pair(a, b, da, db, o));
	ibv_qp_ex *x = ibv_qp_to_qp_ex(a.qp.get());
	REQUIRE(x != nullptr);

	ktap::note("ibv_post_send(): from an SGE");
	store64(a.buf.data(), aw_value(id));
	ibv_sge sge{a.addr(), 8, a.mr->lkey};
	REQUIRE(post_aw(a, b, id, &sge, 1, 4096 + 8) == 0);
	CHECK(aw_done("atomic write", a, id));
	CHECK(holds(b, 4096 + 8, aw_value(id)));
	++id;

	ktap::note("ibv_post_send(): inline, 3 + 5 bytes");
	unsigned char v[8];
	store64(v, aw_value(id));
	ibv_sge two[2] = {{reinterpret_cast<std::uintptr_t>(v), 3, 0},
			  {reinterpret_cast<std::uintptr_t>(v + 3), 5, 0}};
	REQUIRE(post_aw(a, b, id, two, 2, 4096 + 32, IBV_SEND_INLINE) == 0);
	std::memset(v, 0, sizeof(v)); /* read when posted */
	CHECK(aw_done("inline atomic write", a, id));
	CHECK(holds(b, 4096 + 32, aw_value(id)));
	++id;

	ktap::note("ibv_wr_atomic_write(): 16 in one batch");
	const std::uint64_t first = id;
	ibv_wr_start(x);
	for (std::uint64_t i = 0; i < 16; ++i) {
		std::uint64_t val = aw_value(first + i);

		x->wr_id = first + i;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(x, b.mr->rkey, b.addr(8192 + 16 * i), &val);
		val = 0; /* copied by the call */
	}
	REQUIRE(ibv_wr_complete(x) == 0);
	for (std::uint64_t i = 0; i < 16; ++i, ++id) {
		EXPECT(aw_done("wr_atomic_write", a, id), "%" PRIu64, i);
		EXPECT(holds(b, 8192 + 16 * i, aw_value(id)), "%" PRIu64, i);
	}

	/*
	 * 32 atomic writes and 32 RDMA WRITEs in turn on the same 8 bytes,
	 * posted at once: in order, the last one's bytes stay.
	 */
	ktap::note("a burst of atomic writes and WRITEs to one place");
	const std::size_t spot = 12288 + 8;
	const std::uint64_t burst = id;
	ibv_wr_start(x);
	for (std::uint64_t i = 0; i < 64; ++i) {
		const std::uint64_t val = aw_value(burst + i);

		x->wr_id = burst + i;
		x->wr_flags = IBV_SEND_SIGNALED;
		if (i % 2 == 0) {
			ibv_wr_atomic_write(x, b.mr->rkey, b.addr(spot), &val);
			continue;
		}
		store64(a.buf.data() + 8 * i, val);
		ibv_wr_rdma_write(x, b.mr->rkey, b.addr(spot));
		ibv_wr_set_sge(x, a.mr->lkey, a.addr(8 * i), 8);
	}
	REQUIRE(ibv_wr_complete(x) == 0);
	for (std::uint64_t i = 0; i < 64; ++i, ++id)
		EXPECT(expect_wc("burst", a.scq, id, IBV_WC_SUCCESS,
				 i % 2 == 0 ? IBV_WC_ATOMIC_WRITE
					    : IBV_WC_RDMA_WRITE,
				 false),
		       "%" PRIu64, i);
	CHECK(holds(b, spot, aw_value(burst + 63)));

	CHECK(refusals(a, b, da));
	/* The pair goes on. */
	store64(a.buf.data(), aw_value(id));
	REQUIRE(post_aw(a, b, id, &sge, 1, 4096 + 8) == 0);
	CHECK(aw_done("atomic write after the refusals", a, id));
	CHECK(holds(b, 4096 + 8, aw_value(id)));
	return true;
}

} /* namespace rctest */
