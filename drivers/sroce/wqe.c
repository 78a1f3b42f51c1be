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
#include "qp.h"

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
 * sroce_sge_load() - copy and check the SGEs of a WQE from a ring slot
 * @qp: the QP whose WQE it is (named in debug messages)
 * @pd: the PD their regions must belong to
 * @usge: the SGEs in the slot, each read once (user space may change them)
 * @num_sge: how many; @sge has room for them
 * @access: 0 (the engine reads the regions) or IB_ACCESS_LOCAL_WRITE
 * @max_len: the most bytes they may describe together
 * @sge: filled in; an entry of non-zero length holds a region reference
 * @loaded: set to the entries of @sge filled in, also on failure (their
 *	references are the caller's to drop)
 * @total: set to the sum of their lengths
 *
 * Return: IB_WC_SUCCESS, IB_WC_LOC_LEN_ERR (beyond @max_len) or
 * IB_WC_LOC_PROT_ERR (an lkey that does not grant the access).
 */
enum ib_wc_status sroce_sge_load(struct sroce_qp *qp, struct ib_pd *pd,
				 const struct sroce_sge *usge, u32 num_sge,
				 int access, u64 max_len,
				 struct sroce_sge_ref *sge, u32 *loaded,
				 u64 *total)
{
	u32 i;

	*loaded = 0;
	*total = 0;
	for (i = 0; i < num_sge; i++) {
		struct sroce_sge u;
		struct sroce_mr *mr;

		memcpy(&u, &usge[i], sizeof(u));
		*total += u.length;
		if (*total > max_len)
			return IB_WC_LOC_LEN_ERR;
		sge[i].addr = u.addr;
		sge[i].length = u.length;
		sge[i].mr = NULL;
		*loaded = i + 1;
		if (!u.length)
			continue;
		mr = sroce_mr_lookup_local(qp->sdev, u.lkey, pd, access, u.addr,
					   u.length);
		if (IS_ERR(mr)) {
			ibdev_dbg(qp->ibqp.device,
				  "QP %u: SGE %u lkey %#x %#llx+%u: %ld\n",
				  qp->ibqp.qp_num, i, u.lkey, u.addr, u.length,
				  PTR_ERR(mr));
			return IB_WC_LOC_PROT_ERR;
		}
		sge[i].mr = mr;
	}
	return IB_WC_SUCCESS;
}

/**
 * sroce_rwqe_load() - copy and check a receive WQE from a ring slot
 * @qp: the QP that will receive into it (named in debug messages)
 * @pd: the PD its SGEs must belong to (the QP's, or its SRQ's)
 * @slot: the WQE, read once (user space may change it under us)
 * @max_sge: the most SGEs the ring's entries hold
 * @r: filled in; its SGEs hold region references
 *
 * Return: IB_WC_SUCCESS, or the status to complete @r with
 * (IB_WC_LOC_LEN_ERR, IB_WC_LOC_PROT_ERR); @r then holds the references
 * taken so far.
 */
enum ib_wc_status sroce_rwqe_load(struct sroce_qp *qp, struct ib_pd *pd,
				  const void *slot, u32 max_sge,
				  struct sroce_rwqe *r)
{
	struct sroce_recv_wqe u;
	enum ib_wc_status status;
	u64 total;

	memcpy(&u, slot, sizeof(u));
	r->wr_id = u.wr_id;
	r->num_sge = 0;
	r->length = 0;
	if (u.num_sge > max_sge)
		return IB_WC_LOC_LEN_ERR;
	status = sroce_sge_load(qp, pd, slot + sizeof(u), u.num_sge,
				IB_ACCESS_LOCAL_WRITE, U64_MAX, r->sge,
				&r->num_sge, &total);
	r->length = min_t(u64, total, U32_MAX);
	return status;
}

/*
 * Call @fn for each piece of the region bytes [@off, @off + @len) of a
 * validated SGE list describes, in order; 0, the first error of @fn, or
 * -EFAULT if the list is shorter than @off + @len.
 */
static int sroce_sge_walk(const struct sroce_sge_ref *sge, u32 num_sge,
			  u32 off, u32 len,
			  int (*fn)(const struct sroce_sge_ref *s, u64 addr,
				    u32 n, void *arg),
			  void *arg)
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
		ret = fn(s, s->addr + off, n, arg);
		if (ret)
			return ret;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

struct sroce_sge_buf {
	void *buf;
	enum sroce_mr_copy_dir dir;
};

static int sroce_sge_copy_one(const struct sroce_sge_ref *s, u64 addr, u32 n,
			      void *arg)
{
	struct sroce_sge_buf *b = arg;
	int ret = -EACCES;

	read_lock(&s->mr->inval_lock);
	if (!s->mr->dead)
		ret = sroce_mr_copy(s->mr, addr, b->buf, n, b->dir);
	read_unlock(&s->mr->inval_lock);
	b->buf += n;
	return ret;
}

/**
 * sroce_sge_copy() - copy between a buffer and the bytes validated SGEs
 *	describe
 * @sge: the SGE list (regions checked for the direction's access)
 * @num_sge: its entries
 * @off: offset in the message the list describes
 * @buf: the buffer
 * @len: bytes; [@off, @off + @len) inside the list's total length
 * @dir: SROCE_MR_FROM_BUF writes the regions, SROCE_MR_TO_BUF reads them
 *
 * Return: 0, or sroce_mr_copy()'s error; -EFAULT if the list is shorter
 * than @off + @len.
 */
int sroce_sge_copy(const struct sroce_sge_ref *sge, u32 num_sge, u32 off,
		   void *buf, u32 len, enum sroce_mr_copy_dir dir)
{
	struct sroce_sge_buf b = { .buf = buf, .dir = dir };

	return sroce_sge_walk(sge, num_sge, off, len, sroce_sge_copy_one, &b);
}

struct sroce_sge_skb {
	const struct sk_buff *skb;
	int off;
};

static int sroce_sge_scatter_one(const struct sroce_sge_ref *s, u64 addr,
				 u32 n, void *arg)
{
	struct sroce_sge_skb *p = arg;
	int ret = -EACCES;

	read_lock(&s->mr->inval_lock);
	if (!s->mr->dead)
		ret = sroce_mr_copy_from_skb(s->mr, addr, p->skb, p->off, n);
	read_unlock(&s->mr->inval_lock);
	p->off += n;
	return ret;
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
	struct sroce_sge_skb p = { .skb = skb, .off = skb_off };

	return sroce_sge_walk(sge, num_sge, off, len, sroce_sge_scatter_one,
			      &p);
}
