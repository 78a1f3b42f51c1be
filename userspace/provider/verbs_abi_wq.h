/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * verbs_abi_wq.h - the private libibverbs commands (IBVERBS_PRIVATE_34)
 * of receive work queues, their indirection tables and RSS QPs, as
 * rdma-core 44..56 declare them in driver.h; the extended command buffers
 * (struct ibv_create_wq and the like: { ib_uverbs_cmd_hdr;
 * ib_uverbs_ex_cmd_hdr; core struct } and the driver's tail) are passed as
 * their first member, as verbs_abi.h does for the others.
 */
#ifndef SROCE_PROVIDER_VERBS_ABI_WQ_H
#define SROCE_PROVIDER_VERBS_ABI_WQ_H

#include "verbs_abi.h"

extern "C" {

/*
 * CREATE_WQ (ioctl, or the extended write command): sets wq's context,
 * cq, pd, type, handle and wq_num, and the granted max_wr and max_sge in
 * attr.  MODIFY_WQ sends attr (IBV_WQ_ATTR_STATE, _CURR_STATE, _FLAGS)
 * and keeps wq->state.  DESTROY_WQ waits for the WQ's async events.
 */
int ibv_cmd_create_wq(ibv_context *context, ibv_wq_init_attr *wq_init_attr,
		      ibv_wq *wq, ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size,
		      ib_uverbs_ex_create_wq_resp *resp, std::size_t resp_size);
int ibv_cmd_modify_wq(ibv_wq *wq, ibv_wq_attr *attr, ib_uverbs_cmd_hdr *cmd,
		      std::size_t cmd_size);
int ibv_cmd_destroy_wq(ibv_wq *wq);
/* The table's handles of init_attr's WQs; sets the table's handle, num. */
int ibv_cmd_create_rwq_ind_table(ibv_context *context,
				 ibv_rwq_ind_table_init_attr *init_attr,
				 ibv_rwq_ind_table *rwq_ind_table,
				 ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 std::size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(ibv_rwq_ind_table *rwq_ind_table);
/*
 * The extended CREATE_QP: all of ibv_qp_init_attr_ex, the indirection
 * table (IBV_QP_INIT_ATTR_IND_TABLE) included; sets qp as
 * ibv_cmd_create_qp_ex does.
 */
int ibv_cmd_create_qp_ex2(ibv_context *context, verbs_qp *qp,
			  ibv_qp_init_attr_ex *attr_ex, ib_uverbs_cmd_hdr *cmd,
			  std::size_t cmd_size,
			  ib_uverbs_ex_create_qp_resp *resp,
			  std::size_t resp_size);

} /* extern "C" */

SROCE_IBVERBS_PRIVATE(ibv_cmd_create_wq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_modify_wq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_wq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_rwq_ind_table);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_rwq_ind_table);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_qp_ex2);

#endif /* SROCE_PROVIDER_VERBS_ABI_WQ_H */
