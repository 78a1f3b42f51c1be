// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * pd.cpp - protection domains: plain uverbs commands without driver data.
 */
#include <cstdlib>

#include "pd.h"
#include "uverbs_cmd.h"

namespace sroce {

ibv_pd *alloc_pd(ibv_context *ibctx) noexcept
{
	auto *pd = static_cast<ibv_pd *>(std::calloc(1, sizeof(ibv_pd)));
	alloc_pd_cmd cmd{};
	ib_uverbs_alloc_pd_resp resp{};

	if (pd == nullptr)
		return nullptr; /* errno ENOMEM */
	const int ret = ibv_cmd_alloc_pd(
		ibctx, pd, cmd.buf(), alloc_pd_cmd::size, &resp, sizeof(resp));
	if (ret != 0) {
		std::free(pd);
		return null_with_errno(ret);
	}
	return pd;
}

int dealloc_pd(ibv_pd *pd) noexcept
{
	const int ret = ibv_cmd_dealloc_pd(pd);

	if (ret != 0)
		return ret;
	std::free(pd);
	return 0;
}

} /* namespace sroce */
