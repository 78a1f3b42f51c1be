/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * pd.h - protection domains (pd.cpp).  The provider keeps nothing of its
 * own: a PD is libibverbs' struct ibv_pd, calloc()ed.
 */
#ifndef SROCE_PROVIDER_PD_H
#define SROCE_PROVIDER_PD_H

#include "sroce.h"

namespace sroce {

ibv_pd *alloc_pd(ibv_context *ibctx) noexcept;
int dealloc_pd(ibv_pd *pd) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_PD_H */
