/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sroce.h - what every file of libsroce-rdmav34.so, the libibverbs provider
 * of the sroce software RoCEv2 device, shares.
 *
 * Object model: each libibverbs object the provider allocates embeds the
 * libibverbs part first (verbs_device, verbs_context, verbs_cq, verbs_qp
 * ...) and adds the provider's state after it; to_<obj>() converts the
 * libibverbs pointer back.  Each object has a header named for it
 * (device.h, context.h, pd.h, mr.h, mw.h, ah.h, cq.h, qp.h, srq.h) with
 * its struct and its verbs, which the .cpp of the same name implements.
 *
 * Entry points called by libibverbs are noexcept, never throw (the library
 * is built with -fno-exceptions) and report failure as libibverbs expects:
 * a positive errno value as the return value, or NULL with errno set.
 */
#ifndef SROCE_PROVIDER_SROCE_H
#define SROCE_PROVIDER_SROCE_H

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <rdma/sroce-abi.h>

#include "verbs_abi.h"
#include "verbs_abi_cmd.h"

namespace sroce {

/*
 * For entry points that return an object: NULL with errno set to err.
 * `return null_with_errno(ret);`
 */
inline std::nullptr_t null_with_errno(int err) noexcept
{
	errno = err;
	return nullptr;
}

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
