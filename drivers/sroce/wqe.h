/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wqe.h - the kernel's copies of work requests: send WQEs (struct
 * sroce_swqe) and the receive WQE in use (struct sroce_rwqe), the local
 * SGEs they hold with region references (wqe.c), the units an RDMA READ
 * asks in, and the kernel's post verbs (post.c).
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "ah.h"
#include "mr.h"
#include "param.h"
#include "proto/seg.h"

struct sk_buff;
struct sroce_mr;
struct sroce_qp;
struct sroce_queue;

/**
 * struct sroce_sge_ref - a validated local SGE
 * @mr: the region, with a reference (NULL for an empty SGE)
 * @addr: first byte
 * @length: bytes
 */
struct sroce_sge_ref {
	struct sroce_mr *mr;
	u64 addr;
	u32 length;
};

/* Where a send WQE stands (struct sroce_swqe.state). */
enum sroce_swqe_state {
	SROCE_SWQE_PENDING,	/* fetched, not completely sent */
	SROCE_SWQE_SENT,	/* every packet sent, waiting for the ACK */
	SROCE_SWQE_ERROR,	/* failed locally: completes with @status */
};

/**
 * struct sroce_swqe - the kernel's copy of a send WQE
 * @wr_id: from the WQE
 * @opcode: enum ib_uverbs_wr_opcode
 * @send_flags: enum ib_uverbs_send_flags
 * @imm: ImmDt as on the wire, or the rkey to invalidate (host order)
 * @length: total payload bytes
 * @num_sge: entries of @sge used (0 for inline)
 * @state: enum sroce_swqe_state
 * @numbered: @first_psn and @last_psn are set (its first packet went out,
 *	or, for a local operation, it was executed)
 * @status: the completion status of an SROCE_SWQE_ERROR entry
 * @op: the operation's own fields, as the WQE had them (uapi)
 * @xrc_srqn: XRC INI QP: the XRC SRQ at the target (every packet's XRCETH)
 * @first_psn: PSN of the first packet, set when it is first sent
 * @last_psn: PSN of the last packet (of the last response for a READ)
 * @dqpn: UD: the destination QP
 * @qkey: UD: the Q_Key the DETH carries
 * @av: UD: the address, copied from the WQE's AH when it was fetched
 * @rd_ends: RDMA READ: bit k set when a request sent ends with unit k
 *	(sroce_rd_unit()); one asking again from within it ends there too
 * @sge: the gather list, with region references; room for the QP's
 *	max_send_sge entries or, for an inline WQE, its max_inline_data
 *	bytes of payload (struct sroce_qp.swqe_size covers both)
 */
struct sroce_swqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	u32 imm;
	u32 length;
	u32 num_sge;
	u8 state;
	bool numbered;
	u8 status;
	union sroce_wqe_op op;
	u32 xrc_srqn;
	u32 first_psn;
	u32 last_psn;
	u32 dqpn;
	u32 qkey;
	struct sroce_av av;
	u64 rd_ends;
	struct sroce_sge_ref sge[];
};

/*
 * A READ's responses come as one burst that the congestion window cannot
 * slow down once asked for, so a READ asks in pieces that fit the window
 * (sroce_req_rd_npsn()).  A piece ends at a unit boundary, a unit being at
 * least this many response packets (the requester's smallest window,
 * SROCE_REQ_WINDOW_MIN in engine.h) and at most 1/64 of the READ (the
 * pieces sent are one bit each of struct sroce_swqe.rd_ends).
 */
#define SROCE_REQ_RD_UNIT_MIN	16
#define SROCE_REQ_RD_UNITS	64

/*
 * The response packets of a unit of an RDMA READ of @npkts: the pieces a
 * READ asks in end at multiples of it, or with the READ.
 */
static inline u32 sroce_rd_unit(u32 npkts)
{
	return max_t(u32, SROCE_REQ_RD_UNIT_MIN,
		     DIV_ROUND_UP(npkts, SROCE_REQ_RD_UNITS));
}

/* The unit of RDMA READ WQE @w at path MTU @pmtu. */
static inline u32 sroce_swqe_rd_unit(const struct sroce_swqe *w, u32 pmtu)
{
	return sroce_rd_unit(sroce_seg_npkts(w->length, pmtu));
}

/**
 * struct sroce_rwqe - the kernel's copy of the receive WQE in use
 * @wr_id: from the WQE
 * @num_sge: entries of @sge
 * @length: sum of the SGE lengths
 * @sge: the scatter list, with region references
 */
struct sroce_rwqe {
	u64 wr_id;
	u32 num_sge;
	u32 length;
	struct sroce_sge_ref sge[SROCE_MAX_SGE];
};

/* wqe.c: SGEs and receive WQEs, for the engine and the post verbs */
void sroce_sge_put(struct sroce_sge_ref *sge, u32 n);
int sroce_rwqe_post(struct sroce_queue *rq, u32 cons, u32 max_sge,
		    const struct ib_recv_wr **wr);
enum ib_wc_status sroce_sge_load(struct sroce_qp *qp, struct ib_pd *pd,
				 const struct sroce_sge *usge, u32 num_sge,
				 int access, u64 max_len,
				 struct sroce_sge_ref *sge, u32 *loaded,
				 u64 *total);
enum ib_wc_status sroce_rwqe_load(struct sroce_qp *qp, struct ib_pd *pd,
				  const void *slot, u32 max_sge,
				  struct sroce_rwqe *r);
int sroce_sge_copy(const struct sroce_sge_ref *sge, u32 num_sge, u32 off,
		   void *buf, u32 len, enum sroce_mr_copy_dir dir);
int sroce_sge_scatter_skb(const struct sroce_sge_ref *sge, u32 num_sge,
			  u32 off, const struct sk_buff *skb, int skb_off,
			  u32 len);

/* post.c: the post verbs of kernel users */
int sroce_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr);
int sroce_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

#endif /* SROCE_WQE_H */
