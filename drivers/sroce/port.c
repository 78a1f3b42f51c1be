// SPDX-License-Identifier: GPL-2.0
/*
 * port.c - the one port of an sroce device: attributes and state.
 *
 * The port mirrors its netdev: it is ACTIVE when the netdev is running and
 * has carrier, and its MTU follows the netdev's.  GIDs are not handled here:
 * the core's RoCE GID manager (roce_gid_mgmt.c) fills the GID table from the
 * netdev's addresses because the port declares RoCEv2 (UDP encapsulation)
 * and the netdev is bound with ib_device_set_netdev().
 */
#include <linux/rtnetlink.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "sroce.h"

static bool sroce_port_is_active(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

/*
 * The largest IB MTU (payload per packet) that fits a netdev MTU once the
 * IP, UDP, BTH, extended transport headers and ICRC are taken off.  The
 * rule is the core's iboe_get_mtu(), which the RDMA CM also applies to the
 * netdev MTU when it builds a RoCE path: 1500 gives IB_MTU_1024, 9000 gives
 * IB_MTU_4096.  An MTU too small for even 256 bytes (below 352) still
 * reports IB_MTU_256, the smallest value the attribute can express.
 */
static enum ib_mtu sroce_port_mtu(unsigned int ndev_mtu)
{
	enum ib_mtu mtu = iboe_get_mtu(ndev_mtu);

	return mtu ? mtu : IB_MTU_256;
}

static void sroce_port_event(struct sroce_dev *sdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT,
		.event = type,
	};

	ib_dispatch_event(&event);
}

/**
 * sroce_port_init() - take the port's state from the netdev, silently
 * @sdev: a device not registered yet
 *
 * Context: RTNL held.
 */
void sroce_port_init(struct sroce_dev *sdev)
{
	ASSERT_RTNL();
	sdev->port_active = sroce_port_is_active(sdev->ndev);
	WRITE_ONCE(sdev->active_mtu, sroce_port_mtu(sdev->ndev->mtu));
}

/**
 * sroce_port_sync() - follow the netdev's state and MTU
 * @sdev: a registered device
 *
 * Reports a change of state to the core (and through it to user space) with
 * IB_EVENT_PORT_ACTIVE or IB_EVENT_PORT_ERR; an event that changes nothing
 * (NETDEV_UP without carrier, a second NETDEV_CHANGE) reports nothing.
 *
 * Context: RTNL held.
 */
void sroce_port_sync(struct sroce_dev *sdev)
{
	bool active;

	ASSERT_RTNL();
	WRITE_ONCE(sdev->active_mtu, sroce_port_mtu(sdev->ndev->mtu));

	active = sroce_port_is_active(sdev->ndev);
	if (active == sdev->port_active)
		return;
	sdev->port_active = active;
	sroce_port_event(sdev, active ? IB_EVENT_PORT_ACTIVE :
					IB_EVENT_PORT_ERR);
}

/**
 * sroce_port_query() - ops.query_port
 * @ibdev: the device
 * @port: SROCE_PORT (the core checks)
 * @attr: zeroed by the core, filled in
 *
 * Context: process; takes RTNL (ib_get_eth_speed()).
 * Return: 0.
 */
int sroce_port_query(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int ret;

	if (sroce_port_is_active(sdev->ndev)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	}
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(sdev->active_mtu);
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	/* The GIDs are the netdev's IP addresses (roce_gid_mgmt.c). */
	attr->ip_gids = true;
	/* Only VL0 exists; everything else (LIDs, SM, counters) is IB's. */
	attr->max_vl_num = 1;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	/* Connection management on the GSI QP (QP1): RDMA CM works. */
	attr->port_cap_flags = IB_PORT_CM_SUP;

	ret = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (ret) {
		/* The netdev is going away: report the slowest link. */
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

/**
 * sroce_port_query_pkey() - ops.query_pkey
 * @ibdev: the device
 * @port: SROCE_PORT
 * @index: P_Key table index
 * @pkey: set to the default P_Key
 *
 * Return: 0, or -EINVAL for an index past the one-entry table.
 */
int sroce_port_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = SROCE_DEFAULT_PKEY;
	return 0;
}

/**
 * sroce_port_get_immutable() - ops.get_port_immutable
 * @ibdev: the device
 * @port: SROCE_PORT
 * @immutable: filled in
 *
 * RoCEv2 with Ethernet address handles, IB MADs, IB CM and AF_IB: ib_mad
 * creates the GSI QP (QP1, UD on the wire) on the port, and ib_cm and the
 * RDMA CM send their messages through it, MADs of 256 bytes.
 *
 * Return: 0.
 */
int sroce_port_get_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	immutable->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/**
 * sroce_port_get_link_layer() - ops.get_link_layer
 * @ibdev: the device
 * @port: SROCE_PORT
 *
 * An RDMA_NODE_IB_CA device would otherwise count as InfiniBand.
 *
 * Return: IB_LINK_LAYER_ETHERNET.
 */
enum rdma_link_layer sroce_port_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}
