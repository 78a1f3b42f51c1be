// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * objects.cpp - sroce-objtest's checks of PDs, MRs and CQs:
 *
 *   objects     create and destroy a PD, MRs and CQs; attributes
 *   mr-errors   reg_mr/dereg_mr refuse bad input with the right errno
 *   cq-errors   create_cq refuses bad sizes and vectors
 *   cq-resize   resize_cq up and down, bad sizes refused
 *   channel     a CQ on a completion channel can be armed; no event
 */
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>

#include "ktap.h"
#include "objtest.h"

namespace objtest {

using namespace verbs_util;

namespace {

bool is_pow2(int v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/* As an int: libibverbs mixes two enum types in these flags. */
constexpr int acc_mw = IBV_ACCESS_MW_BIND;

} /* namespace */

void *alloc_buf(int prot)
{
	void *p = mmap(nullptr, buf_len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	if (p == MAP_FAILED) {
		/* Nothing works without memory: the plan stays unfinished. */
		ktap::fail("mmap of %zu bytes: %s", buf_len,
			   std::strerror(errno));
		std::exit(1);
	}
	return p;
}

bool check_objects(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_device_attr attr{};
	CHECK(ibv_query_device(ctx, &attr) == 0);
	ktap::note("max_cq %d max_cqe %d max_mr %d max_mr_size %#llx "
		   "page_size_cap %#llx max_qp %d max_pd %d",
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
		ktap::note("mr lkey %#x rkey %#x", mr->lkey, mr->rkey);
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
		ktap::note("cq of 100 has %d entries", cq->cqe);
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
	return true;
}

bool check_mr_errors(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_pd *pd = ibv_alloc_pd(ctx);
	CHECK(pd != nullptr);
	if (pd == nullptr)
		return false;
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
		ktap::note("dereg twice: %d (%s)", ret, std::strerror(ret));
		CHECK(ret != 0);
		stale->handle = 0x7ffffff0;
		ret = ibv_dereg_mr(stale);
		ktap::note("dereg of an unknown handle: %d (%s)", ret,
			   std::strerror(ret));
		CHECK(ret != 0);
	}
	CHECK(ibv_dealloc_pd(pd) == 0);
	return true;
}

bool check_cq_errors(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

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
	return true;
}

bool check_cq_resize(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_device_attr attr{};
	CHECK(ibv_query_device(ctx, &attr) == 0);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return false;
	ibv_wc wc[4];

	CHECK(ibv_resize_cq(cq, 100) == 0);
	ktap::note("resized to 100: %d entries", cq->cqe);
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
	return true;
}

bool check_channel(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	CHECK(ch != nullptr);
	if (ch == nullptr)
		return false;
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, ch, 0);
	CHECK(cq != nullptr);
	if (cq == nullptr)
		return false;
	CHECK(ibv_req_notify_cq(cq, 0) == 0);
	CHECK(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK) == 0);
	ibv_cq *ev_cq = nullptr;
	void *ev_ctx = nullptr;
	errno = 0;
	CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) != 0 && errno == EAGAIN);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_destroy_comp_channel(ch) == 0);
	return true;
}

} /* namespace objtest */
