/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce.h - objects and entry points shared by the files of sroce.ko, a
 * software RoCEv2 device.
 *
 * Every object the driver allocates embeds its core counterpart as the first
 * member, so the core can allocate it (INIT_RDMA_OBJ_SIZE) and the driver can
 * get back with container_of() (to_sdev() and friends below).
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "cc.h"
#include "ext.h"
#include "flow.h"
#include "ident.h"
#include "mcast.h"
#include "param.h"

/* The one physical port of every sroce device (IB ports count from 1). */
#define SROCE_PORT		1

/* The default full-membership P_Key, the only one (param.h). */
#define SROCE_DEFAULT_PKEY	0xffff

/* No IEEE OUI: a software device, like the other software providers. */
#define SROCE_VENDOR_ID		0xffffff

/*
 * There is no firmware; fw_ver reports the revision of the driver's device
 * model, major.minor.sub, shown by get_dev_fw_str as "0.1.0".
 */
#define SROCE_FW_VER_MAJOR	0
#define SROCE_FW_VER_MINOR	1
#define SROCE_FW_VER_SUB	0

/**
 * struct sroce_dev - one RoCE device bound to one Ethernet netdev
 * @ibdev: the core device; must stay first (ib_alloc_device())
 * @ndev: the netdev carrying the device's traffic.  Set before registration
 *	and constant until sroce_dev_dealloc(), which drops the reference taken
 *	with netdev_hold() (@ndev_tracker).  Safe to dereference from any verb.
 * @ndev_tracker: reference tracker for @ndev
 * @port_active: the port state last reported to the core with
 *	IB_EVENT_PORT_ACTIVE / IB_EVENT_PORT_ERR.  Written and read under RTNL
 *	once the device is registered (sroce_port_sync()).
 * @active_mtu: path MTU the port offers, derived from @ndev's MTU.  Written
 *	under RTNL (sroce_port_sync()), read locklessly with READ_ONCE().
 * @pd_count: live protection domains; atomic, bounded by SROCE_MAX_PD.
 * @cq_count: live completion queues; atomic, bounded by SROCE_MAX_CQ.
 * @mr_count: live memory regions; atomic, bounded by SROCE_MAX_MR.
 * @mr_xa: the key table: regions and windows by key index (key.c); the
 *	xarray's own lock guards insertion and removal, lookups run under
 *	RCU.
 * @mr_ids: the source of key indices (ident.c).
 * @key_lock: guards what changes in a key's object while it is in @mr_xa:
 *	the binding of every memory window (struct sroce_mw), the num_mw and
 *	dead fields of every region, and the registration of every
 *	fast-registration region (key, range, access, pages, valid); irqsave.
 * @mw_count: live memory windows; atomic, bounded by SROCE_MAX_MW.
 * @dm_used: bytes of device memory allocated and not freed (dm.c), in
 *	whole pages; atomic, bounded by SROCE_MAX_DM_SIZE.
 * @atomic_lock: makes the responder's atomics atomic with respect to each
 *	other on this device (IB_ATOMIC_HCA); taken with interrupts off.
 * @qp_count: live queue pairs; atomic, bounded by SROCE_MAX_QP.
 * @qp_xa: queue pairs by number (qp.c); the xarray's lock guards insertion
 *	and removal, lookups run under RCU.
 * @qp_ids: the source of QP numbers but the GSI QP's (ident.c).
 * @ah_xa: address handles by number (ah.c); its lock (irqsave) guards
 *	insertion, removal and lookups.
 * @srq_count: live shared receive queues; atomic, bounded by SROCE_MAX_SRQ.
 * @srq_xa: XRC SRQs by number (xrc.c), looked up under RCU by the receive
 *	path; the number is the SRQ's ibsrq.ext.xrc.srq_num.
 * @srq_ids: the source of XRC SRQ numbers (ident.c).
 * @srq_serial: the last XRC SRQ identity handed out (xrc.c); atomic.
 * @mcast: multicast groups and their attached QPs (mcast.h, mcast.c).
 * @net: the namespace of @ndev at creation, whose UDP sockets the device
 *	holds (socket.c: sroce_socket_get() before allocation,
 *	sroce_socket_put() in sroce_dev_dealloc()).  Constant.
 * @stats: per-CPU packet counters (counters.h); allocated before
 *	registration, freed in sroce_dev_dealloc().
 * @flows: the flows of its raw packet QPs, and its tap (flow.h, flow.c)
 * @ext: the negotiation with sroce peers (ext.h)
 * @cc: congestion control parameters (cc.h, cc.c)
 */
struct sroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	bool port_active;
	enum ib_mtu active_mtu;
	atomic_t pd_count;
	atomic_t cq_count;
	atomic_t mr_count;
	struct xarray mr_xa;
	struct sroce_ident mr_ids;
	spinlock_t key_lock; /* see @key_lock above */
	atomic_t mw_count;
	atomic_long_t dm_used;
	spinlock_t atomic_lock; /* see @atomic_lock above */
	atomic_t qp_count;
	struct xarray qp_xa;
	struct sroce_ident qp_ids;
	struct xarray ah_xa;
	atomic_t srq_count;
	struct xarray srq_xa;
	atomic_t wq_count;
	atomic_t rwq_ind_table_count;
	struct sroce_ident srq_ids;
	atomic64_t srq_serial;
	struct sroce_mcast mcast;
	struct net *net;
	struct sroce_stats __percpu *stats;
	struct sroce_flows flows;
	struct sroce_ext_dev ext;
	struct sroce_cc_dev cc;
};

/**
 * struct sroce_ucontext - a user context (one per open of the uverbs device)
 * @ibuc: the core context; must stay first
 *
 * Nothing of its own: the core keeps the rings' mmap entries (queue.c).
 */
struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

/**
 * struct sroce_pd - a protection domain
 * @ibpd: the core PD; must stay first
 */
struct sroce_pd {
	struct ib_pd ibpd;
};

/* An XRC domain: nothing of sroce's own (xrc.c). */
struct sroce_xrcd {
	struct ib_xrcd ibxrcd;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline struct sroce_ucontext *to_suctx(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sroce_ucontext, ibuc);
}

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

/* main.c: the module's workqueues (frees of memory regions, mr.c; ODP faults) */
extern struct workqueue_struct *sroce_wq;
extern struct workqueue_struct *sroce_odp_wq;

/* verbs.c: the ib_device_ops table of every sroce device */
extern const struct ib_device_ops sroce_dev_ops;

/* device.c */
int sroce_dev_create(const char *name, struct net_device *ndev);
void sroce_dev_dealloc(struct ib_device *ibdev);
int sroce_dev_query(struct ib_device *ibdev, struct ib_device_attr *attr,
		    struct ib_udata *udata);
void sroce_dev_get_fw_str(struct ib_device *ibdev, char *str);

/* port.c */
void sroce_port_init(struct sroce_dev *sdev);
void sroce_port_sync(struct sroce_dev *sdev);
int sroce_port_query(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int sroce_port_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey);
int sroce_port_get_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer sroce_port_get_link_layer(struct ib_device *ibdev,
					       u32 port);

/* ucontext.c */
int sroce_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_ucontext_dealloc(struct ib_ucontext *ibuc);
int sroce_ucontext_query(struct ib_ucontext *ibuc,
			 struct uverbs_attr_bundle *attrs);
void sroce_ucontext_set_uapi(struct ib_device *ibdev);
void sroce_ucontext_disassociate(struct ib_ucontext *ibuc);
int sroce_udata_get_cmd(struct ib_device *ibdev, struct ib_udata *udata,
			void *cmd, size_t cmd_len, size_t resp_len,
			const char *verb);

/* pd.c */
int sroce_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata);

/* xrc.c: XRC domains (the rest of xrc.c: srq.h, engine.h) */
int sroce_xrcd_alloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sroce_xrcd_dealloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/*
 * The objects every verb may meet: rings, CQs, memory regions and windows,
 * SRQs, WQs.  A QP (qp.h), its WQE copies (wqe.h) and the engine
 * (engine.h) are included by the files that use them, so a change of the
 * engine rebuilds the engine and not the rest.
 */
#include "queue.h"
#include "ah.h"
#include "cq.h"
#include "key.h"
#include "dm.h"
#include "mr.h"
#include "mw.h"
#include "odp.h"
#include "srq.h"
#include "wq.h"

#endif /* SROCE_H */
