/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resp.h - what the files of the responder share: request dispatch and
 * NAKs (resp.c), SEND and WRITE (resp_msg.c), READ and atomics
 * (rdatomic.c), output (resp_out.c) and UD datagrams (ud.c).  Everything
 * here runs under the QP lock.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <rdma/ib_verbs.h>

#include "proto/sroce_proto.h"

struct sk_buff;
struct sroce_mr;
struct sroce_hdrs;
struct sroce_nfy;
struct sroce_pkt;
struct sroce_qp;

/* The ACK syndrome: no end-to-end credits, as rdma_rxe and most NICs. */
#define SROCE_RESP_SYN_ACK	sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID)

/* resp.c */
void sroce_resp_set_ack(struct sroce_qp *qp, u8 syndrome, u32 psn);
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
bool sroce_resp_take_rwqe(struct sroce_qp *qp, enum ib_wc_status *status);
void sroce_resp_drop_res(struct sroce_qp *qp);
void sroce_resp_rnr_nak(struct sroce_qp *qp, u32 psn);
void sroce_resp_odp_nak(struct sroce_qp *qp, u32 psn);

/* resp_msg.c */
void sroce_resp_complete(struct sroce_qp *qp, enum ib_wc_status status,
			 enum ib_wc_opcode opcode, u32 byte_len,
			 const struct sroce_pkt *pkt, const struct sroce_hdrs *h,
			 struct sroce_nfy *nfy);
void sroce_resp_end_write(struct sroce_qp *qp);
void sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb,
		     const struct sroce_pkt *pkt, struct sroce_nfy *nfy);
void sroce_resp_write(struct sroce_qp *qp, struct sk_buff *skb,
		      const struct sroce_pkt *pkt, struct sroce_nfy *nfy);

/* rdatomic.c */
void sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt *pkt,
		     struct sroce_nfy *nfy);
void sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt *pkt,
		       struct sroce_nfy *nfy);
void sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb,
			     const struct sroce_pkt *pkt,
			     struct sroce_nfy *nfy);
void sroce_resp_replay(struct sroce_qp *qp, const struct sroce_pkt *pkt);

/* ud.c */
void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt *pkt, struct sroce_nfy *nfy);

#endif /* SROCE_RESP_H */
