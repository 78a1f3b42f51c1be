// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * domains.cpp - sroce-objtest's checks of parent and thread domains and of
 * objects imported from a shared uverbs file:
 *
 *   parent-domain  ibv_alloc_td, ibv_alloc_parent_domain: bad attributes
 *                  refused; the application's allocator gives the QP, CQ
 *                  and SRQ objects (resource types with sroce's driver id)
 *                  and gets every block back; IBV_ALLOCATOR_USE_DEFAULT
 *                  and a failing allocator; no domain deallocated while
 *                  used (EBUSY); objects on it work (an MR, a QP to RTS)
 *   import         ibv_import_device on a dup() of the uverbs file:
 *                  ibv_import_pd / ibv_import_mr of the first context's
 *                  objects (keys and length as registered), handles that
 *                  name nothing refused, objects created on the imported
 *                  PD, ibv_unimport_* leaving the objects to their owner
 */
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "ktap.h"
#include "objtest.h"

namespace objtest {

using namespace verbs_util;

namespace {

/* What the counting allocator saw. */
struct alloc_log {
	int allocs = 0;
	int frees = 0;
	int foreign_type = 0; /* resource types without sroce's driver id */
	int unaligned = 0; /* alignments that are no power of two */
	std::uint64_t types = 0; /* bit (type & 63) for each type seen */
	bool use_default = false; /* answer IBV_ALLOCATOR_USE_DEFAULT */
	bool fail = false; /* answer NULL */
};

void *log_alloc(ibv_pd * /*pd*/, void *pd_context, std::size_t size,
		std::size_t alignment, std::uint64_t resource_type)
{
	auto *log = static_cast<alloc_log *>(pd_context);

	if ((resource_type >> 32) != SROCE_DRIVER_ID)
		++log->foreign_type;
	if (alignment == 0 || (alignment & (alignment - 1)) != 0)
		++log->unaligned;
	log->types |= std::uint64_t{1} << (resource_type & 63);
	if (log->fail)
		return nullptr;
	if (log->use_default)
		return IBV_ALLOCATOR_USE_DEFAULT;
	void *p = nullptr;
	if (posix_memalign(
		    &p, alignment < sizeof(void *) ? sizeof(void *) : alignment,
		    size) != 0)
		return nullptr;
	/* Not zeroed on purpose: the provider must not rely on it. */
	std::memset(p, 0xa5, size);
	++log->allocs;
	return p;
}

void log_free(ibv_pd * /*pd*/, void *pd_context, void *ptr,
	      std::uint64_t /*resource_type*/)
{
	auto *log = static_cast<alloc_log *>(pd_context);

	++log->frees;
	std::free(ptr);
}

ibv_pd *parent_domain(ibv_context *ctx, ibv_pd *pd, ibv_td *td, alloc_log *log)
{
	ibv_parent_domain_init_attr attr{};

	attr.pd = pd;
	attr.td = td;
	if (log != nullptr) {
		attr.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
				 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
		attr.alloc = log_alloc;
		attr.free = log_free;
		attr.pd_context = log;
	}
	return ibv_alloc_parent_domain(ctx, &attr);
}

ibv_cq_ex *cq_on(ibv_context *ctx, ibv_pd *domain)
{
	ibv_cq_init_attr_ex attr{};

	attr.cqe = 16;
	attr.wc_flags = IBV_WC_STANDARD_FLAGS;
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	attr.parent_domain = domain;
	return ibv_create_cq_ex(ctx, &attr);
}

ibv_qp *rc_qp_on(ibv_context *ctx, ibv_pd *domain, ibv_cq *cq)
{
	ibv_qp_init_attr_ex attr{};

	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.cap.max_send_wr = 8;
	attr.cap.max_recv_wr = 8;
	attr.cap.max_send_sge = 2;
	attr.cap.max_recv_sge = 2;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.pd = domain;
	attr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	return ibv_create_qp_ex(ctx, &attr);
}

/* RESET -> INIT -> RTR -> RTS, connected to itself over GID index 0. */
bool to_rts(ibv_qp *qp)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS) != 0)
		return false;
	ibv_qp_attr r{};
	r.qp_state = IBV_QPS_RTR;
	r.path_mtu = IBV_MTU_1024;
	r.dest_qp_num = qp->qp_num;
	r.max_dest_rd_atomic = 1;
	r.min_rnr_timer = 12;
	r.ah_attr.is_global = 1;
	r.ah_attr.port_num = 1;
	r.ah_attr.grh.hop_limit = 1;
	r.ah_attr.grh.sgid_index = 0;
	if (ibv_query_gid(qp->context, 1, 0, &r.ah_attr.grh.dgid) != 0)
		return false;
	if (ibv_modify_qp(qp, &r,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				  IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER) != 0)
		return false;
	ibv_qp_attr s{};
	s.qp_state = IBV_QPS_RTS;
	s.timeout = 14;
	s.retry_cnt = 7;
	s.rnr_retry = 7;
	s.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &s,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				     IBV_QP_MAX_QP_RD_ATOMIC) == 0;
}

/*
 * The low bits of sroce's resource types (userspace/provider/pd.h): the
 * QP, CQ and SRQ objects and a QP's ibv_wr_*() buffers.
 */
constexpr std::uint64_t res_qp = std::uint64_t{1} << 1;
constexpr std::uint64_t res_cq = std::uint64_t{1} << 2;
constexpr std::uint64_t res_srq = std::uint64_t{1} << 3;
constexpr std::uint64_t res_wr_buf = std::uint64_t{1} << 4;

} /* namespace */

bool check_parent_domain(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_td_init_attr td_bad{.comp_mask = 1};
	CHECK(refused(ibv_alloc_td(ctx, &td_bad), EOPNOTSUPP,
		      "alloc_td with an unknown comp_mask"));
	ibv_td_init_attr td_attr{};
	ibv_td *td = ibv_alloc_td(ctx, &td_attr);
	REQUIRE(td != nullptr);
	pd_ptr pd(ibv_alloc_pd(ctx));
	REQUIRE(pd != nullptr);

	CHECK(refused(parent_domain(ctx, nullptr, nullptr, nullptr), EINVAL,
		      "parent domain without a PD"));
	ibv_pd *plain = parent_domain(ctx, pd.get(), td, nullptr);
	REQUIRE(plain != nullptr);
	CHECK(plain->handle == pd->handle && plain->context == ctx);
	CHECK(refused(parent_domain(ctx, plain, nullptr, nullptr), EINVAL,
		      "parent domain of a parent domain"));
	CHECK(ibv_dealloc_td(td) == EBUSY);
	CHECK(ibv_dealloc_pd(pd.get()) == EBUSY);

	/* The allocator gives the objects' memory and gets it all back. */
	alloc_log log;
	ibv_pd *pdom = parent_domain(ctx, pd.get(), nullptr, &log);
	REQUIRE(pdom != nullptr);
	CHECK(refused(cq_on(ctx, pd.get()), EINVAL,
		      "create_cq_ex with IBV_CQ_INIT_ATTR_MASK_PD and a PD"));
	ibv_cq_ex *cqx = cq_on(ctx, pdom);
	CHECK(cqx != nullptr);
	CHECK(log.allocs == 1 && (log.types & res_cq) != 0);
	ibv_srq_init_attr srq_attr{};
	srq_attr.attr.max_wr = 8;
	srq_attr.attr.max_sge = 1;
	ibv_srq *srq = ibv_create_srq(pdom, &srq_attr);
	CHECK(srq != nullptr);
	CHECK(log.allocs == 2 && (log.types & res_srq) != 0);
	ibv_qp *qp = cqx != nullptr ? rc_qp_on(ctx, pdom, ibv_cq_ex_to_cq(cqx))
				    : nullptr;
	CHECK(qp != nullptr);
	/* The QP and its ibv_wr_*() buffers. */
	CHECK(log.allocs == 4 && (log.types & res_qp) != 0 &&
	      (log.types & res_wr_buf) != 0);
	CHECK(log.foreign_type == 0 && log.unaligned == 0);
	ktap::note("allocator: %d blocks, resource types %#llx", log.allocs,
		   static_cast<unsigned long long>(log.types));

	/* Objects on the domain work: an MR, a QP to RTS. */
	void *buf = alloc_buf();
	ibv_mr *mr =
		ibv_reg_mr(pdom, buf, buf_len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr != nullptr && mr->pd == pdom);
	if (qp != nullptr) {
		CHECK(qp->pd == pdom);
		CHECK(to_rts(qp));
	}
	CHECK(ibv_dealloc_pd(pdom) == EBUSY);
	if (mr != nullptr)
		CHECK(ibv_dereg_mr(mr) == 0);
	if (qp != nullptr)
		CHECK(ibv_destroy_qp(qp) == 0);
	if (srq != nullptr)
		CHECK(ibv_destroy_srq(srq) == 0);
	if (cqx != nullptr)
		CHECK(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) == 0);
	CHECK(log.frees == log.allocs);
	CHECK(ibv_dealloc_pd(pdom) == 0);

	/* IBV_ALLOCATOR_USE_DEFAULT: the provider allocates, frees itself. */
	alloc_log dflt;
	dflt.use_default = true;
	ibv_pd *ddom = parent_domain(ctx, pd.get(), td, &dflt);
	REQUIRE(ddom != nullptr);
	ibv_cq_ex *dcq = cq_on(ctx, ddom);
	CHECK(dcq != nullptr);
	ibv_qp *dqp = dcq != nullptr ? rc_qp_on(ctx, ddom, ibv_cq_ex_to_cq(dcq))
				     : nullptr;
	CHECK(dqp != nullptr && dqp->pd == ddom);
	if (dqp != nullptr) {
		/* On a thread domain: no locks, the same posts. */
		CHECK(to_rts(dqp));
		CHECK(ibv_destroy_qp(dqp) == 0);
	}
	if (dcq != nullptr)
		CHECK(ibv_destroy_cq(ibv_cq_ex_to_cq(dcq)) == 0);
	CHECK(dflt.allocs == 0 && dflt.frees == 0 && dflt.types != 0);
	CHECK(ibv_dealloc_pd(ddom) == 0);

	/* A failing allocator fails the creation, leaving nothing behind. */
	alloc_log failing;
	failing.fail = true;
	ibv_pd *fdom = parent_domain(ctx, pd.get(), nullptr, &failing);
	REQUIRE(fdom != nullptr);
	CHECK(refused(cq_on(ctx, fdom), ENOMEM, "CQ, allocator fails"));
	CHECK(failing.frees == 0);
	CHECK(ibv_dealloc_pd(fdom) == 0);

	CHECK(ibv_dealloc_pd(plain) == 0);
	CHECK(ibv_dealloc_td(td) == 0);
	CHECK(ibv_dealloc_pd(pd.release()) == 0);
	return true;
}

bool check_import(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();
	pd_ptr pd(ibv_alloc_pd(ctx));
	REQUIRE(pd != nullptr);
	void *buf = alloc_buf();
	mr_ptr mr(ibv_reg_mr(pd.get(), buf, buf_len,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ));
	REQUIRE(mr != nullptr);

	const int fd = dup(ctx->cmd_fd);
	REQUIRE(fd >= 0);
	/* The provider owns fd from here on, failure included. */
	ibv_context *imp = ibv_import_device(fd);
	REQUIRE(imp != nullptr);
	CHECK(imp->device == ctx->device && imp->cmd_fd == fd);
	CHECK(imp->num_comp_vectors == ctx->num_comp_vectors);
	ibv_device_attr attr{};
	CHECK(ibv_query_device(imp, &attr) == 0 &&
	      attr.max_qp == d.attr.max_qp);

	CHECK(refused(ibv_import_pd(imp, pd->handle + 1000), EINVAL,
		      "import_pd of a handle that names no PD"));
	ibv_pd *ipd = ibv_import_pd(imp, pd->handle);
	REQUIRE(ipd != nullptr);
	CHECK(ipd->handle == pd->handle && ipd->context == imp);

	CHECK(refused(ibv_import_mr(ipd, mr->handle + 1000), 0,
		      "import_mr of a handle that names no MR"));
	ibv_mr *imr = ibv_import_mr(ipd, mr->handle);
	CHECK(imr != nullptr);
	if (imr != nullptr) {
		ktap::note("imported mr lkey %#x rkey %#x length %zu",
			   imr->lkey, imr->rkey, imr->length);
		CHECK(imr->lkey == mr->lkey && imr->rkey == mr->rkey);
		CHECK(imr->length == buf_len && imr->addr == nullptr);
		CHECK(imr->handle == mr->handle && imr->pd == ipd);
	}

	/* The imported context and PD make objects of their own. */
	cq_ptr cq(ibv_create_cq(imp, 8, nullptr, nullptr, 0));
	CHECK(cq != nullptr);
	if (cq != nullptr) {
		ibv_qp_init_attr qa{};
		qa.qp_type = IBV_QPT_RC;
		qa.send_cq = cq.get();
		qa.recv_cq = cq.get();
		qa.cap.max_send_wr = 4;
		qa.cap.max_recv_wr = 4;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		qp_ptr qp(ibv_create_qp(ipd, &qa));
		CHECK(qp != nullptr && to_rts(qp.get()));
	}
	cq.reset();

	/* Unimporting leaves the objects to the first context. */
	if (imr != nullptr)
		ibv_unimport_mr(imr);
	ibv_unimport_pd(ipd);
	CHECK(ibv_close_device(imp) == 0);
	CHECK(ibv_dereg_mr(mr.release()) == 0);
	CHECK(ibv_dealloc_pd(pd.release()) == 0);
	return true;
}

} /* namespace objtest */
