/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resp.h - what the files of the responder share: request dispatch and
 * NAKs (resp.c), SEND and WRITE (resp_msg.c), READ and atomics
 * (resp_rdatomic.c), output (resp_out.c) and UD datagrams (resp_ud.c);
 * the responder resources.  Everything here runs under the QP lock.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <linux/log2.h>
#include <rdma/ib_verbs.h>

#include "qp.h"
#include "proto/sroce_proto.h"

struct sk_buff;
struct sroce_mr;
struct sroce_hdrs;
struct sroce_nfy;
struct sroce_pkt;
struct sroce_qp;

/* What a responder resource answers (struct sroce_res.type). */
enum sroce_res_type {
	SROCE_RES_NONE,
	SROCE_RES_READ,
	SROCE_RES_ATOMIC,
	SROCE_RES_ATOMIC_WRITE,	/* answered by a READ response of no data */
};

/**
 * struct sroce_res - a responder resource: an RDMA READ, atomic or atomic
 *	write request accepted, with what its responses need
 * @type: enum sroce_res_type
 * @replay: answers a duplicate request again (max_dest_rd_atomic counts
 *	the others)
 * @first_psn: PSN of the request, and of the first response
 * @last_psn: PSN of the last response
 * @cur_psn: READ: PSN of the next response packet to send
 * @msn: the MSN the responses carry
 * @mr: READ: the region read, with a reference while responses remain
 *	to be sent (NULL for a zero-length READ and once sent)
 * @va: READ: address of the byte at @first_psn
 * @len: READ: bytes from @va
 * @rkey: READ: the rkey of the request (a duplicate must name it)
 * @orig: atomic: the original value, returned again to a duplicate
 * @pd: READ: the PD its key is checked against for every response (the
 *	QP's, or for an XRC TGT QP the SRQ's the request named); compared,
 *	never dereferenced
 */
struct sroce_res {
	u8 type;
	bool replay;
	u32 first_psn;
	u32 last_psn;
	u32 cur_psn;
	u32 msn;
	struct sroce_mr *mr;
	u64 va;
	u32 len;
	u32 rkey;
	u64 orig;
	struct ib_pd *pd;
};

/*
 * Responder resources kept: answered ones stay for duplicates.  At least
 * twice the most a requester may have outstanding (max_dest_rd_atomic): a
 * go-back answers each of those again, and their answers before must stay
 * findable meanwhile.  A power of two, allocated when max_dest_rd_atomic
 * is set (sroce_resp_res_alloc()).
 */
static inline u32 sroce_res_ring_size(u32 max_dest_rd_atomic)
{
	return max_dest_rd_atomic ?
		roundup_pow_of_two(2 * max_dest_rd_atomic) : 0;
}

/* The responder resource of free-running index @index; lock held. */
static inline struct sroce_res *sroce_resp_res_at(struct sroce_qp *qp,
						  u32 index)
{
	return &qp->resp.res[index & (qp->resp.res_size - 1)];
}

/* resp_rdatomic.c: the ring of responder resources */
void sroce_resp_res_reset(struct sroce_qp *qp);

/* The ACK syndrome: no end-to-end credits, as rdma_rxe and most NICs. */
#define SROCE_RESP_SYN_ACK	sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID)

/* resp.c */
void sroce_resp_epsn_set(struct sroce_qp *qp, u32 psn);
void sroce_resp_msn_next(struct sroce_qp *qp);
void sroce_resp_odp_defer(struct sroce_qp *qp, struct sroce_mr *mr, u64 va,
			  u64 len, const struct sroce_pkt *pkt,
			  struct sroce_nfy *nfy);
void sroce_resp_fail(struct sroce_qp *qp, enum sroce_nak_code code,
		     enum ib_wc_status status, const struct sroce_pkt *pkt,
		     struct sroce_nfy *nfy);
void sroce_resp_invalid(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			struct sroce_nfy *nfy);
void sroce_resp_refused(struct sroce_qp *qp, int err,
			const struct sroce_pkt *pkt, struct sroce_nfy *nfy);
struct ib_pd *sroce_resp_pd(struct sroce_qp *qp);
int sroce_resp_rkey(struct sroce_qp *qp, int access, u32 rkey, u64 va,
		    u64 len, struct sroce_mr **mr);
void sroce_resp_rnr_nak(struct sroce_qp *qp, u32 psn);
void sroce_resp_odp_nak(struct sroce_qp *qp, u32 psn);

/* resp_msg.c: the receive WQE in use (struct sroce_resp.rwqe, rq_cons) */
bool sroce_resp_take_rwqe(struct sroce_qp *qp, enum ib_wc_status *status);
void sroce_resp_rwqe_release(struct sroce_qp *qp);
void sroce_resp_rwqe_drop(struct sroce_qp *qp);
void sroce_resp_rq_consume(struct sroce_qp *qp);
void sroce_resp_msg_reset(struct sroce_qp *qp);
void sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
			 enum ib_wc_opcode opcode, u32 byte_len,
			 const struct sroce_pkt *pkt, const struct sroce_hdrs *h,
			 struct sroce_nfy *nfy);
void sroce_resp_end_write(struct sroce_qp *qp);
void sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_pkt *pkt, struct sroce_nfy *nfy);
void sroce_resp_write(struct sroce_qp *qp, struct sk_buff *skb,
		      const struct sroce_pkt *pkt, struct sroce_nfy *nfy);

/* resp_rdatomic.c */
void sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt *pkt,
		     struct sroce_nfy *nfy);
void sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt *pkt,
		       struct sroce_nfy *nfy);
void sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt *pkt,
			     struct sroce_nfy *nfy);
void sroce_resp_replay(struct sroce_qp *qp, const struct sroce_pkt *pkt);

/* resp_out.c: the ACK owed and the responses left to send */
void sroce_resp_set_ack(struct sroce_qp *qp, u8 syndrome, u32 psn);
void sroce_resp_ack_drop(struct sroce_qp *qp);
void sroce_resp_drop_res(struct sroce_qp *qp);
void sroce_resp_out_reset(struct sroce_qp *qp);

/* resp_ud.c */
/* resp_sr.c: selective repeat (sr_on, sr_held) */
struct sroce_sack;
void sroce_resp_sr_begin(struct sroce_qp *qp, const struct sroce_pkt *pkt);
bool sroce_resp_sr_hold(struct sroce_qp *qp, struct sk_buff *skb,
			const struct sroce_pkt *pkt);
struct sk_buff *sroce_resp_sr_next(struct sroce_qp *qp);
void sroce_resp_sr_ack(struct sroce_qp *qp);
void sroce_resp_sr_map(struct sroce_qp *qp, struct sroce_sack *sack);
void sroce_resp_sr_drop(struct sroce_qp *qp);
void sroce_resp_sr_reset(struct sroce_qp *qp);

void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt *pkt, struct sroce_nfy *nfy);

#endif /* SROCE_RESP_H */
