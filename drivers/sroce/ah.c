// SPDX-License-Identifier: GPL-2.0
/*
 * ah.c - address handles.
 *
 * An AH holds the address of a UD destination: the GIDs and the GRH's
 * traffic class and hop limit (RoCEv2 routes by IP, so the destination MAC
 * the core resolves is not needed).  Send WQEs name an AH by its number,
 * for kernel and user QPs alike (the same ring format): the requester
 * copies the address when it fetches the WQE (sroce_ah_lookup()), so a
 * handle destroyed with sends outstanding changes nothing already
 * fetched.  The numbers live in the device's ah_xa; the xarray's lock
 * (taken with interrupts off: create_ah and destroy_ah may be called in
 * atomic context, lookups run from the requester) makes a lookup and a
 * destruction exclusive, so no RCU grace period is needed before the core
 * frees the object.
 */
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

/**
 * sroce_av_from_attr() - check an address and make it an address vector
 * @ibdev: the device
 * @attr: a RoCE address: GRH with a RoCEv2 source GID of this port
 * @av: filled in
 *
 * Return: 0 or -EINVAL.
 */
int sroce_av_from_attr(struct ib_device *ibdev,
		       const struct rdma_ah_attr *attr, struct sroce_av *av)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    attr->type != RDMA_AH_ATTR_TYPE_ROCE) {
		ibdev_dbg(ibdev, "address without GRH\n");
		return -EINVAL;
	}
	if (rdma_ah_get_port_num(attr) != SROCE_PORT)
		return -EINVAL;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		ibdev_dbg(ibdev, "source GID %u is not RoCEv2\n",
			  grh->sgid_index);
		return -EINVAL;
	}
	if (ipv6_addr_v4mapped((const struct in6_addr *)sgid_attr->gid.raw) !=
	    ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw)) {
		ibdev_dbg(ibdev, "GIDs of different IP families\n");
		return -EINVAL;
	}
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	av->tclass = grh->traffic_class;
	av->hop_limit = grh->hop_limit;
	return 0;
}

/**
 * sroce_ah_create() - ops.create_ah
 * @ibah: allocated and zeroed by the core, pd set
 * @init: the address and RDMA_CREATE_AH_SLEEPABLE
 * @udata: a user's create: the response tail gets the AH's number
 *
 * Return: 0, -EINVAL for an address sroce cannot send to, -ENOMEM (also
 * beyond SROCE_MAX_AH handles), -EFAULT.
 */
int sroce_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_create_ah_resp resp = {};
	gfp_t gfp = (init->flags & RDMA_CREATE_AH_SLEEPABLE) ? GFP_KERNEL :
							       GFP_ATOMIC;
	int ret;

	ret = sroce_av_from_attr(ibah->device, init->ah_attr, &ah->av);
	if (ret)
		return ret;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	ret = xa_alloc_irq(&sdev->ah_xa, &ah->num, ah,
			   XA_LIMIT(1, SROCE_MAX_AH), gfp);
	if (ret)
		return ret == -EBUSY ? -ENOMEM : ret;
	if (udata) {
		resp.ah_num = ah->num;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret) {
			xa_erase_irq(&sdev->ah_xa, ah->num);
			return ret;
		}
	}
	return 0;
}

/**
 * sroce_ah_query() - ops.query_ah
 * @ibah: the AH
 * @attr: filled in with what the AH sends to
 *
 * Return: 0.
 */
int sroce_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct sroce_av *av = &to_sah(ibah)->av;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, SROCE_PORT);
	rdma_ah_set_grh(attr, &av->dgid, 0, 0, av->hop_limit, av->tclass);
	return 0;
}

/**
 * sroce_ah_destroy() - ops.destroy_ah
 * @ibah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or not: never sleeps
 *
 * Return: 0.
 */
int sroce_ah_destroy(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	unsigned long irqflags;

	xa_lock_irqsave(&sdev->ah_xa, irqflags);
	__xa_erase(&sdev->ah_xa, to_sah(ibah)->num);
	xa_unlock_irqrestore(&sdev->ah_xa, irqflags);
	return 0;
}

/**
 * sroce_ah_lookup() - the address of AH number @num, for a send WQE
 * @sdev: the device
 * @num: the number the WQE names
 * @pd: the QP's PD, which the AH must share
 * @av: filled in
 *
 * Return: true if @num is a live AH of @pd.
 */
bool sroce_ah_lookup(struct sroce_dev *sdev, u32 num, struct ib_pd *pd,
		     struct sroce_av *av)
{
	struct sroce_ah *ah;
	unsigned long flags;
	bool ok = false;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	ah = xa_load(&sdev->ah_xa, num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		ok = true;
	}
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	return ok;
}
