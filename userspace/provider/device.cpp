// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * device.cpp - how libibverbs finds sroce devices and the per-device object.
 */
#include <cstdlib>
#include <memory>
#include <new>

#include "context.h"
#include "device.h"

namespace sroce {

/*
 * libibverbs tries DRIVER_ID rows first when the kernel reports a driver id,
 * then the name pattern, which it fnmatch()es against "rdma_device:N<name>"
 * (the leading '*' skips any other fields before N).
 */
const verbs_match_ent match_table[] = {
	{.driver_data = nullptr,
	 .u = {.driver_id = SROCE_DRIVER_ID},
	 .vendor = 0,
	 .device = 0,
	 .kind = VERBS_MATCH_DRIVER_ID},
	{.driver_data = nullptr,
	 .u = {.modalias = "rdma_device:*Nsroce*"},
	 .vendor = 0,
	 .device = 0,
	 .kind = VERBS_MATCH_MODALIAS},
	{.driver_data = nullptr,
	 .u = {.driver_id = 0},
	 .vendor = 0,
	 .device = 0,
	 .kind = VERBS_MATCH_SENTINEL},
};

namespace {

/*
 * The memory comes from calloc() so that nothing here needs libstdc++'s
 * operator new; the object is constructed in it explicitly (std::atomic_int
 * makes device non-trivial to construct).
 */
verbs_device *alloc_device(verbs_sysfs_dev *sysfs_dev) noexcept
{
	void *mem = std::calloc(1, sizeof(device));

	if (mem == nullptr)
		return null_with_errno(ENOMEM);
	auto *dev = ::new (mem) device{};
	dev->abi_version = sysfs_dev->abi_ver;
	return &dev->vdev;
}

/* Called by libibverbs when the last reference to the device is gone. */
void uninit_device(verbs_device *vdev) noexcept
{
	device *dev = to_dev(&vdev->device);

	std::destroy_at(dev);
	std::free(dev);
}

} /* namespace */

const verbs_device_ops device_ops = {
	.name = provider_name,
	.match_min_abi_version = SROCE_UVERBS_ABI_VERSION_MIN,
	.match_max_abi_version = SROCE_UVERBS_ABI_VERSION,
	.match_table = match_table,
	.static_providers = nullptr,
	.match_device = nullptr,
	.alloc_context = alloc_context,
	.import_context = import_context,
	.alloc_device = alloc_device,
	.uninit_device = uninit_device,
};

} /* namespace sroce */
