// SPDX-License-Identifier: GPL-2.0
/*
 * resp_ud.c - datagrams for UD QPs (and the GSI QP, UD on the wire): the
 * receive of one datagram into a QP (a multicast datagram comes here once
 * per attached QP from sroce_mcast_rcv(), mcast.c).
 *
 * Nothing from the network can put a UD QP in ERROR: a wrong Q_Key or no
 * receive posted drops the datagram (counted), a message too long for the
 * receive completes it with IB_WC_LOC_LEN_ERR.  Only a receive WQE failing
 * its checks, the consumer's own fault, moves the QP to ERROR.
 */
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>

#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "mcast.h"
#include "resp.h"
#include "proto/sroce_proto.h"

/*
 * A datagram for a UD (or the GSI) QP; lock held.  A wrong Q_Key, or no
 * receive posted, drops it (counted).  The receive gets the IP header in
 * its first 40 bytes as the GRH (IPv4: 20 zero bytes, then the header),
 * then the payload.  A message too long for the receive completes it with
 * IB_WC_LOC_LEN_ERR and leaves the QP as it is (the sender's doing); a
 * receive WQE failing its checks is the consumer's, and moves the QP to
 * ERROR as on RC.
 */
void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt *pkt, struct sroce_nfy *nfy)
{
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	struct sroce_cqe cqe = { .opcode = IB_WC_RECV };
	u8 grh[SROCE_GRH_LEN] = {};
	enum ib_wc_status status;
	struct sroce_hdrs h;

	lockdep_assert_held(&qp->lock);
	sroce_pkt_hdrs(pkt, &h);
	if (h.deth.qkey != qp->attr.qkey) {
		sroce_stats_inc(stats, SROCE_CNT_QKEY_DROPS);
		return;
	}
	if (!sroce_resp_take_rwqe(qp, &status)) {
		sroce_stats_inc(stats, SROCE_CNT_NO_RECV_DROPS);
		return;
	}
	if (ip_hdr(skb)->version == 6) {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
		cqe.network_hdr_type = RDMA_NETWORK_IPV6;
	} else {
		memcpy(grh + SROCE_GRH_LEN - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
		cqe.network_hdr_type = RDMA_NETWORK_IPV4;
	}
	if (status)
		cqe.status = status;
	else if (pkt->paylen > qp->resp.rwqe.length ||
		 qp->resp.rwqe.length - pkt->paylen < SROCE_GRH_LEN)
		cqe.status = IB_WC_LOC_LEN_ERR;
	else if (sroce_sge_copy(qp->resp.rwqe.sge, qp->resp.rwqe.num_sge, 0,
				grh, SROCE_GRH_LEN, SROCE_MR_FROM_BUF) ||
		 sroce_sge_scatter_skb(qp->resp.rwqe.sge, qp->resp.rwqe.num_sge,
				       SROCE_GRH_LEN, skb,
				       SROCE_UDP_HLEN + pkt->hdr_len,
				       pkt->paylen))
		cqe.status = IB_WC_LOC_PROT_ERR;

	cqe.wr_id = qp->resp.rwqe.wr_id;
	if (!cqe.status) {
		cqe.byte_len = SROCE_GRH_LEN + pkt->paylen;
		cqe.src_qp = h.deth.sqpn;
		cqe.wc_flags = SROCE_WC_F_GRH;
		if (pkt->info->flags & SROCE_OPF_IMM) {
			cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
			cqe.imm_data = (__force u32)cpu_to_be32(h.imm);
		}
	} else {
		cqe.network_hdr_type = 0;
	}
	sroce_resp_rwqe_release(qp);
	/* The slot is free before its completion shows (the uapi). */
	sroce_resp_rq_consume(qp);
	sroce_qp_complete(qp, sroce_qp_recv_cq(qp), &cqe,
			  !cqe.status && (pkt->bth.flags & SROCE_BTHF_SE), nfy);
	if (cqe.status && cqe.status != IB_WC_LOC_LEN_ERR)
		sroce_qp_error(qp, nfy);
}
