// SPDX-License-Identifier: GPL-2.0
/*
 * recv.c - validation of received RoCEv2 packets.
 *
 * A datagram arrives from the device's socket (socket.c) as an skb whose data
 * starts at the UDP header and whose length is the UDP length; the IP
 * header sits before it in the linear area.  The skb may be non-linear:
 * the headers the protocol core parses are copied to the stack (at most
 * 88 bytes), the ICRC runs over the rest where it lies (skb_seq_read()),
 * and nothing is read beyond skb->len.
 *
 * Every datagram is counted once under its fate (counters.h).  A valid
 * packet goes to its destination QP, found by number: to the responder for
 * a request, to the completer for a response (ACK/NAK).  It is dropped
 * when no such QP exists, when it fails the checks that need the QP (its
 * transport, the path MTU) or when it does not come from the QP's peer.
 * A packet with the multicast QPN or to a multicast address goes to
 * mcast.c instead (sroce_mcast_rcv()).  Congestion control (cc.c): a
 * congestion notification (CNP) from a connected QP's peer slows the QP it
 * names, and a CE-marked packet for a connected QP makes the device send
 * one to the peer QP.
 */
#include <linux/skbuff.h>
#include <linux/if_ether.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "mcast.h"
#include "net.h"
#include "proto/sroce_proto.h"

/**
 * sroce_skb_icrc_feed() - continue an ICRC over part of an skb
 * @skb: the packet, linear or not
 * @from: offset of the first byte, from skb->data
 * @to: offset past the last byte, at most skb->len
 * @ic: the ICRC, started with sroce_icrc_start()
 *
 * Reads the linear part, page fragments and the frag list in place.
 */
void sroce_skb_icrc_feed(struct sk_buff *skb, unsigned int from,
			 unsigned int to, struct sroce_icrc *ic)
{
	struct skb_seq_state st;
	unsigned int consumed = 0, len = to - from, n;
	const u8 *data;

	skb_prepare_seq_read(skb, from, to, &st);
	while (consumed < len) {
		n = skb_seq_read(consumed, &data, &st);
		if (!n)
			break;
		/* a block may extend beyond @to */
		n = min(n, len - consumed);
		sroce_icrc_feed(ic, data, n);
		consumed += n;
	}
	skb_abort_seq_read(&st);
}

/*
 * Copies and parses the headers: IP, UDP, transport (no ICRC).  Reads at
 * most skb->len bytes from skb->data.
 */
static enum sroce_rx_reason sroce_skb_parse(struct sk_buff *skb,
					    struct sroce_pkt *pkt, u8 *hdr,
					    struct sroce_net *net, u16 ext)
{
	u32 iphlen, nhl, udp_paylen, copy;
	enum sroce_rx_reason r;

	switch (skb->protocol) {
	case htons(ETH_P_IP):
		iphlen = SROCE_IPV4_HLEN;
		break;
	case htons(ETH_P_IPV6):
		iphlen = SROCE_IPV6_HLEN;
		break;
	default:
		return SROCE_RX_BAD_IP_VERSION;
	}
	/*
	 * The stack pulled the whole IP header into the linear area; with
	 * IPv4 options or IPv6 extension headers it is longer than iphlen,
	 * and the protocol core rejects the fixed part copied here.
	 */
	if (skb_network_header_len(skb) < iphlen ||
	    skb->len < SROCE_UDP_HLEN)
		return SROCE_RX_TRUNCATED;
	memcpy(hdr, skb_network_header(skb), iphlen);
	copy = min_t(u32, skb->len, SROCE_UDP_HLEN + SROCE_MAX_EXT_HDR_LEN);
	if (skb_copy_bits(skb, 0, hdr + iphlen, copy))
		return SROCE_RX_TRUNCATED;

	/*
	 * The core parsers read only the headers, which are in hdr; the
	 * lengths they check are those of the whole datagram.
	 */
	r = sroce_net_parse(hdr, iphlen + skb->len, net, &udp_paylen);
	if (r != SROCE_RX_OK)
		return r;
	nhl = sroce_net_hlen(net);
	if (nhl != iphlen + SROCE_UDP_HLEN)	/* IP version vs. protocol */
		return SROCE_RX_BAD_IP_VERSION;
	return sroce_pkt_parse_ext(pkt, hdr + nhl, udp_paylen,
				   SROCE_DEFAULT_PKEY, ext);
}

/* Validates the datagram: headers (sroce_skb_parse()), then the ICRC. */
static enum sroce_rx_reason sroce_skb_check(struct sk_buff *skb,
					    struct sroce_pkt *pkt, u8 *hdr,
					    struct sroce_net *net, u16 ext)
{
	u32 iphlen = skb->protocol == htons(ETH_P_IP) ? SROCE_IPV4_HLEN :
							 SROCE_IPV6_HLEN;
	enum sroce_rx_reason r;
	struct sroce_icrc ic;
	__le32 wire_buf;
	const void *wire;
	u32 nhl, icrc_pos;

	r = sroce_skb_parse(skb, pkt, hdr, net, ext);
	if (r != SROCE_RX_OK)
		return r;
	nhl = sroce_net_hlen(net);
	sroce_icrc_start(&ic, hdr, net->ipv6, hdr + iphlen, hdr + nhl);
	icrc_pos = SROCE_UDP_HLEN + sroce_pkt_icrc_off(pkt);
	sroce_skb_icrc_feed(skb, SROCE_UDP_HLEN + SROCE_BTH_LEN, icrc_pos, &ic);
	wire = skb_header_pointer(skb, icrc_pos, SROCE_ICRC_LEN, &wire_buf);
	if (!wire)
		return SROCE_RX_TRUNCATED;
	if (sroce_icrc_get(wire) != sroce_icrc_finish(&ic))
		return SROCE_RX_BAD_ICRC;
	/* pkt points into hdr: its headers, never its payload. */
	return SROCE_RX_OK;
}

/* The QP's checks; the reason to drop, or SROCE_RX_OK. */
static enum sroce_rx_reason sroce_skb_check_qp(struct sroce_qp *qp,
					       const struct sroce_pkt *pkt,
					       const struct sroce_net *net)
{
	enum sroce_rx_reason r;

	/* A raw packet QP takes frames through its flows, never RoCE. */
	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		return SROCE_RX_BAD_TRANSPORT;
	if (sroce_qp_is_ud(qp))
		return sroce_pkt_check_qp(pkt, SROCE_TRANSPORT_UD,
					  SROCE_MAX_PMTU);
	r = sroce_pkt_check_qp(pkt, sroce_qp_transport(qp), qp->pmtu);
	if (r != SROCE_RX_OK)
		return r;
	/*
	 * An extension packet only where the negotiation granted it: a
	 * request where our answer granted selective repeat, a response
	 * where the peer's did (ext.h); else it is an unknown opcode, as it
	 * was before extensions existed.
	 */
	if ((pkt->info->flags & SROCE_OPF_SXH) &&
	    !((pkt->info->flags & SROCE_OPF_REQ) ? sroce_qp_sack_rx(qp) :
						   sroce_qp_sack_tx(qp)))
		return SROCE_RX_BAD_OPCODE;
	/* An XRC INI QP takes only responses, an XRC TGT QP only requests. */
	if ((qp->ibqp.qp_type == IB_QPT_XRC_INI &&
	     (pkt->info->flags & SROCE_OPF_REQ)) ||
	    (qp->ibqp.qp_type == IB_QPT_XRC_TGT &&
	     (pkt->info->flags & SROCE_OPF_RESP)))
		return SROCE_RX_BAD_TRANSPORT;
	/* Only the peer of the path talks to a connected QP. */
	if (memcmp(net->saddr, qp->av.dgid.raw, sizeof(net->saddr)))
		return SROCE_RX_REASON_NR;
	return SROCE_RX_OK;
}

/*
 * A CNP is counted (rx_cnp) whatever it names; it slows the QP it names
 * when it comes from the QP's peer.
 */
static void sroce_skb_cnp(struct sroce_dev *sdev, const struct sroce_pkt *pkt,
			  const struct sroce_net *net)
{
	struct sroce_qp *qp = sroce_qp_get(sdev, pkt->bth.dqpn);

	if (!qp)
		return;
	if (sroce_skb_check_qp(qp, pkt, net) == SROCE_RX_OK)
		sroce_cc_rp_cnp(qp);
	sroce_qp_put(qp);
}

/*
 * An unknown opcode: is it an extension one (sxh.h) for a QP whose
 * negotiation granted it (ext.h)?  Only then is it parsed as one; to any
 * other QP it stays an unknown opcode, exactly as before extensions
 * existed, and to a QPN with no QP it is dropped as one to no QP (a
 * selective ACK that comes after its QP was destroyed is no error).
 * @hdr holds the headers sroce_skb_check() copied, @net the network part
 * it parsed.  Return: 1 when granted, 0 when not, -ENOENT for no QP.
 */
static int sroce_skb_sxh_granted(struct sroce_dev *sdev, const u8 *hdr,
				 const struct sroce_net *net)
{
	const u8 *bth = hdr + sroce_net_hlen(net);
	const struct sroce_opcode_info *info = sroce_opcode_lookup(bth[0]);
	struct sroce_qp *qp;
	bool ok;

	if (!(info->flags & SROCE_OPF_SXH))
		return 0;
	qp = sroce_qp_get(sdev, sroce_get_be32(bth + 4) & SROCE_QPN_MASK);
	if (!qp)
		return -ENOENT;
	ok = (info->flags & SROCE_OPF_REQ) ? sroce_qp_sack_rx(qp) :
					      sroce_qp_sack_tx(qp);
	sroce_qp_put(qp);
	return ok;
}

/**
 * sroce_skb_rcv() - receive one datagram of a device
 * @sdev: the device bound to the netdev the datagram arrived on; the
 *	caller holds a reference on it
 * @skb: the datagram, data at the UDP header; consumed
 *
 * Called in softirq from the socket's encap_rcv.
 */
void sroce_skb_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	u8 hdr[SROCE_RX_HDR_BUF];
	enum sroce_counter fate;
	enum sroce_rx_reason r;
	struct sroce_net net;
	struct sroce_pkt pkt;
	struct sroce_qp *qp;
	unsigned int bytes = skb->len - min_t(unsigned int, skb->len,
					      SROCE_UDP_HLEN);

	r = sroce_skb_check(skb, &pkt, hdr, &net, 0);
	if (r == SROCE_RX_BAD_OPCODE) {
		int granted = sroce_skb_sxh_granted(sdev, hdr, &net);

		if (granted < 0) {
			fate = SROCE_CNT_RX_DROP_NO_QP;
			goto out_free;
		}
		if (granted)
			r = sroce_skb_check(skb, &pkt, hdr, &net,
					    SROCE_SXH_KNOWN);
	}
	if (r != SROCE_RX_OK) {
		fate = sroce_counter_rx_err(r);
		goto out_free;
	}
	if (pkt.info->flags & SROCE_OPF_CNP) {
		fate = SROCE_CNT_RX_CNP;
		sroce_skb_cnp(sdev, &pkt, &net);
		goto out_free;
	}
	if (pkt.bth.dqpn == IB_MULTICAST_QPN || sroce_mcast_addr(net.daddr)) {
		fate = sroce_mcast_rcv(sdev, skb, &pkt, &net);
		goto out_free;
	}
	qp = sroce_qp_get(sdev, pkt.bth.dqpn);
	if (!qp) {
		fate = SROCE_CNT_RX_DROP_NO_QP;
		goto out_free;
	}
	r = sroce_skb_check_qp(qp, &pkt, &net);
	if (r == SROCE_RX_OK) {
		fate = SROCE_CNT_RX_QP;
		if ((net.tos & SROCE_ECN_MASK) == SROCE_ECN_CE)
			sroce_cc_np_ce(qp);
		if (pkt.info->flags & SROCE_OPF_REQ)
			sroce_resp_rcv(qp, skb, &pkt);
		else
			sroce_comp_rcv(qp, skb, &pkt);
	} else if (r == SROCE_RX_REASON_NR) {
		fate = SROCE_CNT_RX_DROP_NOT_PEER;
	} else {
		fate = sroce_counter_rx_err(r);
	}
	sroce_qp_put(qp);
out_free:
	sroce_stats_rx(sdev->stats, fate, bytes);
	kfree_skb(skb);
}

/**
 * sroce_skb_reparse() - parse the headers of a datagram taken before
 * @skb: the datagram, checked whole by sroce_skb_rcv() when it came
 * @pkt: its headers, pointing into @hdr
 * @hdr: SROCE_RX_HDR_BUF bytes
 *
 * For the responder's held requests (resp_sr.c): the ICRC was checked,
 * and parsing again what passed then passes again.
 *
 * Return: 0, or -EINVAL if it does not parse (cannot happen).
 */
int sroce_skb_reparse(struct sk_buff *skb, struct sroce_pkt *pkt, u8 *hdr)
{
	struct sroce_net net;

	return sroce_skb_parse(skb, pkt, hdr, &net, SROCE_SXH_KNOWN) ==
	       SROCE_RX_OK ? 0 : -EINVAL;
}
