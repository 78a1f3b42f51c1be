/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.h - the UDP side of sroce: one RoCEv2 socket pair per network
 * namespace (net.c) and the receive path behind it (recv.c).  Not to be
 * confused with the protocol core's proto/net.h (IP/UDP headers as bytes).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/netdevice.h>

struct net;
struct sk_buff;
struct sroce_dev;
struct sroce_icrc;
struct sroce_av;

/* net.c */
int sroce_net_init(void);
void sroce_net_exit(void);
int sroce_net_get(struct net *net, const char *ibdev_name);
void sroce_net_put(struct net *net);
int sroce_net_xmit(struct sroce_dev *sdev, struct sk_buff *skb,
		   const struct sroce_av *av, u32 qpn);

/* Room sroce_net_xmit() needs in front of the BTH */
#define SROCE_NET_HEADROOM	(LL_MAX_HEADER + 40 + 8)

/* recv.c */
void sroce_skb_recv(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_skb_icrc_feed(struct sk_buff *skb, unsigned int from,
			 unsigned int to, struct sroce_icrc *ic);

#endif /* SROCE_NET_H */
