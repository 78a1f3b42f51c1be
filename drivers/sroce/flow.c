// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - flow steering for raw packet QPs: ops.create_flow and
 * ops.destroy_flow, and the delivery of Ethernet frames to the QPs whose
 * flows match them.
 *
 * A flow is a set of specs (Ethernet, IPv4, IPv6, TCP or UDP; at most one
 * of each layer), each a value and a mask.  The frame's fields are
 * extracted once into a struct sroce_flow_key; a flow is the same key
 * twice, its value (already masked) and its mask, so matching is a masked
 * compare of the two keys.  A spec implies its layer: an IPv4 spec matches
 * IPv4 frames only, a TCP spec TCP segments only (ports are those of the
 * first header after the IP header; IPv6 extension headers are not
 * walked, and a non-first IPv4 fragment has no ports).
 *
 * Frames come from two places: those a raw QP of the device sends
 * (raw.c: delivered here before they go out on the netdev, as a NIC loops
 * them back), and those the netdev receives, seen through an ETH_P_ALL
 * tap registered while the device has flows.  The tap copies: the kernel
 * stack receives every frame as before (like a packet socket; no frame is
 * taken away from it).  Frames the netdev sends for the kernel stack are
 * not looked at.
 *
 * Every QP whose flows match a frame receives it once (priorities are
 * accepted and ignored).  The list of flows is walked under RCU; it holds
 * at most SROCE_MAX_FLOWS flows, so a frame costs at most that many
 * compares and one copy per QP; a frame a QP has no receive for is
 * dropped and counted (raw_rx_drops).  A QP cannot be destroyed while it
 * has flows (the core holds it); the receive path finds the QP by number
 * with a reference, as every packet does (qp.c).
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rculist.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "flow.h"

/**
 * struct sroce_flow - a flow of a raw packet QP
 * @ibflow: the core's flow; must stay first
 * @node: in the device's struct sroce_flows.list
 * @qpn: the QP it steers to
 * @val: the value to match, already masked
 * @mask: the bits that count
 * @rcu: freed a grace period after it left the list
 */
struct sroce_flow {
	struct ib_flow ibflow;
	struct list_head node;
	u32 qpn;
	struct sroce_flow_key val;
	struct sroce_flow_key mask;
	struct rcu_head rcu;
};

/* Frame bytes looked at to extract a key: Ethernet, VLAN, IPv4, ports. */
#define SROCE_FLOW_PARSE_LEN	(VLAN_ETH_HLEN + 60 + 4)

/* Extract @k from the first @len bytes of a frame (all of it if shorter). */
static void sroce_flow_key_parse(struct sroce_flow_key *k, const u8 *f,
				 u32 len)
{
	const struct ethhdr *eth = (const struct ethhdr *)f;
	u32 off = ETH_HLEN, ihl;
	__be16 proto;
	u8 l4 = 0;

	memset(k, 0, sizeof(*k));
	if (len < ETH_HLEN)
		return;
	ether_addr_copy(k->dmac, eth->h_dest);
	ether_addr_copy(k->smac, eth->h_source);
	proto = eth->h_proto;
	if (proto == htons(ETH_P_8021Q) && len >= VLAN_ETH_HLEN) {
		const struct vlan_ethhdr *veth = (const struct vlan_ethhdr *)f;

		k->vlan_tag = veth->h_vlan_TCI;
		proto = veth->h_vlan_encapsulated_proto;
		off = VLAN_ETH_HLEN;
	}
	k->ether_type = proto;

	if (proto == htons(ETH_P_IP) && len >= off + sizeof(struct iphdr)) {
		const struct iphdr *ip = (const struct iphdr *)(f + off);

		if (ip->version != 4 || ip->ihl < 5)
			return;
		k->l3 = 4;
		k->src4 = ip->saddr;
		k->dst4 = ip->daddr;
		k->proto4 = ip->protocol;
		k->tos4 = ip->tos;
		k->ttl4 = ip->ttl;
		k->flags4 = ntohs(ip->frag_off) >> 13;
		ihl = ip->ihl * 4;
		/* Ports only in the first fragment. */
		if (!(ip->frag_off & htons(IP_OFFSET)))
			l4 = ip->protocol;
		off += ihl;
	} else if (proto == htons(ETH_P_IPV6) &&
		   len >= off + sizeof(struct ipv6hdr)) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)(f + off);
		u32 w = ntohl(*(const __be32 *)ip6);

		if (ip6->version != 6)
			return;
		k->l3 = 6;
		memcpy(k->src6, &ip6->saddr, 16);
		memcpy(k->dst6, &ip6->daddr, 16);
		k->flow_label = htonl(w & 0xfffff);
		k->tclass = (w >> 20) & 0xff;
		k->next_hdr = ip6->nexthdr;
		k->hop_limit = ip6->hop_limit;
		l4 = ip6->nexthdr;
		off += sizeof(struct ipv6hdr);
	} else {
		return;
	}
	if ((l4 == IPPROTO_TCP || l4 == IPPROTO_UDP) && len >= off + 4) {
		k->l4 = l4;
		/* TCP and UDP both start with the source and destination port. */
		memcpy(&k->sport, f + off, 2);
		memcpy(&k->dport, f + off + 2, 2);
	}
}

static bool sroce_flow_match(const struct sroce_flow *fl,
			     const struct sroce_flow_key *k)
{
	const u8 *v = (const u8 *)&fl->val, *m = (const u8 *)&fl->mask;
	const u8 *kb = (const u8 *)k;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		if ((kb[i] & m[i]) != v[i])
			return false;
	return true;
}

/* Copy @n bytes of a spec's value and mask into the flow's keys. */
static void sroce_flow_set(struct sroce_flow *fl, void *vfield,
			   const void *val, const void *mask, size_t n)
{
	size_t off = vfield - (void *)&fl->val;

	memcpy(vfield, val, n);
	memcpy((void *)&fl->mask + off, mask, n);
}

/* A spec's layer must come once: @seen collects the layers' bits. */
static int sroce_flow_layer(u32 *seen, u32 layer)
{
	if (*seen & layer)
		return -EOPNOTSUPP;
	*seen |= layer;
	return 0;
}

/* One spec into the flow's keys; -EOPNOTSUPP for what sroce lacks. */
static int sroce_flow_parse_spec(struct sroce_flow *fl,
				 const union ib_flow_spec *s, u32 *seen)
{
	struct sroce_flow_key *v = &fl->val, *m = &fl->mask;
	int ret;

	switch (s->type) {
	case IB_FLOW_SPEC_ETH:
		if (s->size < sizeof(s->eth))
			return -EINVAL;
		ret = sroce_flow_layer(seen, BIT(0));
		if (ret)
			return ret;
		sroce_flow_set(fl, v->dmac, s->eth.val.dst_mac,
			       s->eth.mask.dst_mac, ETH_ALEN);
		sroce_flow_set(fl, v->smac, s->eth.val.src_mac,
			       s->eth.mask.src_mac, ETH_ALEN);
		sroce_flow_set(fl, &v->ether_type, &s->eth.val.ether_type,
			       &s->eth.mask.ether_type, 2);
		sroce_flow_set(fl, &v->vlan_tag, &s->eth.val.vlan_tag,
			       &s->eth.mask.vlan_tag, 2);
		return 0;
	case IB_FLOW_SPEC_IPV4:
		if (s->size < sizeof(s->ipv4))
			return -EINVAL;
		ret = sroce_flow_layer(seen, BIT(1));
		if (ret)
			return ret;
		v->l3 = 4;
		m->l3 = 0xff;
		sroce_flow_set(fl, &v->src4, &s->ipv4.val.src_ip,
			       &s->ipv4.mask.src_ip, 4);
		sroce_flow_set(fl, &v->dst4, &s->ipv4.val.dst_ip,
			       &s->ipv4.mask.dst_ip, 4);
		sroce_flow_set(fl, &v->proto4, &s->ipv4.val.proto,
			       &s->ipv4.mask.proto, 1);
		sroce_flow_set(fl, &v->tos4, &s->ipv4.val.tos,
			       &s->ipv4.mask.tos, 1);
		sroce_flow_set(fl, &v->ttl4, &s->ipv4.val.ttl,
			       &s->ipv4.mask.ttl, 1);
		sroce_flow_set(fl, &v->flags4, &s->ipv4.val.flags,
			       &s->ipv4.mask.flags, 1);
		return 0;
	case IB_FLOW_SPEC_IPV6:
		if (s->size < sizeof(s->ipv6))
			return -EINVAL;
		ret = sroce_flow_layer(seen, BIT(1));
		if (ret)
			return ret;
		v->l3 = 6;
		m->l3 = 0xff;
		sroce_flow_set(fl, v->src6, s->ipv6.val.src_ip,
			       s->ipv6.mask.src_ip, 16);
		sroce_flow_set(fl, v->dst6, s->ipv6.val.dst_ip,
			       s->ipv6.mask.dst_ip, 16);
		sroce_flow_set(fl, &v->flow_label, &s->ipv6.val.flow_label,
			       &s->ipv6.mask.flow_label, 4);
		sroce_flow_set(fl, &v->next_hdr, &s->ipv6.val.next_hdr,
			       &s->ipv6.mask.next_hdr, 1);
		sroce_flow_set(fl, &v->tclass, &s->ipv6.val.traffic_class,
			       &s->ipv6.mask.traffic_class, 1);
		sroce_flow_set(fl, &v->hop_limit, &s->ipv6.val.hop_limit,
			       &s->ipv6.mask.hop_limit, 1);
		return 0;
	case IB_FLOW_SPEC_TCP:
	case IB_FLOW_SPEC_UDP:
		if (s->size < sizeof(s->tcp_udp))
			return -EINVAL;
		ret = sroce_flow_layer(seen, BIT(2));
		if (ret)
			return ret;
		v->l4 = s->type == IB_FLOW_SPEC_TCP ? IPPROTO_TCP : IPPROTO_UDP;
		m->l4 = 0xff;
		sroce_flow_set(fl, &v->sport, &s->tcp_udp.val.src_port,
			       &s->tcp_udp.mask.src_port, 2);
		sroce_flow_set(fl, &v->dport, &s->tcp_udp.val.dst_port,
			       &s->tcp_udp.mask.dst_port, 2);
		return 0;
	default:
		/* Inner (tunnel) specs, actions, MPLS, GRE, ESP... */
		return -EOPNOTSUPP;
	}
}

/* The flow's keys from @attr's specs, the value masked. */
static int sroce_flow_parse(struct sroce_flow *fl,
			    const struct ib_flow_attr *attr)
{
	const void *p = attr + 1, *end = (const void *)attr + attr->size;
	u8 *v = (u8 *)&fl->val;
	const u8 *m = (const u8 *)&fl->mask;
	u32 seen = 0, i;
	int ret;

	for (i = 0; i < attr->num_of_specs; i++) {
		const union ib_flow_spec *s = p;

		/* The type and size first, then as many bytes as size says. */
		if (end - p < (long)sizeof(struct ib_flow_spec_action_drop) ||
		    s->size < sizeof(struct ib_flow_spec_action_drop) ||
		    s->size > end - p)
			return -EINVAL;
		ret = sroce_flow_parse_spec(fl, s, &seen);
		if (ret)
			return ret;
		p += s->size;
	}
	for (i = 0; i < sizeof(fl->val); i++)
		v[i] &= m[i];
	return 0;
}

/* The tap: a frame the netdev received (softirq, RCU held by the core). */
static int sroce_flow_tap_rcv(struct sk_buff *skb, struct net_device *ndev,
			      struct packet_type *pt,
			      struct net_device *orig_dev)
{
	struct sroce_flows *flows = container_of(pt, struct sroce_flows, tap);
	struct sroce_dev *sdev = container_of(flows, struct sroce_dev, flows);
	u8 hdr[VLAN_ETH_HLEN];
	u32 hlen;

	/* Only what comes in; a raw QP's own sends were delivered already. */
	if (skb->pkt_type == PACKET_OUTGOING ||
	    skb->pkt_type == PACKET_LOOPBACK || ndev->type != ARPHRD_ETHER ||
	    !skb_mac_header_was_set(skb))
		goto out;
	/* The Ethernet header, with a VLAN tag the netdev took out again. */
	hlen = skb_mac_header_len(skb);
	if (hlen != ETH_HLEN && hlen != VLAN_ETH_HLEN)
		goto out;
	memcpy(hdr, skb_mac_header(skb), hlen);
	if (skb_vlan_tag_present(skb) && hlen == ETH_HLEN) {
		struct vlan_ethhdr *veth = (struct vlan_ethhdr *)hdr;

		veth->h_vlan_encapsulated_proto =
			((struct ethhdr *)hdr)->h_proto;
		veth->h_vlan_proto = skb->vlan_proto;
		veth->h_vlan_TCI = htons(skb_vlan_tag_get(skb));
		hlen = VLAN_ETH_HLEN;
	}
	sroce_flow_deliver(sdev, hdr, hlen, skb, 0);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

/**
 * sroce_flow_deliver() - give a frame to the raw QPs whose flows match it
 * @sdev: the device
 * @hdr: the frame's first @hlen bytes (NULL when @hlen is 0)
 * @hlen: their length
 * @skb: the rest of the frame, from @skb_off to its end (not consumed,
 *	not changed)
 * @skb_off: first byte in @skb, from skb->data
 *
 * Bottom halves off (softirq, or a raw QP's send).
 */
void sroce_flow_deliver(struct sroce_dev *sdev, const u8 *hdr, u32 hlen,
			const struct sk_buff *skb, u32 skb_off)
{
	u8 buf[SROCE_FLOW_PARSE_LEN];
	struct sroce_flow_key k;
	struct sroce_flow *fl;
	u32 n, done = 0;

	if (skb_off > skb->len || hlen > sizeof(buf))
		return;
	if (hlen)
		memcpy(buf, hdr, hlen);
	n = min_t(u32, sizeof(buf) - hlen, skb->len - skb_off);
	if (skb_copy_bits(skb, skb_off, buf + hlen, n))
		return;
	sroce_flow_key_parse(&k, buf, hlen + n);

	rcu_read_lock();
	list_for_each_entry_rcu(fl, &sdev->flows.list, node) {
		struct sroce_qp *qp;

		/* A QP's flows are adjacent: it gets the frame once. */
		if (fl->qpn == done || !sroce_flow_match(fl, &k))
			continue;
		done = fl->qpn;
		/*
		 * The flow's QP: a QP with flows cannot be destroyed (EBUSY),
		 * so its number names no other QP; the type is checked all
		 * the same, a raw QP's receive being the only one wanted.
		 */
		qp = sroce_qp_get(sdev, fl->qpn);
		if (!qp)
			continue;
		if (qp->ibqp.qp_type != IB_QPT_RAW_PACKET) {
			sroce_qp_put(qp);
			continue;
		}
		if (qp->rss)
			sroce_rss_rcv(qp, &k, hdr, hlen, skb, skb_off);
		else
			sroce_raw_rcv(qp, hdr, hlen, skb, skb_off);
		sroce_qp_put(qp);
	}
	rcu_read_unlock();
}

/**
 * sroce_flow_create() - ops.create_flow
 * @ibqp: a raw packet QP (uverbs allows UD too: refused)
 * @attr: a normal flow of the port, its specs after it (converted by
 *	uverbs); DONT_TRAP accepted (nothing is ever trapped)
 * @udata: no driver data
 *
 * Return: the flow, or ERR_PTR of -EOPNOTSUPP (another QP type, flow
 * type, flag or spec), -EINVAL (a malformed spec), -ENOMEM (also beyond
 * SROCE_MAX_FLOWS flows on the device).
 */
struct ib_flow *sroce_flow_create(struct ib_qp *ibqp,
				  struct ib_flow_attr *attr,
				  struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_flows *flows = &sdev->flows;
	struct sroce_flow *fl, *pos, *after = NULL;
	int ret;

	if (ibqp->qp_type != IB_QPT_RAW_PACKET ||
	    attr->type != IB_FLOW_ATTR_NORMAL ||
	    (attr->flags & ~IB_FLOW_ATTR_FLAGS_DONT_TRAP))
		return ERR_PTR(-EOPNOTSUPP);
	if (attr->port != SROCE_PORT)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	fl = kzalloc(sizeof(*fl), GFP_KERNEL_ACCOUNT);
	if (!fl)
		return ERR_PTR(-ENOMEM);
	fl->qpn = ibqp->qp_num;
	ret = sroce_flow_parse(fl, attr);
	if (ret)
		goto err_free;

	mutex_lock(&flows->lock);
	if (flows->count >= SROCE_MAX_FLOWS) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	if (!flows->count) {
		flows->tap.type = htons(ETH_P_ALL);
		flows->tap.dev = sdev->ndev;
		flows->tap.func = sroce_flow_tap_rcv;
		/* The kernel stack's sends are not cloned for the tap. */
		flows->tap.ignore_outgoing = true;
		dev_add_pack(&flows->tap);
	}
	flows->count++;
	/* Next to the QP's other flows, or last. */
	list_for_each_entry(pos, &flows->list, node)
		if (pos->qpn == fl->qpn)
			after = pos;
	list_add_tail_rcu(&fl->node, after ? after->node.next : &flows->list);
	mutex_unlock(&flows->lock);
	return &fl->ibflow;

err_unlock:
	mutex_unlock(&flows->lock);
err_free:
	kfree(fl);
	return ERR_PTR(ret);
}

/**
 * sroce_flow_destroy() - ops.destroy_flow
 * @ibflow: the flow
 *
 * The last flow of the device takes its tap off the netdev (which waits
 * for the receive paths running it).  Sleeps.
 *
 * Return: 0.
 */
int sroce_flow_destroy(struct ib_flow *ibflow)
{
	struct sroce_flow *fl = container_of(ibflow, struct sroce_flow, ibflow);
	struct sroce_dev *sdev = to_sdev(ibflow->device);
	struct sroce_flows *flows = &sdev->flows;

	mutex_lock(&flows->lock);
	list_del_rcu(&fl->node);
	if (!--flows->count)
		dev_remove_pack(&flows->tap);
	mutex_unlock(&flows->lock);
	kfree_rcu(fl, rcu);
	return 0;
}

void sroce_flows_init(struct sroce_dev *sdev)
{
	mutex_init(&sdev->flows.lock);
	INIT_LIST_HEAD(&sdev->flows.list);
	sdev->flows.count = 0;
}

/* At dealloc: the core destroyed every flow with its QP's context. */
void sroce_flows_cleanup(struct sroce_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->flows.list) || sdev->flows.count);
	mutex_destroy(&sdev->flows.lock);
}
