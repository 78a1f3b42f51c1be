/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * device.h - how libibverbs finds sroce devices, and the per-device object
 * (device.cpp).
 */
#ifndef SROCE_PROVIDER_DEVICE_H
#define SROCE_PROVIDER_DEVICE_H

#include <type_traits>

#include "sroce.h"

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

} /* namespace sroce */

#endif /* SROCE_PROVIDER_DEVICE_H */
