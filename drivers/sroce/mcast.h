/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcast.h - multicast groups of UD QPs (mcast.c).
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>

#include "counters.h"

struct sk_buff;
struct sroce_dev;
struct sroce_net;
struct sroce_pkt;
struct sroce_qp;

/* Buckets of a device's group table: 2^8. */
#define SROCE_MCG_HASH_BITS		8

/**
 * struct sroce_mcast - a device's multicast state
 * @lock: guards every group and attachment of the device (insertion,
 *	removal, the counts below, each QP's attachment list); taken in
 *	process context, before RTNL
 * @hash: the groups by MGID (struct sroce_mcg); written under @lock,
 *	read under RCU by the receive path
 * @groups: groups in @hash, at most SROCE_MAX_MCAST_GRP
 * @attached: attachments over all groups, at most
 *	SROCE_MAX_TOTAL_MCAST_QP_ATTACH
 */
struct sroce_mcast {
	struct mutex lock; /* see @lock above */
	DECLARE_HASHTABLE(hash, SROCE_MCG_HASH_BITS);
	u32 groups;
	u32 attached;
};

/**
 * struct sroce_mcg - a multicast group of a device
 * @node: in the device's group table (RCU)
 * @mgid: the group's GID; constant
 * @qps: the attachments (struct sroce_mca): written under the device's
 *	mcast.lock, walked under RCU
 * @nqp: entries of @qps, under mcast.lock
 * @rcu: frees the group after a grace period
 */
struct sroce_mcg {
	struct hlist_node node;
	union ib_gid mgid;
	struct list_head qps;
	u32 nqp;
	struct rcu_head rcu;
};

/**
 * struct sroce_mca - a QP attached to a group
 * @grp_node: in the group's @qps (RCU)
 * @qp_node: in the QP's @mcast list, under mcast.lock
 * @mcg: the group; constant
 * @qp: the QP; constant.  Valid under RCU while the attachment is in
 *	@grp_node: the QP is detached before it is destroyed, and
 *	sroce_qp_destroy() waits for a grace period.
 * @rcu: frees the attachment after a grace period
 */
struct sroce_mca {
	struct list_head grp_node;
	struct list_head qp_node;
	struct sroce_mcg *mcg;
	struct sroce_qp *qp;
	struct rcu_head rcu;
};

void sroce_mcast_init(struct sroce_dev *sdev);
void sroce_mcast_cleanup(struct sroce_dev *sdev);
int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sroce_mcast_qp_detach_all(struct sroce_qp *qp);
bool sroce_mcast_addr(const u8 *gid);
struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev, const u8 *gid);
enum sroce_counter sroce_mcast_rcv(struct sroce_dev *sdev,
				   struct sk_buff *skb,
				   const struct sroce_pkt *pkt,
				   const struct sroce_net *net);

#endif /* SROCE_MCAST_H */
