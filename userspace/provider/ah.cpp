// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ah.cpp - address handles.  The kernel keeps the address (it builds the
 * packets); CREATE_AH returns the AH's number, which the provider puts
 * into each UD send WQE.
 */
#include <cstdlib>

#include "ah.h"
#include "uverbs_cmd.h"

namespace sroce {

ibv_ah *create_ah(ibv_pd *pd, ibv_ah_attr *attr) noexcept
{
	auto *a = static_cast<ah *>(std::calloc(1, sizeof(ah)));
	create_ah_resp resp{};

	if (a == nullptr)
		return nullptr; /* errno ENOMEM */
	/* Fills context and handle; the core resolves the MAC for RoCE. */
	const int ret = ibv_cmd_create_ah(pd, &a->ibah, attr, resp.core_ptr(),
					  sizeof(resp));
	if (ret != 0) {
		std::free(a);
		return null_with_errno(ret);
	}
	a->num = resp.drv.ah_num;
	return &a->ibah;
}

/* On failure the AH stays: the caller still owns it. */
int destroy_ah(ibv_ah *ibah) noexcept
{
	const int ret = ibv_cmd_destroy_ah(ibah);

	if (ret != 0)
		return ret;
	std::free(to_ah(ibah));
	return 0;
}

} /* namespace sroce */
