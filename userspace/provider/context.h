/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * context.h - one open device (ibv_open_device: GET_CONTEXT) and its
 * queries (context.cpp), which installs every object's verbs.
 */
#ifndef SROCE_PROVIDER_CONTEXT_H
#define SROCE_PROVIDER_CONTEXT_H

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
