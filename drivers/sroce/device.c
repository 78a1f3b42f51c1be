// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - the sroce device: creation, attributes, end of life.
 *
 * Life cycle:
 *   sroce_dev_create()   ib_alloc_device, netdev_hold, ib_device_set_netdev,
 *                        ib_register_device; then a port sync under RTNL.
 *   (registered)         verbs; netdev events through main.c.
 *   unregistration       by `rdma link delete`, by the netdev's
 *                        NETDEV_UNREGISTER (queued), or by module exit
 *                        (ib_unregister_driver); the core disables the
 *                        device, removes its clients and objects, then calls
 *                        sroce_dev_dealloc() and frees it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "counters.h"
#include "net.h"

/*
 * Every xarray this file initialises gets the one lock class of
 * xa_init_flags() here; ah_xa is the only one locked with interrupts off
 * and from under a QP's lock (sroce_ah_lookup() from the requester), so it
 * has a class of its own: lockdep saw qp_xa's process-context locking as
 * ah_xa's and reported a SOFTIRQ-safe -> unsafe order that cannot happen.
 */
static struct lock_class_key sroce_ah_xa_key;

/**
 * sroce_dev_create() - create and register a device bound to a netdev
 * @name: the device name the user chose
 * @ndev: the netdev, held by the caller for the duration of the call
 *
 * Return: 0 or a negative errno; on failure nothing is left behind.
 */
int sroce_dev_create(const char *name, struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct sroce_dev *sdev;
	struct ib_device *ibdev;
	int ret;

	/* UDP port 4791 in the netdev's namespace; fails if it is taken. */
	ret = sroce_socket_get(net, name);
	if (ret)
		return ret;

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev) {
		sroce_socket_put(net);
		return -ENOMEM;
	}
	ibdev = &sdev->ibdev;
	/* sroce_dev_dealloc() puts it from here on. */
	sdev->net = net;

	/*
	 * From here on ib_dealloc_device() undoes everything: it calls
	 * ops.dealloc_driver (sroce_dev_dealloc(), which drops this reference)
	 * and releases what ib_device_set_netdev() took.
	 */
	ib_set_device_ops(ibdev, &sroce_dev_ops);
	sroce_ucontext_set_uapi(ibdev);
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sdev->ndev = ndev;
	atomic_set(&sdev->pd_count, 0);
	atomic_set(&sdev->cq_count, 0);
	atomic_set(&sdev->qp_count, 0);
	atomic_set(&sdev->srq_count, 0);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC);
	sroce_ident_init(&sdev->qp_ids, SROCE_QPN_MIN);
	xa_init_flags(&sdev->srq_xa, XA_FLAGS_ALLOC1);
	sroce_ident_init(&sdev->srq_ids, 1);
	atomic64_set(&sdev->srq_serial, 0);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	lockdep_set_class(&sdev->ah_xa.xa_lock, &sroce_ah_xa_key);
	atomic_set(&sdev->mr_count, 0);
	atomic_set(&sdev->mw_count, 0);
	spin_lock_init(&sdev->atomic_lock);
	sroce_key_table_init(sdev);
	sroce_mcast_init(sdev);
	sroce_flows_init(sdev);
	sroce_ext_dev_init(sdev);
	sroce_cc_dev_init(sdev);
	ret = sroce_counters_alloc(sdev);
	if (ret)
		goto err_dealloc;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	/* The doorbell of user QPs (qp.c); not in the core's default mask. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));

	rtnl_lock();
	/* Node GUID: EUI-64 of the MAC at creation; it does not follow it. */
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, ndev->dev_addr);
	sroce_port_init(sdev);
	rtnl_unlock();

	ret = ib_device_set_netdev(ibdev, ndev, SROCE_PORT);
	if (ret) {
		pr_err("%s: cannot bind to %s: %d\n", name, netdev_name(ndev),
		       ret);
		goto err_dealloc;
	}

	/*
	 * Once registered, the device can be unregistered and freed at any
	 * time (`rdma link delete`, the netdev's NETDEV_UNREGISTER) before
	 * this function takes RTNL below: its memory stays until put_device().
	 */
	get_device(&ibdev->dev);
	ret = ib_register_device(ibdev, name, NULL);
	if (ret) {
		pr_err("%s: cannot register the device on %s: %d\n", name,
		       netdev_name(ndev), ret);
		put_device(&ibdev->dev);
		goto err_dealloc;
	}
	pr_info("%s: created on %s\n", name, netdev_name(ndev));
	sroce_cc_dev_add(sdev);

	/*
	 * Until ib_register_device() returned, the notifier could not find the
	 * device (ib_device_get_by_netdev() fails on unregistered devices):
	 * catch up with what changed meanwhile.  Under RTNL, every later event
	 * finds the device.  A netdev that started unregistering in the window
	 * takes the device with it, as NETDEV_UNREGISTER would have done;
	 * so does one that moved to another namespace (unregistered from the
	 * old one and registered again in the new one).  A device whose
	 * unregistration began meanwhile has no reference left to take
	 * (ib_device_try_get()) and is not touched; one still registered is
	 * not deallocated while this holds its reference.
	 */
	rtnl_lock();
	if (ib_device_try_get(ibdev)) {
		if (ndev->reg_state != NETREG_REGISTERED ||
		    !net_eq(dev_net(ndev), net))
			ib_unregister_device_queued(ibdev);
		else
			sroce_port_sync(sdev);
		ib_device_put(ibdev);
	}
	rtnl_unlock();
	/* The device may be gone already: do not touch it any more. */
	put_device(&ibdev->dev);
	return 0;

err_dealloc:
	ib_dealloc_device(ibdev);
	return ret;
}

/**
 * sroce_dev_dealloc() - ops.dealloc_driver: last driver call for a device
 * @ibdev: the device, unregistered (or never registered), with no objects
 *
 * The core frees the memory after this returns.
 */
void sroce_dev_dealloc(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* The core destroyed every PD (and user context) before this call. */
	sroce_cc_dev_remove(sdev);
	WARN_ON(atomic_read(&sdev->pd_count));
	WARN_ON(atomic_read(&sdev->cq_count));
	WARN_ON(atomic_read(&sdev->qp_count));
	WARN_ON(atomic_read(&sdev->srq_count));
	WARN_ON(atomic_read(&sdev->wq_count));
	WARN_ON(!xa_empty(&sdev->qp_xa));
	xa_destroy(&sdev->qp_xa);
	WARN_ON(!xa_empty(&sdev->srq_xa));
	xa_destroy(&sdev->srq_xa);
	WARN_ON(!xa_empty(&sdev->ah_xa));
	xa_destroy(&sdev->ah_xa);
	sroce_mcast_cleanup(sdev);
	sroce_flows_cleanup(sdev);
	sroce_mr_dev_cleanup(sdev);
	sroce_key_table_destroy(sdev);

	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	sdev->ndev = NULL;
	/* Unregistered: no receive path reaches the counters any more. */
	sroce_counters_free(sdev);
	sroce_socket_put(sdev->net);
	sdev->net = NULL;
}

/**
 * sroce_dev_query() - ops.query_device
 * @ibdev: the device
 * @attr: filled in
 * @udata: driver-specific input and output; sroce has none
 *
 * Only what works is advertised.  SRQs cannot be resized (no
 * IB_DEVICE_SRQ_RESIZE).
 *
 * Return: 0, or -EINVAL when user space passes driver data.
 */
int sroce_dev_query(struct ib_device *ibdev, struct ib_device_attr *attr,
		    struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = (u64)SROCE_FW_VER_MAJOR << 32 |
		       SROCE_FW_VER_MINOR << 16 | SROCE_FW_VER_SUB;
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = SROCE_VENDOR_ID;
	/* Port state changes are reported with IB_EVENT_PORT_ACTIVE/ERR. */
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_XRC;
	/* `rdma link delete` may remove the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_pd = SROCE_MAX_PD;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = SROCE_MAX_MR;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_fast_reg_page_list_len = SROCE_MAX_FR_PAGES;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->max_dm_size = SROCE_MAX_DM_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_pkeys = SROCE_PKEY_TBL_LEN;
	attr->max_qp = SROCE_MAX_QP;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_QP * SROCE_MAX_RD_ATOMIC;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	/* Receive WQs and RSS raw packet QPs over them (wq.c, rss.c). */
	attr->max_wq_type_rq = SROCE_MAX_WQ;
	attr->rss_caps.supported_qpts = 1 << IB_QPT_RAW_PACKET;
	attr->rss_caps.max_rwq_indirection_tables = SROCE_MAX_RWQ_IND_TABLES;
	attr->rss_caps.max_rwq_indirection_table_size =
		1 << SROCE_MAX_LOG_IND_TBL_SIZE;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	/* Atomic among the device's own atomics (mr.c: sroce_mr_atomic()). */
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->local_ca_ack_delay = 15;
	/*
	 * Completion timestamps (cq.c): the device clock is CLOCK_MONOTONIC
	 * in nanoseconds, a 64-bit counter at 1 GHz (the unit is kHz).
	 */
	attr->timestamp_mask = U64_MAX;
	attr->hca_core_clock = NSEC_PER_SEC / 1000;
	/* On-demand paging, where it works (odp.c). */
	sroce_odp_caps(attr);
	return 0;
}

/**
 * sroce_dev_get_fw_str() - ops.get_dev_fw_str
 * @ibdev: the device
 * @str: IB_FW_VERSION_NAME_MAX bytes
 */
void sroce_dev_get_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", SROCE_FW_VER_MAJOR,
		 SROCE_FW_VER_MINOR, SROCE_FW_VER_SUB);
}
