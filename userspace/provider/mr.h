/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mr.h - memory regions (mr.cpp).  The provider keeps nothing of its own:
 * an MR is libibverbs' struct verbs_mr, calloc()ed; the kernel pins and
 * tracks the memory.
 */
#ifndef SROCE_PROVIDER_MR_H
#define SROCE_PROVIDER_MR_H

#include "sroce.h"

namespace sroce {

ibv_mr *reg_mr(ibv_pd *pd, void *addr, std::size_t length, std::uint64_t hca_va,
	       int access) noexcept;
int dereg_mr(verbs_mr *vmr) noexcept;
/*
 * ibv_advise_mr(): the kernel prefetches the pages of on-demand paging
 * regions (IBV_ADVISE_MR_ADVICE_PREFETCH*, done on return either way).
 */
int advise_mr(ibv_pd *pd, ibv_advise_mr_advice advice, std::uint32_t flags,
	      ibv_sge *sg_list, std::uint32_t num_sge) noexcept;
int rereg_mr(verbs_mr *vmr, int flags, ibv_pd *pd, void *addr,
	     std::size_t length, int access) noexcept;

/*
 * ibv_import_mr(): an MR of the imported context's uverbs file by its
 * handle; the kernel (QUERY_MR) gives its keys and length, refusing a
 * handle that names no MR.  Its address is unknown (NULL), as
 * ibv_import_mr(3) says.  ibv_unimport_mr() frees the provider's object
 * and leaves the kernel's MR alone.
 */
ibv_mr *import_mr(ibv_pd *pd, std::uint32_t handle) noexcept;
void unimport_mr(ibv_mr *mr) noexcept;

/*
 * The parts of rereg_mr() that need no kernel.  rereg_mr_check: 0, or
 * EINVAL for unknown flags, IBV_REREG_MR_CHANGE_PD without a PD or with one
 * of another context, IBV_REREG_MR_CHANGE_TRANSLATION without an address
 * or length.  rereg_mr_update: the MR after a successful REREG_MR: the
 * response's keys (the kernel may change them), and the PD, address and
 * length the flags changed.
 */
int rereg_mr_check(const ibv_mr &mr, int flags, const ibv_pd *pd,
		   const void *addr, std::size_t length) noexcept;
void rereg_mr_update(ibv_mr *mr, int flags, ibv_pd *pd, void *addr,
		     std::size_t length,
		     const ib_uverbs_rereg_mr_resp &resp) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_MR_H */
