/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow.h - flow steering: the flows of raw packet QPs (flow.c), and the
 * raw packet QPs themselves (raw.c).
 */
#ifndef SROCE_FLOW_H
#define SROCE_FLOW_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;
struct sroce_swqe;
struct sroce_nfy;

/**
 * struct sroce_flows - a device's flows and its tap on the netdev
 * @lock: serialises creation and destruction (the list's writers, the
 *	tap's registration); a mutex, verbs only
 * @list: the flows, grouped by QP (a QP's flows are adjacent); readers
 *	walk it under RCU
 * @count: flows in @list, under @lock
 * @tap: the ETH_P_ALL packet_type on the device's netdev, registered
 *	while @count is not zero
 */
struct sroce_flows {
	struct mutex lock; /* see @lock above */
	struct list_head list;
	unsigned int count;
	struct packet_type tap;
};

/*
 * The fields a flow may match, as the frame carries them (network order).
 * @l3: 4 or 6 for an IP frame; @l4: IPPROTO_TCP or IPPROTO_UDP when the
 * ports were found.  No implicit padding: keys are compared as bytes.
 */
struct sroce_flow_key {
	u8 dmac[ETH_ALEN];
	u8 smac[ETH_ALEN];
	__be16 ether_type;
	__be16 vlan_tag;
	__be32 src4;
	__be32 dst4;
	u8 proto4;
	u8 tos4;
	u8 ttl4;
	u8 flags4;
	u8 src6[16];
	u8 dst6[16];
	__be32 flow_label;
	u8 next_hdr;
	u8 tclass;
	u8 hop_limit;
	u8 l4;
	__be16 sport;
	__be16 dport;
	u8 l3;
	u8 reserved[3];
};

/* flow.c */
void sroce_flows_init(struct sroce_dev *sdev);
void sroce_flows_cleanup(struct sroce_dev *sdev);
struct ib_flow *sroce_flow_create(struct ib_qp *ibqp,
				  struct ib_flow_attr *attr,
				  struct ib_udata *udata);
int sroce_flow_destroy(struct ib_flow *ibflow);
void sroce_flow_deliver(struct sroce_dev *sdev, const u8 *hdr, u32 hlen,
			const struct sk_buff *skb, u32 skb_off);

/* raw.c */
int sroce_raw_check_init(const struct ib_qp_init_attr *init,
			 const struct ib_udata *udata);
enum ib_wc_status sroce_raw_fetch(struct sroce_qp *qp,
				  const struct sroce_swqe *w);
int sroce_raw_build(struct sroce_qp *qp, struct sroce_swqe *w,
		    struct sk_buff_head *list);
int sroce_raw_xmit(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_raw_rcv(struct sroce_qp *qp, const u8 *hdr, u32 hlen,
		   const struct sk_buff *skb, u32 skb_off);

/* rss.c */
void sroce_rss_rcv(struct sroce_qp *qp, const struct sroce_flow_key *k,
		   const u8 *hdr, u32 hlen, const struct sk_buff *skb,
		   u32 skb_off);

#endif /* SROCE_FLOW_H */
