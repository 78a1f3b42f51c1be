// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - the ib_device_ops of every sroce device: the table that binds
 * the core's verbs to the object files (device.c, port.c, ucontext.c,
 * pd.c).
 */
#include <linux/module.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = SROCE_DRIVER_ID,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	/* device.c */
	.dealloc_driver = sroce_dev_dealloc,
	.query_device = sroce_dev_query,
	.get_dev_fw_str = sroce_dev_get_fw_str,

	/* port.c */
	.query_port = sroce_port_query,
	.query_pkey = sroce_port_query_pkey,
	.get_port_immutable = sroce_port_get_immutable,
	.get_link_layer = sroce_port_get_link_layer,

	/* ucontext.c */
	.alloc_ucontext = sroce_ucontext_alloc,
	.dealloc_ucontext = sroce_ucontext_dealloc,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),

	/* pd.c */
	.alloc_pd = sroce_pd_alloc,
	.dealloc_pd = sroce_pd_dealloc,
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),

	/*
	 * Queue pairs, completion queues and memory regions are not written
	 * yet, so their ops stay NULL: the core then answers user space with
	 * -EOPNOTSUPP for them, and, missing mandatory ops, does not count the
	 * device as a kernel verbs provider (ib_device_check_mandatory()), so
	 * no kernel ULP (ib_mad, ib_cm, rdma_cm, SMC-R, RDS, ...) binds to it.
	 */
};
