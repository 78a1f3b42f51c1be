// SPDX-License-Identifier: GPL-2.0
/*
 * mcast.c - multicast groups of UD QPs: attach_mcast and detach_mcast, the
 * netdev's memberships, and the delivery of a multicast datagram to every
 * QP attached to its group.
 *
 * A group is an MGID (a GID of the multicast range: IPv4-mapped
 * 224.0.0.0/4 or IPv6 ff00::/8) with the list of the device's QPs attached
 * to it.  The first attachment creates the group and joins it on the
 * netdev; the last detachment leaves it and frees the group.
 *
 * Joining is more than the link layer: sroce receives through a UDP socket
 * (socket.c), behind the IP stack, and the IP stack drops a multicast
 * datagram of a group the host has not joined (ip_route_input() for IPv4,
 * ip6_mc_input() for IPv6) before any socket sees it.  The RDMA CM joins
 * the IPv4 group itself (cma_igmp_send()), but a plain ibv_attach_mcast()
 * does not, so sroce joins the group on the netdev, with an IGMP or MLD
 * report as a host does, besides the MAC filter (dev_mc_add(), which the IP
 * join also makes).  Both are reference counted by the stack, so a group
 * the RDMA CM joined as well is only left when both have left it.
 *
 * Lifetime: groups and attachments change under the device's mcast.lock
 * (a mutex: joining sleeps, under RTNL) and are freed after an RCU grace
 * period; the receive path walks them under RCU and takes a reference on
 * each QP it delivers to.  The core counts a QP's attachments in its
 * usecnt and refuses to destroy it while it has any (user space gets
 * EBUSY; a process that exits is detached by uverbs first), so
 * sroce_qp_destroy() finds none; it detaches whatever is left anyway.
 */
#include <linux/if_packet.h>
#include <linux/inetdevice.h>
#include <linux/igmp.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "mcast.h"
#include "proto/sroce_proto.h"

/**
 * sroce_mcast_addr() - a GID of the multicast range
 * @gid: 16 bytes, as in a GID (IPv4-mapped for IPv4)
 *
 * Return: true for IPv4-mapped 224.0.0.0/4 and IPv6 ff00::/8.
 */
bool sroce_mcast_addr(const u8 *gid)
{
	static const u8 v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (gid[0] == 0xff)
		return true;
	return !memcmp(gid, v4mapped, sizeof(v4mapped)) &&
	       (gid[12] & 0xf0) == 0xe0;
}

static bool sroce_mcast_v4(const union ib_gid *mgid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)mgid->raw);
}

static __be32 sroce_mcast_v4addr(const union ib_gid *mgid)
{
	__be32 addr;

	memcpy(&addr, mgid->raw + 12, sizeof(addr));
	return addr;
}

/*
 * The group's Ethernet address: 01:00:5e and the low 23 bits of an IPv4
 * group (RFC 1112), 33:33 and the low 32 bits of an IPv6 one (RFC 2464).
 */
static void sroce_mcast_mac(const union ib_gid *mgid, u8 *mac)
{
	if (sroce_mcast_v4(mgid))
		ip_eth_mc_map(sroce_mcast_v4addr(mgid), mac);
	else
		ipv6_eth_mc_map((const struct in6_addr *)mgid->raw, mac);
}

static u32 sroce_mcg_key(const u8 *gid)
{
	return jhash(gid, sizeof(union ib_gid), 0);
}

/* The group of @gid, under RCU or mcast.lock; NULL if there is none. */
struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev, const u8 *gid)
{
	struct sroce_mcg *g;

	hash_for_each_possible_rcu(sdev->mcast.hash, g, node,
				   sroce_mcg_key(gid),
				   lockdep_is_held(&sdev->mcast.lock))
		if (!memcmp(g->mgid.raw, gid, sizeof(g->mgid.raw)))
			return g;
	return NULL;
}

/* @qp's attachment to @g, under mcast.lock; NULL if it has none. */
static struct sroce_mca *sroce_mca_find(struct sroce_qp *qp,
					struct sroce_mcg *g)
{
	struct sroce_mca *a;

	lockdep_assert_held(&qp->sdev->mcast.lock);
	list_for_each_entry(a, &qp->mcast, qp_node)
		if (a->mcg == g)
			return a;
	return NULL;
}

/*
 * Join the group on the device's netdev: its MAC filter and the IP
 * membership (IGMP/MLD).  Process context, mcast.lock held.
 */
static int sroce_mcg_join(struct sroce_dev *sdev, const union ib_gid *mgid)
{
	struct net_device *ndev = sdev->ndev;
	struct in_device *in_dev;
	u8 mac[ETH_ALEN];
	int ret;

	lockdep_assert_held(&sdev->mcast.lock);
	sroce_mcast_mac(mgid, mac);
	rtnl_lock();
	ret = dev_mc_add(ndev, mac);
	if (ret)
		goto out_unlock;
	if (sroce_mcast_v4(mgid)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_inc_group(in_dev, sroce_mcast_v4addr(mgid));
		else
			ret = -ENODEV;	/* IPv4 is off on the netdev */
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		ret = ipv6_dev_mc_inc(ndev, (const struct in6_addr *)mgid->raw);
	} else {
		ret = -EAFNOSUPPORT;
	}
	if (ret)
		dev_mc_del(ndev, mac);
out_unlock:
	rtnl_unlock();
	if (ret)
		ibdev_dbg(&sdev->ibdev, "cannot join %pI6 on %s: %d\n",
			  mgid->raw, netdev_name(ndev), ret);
	return ret;
}

/*
 * Undo sroce_mcg_join().  The memberships may be gone already (the
 * netdev's IP configuration was torn down): nothing is left then.
 */
static void sroce_mcg_leave(struct sroce_dev *sdev, const union ib_gid *mgid)
{
	struct net_device *ndev = sdev->ndev;
	struct in_device *in_dev;
	u8 mac[ETH_ALEN];

	sroce_mcast_mac(mgid, mac);
	rtnl_lock();
	if (sroce_mcast_v4(mgid)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, sroce_mcast_v4addr(mgid));
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		ipv6_dev_mc_dec(ndev, (const struct in6_addr *)mgid->raw);
	}
	dev_mc_del(ndev, mac);
	rtnl_unlock();
}

/* A new group for @mgid, joined and in the table; mcast.lock held. */
static struct sroce_mcg *sroce_mcg_create(struct sroce_dev *sdev,
					  const union ib_gid *mgid)
{
	struct sroce_mcg *g;
	int ret;

	lockdep_assert_held(&sdev->mcast.lock);
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return ERR_PTR(-ENOMEM);
	g->mgid = *mgid;
	INIT_LIST_HEAD(&g->qps);
	ret = sroce_mcg_join(sdev, mgid);
	if (ret) {
		kfree(g);
		return ERR_PTR(ret);
	}
	hash_add_rcu(sdev->mcast.hash, &g->node, sroce_mcg_key(mgid->raw));
	sdev->mcast.groups++;
	return g;
}

/* Detach: the last attachment of a group leaves and frees it. */
static void sroce_mca_remove(struct sroce_dev *sdev, struct sroce_mca *a)
{
	struct sroce_mcg *g = a->mcg;

	lockdep_assert_held(&sdev->mcast.lock);
	list_del_rcu(&a->grp_node);
	list_del(&a->qp_node);
	kfree_rcu(a, rcu);
	sdev->mcast.attached--;
	if (--g->nqp)
		return;
	hash_del_rcu(&g->node);
	sdev->mcast.groups--;
	sroce_mcg_leave(sdev, &g->mgid);
	kfree_rcu(g, rcu);
}

/**
 * sroce_mcast_attach() - ops.attach_mcast
 * @ibqp: a UD QP
 * @mgid: a multicast GID
 * @mlid: ignored (RoCE has no LIDs)
 *
 * Return: 0; -EINVAL for another QP type or a GID outside the multicast
 * range (the core checks both first); -EEXIST if the QP is attached to the
 * group already (uverbs answers that itself, with 0); -ENOMEM beyond
 * SROCE_MAX_MCAST_GRP groups, SROCE_MAX_MCAST_QP_ATTACH QPs in the group
 * or SROCE_MAX_TOTAL_MCAST_QP_ATTACH attachments; or the error of joining
 * the group on the netdev.
 */
int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast *mc = &sdev->mcast;
	struct sroce_mca *a;
	struct sroce_mcg *g;
	int ret;

	if (ibqp->qp_type != IB_QPT_UD || !sroce_mcast_addr(mgid->raw))
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		return -ENOMEM;

	mutex_lock(&mc->lock);
	g = sroce_mcg_find(sdev, mgid->raw);
	if (g && sroce_mca_find(qp, g)) {
		ret = -EEXIST;
		goto out_unlock;
	}
	if (mc->attached >= SROCE_MAX_TOTAL_MCAST_QP_ATTACH ||
	    (g && g->nqp >= SROCE_MAX_MCAST_QP_ATTACH) ||
	    (!g && mc->groups >= SROCE_MAX_MCAST_GRP)) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	if (!g) {
		g = sroce_mcg_create(sdev, mgid);
		if (IS_ERR(g)) {
			ret = PTR_ERR(g);
			goto out_unlock;
		}
	}
	a->mcg = g;
	a->qp = qp;
	list_add_tail(&a->qp_node, &qp->mcast);
	qp->mcast_used = true;
	list_add_tail_rcu(&a->grp_node, &g->qps);
	g->nqp++;
	mc->attached++;
	a = NULL;
	ret = 0;
out_unlock:
	mutex_unlock(&mc->lock);
	kfree(a);
	return ret;
}

/**
 * sroce_mcast_detach() - ops.detach_mcast
 * @ibqp: a UD QP
 * @mgid: a multicast GID
 * @mlid: ignored
 *
 * Return: 0, or -EINVAL when the QP is not attached to the group.
 */
int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mca *a = NULL;
	struct sroce_mcg *g;

	mutex_lock(&sdev->mcast.lock);
	g = sroce_mcg_find(sdev, mgid->raw);
	if (g)
		a = sroce_mca_find(qp, g);
	if (a)
		sroce_mca_remove(sdev, a);
	mutex_unlock(&sdev->mcast.lock);
	return a ? 0 : -EINVAL;
}

/**
 * sroce_mcast_qp_detach_all() - detach a QP being destroyed from its groups
 * @qp: the QP; the caller waits for a grace period before freeing it
 *
 * The core detaches first, so there is normally nothing to do.
 */
void sroce_mcast_qp_detach_all(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mca *a, *tmp;

	mutex_lock(&sdev->mcast.lock);
	list_for_each_entry_safe(a, tmp, &qp->mcast, qp_node)
		sroce_mca_remove(sdev, a);
	mutex_unlock(&sdev->mcast.lock);
}

/**
 * sroce_mcast_init() - a new device's multicast state: no group
 * @sdev: the device, not yet registered
 */
void sroce_mcast_init(struct sroce_dev *sdev)
{
	mutex_init(&sdev->mcast.lock);
	hash_init(sdev->mcast.hash);
	sdev->mcast.groups = 0;
	sdev->mcast.attached = 0;
}

/**
 * sroce_mcast_cleanup() - at deallocation, after every QP is gone
 * @sdev: the device
 *
 * Every QP was detached before it was destroyed: no group is left.
 */
void sroce_mcast_cleanup(struct sroce_dev *sdev)
{
	WARN_ON(sdev->mcast.groups || sdev->mcast.attached);
	mutex_destroy(&sdev->mcast.lock);
}

/**
 * sroce_mcast_rcv() - a valid datagram with a multicast QPN or address
 * @sdev: the device it arrived on
 * @skb: the datagram, data at the UDP header (not consumed)
 * @pkt: its transport headers
 * @net: its IP and UDP headers
 *
 * A UD packet with the multicast QPN (0xffffff) to a multicast address
 * goes to every QP attached to the group of that address, each with its
 * own Q_Key check and receive WQE (sroce_resp_rcv()), except the QP that
 * sent it when the IP stack looped it back from this device.  Anything
 * else (a multicast QPN to a unicast address, a unicast QPN to a multicast
 * address, another transport, a group with no QP here) is dropped.
 * Softirq, under rcu_read_lock (the socket's receive path).
 *
 * Return: the datagram's fate: SROCE_CNT_RX_MCAST or
 * SROCE_CNT_RX_DROP_MCAST.
 */
enum sroce_counter sroce_mcast_rcv(struct sroce_dev *sdev,
				   struct sk_buff *skb,
				   const struct sroce_pkt *pkt,
				   const struct sroce_net *net)
{
	u32 self = U32_MAX;	/* no QP number: 24 bits */
	struct sroce_hdrs h;
	struct sroce_mca *a;
	struct sroce_mcg *g;
	struct sroce_qp *qp;

	if (pkt->bth.dqpn != IB_MULTICAST_QPN ||
	    !sroce_mcast_addr(net->daddr) ||
	    sroce_pkt_check_qp(pkt, SROCE_TRANSPORT_UD, SROCE_MAX_PMTU) !=
		    SROCE_RX_OK)
		return SROCE_CNT_RX_DROP_MCAST;
	/* Sent by this device (multicast loopback): not to the sender. */
	if (skb->pkt_type == PACKET_LOOPBACK) {
		sroce_pkt_hdrs(pkt, &h);
		self = h.deth.sqpn;
	}

	rcu_read_lock();
	g = sroce_mcg_find(sdev, net->daddr);
	if (!g) {
		rcu_read_unlock();
		return SROCE_CNT_RX_DROP_MCAST;
	}
	list_for_each_entry_rcu(a, &g->qps, grp_node) {
		qp = a->qp;
		if (qp->ibqp.qp_num == self) {
			sroce_stats_inc(sdev->stats,
					SROCE_CNT_MCAST_SELF_SKIPS);
			continue;
		}
		if (!refcount_inc_not_zero(&qp->slot->ref))
			continue;
		sroce_resp_rcv(qp, skb, pkt);
		sroce_qp_put(qp);
	}
	rcu_read_unlock();
	return SROCE_CNT_RX_MCAST;
}
