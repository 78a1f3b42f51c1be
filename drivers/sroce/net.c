// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - the RoCEv2 UDP sockets, one set per network namespace.
 *
 * A device lives in the namespace of its netdev at creation (dev_net()).
 * The first device of a namespace opens UDP port 4791 there, the last one
 * to go closes it: sroce_dev_create() calls sroce_net_get() before it
 * allocates the device, and sroce_dev_dealloc() calls sroce_net_put().
 *
 * Two sockets, an IPv4 one and an IPv6-only one, rather than one dual-stack
 * IPv6 socket, as rdma_rxe, vxlan and WireGuard do: IPv4 works on a system
 * booted with ipv6.disable=1 (the IPv6 socket is then skipped), IPv4
 * packets arrive with IPv4 headers (no v4-mapped detour), and the future
 * transmit path has a socket of the matching family for
 * udp_tunnel_xmit_skb() / udp_tunnel6_xmit_skb().  A port already bound in
 * the namespace, in either family (rdma_rxe binds both in init_net when it
 * loads), fails the device's creation with the socket's error, typically
 * -EADDRINUSE, and nothing is left behind.
 *
 * Lifetime rules:
 * - Each device holds one reference on its namespace's sockets (@users).
 *   sroce_net_put() of the last reference releases them and then waits
 *   for an RCU grace period, so no sroce_net_encap_rcv() of theirs runs
 *   after it returns: module exit needs no further barrier.
 * - sroce_net_encap_rcv() runs under rcu_read_lock (the UDP receive path)
 *   and takes a reference on the device with ib_device_get_by_netdev();
 *   unregistration waits for that reference before the device's counters
 *   are freed in sroce_dev_dealloc().
 * - A namespace cannot finish dying while one of its devices lives: its
 *   netdevs are unregistered first (each takes its device along, see
 *   main.c), and sroce_net_ns_exit() waits until the queued removals of
 *   those devices have dropped their references.  A netdev that changes
 *   namespace (`ip link set dev X netns Y`) is unregistered from the old
 *   one, so its device is removed: devices never follow a netdev.
 * - The sockets hold no reference on their namespace (kernel sockets),
 *   otherwise a namespace with a device could never be destroyed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/wait.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "counters.h"
#include "net.h"
#include "proto/sroce_proto.h"

/**
 * struct sroce_net_ns - sroce's state in one network namespace
 * @users: devices of this namespace; under sroce_net_lock, read without it
 *	only by sroce_net_ns_exit() to wait for 0.
 * @sock4: the IPv4 socket on port 4791 while @users > 0, else NULL; under
 *	sroce_net_lock.
 * @sock6: the IPv6-only socket, same rules; also NULL when IPv6 is
 *	disabled.
 * @rx_no_dev: datagrams that arrived on a netdev without an sroce device;
 *	atomic, shown in /proc/net/sroce.
 */
struct sroce_net_ns {
	unsigned int users;
	struct socket *sock4;
	struct socket *sock6;
	atomic_long_t rx_no_dev;
};

static unsigned int sroce_net_id __read_mostly;

/*
 * Guards @users and the sockets of every namespace.  Global rather than
 * per namespace: a mutex must not live in memory that may be freed as soon
 * as it is released (sroce_net_ns_exit() frees the namespace's state).
 */
static DEFINE_MUTEX(sroce_net_lock);
/* sroce_net_ns_exit() waits here for the last device of its namespace. */
static DECLARE_WAIT_QUEUE_HEAD(sroce_net_wq);

static struct sroce_net_ns *sroce_net_ns(struct net *net)
{
	return net_generic(net, sroce_net_id);
}

/*
 * The encap_rcv hook of both sockets, under rcu_read_lock in softirq.
 * skb->data points at the UDP header, whose checksum the stack checked
 * (RoCEv2 sends 0: none).  Always consumes the skb.
 */
static int sroce_net_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ibdev = NULL;
	struct sroce_net_ns *sn;

	if (skb->dev)
		ibdev = ib_device_get_by_netdev(skb->dev, SROCE_DRIVER_ID);
	if (!ibdev) {
		sn = rcu_dereference_sk_user_data(sk);
		if (sn)
			atomic_long_inc(&sn->rx_no_dev);
		kfree_skb(skb);
		return 0;
	}
	sroce_skb_recv(to_sdev(ibdev), skb);
	ib_device_put(ibdev);
	return 0;
}

static int sroce_net_sock_create(struct net *net, struct sroce_net_ns *sn,
				 bool ipv6, struct socket **sockp)
{
	struct udp_port_cfg ucfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.local_udp_port = htons(SROCE_UDP_PORT),
		/* RoCEv2 sends UDP checksum 0, also over IPv6 */
		.use_udp6_rx_checksums = 0,
		.ipv6_v6only = ipv6,
	};
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = sn,
		.encap_type = 1,
		.encap_rcv = sroce_net_encap_rcv,
	};
	int ret;

	ret = udp_sock_create(net, &ucfg, sockp);
	if (ret)
		return ret;
	setup_udp_tunnel_sock(net, *sockp, &tcfg);
	/*
	 * setup_udp_tunnel_sock() turns IPv4 multicast loopback off (IPv6
	 * keeps its own, on).  On for both: a multicast datagram then also
	 * reaches the other QPs of the sending device attached to its group,
	 * as on an IB port (mcast.c; not the sending QP itself).
	 */
	if (!ipv6)
		inet_sk((*sockp)->sk)->mc_loop = 1;
	return 0;
}

/* Under sroce_net_lock; the caller waits for a grace period afterwards. */
static void sroce_net_sock_release(struct sroce_net_ns *sn)
{
	lockdep_assert_held(&sroce_net_lock);
	if (sn->sock6) {
		udp_tunnel_sock_release(sn->sock6);
		sn->sock6 = NULL;
	}
	if (sn->sock4) {
		udp_tunnel_sock_release(sn->sock4);
		sn->sock4 = NULL;
	}
}

/**
 * sroce_net_get() - take a device's reference on its namespace's sockets
 * @net: the namespace of the device's netdev, alive during the call
 * @ibdev_name: the device being created, for messages
 *
 * Opens UDP port 4791 in @net, IPv4 and IPv6, if no device there has yet.
 *
 * Return: 0, or the error of the socket that could not be opened
 * (-EADDRINUSE when another user, such as rdma_rxe, holds the port).
 */
int sroce_net_get(struct net *net, const char *ibdev_name)
{
	struct sroce_net_ns *sn = sroce_net_ns(net);
	int ret = 0;

	mutex_lock(&sroce_net_lock);
	if (sn->users) {
		sn->users++;
		goto out_unlock;
	}
	ret = sroce_net_sock_create(net, sn, false, &sn->sock4);
	if (ret) {
		pr_err("%s: cannot open UDP port %u (IPv4) in this network namespace%s: %d\n",
		       ibdev_name, SROCE_UDP_PORT,
		       ret == -EADDRINUSE ? ", it is in use (rdma_rxe?)" : "",
		       ret);
		goto out_unlock;
	}
	ret = sroce_net_sock_create(net, sn, true, &sn->sock6);
	if (ret == -EAFNOSUPPORT) {
		/* IPv6 disabled at boot: IPv4 only */
		ret = 0;
	} else if (ret) {
		pr_err("%s: cannot open UDP port %u (IPv6) in this network namespace%s: %d\n",
		       ibdev_name, SROCE_UDP_PORT,
		       ret == -EADDRINUSE ? ", it is in use (rdma_rxe?)" : "",
		       ret);
		goto release_sock4;
	}
	sn->users = 1;
	goto out_unlock;

release_sock4:
	sroce_net_sock_release(sn);
	mutex_unlock(&sroce_net_lock);
	/* Packets may have reached the IPv4 socket meanwhile. */
	synchronize_rcu();
	return ret;
out_unlock:
	mutex_unlock(&sroce_net_lock);
	return ret;
}

/**
 * sroce_net_put() - drop a device's reference on its namespace's sockets
 * @net: the namespace given to sroce_net_get()
 *
 * The last reference closes the sockets; after that, no receive callback
 * of theirs is running when this returns.  Sleeps.
 */
void sroce_net_put(struct net *net)
{
	struct sroce_net_ns *sn = sroce_net_ns(net);
	bool released = false;

	mutex_lock(&sroce_net_lock);
	if (!WARN_ON_ONCE(!sn->users) && !--sn->users) {
		sroce_net_sock_release(sn);
		released = true;
	}
	mutex_unlock(&sroce_net_lock);
	if (released)
		synchronize_rcu();
	/* @sn may be freed from here on: sroce_net_wq is global. */
	wake_up_all(&sroce_net_wq);
}

/* Route to @dst through the device's netdev; a dst reference or ERR_PTR. */
static struct dst_entry *sroce_net_route(struct sroce_dev *sdev,
					 struct sroce_net_ns *sn,
					 const struct sroce_net *hdr)
{
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
	if (IS_ENABLED(CONFIG_IPV6) && sn->sock6) {
		struct flowi6 fl6 = {
			.flowi6_oif = sdev->ndev->ifindex,
			.flowi6_proto = IPPROTO_UDP,
		};

		memcpy(&fl6.saddr, hdr->saddr, 16);
		memcpy(&fl6.daddr, hdr->daddr, 16);
		return ipv6_stub->ipv6_dst_lookup_flow(sdev->net, sn->sock6->sk,
						       &fl6, NULL);
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
	struct sroce_net_ns *sn = sroce_net_ns(sdev->net);
	struct sroce_net hdr = {
		.ipv6 = !ipv6_addr_v4mapped((const struct in6_addr *)
					    av->dgid.raw),
		.tos = av->tclass,
		.ttl = av->hop_limit ? av->hop_limit : 64,
		.sport = SROCE_UDP_SPORT_MIN + hash_32(qpn, 14),
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
	dst = sroce_net_route(sdev, sn, &hdr);
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
		ret = ip6_local_out(sdev->net, sn->sock6->sk, skb);
	} else {
		skb->protocol = htons(ETH_P_IP);
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		ret = ip_local_out(sdev->net, sn->sock4->sk, skb);
	}
	return net_xmit_eval(ret) ? -ENOBUFS : 0;

free_skb:
	kfree_skb(skb);
	return ret;
}

/* /proc/net/sroce: the namespace's sockets and unclaimed datagrams */
static int sroce_net_proc_show(struct seq_file *seq, void *v)
{
	struct sroce_net_ns *sn = sroce_net_ns(seq_file_single_net(seq));

	mutex_lock(&sroce_net_lock);
	seq_printf(seq, "devices %u\n", sn->users);
	seq_printf(seq, "udp_port %u%s%s\n", SROCE_UDP_PORT,
		   sn->sock4 ? " ipv4" : "", sn->sock6 ? " ipv6" : "");
	mutex_unlock(&sroce_net_lock);
	seq_printf(seq, "rx_no_dev %lu\n", atomic_long_read(&sn->rx_no_dev));
	return 0;
}

static int __net_init sroce_net_ns_init(struct net *net)
{
	struct sroce_net_ns *sn = sroce_net_ns(net);

	atomic_long_set(&sn->rx_no_dev, 0);
	if (!proc_create_net_single("sroce", 0444, net->proc_net,
				    sroce_net_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_net_ns *sn = sroce_net_ns(net);

	/*
	 * The namespace's netdevs are gone, and each queued its device's
	 * removal (main.c); a netdev moved back to init_net may still have
	 * its device, removed asynchronously: wait for the last one.
	 */
	wait_event(sroce_net_wq, !READ_ONCE(sn->users));
	/* The last sroce_net_put() is out of its critical section. */
	mutex_lock(&sroce_net_lock);
	WARN_ON_ONCE(sn->sock4 || sn->sock6);
	mutex_unlock(&sroce_net_lock);
	remove_proc_entry("sroce", net->proc_net);
}

static struct pernet_operations sroce_net_ops = {
	.init = sroce_net_ns_init,
	.exit = sroce_net_ns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net_ns),
};

/**
 * sroce_net_init() - module init: per-namespace state in every namespace
 *
 * Return: 0 or a negative errno.
 */
int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

/**
 * sroce_net_exit() - module exit, after the last device is gone
 */
void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
