/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.h - the UDP side of sroce: one RoCEv2 socket pair per network
 * namespace (socket.c), transmission (net.c) and the receive path
 * (recv.c).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/netdevice.h>

struct net;
struct sock;
struct sk_buff;
struct sk_buff_head;
struct sroce_dev;
struct sroce_icrc;
struct sroce_av;

/* socket.c */
int sroce_socket_init(void);
void sroce_socket_exit(void);
int sroce_socket_get(struct net *net, const char *ibdev_name);
void sroce_socket_put(struct net *net);
struct sock *sroce_socket_sk(struct net *net, bool ipv6);

/* net.c */
int sroce_net_init(void);
void sroce_net_exit(void);
bool sroce_net_path_up(struct sroce_dev *sdev, const struct sroce_av *av);
struct sroce_qp;
void sroce_net_xmit_list(struct sroce_dev *sdev, struct sk_buff_head *list,
			 const struct sroce_av *av, u32 qpn,
			 struct sroce_qp *paced);

/* Room sroce_net_xmit_list() needs in front of the BTH */
#define SROCE_NET_HEADROOM	(LL_MAX_HEADER + 40 + 8)

struct sk_buff *sroce_net_alloc_skb(struct sroce_qp *qp, u32 hdr_len,
				    u32 paylen, u8 **hdr);
void sroce_net_qp_xmit_list(struct sroce_qp *qp, struct sk_buff_head *list);

/* recv.c */
void sroce_skb_rcv(struct sroce_dev *sdev, struct sk_buff *skb);

/*
 * IP header without options, UDP header, the longest transport headers
 * (proto/sroce_proto.h's sizes)
 */
#define SROCE_RX_HDR_BUF	(SROCE_MAX_NET_HLEN + SROCE_MAX_EXT_HDR_LEN)
struct sroce_pkt;
int sroce_skb_reparse(struct sk_buff *skb, struct sroce_pkt *pkt, u8 *hdr);
void sroce_skb_icrc_feed(struct sk_buff *skb, unsigned int from,
			 unsigned int to, struct sroce_icrc *ic);

#endif /* SROCE_NET_H */
