/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * sroce-abi.h - the contract between the sroce kernel driver and its
 * user-space libibverbs provider (libsroce-rdmav34.so).
 *
 * Everything user space and the kernel exchange beyond the core uverbs
 * structures is declared here and nowhere else:
 *
 *  - SROCE_UVERBS_ABI_VERSION is the uverbs ABI version the driver reports
 *    (ib_device_ops.uverbs_abi_ver); the provider matches devices whose ABI
 *    version lies in [SROCE_UVERBS_ABI_VERSION_MIN, SROCE_UVERBS_ABI_VERSION].
 *  - SROCE_DRIVER_ID is the driver's private rdma_driver_id.  It is above
 *    every id the kernel's enum rdma_driver_id knows, so no in-tree provider
 *    claims an sroce device and kernel lookups by driver id find only ours.
 *  - The structures below travel as the driver-specific tail ("udata") of a
 *    uverbs command or response.  They have fixed sizes and explicit padding,
 *    hold no kernel pointers, and every reserved field must be zero when sent
 *    and is ignored when received, so later versions can give them meaning.
 *    A response may grow at its end: the kernel copies only as many bytes as
 *    the caller's buffer holds (ib_copy_to_udata), and a caller must check
 *    the feature bits before it reads a field that is not in version 1.
 *
 * All integers are in host byte order.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

#define SROCE_UVERBS_ABI_VERSION	1
#define SROCE_UVERBS_ABI_VERSION_MIN	1

/* Private enum rdma_driver_id value ('S' 'R'); see above. */
#define SROCE_DRIVER_ID			0x5352

/**
 * enum sroce_ucontext_features - what the driver offers a user context
 *
 * Reported in &struct sroce_alloc_ucontext_resp.features.  A bit that is not
 * set means the feature is absent; user space must not rely on anything a
 * bit it does not know describes.
 */
enum sroce_ucontext_features {
	SROCE_UCTX_F_NONE = 0,
};

/**
 * struct sroce_alloc_ucontext_cmd - driver tail of GET_CONTEXT
 * @provider_abi: the SROCE_UVERBS_ABI_VERSION the provider was built with
 * @reserved: must be zero
 */
struct sroce_alloc_ucontext_cmd {
	__u32 provider_abi;
	__u32 reserved;
};

/**
 * struct sroce_alloc_ucontext_resp - driver tail of the GET_CONTEXT response
 * @abi_version: SROCE_UVERBS_ABI_VERSION of the driver
 * @features: bitmask of &enum sroce_ucontext_features
 * @page_size: PAGE_SIZE of the kernel; every mmap offset is a multiple of it
 * @max_inline_data: largest inline payload a send WQE may carry (0: none)
 * @reserved: zero
 */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 page_size;
	__u64 features;
	__u32 max_inline_data;
	__u32 reserved[9];
};

#endif /* SROCE_ABI_USER_H */
