// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mr.cpp - memory regions: plain uverbs commands without driver data (the
 * kernel pins and tracks the memory).
 */
#include <cstdint>
#include <cstdlib>

#include "mr.h"
#include "uverbs_cmd.h"

namespace sroce {

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
		return null_with_errno(ret);
	}
	return &vmr->mr;
}

int rereg_mr_check(const ibv_mr &mr, int flags, const ibv_pd *pd,
		   const void *addr, std::size_t length) noexcept
{
	if ((flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) != 0)
		return EINVAL;
	/* A PD handle of another context would name one of ours. */
	if ((flags & IBV_REREG_MR_CHANGE_PD) != 0 &&
	    (pd == nullptr || pd->context != mr.context))
		return EINVAL;
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) != 0 &&
	    (addr == nullptr || length == 0))
		return EINVAL;
	return 0;
}

void rereg_mr_update(ibv_mr *mr, int flags, ibv_pd *pd, void *addr,
		     std::size_t length,
		     const ib_uverbs_rereg_mr_resp &resp) noexcept
{
	mr->lkey = resp.lkey;
	mr->rkey = resp.rkey;
	if ((flags & IBV_REREG_MR_CHANGE_PD) != 0)
		mr->pd = pd;
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) != 0) {
		mr->addr = addr;
		mr->length = length;
	}
}

/*
 * A new translation is registered at its own address (hca_va = addr), as
 * ibv_reg_mr() does.  vmr->access keeps the access of the registration:
 * ibv_dereg_mr() reads it to undo what ibv_reg_mr() did to the original
 * range.  Returns 0 or an errno value (errno set too): libibverbs'
 * ibv_rereg_mr() turns any failure into IBV_REREG_MR_ERR_CMD and leaves
 * the reason in errno.
 */
int rereg_mr(verbs_mr *vmr, int flags, ibv_pd *pd, void *addr,
	     std::size_t length, int access) noexcept
{
	rereg_mr_cmd cmd{};
	ib_uverbs_rereg_mr_resp resp{};
	int ret = rereg_mr_check(vmr->mr, flags, pd, addr, length);

	if (ret == 0)
		ret = ibv_cmd_rereg_mr(
			vmr, static_cast<std::uint32_t>(flags), addr, length,
			reinterpret_cast<std::uintptr_t>(addr), access, pd,
			cmd.buf(), rereg_mr_cmd::size, &resp, sizeof(resp));
	if (ret != 0) {
		errno = ret;
		return ret;
	}
	rereg_mr_update(&vmr->mr, flags, pd, addr, length, resp);
	return 0;
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

int advise_mr(ibv_pd *pd, ibv_advise_mr_advice advice, std::uint32_t flags,
	      ibv_sge *sg_list, std::uint32_t num_sge) noexcept
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

ibv_mr *import_mr(ibv_pd *pd, std::uint32_t handle) noexcept
{
	auto *vmr = static_cast<verbs_mr *>(std::calloc(1, sizeof(verbs_mr)));

	if (vmr == nullptr)
		return nullptr;
	const int ret = ibv_cmd_query_mr(pd, vmr, handle);
	if (ret != 0) {
		std::free(vmr);
		return null_with_errno(ret);
	}
	return &vmr->mr;
}

void unimport_mr(ibv_mr *mr) noexcept
{
	std::free(reinterpret_cast<verbs_mr *>(mr));
}

} /* namespace sroce */
