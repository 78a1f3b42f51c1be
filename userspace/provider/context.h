/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * context.h - one open device (ibv_open_device: GET_CONTEXT) and its
 * queries (context.cpp), which installs every object's verbs.
 */
#ifndef SROCE_PROVIDER_CONTEXT_H
#define SROCE_PROVIDER_CONTEXT_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "sroce.h"

namespace sroce {

/* What GET_CONTEXT told us about the kernel side; see sroce-abi.h. */
struct ucontext_params {
	std::uint32_t abi_version;
	std::uint32_t page_size; /* mmap offsets are multiples of it */
	std::uint64_t features; /* enum sroce_ucontext_features */
	std::uint32_t max_inline_data;
};

/*
 * One open device.  libibverbs calloc()s it and initialises vctx; the rest
 * must therefore stay valid when zero-filled and trivially constructible
 * (it is created implicitly by that allocation).
 */
struct context {
	verbs_context vctx; /* first: libibverbs' part */
	ucontext_params params;
};
static_assert(std::is_standard_layout_v<context>);
static_assert(std::is_trivially_default_constructible_v<context> &&
	      std::is_trivially_destructible_v<context>);

/* ibv_context is a member of verbs_context, which is context's first. */
inline context *to_ctx(ibv_context *ibctx) noexcept
{
	return reinterpret_cast<context *>(reinterpret_cast<char *>(ibctx) -
					   offsetof(verbs_context, context));
}

/* The driver tail of GET_CONTEXT that this provider sends. */
sroce_alloc_ucontext_cmd make_ucontext_cmd() noexcept;

/*
 * Check the driver tail of the GET_CONTEXT response and extract what the
 * provider keeps.  Returns 0, EPROTO when the driver's ABI version is outside
 * [SROCE_UVERBS_ABI_VERSION_MIN, SROCE_UVERBS_ABI_VERSION] (a response the
 * kernel did not fill reads as version 0), or EINVAL when a field is
 * malformed (page_size not a power of two).  *out is written only on success.
 */
int parse_ucontext_resp(const sroce_alloc_ucontext_resp &resp,
			ucontext_params *out) noexcept;

/*
 * What libibverbs does not name yet: Linux 6.2's IB_UVERBS_DEVICE_ATOMIC_WRITE
 * (ibv_device_attr_ex.device_cap_flags_ex) and rdma-core 45's
 * IBV_ODP_SUPPORT_ATOMIC_WRITE (the ODP transport caps).
 */
constexpr std::uint64_t device_cap_atomic_write = std::uint64_t{1} << 40;
constexpr std::uint32_t odp_support_atomic_write = 1U << 7;

/*
 * The capabilities the context's features (enum sroce_ucontext_features)
 * add to what the kernel's QUERY_DEVICE answered: with
 * SROCE_UCTX_F_ATOMIC_WRITE, device_cap_atomic_write, and
 * odp_support_atomic_write for RC when on-demand paging RC writes are
 * there.  Only the fields within attr_size are written (an older
 * caller's shorter struct).
 */
void add_feature_caps(std::uint64_t features, ibv_device_attr_ex *attr,
		      std::size_t attr_size) noexcept;

/* verbs_device_ops.alloc_context: takes ownership of cmd_fd. */
verbs_context *alloc_context(ibv_device *ibdev, int cmd_fd,
			     void *private_data) noexcept;

/*
 * verbs_device_ops.import_context (ibv_import_device()): a context on the
 * uverbs file of an existing one, cmd_fd (whose ownership it takes).
 */
verbs_context *import_context(ibv_device *ibdev, int cmd_fd) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_CONTEXT_H */
