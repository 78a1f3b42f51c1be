// SPDX-License-Identifier: GPL-2.0
/*
 * verbs.c - the ib_device_ops of every sroce device: the table that binds
 * the core's verbs to the object files (device.c, port.c, ucontext.c,
 * pd.c, queue.c, cq.c, mr.c, qp.c, mcast.c, srq.c, wq.c, xrc.c).
 */
#include <linux/module.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "mad.h"

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = SROCE_DRIVER_ID,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	/* device.c */
	.dealloc_driver = sroce_dev_dealloc,
	.device_group = &sroce_cc_group,
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
	.query_ucontext = sroce_ucontext_query,
	.disassociate_ucontext = sroce_ucontext_disassociate,
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
	.advise_mr = sroce_odp_advise_mr,
	.rereg_user_mr = sroce_mr_rereg_user,
	.alloc_mr = sroce_mr_alloc,
	.map_mr_sg = sroce_mr_map_sg,
	.dereg_mr = sroce_mr_dereg,

	/* dm.c: device memory, and its MRs (driver-allocated like mr.c's) */
	.alloc_dm = sroce_dm_alloc,
	.dealloc_dm = sroce_dm_dealloc,
	.reg_dm_mr = sroce_dm_reg_mr,

	/* ah.c */
	.create_ah = sroce_ah_create,
	.create_user_ah = sroce_ah_create,
	.query_ah = sroce_ah_query,
	.destroy_ah = sroce_ah_destroy,
	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),

	/* ext.c: the MADs of the SroceHello class, ahead of any agent */
	.process_mad = sroce_process_mad,

	/* mw.c */
	.alloc_mw = sroce_mw_alloc,
	.dealloc_mw = sroce_mw_dealloc,
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),

	/*
	 * qp.c.  User space posts into its mapped rings; POST_SEND without
	 * work requests is its doorbell (device.c adds it to the command
	 * mask), POST_RECV is not offered.
	 */
	.create_qp = sroce_qp_create,
	.modify_qp = sroce_qp_modify,
	.query_qp = sroce_qp_query,
	.destroy_qp = sroce_qp_destroy,
	.post_send = sroce_qp_post_send,
	.post_recv = sroce_qp_post_recv,
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),

	/* flow.c: flow steering for raw packet QPs (raw.c) */
	.create_flow = sroce_flow_create,
	.destroy_flow = sroce_flow_destroy,

	/* mcast.c: UD QPs in multicast groups */
	.attach_mcast = sroce_mcast_attach,
	.detach_mcast = sroce_mcast_detach,

	/* srq.c; user space posts into its mapped ring (no POST_SRQ_RECV) */
	.create_srq = sroce_srq_create,
	.modify_srq = sroce_srq_modify,
	.query_srq = sroce_srq_query,
	.destroy_srq = sroce_srq_destroy,
	.post_srq_recv = sroce_srq_post_recv,
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),

	/* wq.c: receive WQs and indirection tables, for RSS QPs (rss.c) */
	.create_wq = sroce_wq_create,
	.modify_wq = sroce_wq_modify,
	.destroy_wq = sroce_wq_destroy,
	.create_rwq_ind_table = sroce_rwq_ind_table_create,
	.destroy_rwq_ind_table = sroce_rwq_ind_table_destroy,
	INIT_RDMA_OBJ_SIZE(ib_rwq_ind_table, sroce_rwq_ind_table, ibtbl),

	/* xrc.c: XRC domains; their SRQs and QPs are srq.c's and qp.c's */
	.alloc_xrcd = sroce_xrcd_alloc,
	.dealloc_xrcd = sroce_xrcd_dealloc,
	INIT_RDMA_OBJ_SIZE(ib_xrcd, sroce_xrcd, ibxrcd),
};
