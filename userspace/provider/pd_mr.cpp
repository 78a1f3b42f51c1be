// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * pd_mr.cpp - protection domains and memory regions: plain uverbs commands
 * without driver data (the kernel pins and tracks the memory).
 */
#include <cstdlib>

#include "objects.h"
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
		errno = ret;
		return nullptr;
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

ibv_mr *reg_mr(ibv_pd *pd, void *addr, std::size_t length, std::uint64_t hca_va,
	       int access) noexcept
{
	auto *vmr = static_cast<verbs_mr *>(std::calloc(1, sizeof(verbs_mr)));
	reg_mr_cmd cmd{};
	ib_uverbs_reg_mr_resp resp{};

	if (vmr == nullptr)
		return nullptr;
	const int ret =
		ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, cmd.buf(),
			       reg_mr_cmd::size, &resp, sizeof(resp));
	if (ret != 0) {
		std::free(vmr);
		errno = ret;
		return nullptr;
	}
	return &vmr->mr;
}

/* On failure the MR stays: the caller still owns it. */
int dereg_mr(verbs_mr *vmr) noexcept
{
	const int ret = ibv_cmd_dereg_mr(vmr);

	if (ret != 0)
		return ret;
	std::free(vmr);
	return 0;
}

} /* namespace sroce */
