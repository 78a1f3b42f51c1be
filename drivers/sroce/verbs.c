// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - the ib_device_ops of every sroce device: the table that binds
 * the core's verbs to the object files (device.c, port.c, ucontext.c,
 * pd.c, queue.c, cq.c, mr.c).
 */
#include <linux/module.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "counters.h"

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = SROCE_DRIVER_ID,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	/* device.c */
	.dealloc_driver = sroce_dev_dealloc,
	.query_device = sroce_dev_query,
	.get_dev_fw_str = sroce_dev_get_fw_str,

	/* counters.c */
	.alloc_hw_port_stats = sroce_counters_alloc_port,
	.get_hw_stats = sroce_counters_query,

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

	/* queue.c: rings mapped into user contexts */
	.mmap = sroce_queue_mmap,
	.mmap_free = sroce_queue_mmap_free,

	/*
	 * cq.c.  poll_cq and req_notify_cq serve kernel CQs only: user space
	 * polls and arms its mapped ring (the POLL_CQ and REQ_NOTIFY_CQ
	 * commands stay out of uverbs_cmd_mask).
	 */
	.create_cq = sroce_cq_create,
	.destroy_cq = sroce_cq_destroy,
	.resize_cq = sroce_cq_resize,
	.poll_cq = sroce_cq_poll,
	.req_notify_cq = sroce_cq_req_notify,
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),

	/* mr.c; MRs are allocated by the driver */
	.get_dma_mr = sroce_mr_get_dma,
	.reg_user_mr = sroce_mr_reg_user,
	.dereg_mr = sroce_mr_dereg,

	/*
	 * Queue pairs are not written yet, so their ops stay NULL: the core
	 * then answers user space with -EOPNOTSUPP for them, and, missing
	 * mandatory ops, does not count the device as a kernel verbs provider
	 * (ib_device_check_mandatory()), so no kernel ULP (ib_mad, ib_cm,
	 * rdma_cm, SMC-R, RDS, ...) binds to it.
	 */
};
