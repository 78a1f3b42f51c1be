/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ah.h - address handles (ah.cpp).  The kernel keeps the address (it
 * builds the packets); the provider keeps the AH's number, which UD send
 * WQEs carry (sroce-abi.h).
 */
#ifndef SROCE_PROVIDER_AH_H
#define SROCE_PROVIDER_AH_H

#include <type_traits>

#include "sroce.h"

namespace sroce {

/* One address handle.  calloc()ed. */
struct ah {
	ibv_ah ibah; /* first: libibverbs' part */
	std::uint32_t num; /* the kernel's number for it */
};
static_assert(std::is_standard_layout_v<ah>);
static_assert(std::is_trivially_default_constructible_v<ah>);

inline ah *to_ah(ibv_ah *ibah) noexcept
{
	return reinterpret_cast<ah *>(ibah);
}

ibv_ah *create_ah(ibv_pd *pd, ibv_ah_attr *attr) noexcept;
int destroy_ah(ibv_ah *ibah) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_AH_H */
