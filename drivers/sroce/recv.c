// SPDX-License-Identifier: GPL-2.0
/*
 * recv.c - validation of received RoCEv2 packets.
 *
 * A datagram arrives from the device's socket (net.c) as an skb whose data
 * starts at the UDP header and whose length is the UDP length; the IP
 * header sits before it in the linear area.  The skb may be non-linear:
 * the headers the protocol core parses are copied to the stack (at most
 * 88 bytes), the ICRC runs over the rest where it lies (skb_seq_read()),
 * and nothing is read beyond skb->len.
 *
 * Every datagram is counted once under its fate (counters.h).  There are no
 * queue pairs yet, so a valid packet ends as rx_drop_no_qp.
 */
#include <linux/skbuff.h>
#include <linux/if_ether.h>

#include "sroce.h"
#include "counters.h"
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
 * Validates the datagram: IP and UDP headers, transport headers, ICRC.
 * Reads at most skb->len bytes from skb->data.
 */
static enum sroce_rx_reason sroce_skb_check(struct sk_buff *skb,
					    struct sroce_pkt *pkt)
{
	/* IP header without options, UDP header, the longest BTH + ext. */
	u8 hdr[SROCE_MAX_NET_HLEN + SROCE_MAX_HDR_LEN];
	u32 iphlen, nhl, udp_paylen, icrc_pos, copy;
	enum sroce_rx_reason r;
	struct sroce_net net;
	struct sroce_icrc ic;
	__le32 wire_buf;
	const void *wire;

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
	copy = min_t(u32, skb->len, SROCE_UDP_HLEN + SROCE_MAX_HDR_LEN);
	if (skb_copy_bits(skb, 0, hdr + iphlen, copy))
		return SROCE_RX_TRUNCATED;

	/*
	 * The core parsers read only the headers, which are in hdr; the
	 * lengths they check are those of the whole datagram.
	 */
	r = sroce_net_parse(hdr, iphlen + skb->len, &net, &udp_paylen);
	if (r != SROCE_RX_OK)
		return r;
	nhl = sroce_net_hlen(&net);
	if (nhl != iphlen + SROCE_UDP_HLEN)	/* IP version vs. protocol */
		return SROCE_RX_BAD_IP_VERSION;
	r = sroce_pkt_parse(pkt, hdr + nhl, udp_paylen, SROCE_DEFAULT_PKEY);
	if (r != SROCE_RX_OK)
		return r;

	sroce_icrc_start(&ic, hdr, net.ipv6, hdr + iphlen, hdr + nhl);
	icrc_pos = SROCE_UDP_HLEN + sroce_pkt_icrc_off(pkt);
	sroce_skb_icrc_feed(skb, SROCE_UDP_HLEN + SROCE_BTH_LEN, icrc_pos, &ic);
	wire = skb_header_pointer(skb, icrc_pos, SROCE_ICRC_LEN, &wire_buf);
	if (!wire)
		return SROCE_RX_TRUNCATED;
	if (sroce_icrc_get(wire) != sroce_icrc_finish(&ic))
		return SROCE_RX_BAD_ICRC;
	/*
	 * pkt points into hdr: whoever uses more of it than the headers must
	 * reparse from the skb.
	 */
	pkt->hdr = NULL;
	return SROCE_RX_OK;
}

/**
 * sroce_skb_recv() - receive one datagram of a device
 * @sdev: the device bound to the netdev the datagram arrived on; the
 *	caller holds a reference on it
 * @skb: the datagram, data at the UDP header; consumed
 *
 * Called in softirq from the socket's encap_rcv.
 */
void sroce_skb_recv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	enum sroce_rx_reason r;
	struct sroce_pkt pkt;
	unsigned int bytes = skb->len - min_t(unsigned int, skb->len,
					      SROCE_UDP_HLEN);

	r = sroce_skb_check(skb, &pkt);
	if (r != SROCE_RX_OK) {
		sroce_stats_rx(sdev->stats, sroce_counter_rx_err(r), bytes);
		kfree_skb(skb);
		return;
	}
	/* No queue pairs yet: every valid packet lacks its destination. */
	sroce_stats_rx(sdev->stats, SROCE_CNT_RX_DROP_NO_QP, bytes);
	kfree_skb(skb);
}
