// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module life, the "sroce" rdma link type and the netdev notifier.
 *
 * `rdma link add NAME type sroce netdev IF` arrives in sroce_link_new(),
 * `rdma link delete NAME` goes straight to the core (IBK_ALLOW_USER_UNREG)
 * and ends in sroce_dev_dealloc().  The notifier follows the bound netdevs in
 * every network namespace: their removal removes the device, their state
 * and MTU changes update the port.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "net.h"

/*
 * Serialises sroce_link_new(): the core runs link additions in parallel, and
 * the "one device per netdev" check is only meaningful if no other addition
 * registers a device between the check and our own registration.
 */
static DEFINE_MUTEX(sroce_link_lock);

static int sroce_link_new(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *other;
	int ret;

	if (ndev->flags & IFF_LOOPBACK) {
		pr_err("%s: %s is a loopback device; RoCE needs an Ethernet link\n",
		       ibdev_name, netdev_name(ndev));
		return -EINVAL;
	}
	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s: %s is not an Ethernet device (ARPHRD type %u)\n",
		       ibdev_name, netdev_name(ndev), ndev->type);
		return -EINVAL;
	}

	mutex_lock(&sroce_link_lock);
	other = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	if (other) {
		pr_err("%s: %s already carries sroce device %s\n",
		       ibdev_name, netdev_name(ndev), dev_name(&other->dev));
		ib_device_put(other);
		ret = -EEXIST;
		goto out_unlock;
	}
	/*
	 * The core would refuse a taken name too, but with -ENFILE ("Too many
	 * open files in system"); say what is wrong instead.  A device of
	 * another driver registering the name meanwhile still gets the core's
	 * refusal.
	 */
	other = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		pr_err("%s: an RDMA device of that name exists already\n",
		       ibdev_name);
		ib_device_put(other);
		ret = -EEXIST;
		goto out_unlock;
	}
	ret = sroce_dev_create(ibdev_name, ndev);
out_unlock:
	mutex_unlock(&sroce_link_lock);
	return ret;
}

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_link_new,
};

/*
 * Called under RTNL for netdevs of every namespace.  Events of netdevs that
 * carry no sroce device cost one RCU hash lookup.
 */
static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;

	switch (event) {
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		break;
	default:
		return NOTIFY_DONE;
	}

	/* Fails for a device not yet (or no longer) registered: see device.c */
	ibdev = ib_device_get_by_netdev(ndev, SROCE_DRIVER_ID);
	if (!ibdev)
		return NOTIFY_DONE;

	if (event == NETDEV_UNREGISTER)
		/*
		 * Unregistration sleeps on client teardown and must not run
		 * under RTNL; the netdev's unregistration waits for the work
		 * to drop our reference.
		 */
		ib_unregister_device_queued(ibdev);
	else
		sroce_port_sync(to_sdev(ibdev));

	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

/* Frees memory regions after their last reference (mr.c). */
struct workqueue_struct *sroce_wq;
/*
 * On-demand paging faults (odp.c), apart: a fault may block for as long
 * as the process's memory does (a file whose server does not answer),
 * and must never hold up the frees.
 */
struct workqueue_struct *sroce_odp_wq;

static int __init sroce_mod_init(void)
{
	int ret;

	sroce_wq = alloc_workqueue("sroce", WQ_UNBOUND, 0);
	if (!sroce_wq)
		return -ENOMEM;
	sroce_odp_wq = alloc_workqueue("sroce_odp", WQ_UNBOUND, 0);
	if (!sroce_odp_wq) {
		ret = -ENOMEM;
		goto err_destroy_wq;
	}

	ret = sroce_net_init();
	if (ret) {
		pr_err("cannot create the packet buffer pools: %d\n", ret);
		goto err_destroy_wq;
	}

	/* Per-namespace state (the UDP sockets) before any device. */
	ret = sroce_socket_init();
	if (ret) {
		pr_err("cannot register the per-namespace state: %d\n", ret);
		goto err_pools;
	}

	/*
	 * The notifier goes first: once the link type is registered a device
	 * may appear, and from then on its netdev's events must be seen.
	 */
	ret = register_netdevice_notifier(&sroce_netdev_notifier);
	if (ret) {
		pr_err("cannot register the netdev notifier: %d\n", ret);
		goto err_net_exit;
	}

	/* Before any device: its MAD agent comes with the client's add. */
	ret = sroce_ext_init();
	if (ret) {
		pr_err("cannot register the extensions' client: %d\n", ret);
		goto err_notifier;
	}

	sroce_cc_init();
	rdma_link_register(&sroce_link_ops);

	pr_info("loaded\n");
	return 0;

err_notifier:
	unregister_netdevice_notifier(&sroce_netdev_notifier);
err_net_exit:
	sroce_socket_exit();
err_pools:
	sroce_net_exit();
err_destroy_wq:
	if (sroce_odp_wq)
		destroy_workqueue(sroce_odp_wq);
	destroy_workqueue(sroce_wq);
	return ret;
}

static void __exit sroce_mod_exit(void)
{
	/* Waits for additions in flight; no new device after this. */
	rdma_link_unregister(&sroce_link_ops);
	/*
	 * Removes every device, including those whose removal the notifier
	 * queued, and returns once all are gone: nothing calls into the
	 * module afterwards.  The notifier stays until then, so a netdev that
	 * disappears meanwhile still has its device removed.
	 */
	ib_unregister_driver(SROCE_DRIVER_ID);
	sroce_cc_exit();
	/* Every device's client data went with it. */
	sroce_ext_exit();
	/* No device left: the notifier has nothing more to find. */
	unregister_netdevice_notifier(&sroce_netdev_notifier);
	/*
	 * Every device released its namespace's sockets, waiting for their
	 * receive callbacks (socket.c): the per-namespace state can go.
	 */
	sroce_socket_exit();
	/* Packets still in flight return their pages to the core's pools. */
	sroce_net_exit();
	/* Every QP is gone, with its faults (each held the QP). */
	destroy_workqueue(sroce_odp_wq);
	/* Every device waited for its regions' frees; the last ones return. */
	destroy_workqueue(sroce_wq);

	pr_info("unloaded\n");
}

module_init(sroce_mod_init);
module_exit(sroce_mod_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device over an Ethernet netdev");
MODULE_ALIAS_RDMA_LINK("sroce");
