// SPDX-License-Identifier: GPL-2.0
/*
 * wqe.c - work queue entries as the engine holds them: the region
 * references of their SGEs, the receive WQE loaded from a ring slot, and
 * the copies between a message and the SGEs that describe it.
 *
 * A ring slot is user memory (for a user QP): each is read once, into the
 * kernel's copy, and every SGE of that copy is checked against its lkey
 * before the engine touches a byte through it.
 */
#include <linux/skbuff.h>

#include "sroce.h"

/**
 * sroce_sge_put() - drop the region references of validated SGEs
 * @sge: the SGEs
 * @n: how many
 */
void sroce_sge_put(struct sroce_sge_ref *sge, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (sge[i].mr)
			sroce_mr_put(sge[i].mr);
		sge[i].mr = NULL;
	}
}

/**
 * sroce_rwqe_load() - copy and check a receive WQE from a ring slot
 * @qp: the QP that will receive into it (named in debug messages)
 * @pd: the PD its SGEs must belong to (the QP's, or its SRQ's)
 * @slot: the WQE, read once (user space may change it under us)
 * @max_sge: the most SGEs the ring's entries hold
 * @r: filled in; its SGEs hold region references
 *
 * Return: 1, or a negative status (-IB_WC_LOC_LEN_ERR, -IB_WC_LOC_PROT_ERR)
 * with @r holding the references taken so far, to complete with it.
 */
int sroce_rwqe_load(struct sroce_qp *qp, struct ib_pd *pd, const void *slot,
		    u32 max_sge, struct sroce_rwqe *r)
{
	const struct sroce_sge *usge = slot + sizeof(struct sroce_recv_wqe);
	struct sroce_recv_wqe u;
	u64 total = 0;
	u32 i;

	memcpy(&u, slot, sizeof(u));
	r->wr_id = u.wr_id;
	r->num_sge = 0;
	r->length = 0;
	if (u.num_sge > max_sge)
		return -IB_WC_LOC_LEN_ERR;
	for (i = 0; i < u.num_sge; i++) {
		struct sroce_sge sge;
		struct sroce_mr *mr;

		memcpy(&sge, &usge[i], sizeof(sge));
		r->sge[i].addr = sge.addr;
		r->sge[i].length = sge.length;
		r->sge[i].mr = NULL;
		r->num_sge = i + 1;
		total += sge.length;
		if (!sge.length)
			continue;
		mr = sroce_mr_lookup_local(qp->sdev, sge.lkey, pd,
					   IB_ACCESS_LOCAL_WRITE, sge.addr,
					   sge.length);
		if (IS_ERR(mr)) {
			ibdev_dbg(qp->ibqp.device,
				  "QP %u: receive SGE %u lkey %#x %#llx+%u: %ld\n",
				  qp->ibqp.qp_num, i, sge.lkey, sge.addr,
				  sge.length, PTR_ERR(mr));
			return -IB_WC_LOC_PROT_ERR;
		}
		r->sge[i].mr = mr;
	}
	r->length = min_t(u64, total, U32_MAX);
	return 1;
}

/**
 * sroce_sge_scatter_buf() - write bytes into validated SGEs
 * @sge: the scatter list (regions checked for local write)
 * @num_sge: its entries
 * @off: offset in the message the list describes
 * @buf: the bytes
 * @len: how many; [@off, @off + @len) inside the list's total length
 *
 * Return: 0, or sroce_mr_copy()'s error; -EFAULT if the list is shorter
 * than @off + @len.
 */
int sroce_sge_scatter_buf(const struct sroce_sge_ref *sge, u32 num_sge,
			  u32 off, const void *buf, u32 len)
{
	u32 i;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		const struct sroce_sge_ref *s = &sge[i];
		u32 n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = min(len, s->length - off);
		ret = sroce_mr_copy(s->mr, s->addr + off, (void *)buf, n,
				    SROCE_MR_FROM_BUF);
		if (ret)
			return ret;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/**
 * sroce_sge_scatter_skb() - write packet bytes into validated SGEs
 * @sge: the scatter list (regions checked for local write)
 * @num_sge: its entries
 * @off: offset in the message the list describes
 * @skb: the packet
 * @skb_off: first byte in @skb, from skb->data
 * @len: bytes; [@off, @off + @len) inside the list's total length
 *
 * Return: 0, or sroce_mr_copy_from_skb()'s error; -EFAULT if the list is
 * shorter than @off + @len.
 */
int sroce_sge_scatter_skb(const struct sroce_sge_ref *sge, u32 num_sge,
			  u32 off, const struct sk_buff *skb, int skb_off,
			  u32 len)
{
	u32 i;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		const struct sroce_sge_ref *s = &sge[i];
		u32 n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = min(len, s->length - off);
		ret = sroce_mr_copy_from_skb(s->mr, s->addr + off, skb,
					     skb_off, n);
		if (ret)
			return ret;
		skb_off += n;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}
