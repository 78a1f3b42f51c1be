// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - transmission of RoCEv2 packets: packet buffers for a QP's
 * headers and payload, routing through the device's netdev, the IP and
 * UDP headers and the ICRC, and the hand-over to the IP layer.
 *
 * A device sends from its namespace's sockets (socket.c), which it holds
 * for its whole life.
 */
#include <linux/percpu.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/page_pool.h>
#include <net/route.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "cc.h"
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

/* The IP and UDP fields of a packet of @qpn along @av */
static void sroce_net_path(struct sroce_net *hdr, const struct sroce_av *av,
			   u32 qpn)
{
	*hdr = (struct sroce_net) {
		.ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)
					    av->dgid.raw),
		.tos = av->tclass,
		.ttl = av->hop_limit ? av->hop_limit : 64,
		.sport = sroce_udp_sport_qpn(qpn),
		.dport = SROCE_UDP_PORT,
	};
	memcpy(hdr->saddr, av->sgid.raw, 16);
	memcpy(hdr->daddr, av->dgid.raw, 16);
}

/**
 * sroce_net_path_up() - can a packet along @av leave now
 * @sdev: the device
 * @av: the path (a connected QP's)
 *
 * The netdev is running and has carrier, and the route to the peer's
 * address through it exists.  Asked by the requester's timer when a local
 * ACK timeout is due (timers.c), not per packet.
 *
 * Context: softirq or process, no spinlock with interrupts off (an IPv6
 * route lookup enables bottom halves).
 * Return: true when the path is up.
 */
bool sroce_net_path_up(struct sroce_dev *sdev, const struct sroce_av *av)
{
	struct dst_entry *dst;
	struct sroce_net hdr;

	if (!netif_running(sdev->ndev) || !netif_carrier_ok(sdev->ndev))
		return false;
	sroce_net_path(&hdr, av, 0);
	dst = sroce_net_route(sdev, &hdr);
	if (IS_ERR(dst))
		return false;
	dst_release(dst);
	return true;
}

/* Is @skb a transport part sroce_net_encap() can put headers on */
static bool sroce_net_fits(const struct sk_buff *skb, u32 nhl)
{
	return skb->len >= SROCE_BTH_LEN + SROCE_ICRC_LEN &&
	       skb_headroom(skb) >= nhl;
}

/*
 * Push the IP and UDP headers of @hdr (its IPv4 ID included) in front of
 * the transport part in @skb and write the ICRC over the whole packet.
 */
static void sroce_net_encap(struct sk_buff *skb, const struct sroce_net *hdr)
{
	u32 len = skb->len, nhl = sroce_net_hlen(hdr);
	struct sroce_icrc ic;
	__le32 icrc;

	skb_push(skb, nhl);
	sroce_net_build(skb->data, hdr, len);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, nhl - SROCE_UDP_HLEN);
	sroce_icrc_start(&ic, skb->data, hdr->ipv6, skb_transport_header(skb),
			 skb->data + nhl);
	sroce_skb_icrc_feed(skb, nhl + SROCE_BTH_LEN,
			    nhl + len - SROCE_ICRC_LEN, &ic);
	icrc = cpu_to_le32(sroce_icrc_finish(&ic));
	skb_store_bits(skb, nhl + len - SROCE_ICRC_LEN, &icrc, sizeof(icrc));
}

/*
 * The largest run sroce_net_xmit_list() sends as one skb: its IP length
 * (IPv4 total length, IPv6 payload length) and UDP length are 16 bits.
 */
#define SROCE_NET_GSO_MAX	(U16_MAX - SROCE_MAX_NET_HLEN)

/*
 * Send the run sroce_net_xmit_list() gathered on @head along @dst (a
 * reference of its own is taken): alone, or as a UDP fraglist GSO packet
 * of @npkts.  Lost as on a wire when the stack drops it.
 */
static void sroce_net_out_run(struct sroce_dev *sdev, struct sk_buff *head,
			      struct dst_entry *dst, const struct sroce_net *hdr,
			      u32 npkts, struct sroce_qp *paced)
{
	u32 nhl = sroce_net_hlen(hdr);

	if (npkts > 1) {
		struct skb_shared_info *sh = skb_shinfo(head);

		/*
		 * As the kernel's UDP GRO leaves a fraglist packet: the UDP
		 * length covers the run (the IP layer sets the IP length),
		 * gso_size is the first packet's UDP payload; segmentation
		 * gives each packet its own length back.  No checksum to
		 * offload: RoCEv2's UDP checksum is 0.
		 */
		udp_hdr(head)->len = htons(head->len - nhl + SROCE_UDP_HLEN);
		sh->gso_size = skb_headlen(head) - nhl;
		sh->gso_segs = npkts;
		sh->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		head->ip_summed = CHECKSUM_UNNECESSARY;
	} else {
		head->ip_summed = CHECKSUM_NONE;
	}
	skb_dst_set(head, dst_clone(dst));
	if (paced)
		sroce_cc_stamp(paced, head, head->len + (npkts - 1) * nhl);
	local_bh_disable();
	sroce_stats_add(sdev->stats, SROCE_CNT_TX_PACKETS, npkts);
	sroce_stats_add(sdev->stats, SROCE_CNT_TX_BYTES, head->len - nhl);
	sroce_stats_inc(sdev->stats, SROCE_CNT_TX_RUNS);
	local_bh_enable();
	/* The device holds its namespace's sockets: they cannot go away. */
	if (hdr->ipv6) {
		head->protocol = htons(ETH_P_IPV6);
		memset(IP6CB(head), 0, sizeof(*IP6CB(head)));
		ip6_local_out(sdev->net, sroce_socket_sk(sdev->net, true), head);
	} else {
		head->protocol = htons(ETH_P_IP);
		memset(IPCB(head), 0, sizeof(*IPCB(head)));
		ip_local_out(sdev->net, sroce_socket_sk(sdev->net, false), head);
	}
}

/**
 * sroce_net_xmit_list() - send RoCEv2 packets of one path, in order
 * @sdev: the device, registered, in process or softirq context
 * @list: each the transport part from the BTH to the ICRC inclusive (the
 *	ICRC bytes are overwritten), SROCE_NET_HEADROOM bytes of headroom;
 *	emptied, each consumed
 * @av: the source and destination GIDs (IPv4-mapped for IPv4), the IPv4
 *	TOS or IPv6 traffic class, the TTL or hop limit (0: 64)
 * @qpn: the sending QP, hashed into the UDP source port (0xc000..0xffff)
 * @paced: the QP whose rate paces the packets (cc.c), or NULL
 *
 * Routes once through the device's netdev in its namespace, builds IP (DF
 * set) and UDP (checksum 0) headers with the protocol core and the ICRC
 * over each packet.  A packet that cannot be sent (no route, no headroom)
 * is lost as on a wire: the requester's timers recover it.
 *
 * Through a netdev without fraglist GSO (virtio-net, nearly every
 * Ethernet driver), runs of packets leave as one skb each: the first
 * packet with the others on its frag_list, each with its own IP and UDP
 * headers and ICRC, marked as UDP fraglist GSO (the shape the kernel's UDP
 * GRO gives a run of datagrams).  The IP layer routes, filters and queues
 * a run once; the kernel's software segmentation hands the packets to the
 * driver as one list, sent with xmit_more: one doorbell (a virtio kick)
 * for the run, and packet sockets see each packet.  On the wire they are
 * exactly what one packet alone would be, but for the IPv4 ID, which
 * counts up from 0 within a run (the segmentation numbers them so; the
 * ICRC covers the ID, so each packet's is computed with its own).  A
 * netdev with fraglist GSO (veth, lo) would pass the run on whole, to
 * packet sockets too: its packets leave one by one.
 */
void sroce_net_xmit_list(struct sroce_dev *sdev, struct sk_buff_head *list,
			 const struct sroce_av *av, u32 qpn,
			 struct sroce_qp *paced)
{
	struct sk_buff *skb, *head = NULL, *tail = NULL;
	struct dst_entry *dst;
	struct sroce_net hdr;
	u32 nhl, npkts = 0;
	bool runs;

	if (skb_queue_empty(list))
		return;
	sroce_net_path(&hdr, av, qpn);
	nhl = sroce_net_hlen(&hdr);
	dst = sroce_net_route(sdev, &hdr);
	if (IS_ERR(dst)) {
		__skb_queue_purge(list);
		return;
	}
	/*
	 * Runs only where the stack cuts them up before the netdev: one
	 * with fraglist GSO (veth, lo, a bridge) would show the run whole to
	 * packet sockets (tcpdump, a RoCE dissector) and qdiscs on its way.
	 */
	runs = !(dst->dev->features & NETIF_F_GSO_FRAGLIST);
	while ((skb = __skb_dequeue(list))) {
		if (!sroce_net_fits(skb, nhl)) {
			kfree_skb(skb);
			continue;
		}
		if (head && (!runs ||
			     head->len + nhl + skb->len > SROCE_NET_GSO_MAX)) {
			sroce_net_out_run(sdev, head, dst, &hdr, npkts, paced);
			head = NULL;
		}
		hdr.ip_id = head ? npkts : 0;
		sroce_net_encap(skb, &hdr);
		if (!head) {
			head = skb;
			tail = NULL;
			npkts = 1;
			continue;
		}
		/* Headers before data, as GRO leaves a fraglist member. */
		__skb_pull(skb, nhl);
		if (tail)
			tail->next = skb;
		else
			skb_shinfo(head)->frag_list = skb;
		tail = skb;
		head->len += skb->len;
		head->data_len += skb->len;
		head->truesize += skb->truesize;
		npkts++;
	}
	if (head)
		sroce_net_out_run(sdev, head, dst, &hdr, npkts, paced);
	dst_release(dst);
}

/*
 * Packet buffers.  alloc_skb() takes a linear buffer from kmalloc, which a
 * kernel booted with init_on_alloc=1 (Debian's default) clears on every
 * allocation: 2 KiB for a 1 KiB packet, the largest single cost of the
 * sender in the profile (Documentation/performance.md).  Packets are built
 * instead in fragments of pages of a page pool per CPU: a page goes back
 * to its pool when the last skb on it is freed (skb_mark_for_recycle()),
 * wherever that happens, and is handed out again without being cleared
 * (every byte that is sent is written first).  The pools belong to the
 * core once destroyed: pages still in flight when the module goes return
 * to it, and the core frees it after the last one.  Allocations run with
 * interrupts off (under the QP lock), so a CPU's pool has one user at a
 * time.  Without CONFIG_PAGE_POOL, alloc_skb().
 */
#define SROCE_NET_POOL_ORDER	1	/* a page of a path MTU of 4096 */

#if IS_ENABLED(CONFIG_PAGE_POOL)
static DEFINE_PER_CPU(struct page_pool *, sroce_net_pool);

/* A packet buffer of @size bytes (shared info included) from the pool. */
static struct sk_buff *sroce_net_pool_skb(u32 size)
{
	struct page_pool *pool = this_cpu_read(sroce_net_pool);
	struct sk_buff *skb;
	struct page *page;
	unsigned int off;

	lockdep_assert_irqs_disabled();
	if (!pool || size > PAGE_SIZE << SROCE_NET_POOL_ORDER)
		return NULL;
	page = page_pool_alloc_frag(pool, &off, size, GFP_ATOMIC);
	if (!page)
		return NULL;
	skb = build_skb(page_address(page) + off, size);
	if (!skb) {
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	return skb;
}

/**
 * sroce_net_init() - module init: the packet buffer pools
 *
 * Return: 0 or a negative errno.
 */
int sroce_net_init(void)
{
	struct page_pool_params pp = {
		.order = SROCE_NET_POOL_ORDER,
		.flags = PP_FLAG_PAGE_FRAG,
		.pool_size = 256,
	};
	struct page_pool *pool;
	int cpu;

	for_each_possible_cpu(cpu) {
		pp.nid = cpu_to_node(cpu);
		pool = page_pool_create(&pp);
		if (IS_ERR(pool)) {
			sroce_net_exit();
			return PTR_ERR(pool);
		}
		per_cpu(sroce_net_pool, cpu) = pool;
	}
	return 0;
}

/**
 * sroce_net_exit() - module exit, after the last device is gone
 */
void sroce_net_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		page_pool_destroy(per_cpu(sroce_net_pool, cpu));
		per_cpu(sroce_net_pool, cpu) = NULL;
	}
}
#else
static struct sk_buff *sroce_net_pool_skb(u32 size)
{
	return NULL;
}

int sroce_net_init(void)
{
	return 0;
}

void sroce_net_exit(void)
{
}
#endif

/**
 * sroce_net_alloc_skb() - a packet buffer for a QP's transport headers
 * @qp: the QP
 * @hdr_len: bytes of BTH and extension headers
 * @paylen: payload bytes (the pad is added here)
 * @hdr: set to where the headers go; the payload follows them
 *
 * The skb holds headers, payload, zeroed pad and room for the ICRC, with
 * headroom for IP and UDP (sroce_net_xmit_list()); from the CPU's page pool
 * when it can (see above).  Interrupts off.
 *
 * Return: the skb or NULL.
 */
struct sk_buff *sroce_net_alloc_skb(struct sroce_qp *qp, u32 hdr_len,
				    u32 paylen, u8 **hdr)
{
	u32 pad = (4 - (paylen & 3)) & 3;
	u32 len = hdr_len + paylen + pad + SROCE_ICRC_LEN;
	struct sk_buff *skb;

	skb = sroce_net_pool_skb(SKB_DATA_ALIGN(SROCE_NET_HEADROOM + len) +
				 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)));
	if (!skb)
		skb = alloc_skb(SROCE_NET_HEADROOM + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, SROCE_NET_HEADROOM);
	*hdr = skb_put(skb, len);
	memset(*hdr + hdr_len + paylen, 0, pad + SROCE_ICRC_LEN);
	return skb;
}

/**
 * sroce_net_qp_xmit_list() - send a QP's packets along its path, in order
 * @qp: the QP, lock not held
 * @list: from sroce_net_alloc_skb(), headers and payload written; emptied,
 *	each consumed.  A UD packet carries its address (sroce_skb_av()).
 *
 * A connected QP's packets share one path: sroce_net_xmit_list() sends
 * them in runs, paced by the QP's rate (cc.c); a datagram or raw QP's go
 * one by one.  Each leaves with the device's DSCP and ECN bits
 * (sroce_cc_tclass()).
 */
void sroce_net_qp_xmit_list(struct sroce_qp *qp, struct sk_buff_head *list)
{
	struct sk_buff_head one;
	struct sk_buff *skb;
	struct sroce_av av;

	if (qp->ibqp.qp_type != IB_QPT_RAW_PACKET && !sroce_qp_is_ud(qp)) {
		unsigned long flags;

		if (skb_queue_empty(list))
			return;
		/*
		 * A copy taken under the lock: modify_qp (SQD to SQD) rewrites
		 * qp->av under it, and a packet must not carry half of each.
		 */
		spin_lock_irqsave(&qp->lock, flags);
		av = qp->av;
		spin_unlock_irqrestore(&qp->lock, flags);
		av.tclass = sroce_cc_tclass(qp->sdev, av.tclass);
		sroce_net_xmit_list(qp->sdev, list, &av, qp->ibqp.qp_num, qp);
		return;
	}
	__skb_queue_head_init(&one);
	while ((skb = __skb_dequeue(list))) {
		if (qp->ibqp.qp_type == IB_QPT_RAW_PACKET) {
			sroce_raw_xmit(qp, skb);
			continue;
		}
		/* The control buffer is the IP layer's once sent. */
		av = *sroce_skb_av(skb);
		av.tclass = sroce_cc_tclass(qp->sdev, av.tclass);
		__skb_queue_tail(&one, skb);
		sroce_net_xmit_list(qp->sdev, &one, &av, qp->ibqp.qp_num, NULL);
	}
}
