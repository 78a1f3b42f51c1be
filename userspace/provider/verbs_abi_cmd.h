/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * verbs_abi_cmd.h - the functions of libibverbs' private provider ABI
 * (IBVERBS_PRIVATE_34) that sroce imports: registration, the context's
 * set-up and ops, the uverbs commands and the log, as rdma-core 44..56
 * declare them in driver.h.  The structures they take are verbs_abi.h's;
 * each function is bound to the version node (SROCE_IBVERBS_PRIVATE), so
 * the link fails if the installed libibverbs lacks it.  Those of receive
 * work queues and RSS: verbs_abi_wq.h.
 */
#ifndef SROCE_PROVIDER_VERBS_ABI_CMD_H
#define SROCE_PROVIDER_VERBS_ABI_CMD_H

#include <cstddef>
#include <cstdint>

#include "verbs_abi.h"

extern "C" {

/* Adds ops to libibverbs' provider list; called from an ELF constructor. */
void verbs_register_driver_34(const verbs_device_ops *ops);

/*
 * calloc()s alloc_size bytes, initialises the verbs_context found at byte
 * offset context_offset (passed as a pointer, as libibverbs' macro does) and
 * returns the allocation.  On failure it closes cmd_fd and returns NULL with
 * errno set.
 */
void *_verbs_init_and_alloc_context(ibv_device *device, int cmd_fd,
				    std::size_t alloc_size,
				    verbs_context *context_offset,
				    std::uint32_t driver_id);

/* Frees libibverbs' part of a context, closes cmd_fd and async_fd. */
void verbs_uninit_context(verbs_context *context);

/* Copies the non-NULL members of ops into the context. */
void verbs_set_ops(verbs_context *context, const verbs_context_ops *ops);

/*
 * The uverbs commands.  cmd points at { ib_uverbs_cmd_hdr; core struct }
 * followed by the driver's tail; cmd_size covers all of it.  resp points at
 * the core response followed by the driver's response tail; resp_size covers
 * both.  They return 0 or a positive errno value.
 */
int ibv_cmd_get_context(verbs_context *context, ib_uverbs_cmd_hdr *cmd,
			std::size_t cmd_size, ib_uverbs_get_context_resp *resp,
			std::size_t resp_size);
int ibv_cmd_query_device_any(ibv_context *context,
			     const ibv_query_device_ex_input *input,
			     ibv_device_attr_ex *attr, std::size_t attr_size,
			     ib_uverbs_ex_query_device_resp *resp,
			     std::size_t *resp_size);
int ibv_cmd_query_port(ibv_context *context, std::uint8_t port_num,
		       ibv_port_attr *port_attr, ib_uverbs_cmd_hdr *cmd,
		       std::size_t cmd_size);

/*
 * Object commands.  cmd/resp as above; resp may be the bare core response
 * when the command has no driver data.  The object's core fields (handle,
 * context, lkey, cqe ...) are filled in by libibverbs on success.
 */
int ibv_cmd_alloc_pd(ibv_context *context, ibv_pd *pd, ib_uverbs_cmd_hdr *cmd,
		     std::size_t cmd_size, ib_uverbs_alloc_pd_resp *resp,
		     std::size_t resp_size);
int ibv_cmd_dealloc_pd(ibv_pd *pd);
int ibv_cmd_reg_mr(ibv_pd *pd, void *addr, std::size_t length,
		   std::uint64_t hca_va, int access, verbs_mr *vmr,
		   ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size,
		   ib_uverbs_reg_mr_resp *resp, std::size_t resp_size);
int ibv_cmd_dereg_mr(verbs_mr *vmr);
/* ADVISE_MR (ioctl): the advice, flags and SGEs as given. */
int ibv_cmd_advise_mr(ibv_pd *pd, ibv_advise_mr_advice advice,
		      std::uint32_t flags, ibv_sge *sg_list,
		      std::uint32_t num_sge);
/*
 * Device memory (ioctl commands).  link: driver attributes to add, or
 * NULL (the provider adds none).  ALLOC_DM sends dm_attr's length and
 * log_align_req (not its comp_mask: the provider checks that).
 * REG_DM_MR refuses access without IBV_ACCESS_ZERO_BASED (EINVAL) before
 * sending; on success it sets vmr->mr's handle, context, keys, length
 * and pd, addr NULL, and mr_type IBV_MR_TYPE_MR.  FREE_DM sends
 * dm->handle.  Each returns 0 or an errno value.
 */
struct ibv_command_buffer;
int ibv_cmd_alloc_dm(ibv_context *ctx, const ibv_alloc_dm_attr *dm_attr,
		     verbs_dm *dm, ibv_command_buffer *link);
int ibv_cmd_free_dm(verbs_dm *dm);
int ibv_cmd_reg_dm_mr(ibv_pd *pd, verbs_dm *dm, std::uint64_t offset,
		      std::size_t length, unsigned int access, verbs_mr *vmr,
		      ibv_command_buffer *link);
/*
 * QUERY_MR (ioctl) of mr_handle: on success vmr->mr has the kernel's lkey,
 * rkey and length, handle, context and pd set, addr NULL, and mr_type
 * IBV_MR_TYPE_IMPORTED_MR.
 */
int ibv_cmd_query_mr(ibv_pd *pd, verbs_mr *vmr, std::uint32_t mr_handle);
/*
 * REREG_MR: sends mr_handle, flags, start = addr, length, hca_va,
 * pd_handle (pd's with IBV_REREG_MR_CHANGE_PD, else 0) and access; on
 * success copies the response's lkey and rkey into vmr->mr (and
 * pd->context into vmr->mr.context with IBV_REREG_MR_CHANGE_PD).  The
 * core command is 48 bytes after the header, the response 8.
 */
int ibv_cmd_rereg_mr(verbs_mr *vmr, std::uint32_t flags, void *addr,
		     std::size_t length, std::uint64_t hca_va, int access,
		     ibv_pd *pd, ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size,
		     ib_uverbs_rereg_mr_resp *resp, std::size_t resp_size);
/*
 * ALLOC_MW: sends pd->handle and type; on success sets mw->context, pd,
 * rkey, handle and type.  DEALLOC_MW: builds its own command from
 * mw->handle.
 */
int ibv_cmd_alloc_mw(ibv_pd *pd, ibv_mw_type type, ibv_mw *mw,
		     ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size,
		     ib_uverbs_alloc_mw_resp *resp, std::size_t resp_size);
int ibv_cmd_dealloc_mw(ibv_mw *mw);
/*
 * CREATE_AH: sends pd->handle and the address; the response is the 4-byte
 * ib_uverbs_create_ah_resp followed by the driver tail (resp_size covers
 * both).  Sets ah->handle and ah->context.  DESTROY_AH builds its own
 * command from ah->handle.
 */
int ibv_cmd_create_ah(ibv_pd *pd, ibv_ah *ah, ibv_ah_attr *attr,
		      ib_uverbs_create_ah_resp *resp, std::size_t resp_size);
int ibv_cmd_destroy_ah(ibv_ah *ah);
int ibv_cmd_create_cq(ibv_context *context, int cqe, ibv_comp_channel *channel,
		      int comp_vector, ibv_cq *cq, ib_uverbs_cmd_hdr *cmd,
		      std::size_t cmd_size, ib_uverbs_create_cq_resp *resp,
		      std::size_t resp_size);
int ibv_cmd_destroy_cq(ibv_cq *cq);
int ibv_cmd_resize_cq(ibv_cq *cq, int cqe, ib_uverbs_cmd_hdr *cmd,
		      std::size_t cmd_size, ib_uverbs_resize_cq_resp *resp,
		      std::size_t resp_size);

/*
 * QPs.  ibv_cmd_create_qp sets qp->context, handle, qp_num, pd, CQs,
 * qp_type and state (RESET) and writes the granted capabilities back into
 * attr->cap (from the core response or the ioctl's CAP attribute: the
 * provider reads them there, not in the core response).  The command buffer
 * is { hdr; ib_uverbs_create_qp } (64 bytes) and the tail, the response the
 * 32-byte ib_uverbs_create_qp_resp and the tail.  ibv_cmd_modify_qp sends
 * the attributes of attr_mask only; attr_mask bits above IBV_QP_DEST_QPN
 * are refused with EOPNOTSUPP.  libibverbs' ibv_modify_qp() and
 * ibv_query_qp() update qp->state after the provider returned 0.
 * ibv_cmd_destroy_qp waits until every async event reported for the QP has
 * been acknowledged.
 */
int ibv_cmd_create_qp(ibv_pd *pd, ibv_qp *qp, ibv_qp_init_attr *attr,
		      ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size,
		      ib_uverbs_create_qp_resp *resp, std::size_t resp_size);
/*
 * The same command for ibv_create_qp_ex(): attr_ex->comp_mask may hold
 * IBV_QP_INIT_ATTR_PD, _XRCD and _SEND_OPS_FLAGS (others: EINVAL); it
 * sets qp->qp the same way, and qp->comp_mask to 0 (or VERBS_QP_XRCD).
 */
int ibv_cmd_create_qp_ex(ibv_context *context, verbs_qp *qp,
			 ibv_qp_init_attr_ex *attr_ex, ib_uverbs_cmd_hdr *cmd,
			 std::size_t cmd_size, ib_uverbs_create_qp_resp *resp,
			 std::size_t resp_size);
int ibv_cmd_modify_qp(ibv_qp *qp, ibv_qp_attr *attr, int attr_mask,
		      ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size);
int ibv_cmd_query_qp(ibv_qp *qp, ibv_qp_attr *qp_attr, int attr_mask,
		     ibv_qp_init_attr *qp_init_attr, ib_uverbs_cmd_hdr *cmd,
		     std::size_t cmd_size);
int ibv_cmd_destroy_qp(ibv_qp *qp);
/*
 * Multicast: ATTACH_MCAST / DETACH_MCAST with qp->handle, the GID and the
 * LID; no driver data, no response.
 */
int ibv_cmd_attach_mcast(ibv_qp *qp, const ibv_gid *gid, std::uint16_t lid);
int ibv_cmd_detach_mcast(ibv_qp *qp, const ibv_gid *gid, std::uint16_t lid);
/*
 * Flow steering: CREATE_FLOW with qp->handle and the specs of flow_attr
 * converted to the kernel's layout, ucmd (ucmd_size bytes) as driver
 * data; on success it sets flow_id->context and handle.  DESTROY_FLOW
 * with flow_id->handle.  Both return 0 or an errno.
 */
int ibv_cmd_create_flow(ibv_qp *qp, ibv_flow *flow_id, ibv_flow_attr *flow_attr,
			void *ucmd, std::size_t ucmd_size);
int ibv_cmd_destroy_flow(ibv_flow *flow_id);

/*
 * SRQs.  ibv_cmd_create_srq sends pd's handle, max_wr, max_sge and
 * srq_limit from attr; on success it sets srq->handle (libibverbs'
 * ibv_create_srq() sets context, pd, srq_context and the event fields
 * after the provider returned) and writes the granted max_wr and max_sge
 * back into attr->attr.  The command buffer is { hdr; ib_uverbs_create_srq }
 * (40 bytes) and the tail, the response the 16-byte
 * ib_uverbs_create_srq_resp and the tail.  MODIFY_SRQ ({ hdr;
 * ib_uverbs_modify_srq }, 24 bytes) sends max_wr and srq_limit with the
 * mask; QUERY_SRQ ({ hdr; ib_uverbs_query_srq }, 24 bytes) fills max_wr,
 * max_sge and srq_limit.  ibv_cmd_destroy_srq waits until every async
 * event reported for the SRQ has been acknowledged.
 */
int ibv_cmd_create_srq(ibv_pd *pd, ibv_srq *srq, ibv_srq_init_attr *attr,
		       ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size,
		       ib_uverbs_create_srq_resp *resp, std::size_t resp_size);
int ibv_cmd_modify_srq(ibv_srq *srq, ibv_srq_attr *srq_attr, int srq_attr_mask,
		       ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size);
int ibv_cmd_query_srq(ibv_srq *srq, ibv_srq_attr *srq_attr,
		      ib_uverbs_cmd_hdr *cmd, std::size_t cmd_size);
int ibv_cmd_destroy_srq(ibv_srq *srq);

/*
 * XRC.  ibv_cmd_open_xrcd sends attr's fd and oflags (OPEN_XRCD, { hdr;
 * ib_uverbs_open_xrcd }, 24 bytes, 4-byte response) and sets xrcd's
 * context and handle; ibv_cmd_close_xrcd destroys it.
 * ibv_cmd_create_srq_ex creates an SRQ of any type (the command buffer is
 * { hdr; ib_uverbs_create_xsrq } (56 bytes) and the tail, the response
 * ib_uverbs_create_srq_resp and the tail, as for ibv_cmd_create_srq) and
 * fills srq's handle and the verbs_srq fields.  ibv_cmd_open_qp opens an
 * existing XRC TGT QP of attr's domain (OPEN_QP, { hdr; ib_uverbs_open_qp
 * }, 40 bytes, the 32-byte ib_uverbs_create_qp_resp) and fills qp's
 * ibv_qp (no PD, CQs or SRQ; state IBV_QPS_UNKNOWN) and xrcd.
 */
int ibv_cmd_open_xrcd(ibv_context *context, verbs_xrcd *xrcd, int vxrcd_size,
		      ibv_xrcd_init_attr *attr, ib_uverbs_cmd_hdr *cmd,
		      std::size_t cmd_size, ib_uverbs_open_xrcd_resp *resp,
		      std::size_t resp_size);
int ibv_cmd_close_xrcd(verbs_xrcd *xrcd);
int ibv_cmd_create_srq_ex(ibv_context *context, verbs_srq *srq,
			  ibv_srq_init_attr_ex *attr_ex, ib_uverbs_cmd_hdr *cmd,
			  std::size_t cmd_size, ib_uverbs_create_srq_resp *resp,
			  std::size_t resp_size);
int ibv_cmd_open_qp(ibv_context *context, verbs_qp *qp, int vqp_sz,
		    ibv_qp_open_attr *attr, ib_uverbs_cmd_hdr *cmd,
		    std::size_t cmd_size, ib_uverbs_create_qp_resp *resp,
		    std::size_t resp_size);

/* printf-style log line to VERBS_LOG_FILE when VERBS_LOG_LEVEL >= level. */
void __verbs_log(verbs_context *context, std::uint32_t level,
		 const char *format, ...) __attribute__((format(printf, 3, 4)));

} /* extern "C" */

SROCE_IBVERBS_PRIVATE(verbs_register_driver_34);
SROCE_IBVERBS_PRIVATE(_verbs_init_and_alloc_context);
SROCE_IBVERBS_PRIVATE(verbs_uninit_context);
SROCE_IBVERBS_PRIVATE(verbs_set_ops);
SROCE_IBVERBS_PRIVATE(ibv_cmd_get_context);
SROCE_IBVERBS_PRIVATE(ibv_cmd_query_device_any);
SROCE_IBVERBS_PRIVATE(ibv_cmd_query_port);
SROCE_IBVERBS_PRIVATE(__verbs_log);
SROCE_IBVERBS_PRIVATE(ibv_cmd_alloc_pd);
SROCE_IBVERBS_PRIVATE(ibv_cmd_dealloc_pd);
SROCE_IBVERBS_PRIVATE(ibv_cmd_reg_mr);
SROCE_IBVERBS_PRIVATE(ibv_cmd_dereg_mr);
SROCE_IBVERBS_PRIVATE(ibv_cmd_advise_mr);
SROCE_IBVERBS_PRIVATE(ibv_cmd_alloc_dm);
SROCE_IBVERBS_PRIVATE(ibv_cmd_free_dm);
SROCE_IBVERBS_PRIVATE(ibv_cmd_reg_dm_mr);
SROCE_IBVERBS_PRIVATE(ibv_cmd_query_mr);
SROCE_IBVERBS_PRIVATE(ibv_cmd_rereg_mr);
SROCE_IBVERBS_PRIVATE(ibv_cmd_alloc_mw);
SROCE_IBVERBS_PRIVATE(ibv_cmd_dealloc_mw);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_ah);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_ah);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_cq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_cq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_resize_cq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_qp);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_qp_ex);
SROCE_IBVERBS_PRIVATE(ibv_cmd_modify_qp);
SROCE_IBVERBS_PRIVATE(ibv_cmd_query_qp);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_qp);
SROCE_IBVERBS_PRIVATE(ibv_cmd_attach_mcast);
SROCE_IBVERBS_PRIVATE(ibv_cmd_detach_mcast);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_flow);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_flow);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_srq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_modify_srq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_query_srq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_destroy_srq);
SROCE_IBVERBS_PRIVATE(ibv_cmd_open_xrcd);
SROCE_IBVERBS_PRIVATE(ibv_cmd_close_xrcd);
SROCE_IBVERBS_PRIVATE(ibv_cmd_create_srq_ex);
SROCE_IBVERBS_PRIVATE(ibv_cmd_open_qp);

#endif /* SROCE_PROVIDER_VERBS_ABI_CMD_H */
