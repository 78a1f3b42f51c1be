/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * wr_builder.h - the send requests of the ibv_wr_*() post API
 * (ibv_wr_post(3)) as a batch of WQEs: each opcode builder opens a request,
 * the setters (ibv_wr_set_sge, _sge_list, _inline_data, _inline_data_list,
 * _ud_addr) fill it, and it is encoded into its ring slot by the same
 * encoder as ibv_post_send() (encode_send_wqe, wqe.h) when the next one
 * opens or the batch completes.  ibv_wr_complete() publishes the batch
 * all at once, or nothing when any request of it failed; ibv_wr_abort()
 * drops it.
 *
 * Pure logic over memory like wqe.h: qp_ex.cpp adds the lock, which is
 * held from ibv_wr_start() to ibv_wr_complete() or ibv_wr_abort(), the QP
 * state check and the doorbell.
 *
 * Inline data is copied into the builder's own buffer when it is set (the
 * caller may reuse its buffer as soon as the setter returns) and encoded
 * from there as IBV_SEND_INLINE; a gather list is kept by value; an
 * atomic write's 8 bytes are copied when it opens.
 */
#ifndef SROCE_PROVIDER_WR_BUILDER_H
#define SROCE_PROVIDER_WR_BUILDER_H

#include <cstddef>
#include <cstdint>

#include <infiniband/verbs.h>

#include "pd.h"
#include "wqe.h"

namespace sroce {

/* Trivial: it lives in the zero-filled struct qp. */
struct wr_builder {
	ibv_send_wr wr; /* the open request */
	ibv_sge *sges; /* max_sge entries: its gather list */
	unsigned char *inl; /* max_inline bytes: its inline data */
	obj_mem mem; /* of the one block holding sges, then inl */
	std::uint32_t max_sge; /* sizes of sges and inl */
	std::uint32_t max_inline;
	std::uint32_t prod; /* the slot of the next request */
	int err; /* the batch's first error, or 0 */
	bool open; /* wr is a request not yet encoded */
	unsigned char atomic_wr[8]; /* an open atomic write's 8 bytes */
};

/*
 * The buffers for a QP's limits (sges: at least one entry), in one block
 * from obj_alloc() on the QP's PD or parent domain (nullptr: calloc()); 0
 * or ENOMEM.  wrb_free() frees them (also after a failed wrb_alloc()).
 */
int wrb_alloc(wr_builder &b, std::uint32_t max_sge, std::uint32_t max_inline,
	      ibv_pd *pd = nullptr) noexcept;
void wrb_free(wr_builder &b) noexcept;

/* ibv_wr_start(): a new batch from the queue's producer index. */
void wrb_start(wr_builder &b, const work_queue &wq) noexcept;

/*
 * An opcode builder: encodes the open request, if any, then opens one of
 * opcode with wr_id and send_flags (ibv_qp_ex.wr_id and wr_flags) and no
 * data.  The caller fills the opcode's fields in b.wr.
 */
void wrb_open(wr_builder &b, work_queue &wq, ibv_qp_type qp_type,
	      ibv_wr_opcode opcode, std::uint64_t wr_id,
	      unsigned int send_flags) noexcept;

/*
 * The setters.  Each fails the batch (EINVAL) without an open request,
 * with more SGEs than max_sge or more inline bytes than max_inline.
 */
void wrb_set_sge_list(wr_builder &b, std::size_t num_sge,
		      const ibv_sge *sg_list) noexcept;
void wrb_set_inline_list(wr_builder &b, std::size_t num_buf,
			 const ibv_data_buf *buf_list) noexcept;
void wrb_set_ud_addr(wr_builder &b, ibv_ah *ah, std::uint32_t remote_qpn,
		     std::uint32_t remote_qkey) noexcept;
/* XRC INI QPs: the XRC SRQ at the target (ibv_wr_set_xrc_srqn()). */
void wrb_set_xrc_srqn(wr_builder &b, std::uint32_t remote_srqn) noexcept;
/*
 * The 8 bytes of the open atomic write (ibv_wr_atomic_write()), copied
 * now; EINVAL for the batch without an open atomic write or with NULL.
 * The request takes no SGE or inline data: a setter called on it fails
 * the batch when it is encoded.
 */
void wrb_set_atomic_wr(wr_builder &b, const void *atomic_wr) noexcept;

/*
 * ibv_wr_complete(): encodes the open request and publishes the batch;
 * returns 0 and *posted (the WQEs published), or the batch's first error
 * with nothing published (the slots written are overwritten by the next
 * batch).
 */
int wrb_complete(wr_builder &b, work_queue &wq, ibv_qp_type qp_type,
		 std::uint32_t *posted) noexcept;

/* ibv_wr_abort(): nothing of the batch is published. */
void wrb_abort(wr_builder &b) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_WR_BUILDER_H */
