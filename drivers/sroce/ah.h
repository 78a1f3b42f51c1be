/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ah.h - address handles (ah.c): where a UD send goes.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <rdma/ib_verbs.h>

struct sroce_dev;

/**
 * struct sroce_av - an address vector: what sroce_net_xmit_list() needs
 * @sgid: the source GID (a RoCEv2 GID of the port; IPv4-mapped for IPv4)
 * @dgid: the destination GID, of the same family
 * @tclass: IPv4 TOS or IPv6 traffic class
 * @hop_limit: IPv4 TTL or IPv6 hop limit (0: the default, 64)
 */
struct sroce_av {
	union ib_gid sgid;
	union ib_gid dgid;
	u8 tclass;
	u8 hop_limit;
};

/**
 * struct sroce_ah - an address handle
 * @ibah: the core AH; must stay first
 * @num: its number in the device's @ah_xa, named by send WQEs; constant
 * @av: the address; constant
 */
struct sroce_ah {
	struct ib_ah ibah;
	u32 num;
	struct sroce_av av;
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

int sroce_av_from_attr(struct ib_device *ibdev,
		       const struct rdma_ah_attr *attr, struct sroce_av *av);
int sroce_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_ah_destroy(struct ib_ah *ibah, u32 flags);
bool sroce_ah_lookup(struct sroce_dev *sdev, u32 num, struct ib_pd *pd,
		     struct sroce_av *av);

#endif /* SROCE_AH_H */
