// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The match table and the device operations, checked against the matching
 * rules libibverbs 44 applies (see Documentation/provider.md).
 */
#include <cstring>
#include <fnmatch.h>
#include <string>

#include <gtest/gtest.h>

#include "device.h"

namespace {

/* RDMA_DRIVER_RXE in the kernel's enum rdma_driver_id. */
constexpr std::uint32_t rxe_driver_id = 17;

/* The row libibverbs would pick for a device, or nullptr. */
const verbs_match_ent *match(const verbs_match_ent *table,
			     std::uint32_t driver_id, const std::string &name)
{
	const std::string modalias = "rdma_device:N" + name;

	/* A known driver id is tried against DRIVER_ID rows first. */
	for (const verbs_match_ent *e = table; e->kind != VERBS_MATCH_SENTINEL;
	     ++e)
		if (e->kind == VERBS_MATCH_DRIVER_ID && driver_id != 0 &&
		    e->u.driver_id == driver_id)
			return e;
	for (const verbs_match_ent *e = table; e->kind != VERBS_MATCH_SENTINEL;
	     ++e)
		if (e->kind == VERBS_MATCH_MODALIAS &&
		    fnmatch(e->u.modalias, modalias.c_str(), 0) == 0)
			return e;
	return nullptr;
}

TEST(MatchTable, EndsWithSentinelWithinThreeRows)
{
	int rows = 0;

	while (sroce::match_table[rows].kind != VERBS_MATCH_SENTINEL) {
		ASSERT_LT(rows, 3) << "no sentinel row";
		++rows;
	}
	EXPECT_EQ(rows, 2);
}

TEST(MatchTable, ClaimsOwnDriverIdWhateverTheName)
{
	const verbs_match_ent *e =
		match(sroce::match_table, SROCE_DRIVER_ID, "s0");

	ASSERT_NE(e, nullptr);
	EXPECT_EQ(e->kind, VERBS_MATCH_DRIVER_ID);
	EXPECT_EQ(e->u.driver_id, 0x5352U);
}

TEST(MatchTable, ClaimsSrocePrefixWithUnknownDriverId)
{
	for (const char *name : {"sroce", "sroce0", "sroce_lab1"}) {
		const verbs_match_ent *e = match(sroce::match_table, 0, name);

		ASSERT_NE(e, nullptr) << name;
		EXPECT_EQ(e->kind, VERBS_MATCH_MODALIAS) << name;
	}
}

TEST(MatchTable, LeavesOtherDevicesAlone)
{
	EXPECT_EQ(match(sroce::match_table, rxe_driver_id, "rxe0"), nullptr);
	EXPECT_EQ(match(sroce::match_table, 0, "mlx5_0"), nullptr);
	EXPECT_EQ(match(sroce::match_table, 0, "s0"), nullptr);
	EXPECT_EQ(match(sroce::match_table, 0, "mysroce0"), nullptr);
	EXPECT_EQ(match(sroce::match_table, 0, "Sroce0"), nullptr);
}

TEST(DeviceOps, DescribeTheProvider)
{
	const verbs_device_ops &ops = sroce::device_ops;

	EXPECT_STREQ(ops.name, "sroce");
	EXPECT_EQ(ops.match_min_abi_version,
		  static_cast<std::uint32_t>(SROCE_UVERBS_ABI_VERSION_MIN));
	EXPECT_EQ(ops.match_max_abi_version,
		  static_cast<std::uint32_t>(SROCE_UVERBS_ABI_VERSION));
	EXPECT_LE(ops.match_min_abi_version, ops.match_max_abi_version);
	EXPECT_EQ(ops.match_table, sroce::match_table);
	EXPECT_EQ(ops.static_providers, nullptr);
	EXPECT_EQ(ops.match_device, nullptr);
	EXPECT_NE(ops.import_context, nullptr);
	EXPECT_NE(ops.alloc_context, nullptr);
	EXPECT_NE(ops.alloc_device, nullptr);
	EXPECT_NE(ops.uninit_device, nullptr);
}

TEST(DeviceOps, AllocDeviceKeepsAbiVersionAndUninitFrees)
{
	verbs_sysfs_dev sysfs{};

	sysfs.abi_ver = SROCE_UVERBS_ABI_VERSION;
	sysfs.driver_id = SROCE_DRIVER_ID;
	std::strcpy(sysfs.ibdev_name, "s0");

	verbs_device *vdev = sroce::device_ops.alloc_device(&sysfs);
	ASSERT_NE(vdev, nullptr);
	sroce::device *dev = sroce::to_dev(&vdev->device);
	EXPECT_EQ(static_cast<void *>(dev), static_cast<void *>(vdev));
	EXPECT_EQ(dev->abi_version,
		  static_cast<std::uint32_t>(SROCE_UVERBS_ABI_VERSION));
	/* libibverbs fills these after alloc_device(); they start zeroed. */
	EXPECT_EQ(vdev->ops, nullptr);
	EXPECT_EQ(vdev->refcount.load(), 0);
	EXPECT_EQ(vdev->sysfs, nullptr);
	sroce::device_ops.uninit_device(vdev);
}

} /* namespace */
