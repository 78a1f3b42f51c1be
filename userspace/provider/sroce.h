/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce.h - internals of libsroce-rdmav34.so, the libibverbs provider of the
 * sroce software RoCEv2 device.
 *
 * Object model: each libibverbs object the provider allocates embeds the
 * libibverbs part first (verbs_device, verbs_context, later verbs_cq,
 * verbs_qp ...) and adds the provider's state after it; to_<obj>() converts
 * the libibverbs pointer back.  Entry points called by libibverbs are
 * noexcept, never throw (the library is built with -fno-exceptions) and report
 * failure as libibverbs expects: a positive errno value as the return value,
 * or NULL with errno set.
 */
#ifndef SROCE_PROVIDER_SROCE_H
#define SROCE_PROVIDER_SROCE_H

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <rdma/sroce-abi.h>

#include "verbs_abi.h"

namespace sroce {

/* The name under which libibverbs lists this provider. */
inline constexpr const char provider_name[] = "sroce";

/*
 * Match table: by the private driver id first, then by the "sroce" ib_device
 * name prefix (for kernels whose netlink does not report a driver id).
 */
extern const verbs_match_ent match_table[];
/* What the ELF constructor registers with libibverbs. */
extern const verbs_device_ops device_ops;

/* One sroce ib_device, as seen by this process. */
struct device {
	verbs_device vdev; /* first: libibverbs' part */
	std::uint32_t abi_version; /* uverbs ABI version of the kernel */
};
static_assert(std::is_standard_layout_v<device>);

inline device *to_dev(ibv_device *ibdev) noexcept
{
	return reinterpret_cast<device *>(ibdev);
}

/* What GET_CONTEXT told us about the kernel side; see sroce-abi.h. */
struct ucontext_params {
	std::uint32_t abi_version;
	std::uint32_t page_size; /* mmap offsets are multiples of it */
	std::uint64_t features; /* enum sroce_ucontext_features */
	std::uint32_t max_inline_data;
};

/*
 * One open device (ibv_open_device).  libibverbs calloc()s it and
 * initialises vctx; the rest must therefore stay valid when zero-filled and
 * trivially constructible (it is created implicitly by that allocation).
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
 * Runs a callable when the scope ends unless release()d (absl::Cleanup).
 * errno is preserved across the callable, so error paths can set errno and
 * then unwind.
 */
template <typename F>
class [[nodiscard]] scope_exit {
public:
	explicit scope_exit(F fn) noexcept
	    : fn_(std::move(fn))
	{
	}
	scope_exit(const scope_exit &) = delete;
	scope_exit &operator=(const scope_exit &) = delete;
	scope_exit(scope_exit &&) = delete;
	scope_exit &operator=(scope_exit &&) = delete;
	~scope_exit()
	{
		if (armed_) {
			const int saved_errno = errno;
			fn_();
			errno = saved_errno;
		}
	}
	void release() noexcept { armed_ = false; }

private:
	F fn_;
	bool armed_ = true;
};

} /* namespace sroce */

#endif /* SROCE_PROVIDER_SROCE_H */
