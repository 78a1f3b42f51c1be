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

/*
 * Limits (query_device, all enforced): groups per device, QPs per group,
 * attachments per device.  The last binds before the product of the
 * first two: 16 QPs in every group at once, or fewer groups with more.
 */
#define SROCE_MAX_MCAST_GRP		1024
#define SROCE_MAX_MCAST_QP_ATTACH	64
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	16384

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

void sroce_mcast_init(struct sroce_dev *sdev);
void sroce_mcast_cleanup(struct sroce_dev *sdev);
int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sroce_mcast_qp_detach_all(struct sroce_qp *qp);
bool sroce_mcast_addr(const u8 *gid);
enum sroce_counter sroce_mcast_recv(struct sroce_dev *sdev,
				    struct sk_buff *skb,
				    const struct sroce_pkt *pkt,
				    const struct sroce_net *net);

#endif /* SROCE_MCAST_H */
