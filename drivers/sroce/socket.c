// SPDX-License-Identifier: GPL-2.0
/*
 * socket.c - the RoCEv2 UDP sockets, one set per network namespace.
 *
 * A device lives in the namespace of its netdev at creation (dev_net()).
 * The first device of a namespace opens UDP port 4791 there, the last one
 * to go closes it: sroce_dev_create() calls sroce_socket_get() before it
 * allocates the device, and sroce_dev_dealloc() calls sroce_socket_put().
 *
 * Two sockets, an IPv4 one and an IPv6-only one, rather than one dual-stack
 * IPv6 socket, as rdma_rxe, vxlan and WireGuard do: IPv4 works on a system
 * booted with ipv6.disable=1 (the IPv6 socket is then skipped), IPv4
 * packets arrive with IPv4 headers (no v4-mapped detour), and transmission
 * (net.c) has a socket of the matching family to send from.  A port already bound in
 * the namespace, in either family (rdma_rxe binds both in init_net when it
 * loads), fails the device's creation with the socket's error, typically
 * -EADDRINUSE, and nothing is left behind.
 *
 * Lifetime rules:
 * - Each device holds one reference on its namespace's sockets (@users).
 *   sroce_socket_put() of the last reference releases them and then waits
 *   for an RCU grace period, so no sroce_socket_encap_rcv() of theirs runs
 *   after it returns: module exit needs no further barrier.
 * - sroce_socket_encap_rcv() runs under rcu_read_lock (the UDP receive path)
 *   and takes a reference on the device with ib_device_get_by_netdev();
 *   unregistration waits for that reference before the device's counters
 *   are freed in sroce_dev_dealloc().
 * - A namespace cannot finish dying while one of its devices lives: its
 *   netdevs are unregistered first (each takes its device along, see
 *   main.c), and sroce_socket_ns_exit() waits until the queued removals of
 *   those devices have dropped their references.  A netdev that changes
 *   namespace (`ip link set dev X netns Y`) is unregistered from the old
 *   one, so its device is removed: devices never follow a netdev.
 * - The sockets hold no reference on their namespace (kernel sockets),
 *   otherwise a namespace with a device could never be destroyed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/wait.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "net.h"
#include "proto/sroce_proto.h"

/**
 * struct sroce_socket_ns - sroce's state in one network namespace
 * @users: devices of this namespace; under sroce_socket_lock, read without it
 *	only by sroce_socket_ns_exit() to wait for 0.
 * @sock4: the IPv4 socket on port 4791 while @users > 0, else NULL; under
 *	sroce_socket_lock.
 * @sock6: the IPv6-only socket, same rules; also NULL when IPv6 is
 *	disabled.
 * @rx_no_dev: datagrams that arrived on a netdev without an sroce device;
 *	atomic, shown in /proc/net/sroce.
 */
struct sroce_socket_ns {
	unsigned int users;
	struct socket *sock4;
	struct socket *sock6;
	atomic_long_t rx_no_dev;
};

static unsigned int sroce_socket_id __read_mostly;

/*
 * Guards @users and the sockets of every namespace.  Global rather than
 * per namespace: a mutex must not live in memory that may be freed as soon
 * as it is released (sroce_socket_ns_exit() frees the namespace's state).
 */
static DEFINE_MUTEX(sroce_socket_lock);
/* sroce_socket_ns_exit() waits here for the last device of its namespace. */
static DECLARE_WAIT_QUEUE_HEAD(sroce_socket_wq);

static struct sroce_socket_ns *sroce_socket_ns(struct net *net)
{
	return net_generic(net, sroce_socket_id);
}

/*
 * The netdev a datagram is for.  One sent to an address of this host (to
 * a QP of the same device, or of another device of the namespace) was
 * routed through the loopback device and arrives on it: it is for the
 * netdev that holds its destination address.  Under RCU; no reference.
 */
static struct net_device *sroce_socket_rx_dev(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;

	if (!dev || !(dev->flags & IFF_LOOPBACK))
		return dev;
	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(dev_net(dev), ip_hdr(skb)->daddr, false);
	if (IS_ENABLED(CONFIG_IPV6) && skb->protocol == htons(ETH_P_IPV6))
		return ipv6_stub->ipv6_dev_find(dev_net(dev),
						&ipv6_hdr(skb)->daddr, NULL);
	return NULL;
}

/*
 * The encap_rcv hook of both sockets, under rcu_read_lock in softirq.
 * skb->data points at the UDP header, whose checksum the stack checked
 * (RoCEv2 sends 0: none).  Always consumes the skb.
 */
static int sroce_socket_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ibdev = NULL;
	struct net_device *dev = sroce_socket_rx_dev(skb);
	struct sroce_socket_ns *sn;

	if (dev)
		ibdev = ib_device_get_by_netdev(dev, SROCE_DRIVER_ID);
	if (!ibdev) {
		sn = rcu_dereference_sk_user_data(sk);
		if (sn)
			atomic_long_inc(&sn->rx_no_dev);
		kfree_skb(skb);
		return 0;
	}
	sroce_skb_rcv(to_sdev(ibdev), skb);
	ib_device_put(ibdev);
	return 0;
}

static int sroce_socket_create(struct net *net, struct sroce_socket_ns *sn,
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
		.encap_rcv = sroce_socket_encap_rcv,
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

/* Under sroce_socket_lock; the caller waits for a grace period afterwards. */
static void sroce_socket_release(struct sroce_socket_ns *sn)
{
	lockdep_assert_held(&sroce_socket_lock);
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
 * sroce_socket_get() - take a device's reference on its namespace's sockets
 * @net: the namespace of the device's netdev, alive during the call
 * @ibdev_name: the device being created, for messages
 *
 * Opens UDP port 4791 in @net, IPv4 and IPv6, if no device there has yet.
 *
 * Return: 0, or the error of the socket that could not be opened
 * (-EADDRINUSE when another user, such as rdma_rxe, holds the port).
 */
int sroce_socket_get(struct net *net, const char *ibdev_name)
{
	struct sroce_socket_ns *sn = sroce_socket_ns(net);
	int ret = 0;

	mutex_lock(&sroce_socket_lock);
	if (sn->users) {
		sn->users++;
		goto out_unlock;
	}
	ret = sroce_socket_create(net, sn, false, &sn->sock4);
	if (ret) {
		pr_err("%s: cannot open UDP port %u (IPv4) in this network namespace%s: %d\n",
		       ibdev_name, SROCE_UDP_PORT,
		       ret == -EADDRINUSE ? ", it is in use (rdma_rxe?)" : "",
		       ret);
		goto out_unlock;
	}
	ret = sroce_socket_create(net, sn, true, &sn->sock6);
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
	sroce_socket_release(sn);
	mutex_unlock(&sroce_socket_lock);
	/* Packets may have reached the IPv4 socket meanwhile. */
	synchronize_rcu();
	return ret;
out_unlock:
	mutex_unlock(&sroce_socket_lock);
	return ret;
}

/**
 * sroce_socket_put() - drop a device's reference on its namespace's sockets
 * @net: the namespace given to sroce_socket_get()
 *
 * The last reference closes the sockets; after that, no receive callback
 * of theirs is running when this returns.  Sleeps.
 */
void sroce_socket_put(struct net *net)
{
	struct sroce_socket_ns *sn = sroce_socket_ns(net);
	bool released = false;

	mutex_lock(&sroce_socket_lock);
	if (!WARN_ON_ONCE(!sn->users) && !--sn->users) {
		sroce_socket_release(sn);
		released = true;
	}
	mutex_unlock(&sroce_socket_lock);
	if (released)
		synchronize_rcu();
	/* @sn may be freed from here on: sroce_socket_wq is global. */
	wake_up_all(&sroce_socket_wq);
}

/**
 * sroce_socket_sk() - a socket of a namespace, to send from
 * @net: the namespace of a registered device (which holds the sockets)
 * @ipv6: the IPv6 socket rather than the IPv4 one
 *
 * Return: the socket, or NULL (IPv6 disabled).
 */
struct sock *sroce_socket_sk(struct net *net, bool ipv6)
{
	struct sroce_socket_ns *sn = sroce_socket_ns(net);
	struct socket *sock = ipv6 ? sn->sock6 : sn->sock4;

	return sock ? sock->sk : NULL;
}

/* /proc/net/sroce: the namespace's sockets and unclaimed datagrams */
static int sroce_socket_proc_show(struct seq_file *seq, void *v)
{
	struct sroce_socket_ns *sn = sroce_socket_ns(seq_file_single_net(seq));

	mutex_lock(&sroce_socket_lock);
	seq_printf(seq, "devices %u\n", sn->users);
	seq_printf(seq, "udp_port %u%s%s\n", SROCE_UDP_PORT,
		   sn->sock4 ? " ipv4" : "", sn->sock6 ? " ipv6" : "");
	mutex_unlock(&sroce_socket_lock);
	seq_printf(seq, "rx_no_dev %lu\n", atomic_long_read(&sn->rx_no_dev));
	return 0;
}

static int __net_init sroce_socket_ns_init(struct net *net)
{
	struct sroce_socket_ns *sn = sroce_socket_ns(net);

	atomic_long_set(&sn->rx_no_dev, 0);
	if (!proc_create_net_single("sroce", 0444, net->proc_net,
				    sroce_socket_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit sroce_socket_ns_exit(struct net *net)
{
	struct sroce_socket_ns *sn = sroce_socket_ns(net);

	/*
	 * The namespace's netdevs are gone, and each queued its device's
	 * removal (main.c); a netdev moved back to init_net may still have
	 * its device, removed asynchronously: wait for the last one.
	 */
	wait_event(sroce_socket_wq, !READ_ONCE(sn->users));
	/* The last sroce_socket_put() is out of its critical section. */
	mutex_lock(&sroce_socket_lock);
	WARN_ON_ONCE(sn->sock4 || sn->sock6);
	mutex_unlock(&sroce_socket_lock);
	remove_proc_entry("sroce", net->proc_net);
}

static struct pernet_operations sroce_socket_ops = {
	.init = sroce_socket_ns_init,
	.exit = sroce_socket_ns_exit,
	.id = &sroce_socket_id,
	.size = sizeof(struct sroce_socket_ns),
};

/**
 * sroce_socket_init() - module init: per-namespace state in every namespace
 *
 * Return: 0 or a negative errno.
 */
int sroce_socket_init(void)
{
	return register_pernet_subsys(&sroce_socket_ops);
}

/**
 * sroce_socket_exit() - module exit, after the last device is gone
 */
void sroce_socket_exit(void)
{
	unregister_pernet_subsys(&sroce_socket_ops);
}
