// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * context.cpp - opening a device (GET_CONTEXT) and the queries.
 */
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "ah.h"
#include "context.h"
#include "cq.h"
#include "dm.h"
#include "mr.h"
#include "mw.h"
#include "pd.h"
#include "qp.h"
#include "srq.h"
#include "uverbs_cmd.h"
#include "uverbs_ioctl.h"
#include "wq.h"

namespace sroce {

sroce_alloc_ucontext_cmd make_ucontext_cmd() noexcept
{
	return sroce_alloc_ucontext_cmd{
		.provider_abi = SROCE_UVERBS_ABI_VERSION,
		.reserved = 0,
	};
}

int parse_ucontext_resp(const sroce_alloc_ucontext_resp &resp,
			ucontext_params *out) noexcept
{
	if (resp.abi_version < SROCE_UVERBS_ABI_VERSION_MIN ||
	    resp.abi_version > SROCE_UVERBS_ABI_VERSION)
		return EPROTO;
	if (resp.page_size == 0 || (resp.page_size & (resp.page_size - 1)) != 0)
		return EINVAL;
	*out = ucontext_params{
		.abi_version = resp.abi_version,
		.page_size = resp.page_size,
		.features = resp.features,
		.max_inline_data = resp.max_inline_data,
	};
	return 0;
}

void add_feature_caps(std::uint64_t features, ibv_device_attr_ex *attr,
		      std::size_t attr_size) noexcept
{
	const std::size_t caps_end =
		offsetof(ibv_device_attr_ex, device_cap_flags_ex) +
		sizeof(attr->device_cap_flags_ex);
	const std::size_t odp_end =
		offsetof(ibv_device_attr_ex, odp_caps) + sizeof(attr->odp_caps);
	ibv_odp_caps &odp = attr->odp_caps;

	if ((features & SROCE_UCTX_F_ATOMIC_WRITE) == 0)
		return;
	if (attr_size >= caps_end)
		attr->device_cap_flags_ex |= device_cap_atomic_write;
	/* The responder's atomic write goes through odp.c like a WRITE. */
	if (attr_size >= odp_end &&
	    (odp.per_transport_caps.rc_odp_caps & IBV_ODP_SUPPORT_WRITE) != 0)
		odp.per_transport_caps.rc_odp_caps |= odp_support_atomic_write;
}

namespace {

void free_context(ibv_context *ibctx) noexcept
{
	context *ctx = to_ctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	std::free(ctx);
}

int query_device_ex(ibv_context *ibctx, const ibv_query_device_ex_input *input,
		    ibv_device_attr_ex *attr, std::size_t attr_size) noexcept
{
	ib_uverbs_ex_query_device_resp resp{};
	std::size_t resp_size = sizeof(resp);
	const int ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size,
						 &resp, &resp_size);

	if (ret != 0)
		return ret;

	/* The kernel reports fw_ver as a number; libibverbs wants text. */
	const std::uint64_t fw = resp.base.fw_ver;
	std::snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		      "%" PRIu64 ".%" PRIu64 ".%" PRIu64, (fw >> 32) & 0xffff,
		      (fw >> 16) & 0xffff, fw & 0xffff);
	add_feature_caps(to_ctx(ibctx)->params.features, attr, attr_size);
	return 0;
}

int query_port(ibv_context *ibctx, std::uint8_t port_num,
	       ibv_port_attr *port_attr) noexcept
{
	query_port_cmd cmd{};

	return ibv_cmd_query_port(ibctx, port_num, port_attr, cmd.buf(),
				  query_port_cmd::size);
}

/* Only what the provider implements; libibverbs' defaults do the rest. */
constexpr verbs_context_ops make_context_ops()
{
	verbs_context_ops ops{};

	ops.free_context = free_context;
	ops.query_device_ex = query_device_ex;
	ops.query_port = query_port;
	/* pd.cpp */
	ops.alloc_pd = alloc_pd;
	ops.dealloc_pd = dealloc_pd;
	ops.alloc_parent_domain = alloc_parent_domain;
	ops.alloc_td = alloc_td;
	ops.dealloc_td = dealloc_td;
	ops.import_pd = import_pd;
	ops.unimport_pd = unimport_pd;
	/* mr.cpp */
	ops.reg_mr = reg_mr;
	ops.rereg_mr = rereg_mr;
	ops.dereg_mr = dereg_mr;
	ops.advise_mr = advise_mr;
	ops.import_mr = import_mr;
	ops.unimport_mr = unimport_mr;
	/* mw.cpp */
	ops.alloc_dm = alloc_dm;
	ops.free_dm = free_dm;
	ops.import_dm = import_dm;
	ops.unimport_dm = unimport_dm;
	ops.reg_dm_mr = reg_dm_mr;

	ops.alloc_mw = alloc_mw;
	ops.dealloc_mw = dealloc_mw;
	ops.bind_mw = bind_mw;
	/* ah.cpp */
	ops.create_ah = create_ah;
	ops.destroy_ah = destroy_ah;
	/* cq.cpp */
	ops.create_cq = create_cq;
	ops.destroy_cq = destroy_cq;
	ops.poll_cq = poll_cq;
	ops.req_notify_cq = req_notify_cq;
	ops.resize_cq = resize_cq;
	/* cq_ex.cpp */
	ops.create_cq_ex = create_cq_ex;
	ops.query_rt_values = query_rt_values;
	/* qp.cpp */
	ops.create_qp = create_qp;
	ops.modify_qp = modify_qp;
	ops.query_qp = query_qp;
	ops.destroy_qp = destroy_qp;
	ops.post_send = post_send;
	ops.post_recv = post_recv;
	ops.attach_mcast = attach_mcast;
	ops.detach_mcast = detach_mcast;
	/* flow.cpp */
	ops.create_flow = create_flow;
	ops.destroy_flow = destroy_flow;
	/* qp_ex.cpp */
	ops.create_qp_ex = create_qp_ex;
	/* srq.cpp */
	ops.create_srq = create_srq;
	ops.modify_srq = modify_srq;
	ops.query_srq = query_srq;
	ops.destroy_srq = destroy_srq;
	ops.post_srq_recv = post_srq_recv;
	/* wq.cpp: receive WQs and indirection tables (RSS QPs: rss.cpp) */
	ops.create_wq = create_wq;
	ops.modify_wq = modify_wq;
	ops.destroy_wq = destroy_wq;
	ops.create_rwq_ind_table = create_rwq_ind_table;
	ops.destroy_rwq_ind_table = destroy_rwq_ind_table;
	/* xrc.cpp */
	ops.open_xrcd = open_xrcd;
	ops.close_xrcd = close_xrcd;
	ops.create_srq_ex = create_srq_ex;
	ops.get_srq_num = get_srq_num;
	ops.open_qp = open_qp;
	return ops;
}

constexpr verbs_context_ops context_ops = make_context_ops();

} /* namespace */

namespace {

/*
 * A context on cmd_fd (whose ownership it takes) set up by fill, which
 * asks the kernel for the driver's response (GET_CONTEXT for a new
 * context, QUERY_CONTEXT for an imported one) and returns 0 or an errno.
 */
template <typename Fill>
verbs_context *make_context(ibv_device *ibdev, int cmd_fd, Fill fill) noexcept
{
	/* The offset travels as a pointer, as libibverbs' own macro does. */
	const std::uintptr_t offset = offsetof(context, vctx);
	// NOLINTNEXTLINE(performance-no-int-to-ptr)
	auto *const offset_ptr = reinterpret_cast<verbs_context *>(offset);
	auto *ctx = static_cast<context *>(_verbs_init_and_alloc_context(
		ibdev, cmd_fd, sizeof(context), offset_ptr, SROCE_DRIVER_ID));

	if (ctx == nullptr)
		return nullptr; /* errno set, cmd_fd closed */

	/* From here on, verbs_uninit_context() closes cmd_fd. */
	scope_exit undo([ctx] {
		verbs_uninit_context(&ctx->vctx);
		std::free(ctx);
	});

	sroce_alloc_ucontext_resp drv{};
	int ret = fill(ctx, &drv);
	if (ret != 0)
		return null_with_errno(ret);

	ret = parse_ucontext_resp(drv, &ctx->params);
	if (ret != 0) {
		__verbs_log(&ctx->vctx, VERBS_LOG_ERR,
			    "sroce: %s: kernel driver ABI %" PRIu32
			    " page size %" PRIu32
			    " refused: provider supports ABI %d..%d\n",
			    ibdev->name, drv.abi_version, drv.page_size,
			    SROCE_UVERBS_ABI_VERSION_MIN,
			    SROCE_UVERBS_ABI_VERSION);
		return null_with_errno(ret);
	}

	verbs_set_ops(&ctx->vctx, &context_ops);
	undo.release();
	return &ctx->vctx;
}

} /* namespace */

verbs_context *alloc_context(ibv_device *ibdev, int cmd_fd,
			     void * /*private_data*/) noexcept
{
	return make_context(
		ibdev, cmd_fd,
		[](context *ctx, sroce_alloc_ucontext_resp *drv) noexcept {
			get_context_cmd cmd{};
			get_context_resp resp{};

			cmd.drv = make_ucontext_cmd();
			const int ret = ibv_cmd_get_context(
				&ctx->vctx, cmd.buf(), get_context_cmd::size,
				resp.core_ptr(), get_context_resp::size);
			if (ret == 0)
				*drv = resp.drv;
			return ret;
		});
}

/*
 * QUERY_CONTEXT on the shared file: the completion vectors, the core's
 * support bits (as ibv_cmd_query_context() keeps them) and the driver's
 * response to the context's GET_CONTEXT.  A driver without the method
 * (sroce.ko before ibv_import_device() support) answers EOPNOTSUPP.
 */
verbs_context *import_context(ibv_device *ibdev, int cmd_fd) noexcept
{
	return make_context(
		ibdev, cmd_fd,
		[](context *ctx, sroce_alloc_ucontext_resp *drv) noexcept {
			std::uint64_t core_support = 0;
			uverbs_ioctl cmd(UVERBS_OBJECT_DEVICE,
					 UVERBS_METHOD_QUERY_CONTEXT);
			ibv_context &ibctx = ctx->vctx.context;

			cmd.ptr_out(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
				    &ibctx.num_comp_vectors,
				    sizeof(ibctx.num_comp_vectors), false);
			cmd.ptr_out(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
				    &core_support, sizeof(core_support), false);
			cmd.ptr_out(SROCE_ATTR_QUERY_CONTEXT_RESP, drv,
				    sizeof(*drv), true);
			const int ret = cmd.execute(ibctx.cmd_fd);
			if (ret == 0)
				reinterpret_cast<verbs_device *>(ibctx.device)
					->core_support = core_support;
			return ret;
		});
}

} /* namespace sroce */
