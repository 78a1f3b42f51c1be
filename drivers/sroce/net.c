// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - transmission of RoCEv2 packets: packet buffers for a QP's
 * headers and payload, routing through the device's netdev, the IP and
 * UDP headers and the ICRC, and the hand-over to the IP layer.
 *
 * A device sends from its namespace's sockets (socket.c), which it holds
 * for its whole life.
 */
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "counters.h"
#include "net.h"
#include "proto/sroce_proto.h"

/* Route to @dst through the device's netdev; a dst reference or ERR_PTR. */
static struct dst_entry *sroce_net_route(struct sroce_dev *sdev,
					 const struct sroce_net *hdr)
{
	struct sock *sk;

	if (!hdr->ipv6) {
		struct flowi4 fl4 = {
			.flowi4_oif = sdev->ndev->ifindex,
			.flowi4_proto = IPPROTO_UDP,
			.flowi4_tos = RT_TOS(hdr->tos),
		};
		struct rtable *rt;

		memcpy(&fl4.saddr, hdr->saddr + 12, 4);
		memcpy(&fl4.daddr, hdr->daddr + 12, 4);
		rt = ip_route_output_key(sdev->net, &fl4);
		return IS_ERR(rt) ? ERR_CAST(rt) : &rt->dst;
	}
	sk = sroce_socket_sk(sdev->net, true);
	if (IS_ENABLED(CONFIG_IPV6) && sk) {
		struct flowi6 fl6 = {
			.flowi6_oif = sdev->ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
		};

		memcpy(&fl6.saddr, hdr->saddr, 16);
		memcpy(&fl6.daddr, hdr->daddr, 16);
		return ipv6_stub->ipv6_dst_lookup_flow(sdev->net, sk, &fl6,
						       NULL);
	}
	return ERR_PTR(-EAFNOSUPPORT);
}

/**
 * sroce_net_xmit() - send one RoCEv2 packet of a device
 * @sdev: the device, registered, in process or softirq context
 * @skb: the transport part from the BTH to the ICRC inclusive (the ICRC
 *	bytes are overwritten), SROCE_NET_HEADROOM bytes of headroom;
 *	consumed
 * @av: the source and destination GIDs (IPv4-mapped for IPv4), the IPv4
 *	TOS or IPv6 traffic class, the TTL or hop limit (0: 64)
 * @qpn: the sending QP, hashed into the UDP source port (0xc000..0xffff)
 *
 * Routes through the device's netdev in its namespace, builds IP (DF set,
 * ID 0) and UDP (checksum 0) headers with the protocol core and the ICRC
 * over the skb.  A packet that cannot be sent is lost as on a wire: the
 * requester's timers recover it.
 *
 * Return: 0, or a negative errno (no route, unreachable, no headroom).
 */
int sroce_net_xmit(struct sroce_dev *sdev, struct sk_buff *skb,
		   const struct sroce_av *av, u32 qpn)
{
	struct sroce_net hdr = {
		.ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)
					    av->dgid.raw),
		.tos = av->tclass,
		.ttl = av->hop_limit ? av->hop_limit : 64,
		.sport = sroce_udp_sport_qpn(qpn),
		.dport = SROCE_UDP_PORT,
	};
	u32 len = skb->len, nhl = sroce_net_hlen(&hdr);
	struct dst_entry *dst;
	struct sroce_icrc ic;
	__le32 icrc;
	int ret;

	if (len < SROCE_BTH_LEN + SROCE_ICRC_LEN || skb_headroom(skb) < nhl) {
		ret = -EINVAL;
		goto free_skb;
	}
	memcpy(hdr.saddr, av->sgid.raw, 16);
	memcpy(hdr.daddr, av->dgid.raw, 16);
	dst = sroce_net_route(sdev, &hdr);
	if (IS_ERR(dst)) {
		ret = PTR_ERR(dst);
		goto free_skb;
	}

	skb_push(skb, nhl);
	sroce_net_build(skb->data, &hdr, len);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, nhl - SROCE_UDP_HLEN);
	sroce_icrc_start(&ic, skb->data, hdr.ipv6, skb_transport_header(skb),
			 skb->data + nhl);
	sroce_skb_icrc_feed(skb, nhl + SROCE_BTH_LEN,
			    nhl + len - SROCE_ICRC_LEN, &ic);
	icrc = cpu_to_le32(sroce_icrc_finish(&ic));
	skb_store_bits(skb, nhl + len - SROCE_ICRC_LEN, &icrc, sizeof(icrc));

	skb_dst_set(skb, dst);
	skb->ip_summed = CHECKSUM_NONE;
	local_bh_disable();
	sroce_stats_inc(sdev->stats, SROCE_CNT_TX_PACKETS);
	local_bh_enable();
	/* The device holds its namespace's sockets: they cannot go away. */
	if (hdr.ipv6) {
		skb->protocol = htons(ETH_P_IPV6);
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
		ret = ip6_local_out(sdev->net, sroce_socket_sk(sdev->net, true),
				    skb);
	} else {
		skb->protocol = htons(ETH_P_IP);
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		ret = ip_local_out(sdev->net, sroce_socket_sk(sdev->net, false),
				   skb);
	}
	return net_xmit_eval(ret) ? -ENOBUFS : 0;

free_skb:
	kfree_skb(skb);
	return ret;
}

/**
 * sroce_net_alloc_skb() - a packet buffer for a QP's transport headers
 * @qp: the QP
 * @hdr_len: bytes of BTH and extension headers
 * @paylen: payload bytes (the pad is added here)
 * @hdr: set to where the headers go; the payload follows them
 *
 * The skb holds headers, payload, zeroed pad and room for the ICRC, with
 * headroom for IP and UDP (sroce_net_xmit()).
 *
 * Return: the skb or NULL.
 */
struct sk_buff *sroce_net_alloc_skb(struct sroce_qp *qp, u32 hdr_len,
				    u32 paylen, u8 **hdr)
{
	u32 pad = (4 - (paylen & 3)) & 3;
	u32 len = hdr_len + paylen + pad + SROCE_ICRC_LEN;
	struct sk_buff *skb;

	skb = alloc_skb(SROCE_NET_HEADROOM + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, SROCE_NET_HEADROOM);
	*hdr = skb_put(skb, len);
	memset(*hdr + hdr_len + paylen, 0, pad + SROCE_ICRC_LEN);
	return skb;
}

/**
 * sroce_net_qp_xmit() - send a packet of a QP along its path
 * @qp: the QP, lock not held
 * @skb: from sroce_net_alloc_skb(), headers and payload written; consumed.
 *	A UD packet carries its address (sroce_skb_av()).
 *
 * Return: 0 or sroce_net_xmit()'s error.
 */
int sroce_net_qp_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_av av;

	if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET)
		return sroce_raw_xmit(qp, skb);
	if (sroce_qp_is_ud(qp)) {
		/* The control buffer is the IP layer's once sent. */
		av = *sroce_skb_av(skb);
		return sroce_net_xmit(qp->sdev, skb, &av, qp->ibqp.qp_num);
	}
	return sroce_net_xmit(qp->sdev, skb, &qp->av, qp->ibqp.qp_num);
}
