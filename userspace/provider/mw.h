/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mw.h - memory windows (mw.cpp).  The provider keeps nothing of its own:
 * a window is libibverbs' struct ibv_mw, calloc()ed.  Binding one is a
 * BIND_MW send WQE (wqe.h).
 */
#ifndef SROCE_PROVIDER_MW_H
#define SROCE_PROVIDER_MW_H

#include "sroce.h"

namespace sroce {

ibv_mw *alloc_mw(ibv_pd *pd, ibv_mw_type type) noexcept;
int dealloc_mw(ibv_mw *mw) noexcept;
int bind_mw(ibv_qp *ibqp, ibv_mw *mw, ibv_mw_bind *mw_bind) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_MW_H */
