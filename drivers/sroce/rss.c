// SPDX-License-Identifier: GPL-2.0
/*
 * rss.c - RSS raw packet QPs: receive side scaling over an indirection
 * table of receive work queues (wq.c).
 *
 * A raw packet QP created with an indirection table (IB_QP_INIT_ATTR_IND_
 * TABLE, user space only, CAP_NET_RAW as for every raw QP) has no rings:
 * it sends nothing, and it only receives through the flows attached to it
 * (flow.c), in whatever state it is (it is never modified: modify_qp is
 * refused, as on mlx5; query_qp reports RESET and no capabilities).  For
 * each frame a flow steers to it, the fields its rx_hash_fields_mask names
 * are hashed with the Toeplitz function and the user's key
 * (include/uapi/rdma/sroce-abi.h gives the order), and the frame goes to
 * the WQ at (hash & (table size - 1)): it completes there on the WQ's CQ,
 * or is dropped and counted (raw_rx_drops) when that WQ is not ready or
 * has no WQE posted.  A frame without the fields (another IP version, no
 * TCP/UDP ports) hashes over what it has; with none of them, the hash is
 * 0.
 *
 * The QP holds the table (the core counts its users) and the table its
 * WQs; the QP has a number in the device's table like every QP, so the
 * flows find it with a reference, and its destruction waits for the
 * frames in flight.
 */
#include <linux/if_ether.h>
#include <linux/in.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "qp.h"
#include "counters.h"
#include "flow.h"

#define SROCE_RX_HASH_FIELDS \
	(SROCE_RX_HASH_SRC_IPV4 | SROCE_RX_HASH_DST_IPV4 | \
	 SROCE_RX_HASH_SRC_IPV6 | SROCE_RX_HASH_DST_IPV6 | \
	 SROCE_RX_HASH_SRC_PORT_TCP | SROCE_RX_HASH_DST_PORT_TCP | \
	 SROCE_RX_HASH_SRC_PORT_UDP | SROCE_RX_HASH_DST_PORT_UDP)

/* The longest hash input: two IPv6 addresses and two ports. */
#define SROCE_RSS_INPUT_MAX	36

/**
 * sroce_rss_toeplitz() - the Toeplitz hash of @in under @key
 * @key: SROCE_RX_HASH_KEY_LEN bytes
 * @in: the input
 * @len: its length, at most SROCE_RX_HASH_KEY_LEN - 4
 *
 * For every bit of @in set, from the first byte's most significant bit,
 * the 32 bits of the key starting at that bit's position are XORed in.
 *
 * Return: the hash.
 */
u32 sroce_rss_toeplitz(const u8 *key, const u8 *in, u32 len)
{
	u32 v = (u32)key[0] << 24 | (u32)key[1] << 16 | (u32)key[2] << 8 |
		key[3];
	u32 hash = 0, i, b;

	for (i = 0; i < len; i++) {
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				hash ^= v;
			v = v << 1 | ((key[i + 4] >> (7 - b)) & 1);
		}
	}
	return hash;
}

/* The hash input of frame key @k under @fields; returns its length. */
static u32 sroce_rss_input(const struct sroce_flow_key *k, u64 fields,
			   u8 *in)
{
	u64 sport_bit = 0, dport_bit = 0;
	u32 n = 0;

	if (k->l3 == 4) {
		if (fields & SROCE_RX_HASH_SRC_IPV4) {
			memcpy(in + n, &k->src4, 4);
			n += 4;
		}
		if (fields & SROCE_RX_HASH_DST_IPV4) {
			memcpy(in + n, &k->dst4, 4);
			n += 4;
		}
	} else if (k->l3 == 6) {
		if (fields & SROCE_RX_HASH_SRC_IPV6) {
			memcpy(in + n, k->src6, 16);
			n += 16;
		}
		if (fields & SROCE_RX_HASH_DST_IPV6) {
			memcpy(in + n, k->dst6, 16);
			n += 16;
		}
	}
	if (k->l4 == IPPROTO_TCP) {
		sport_bit = SROCE_RX_HASH_SRC_PORT_TCP;
		dport_bit = SROCE_RX_HASH_DST_PORT_TCP;
	} else if (k->l4 == IPPROTO_UDP) {
		sport_bit = SROCE_RX_HASH_SRC_PORT_UDP;
		dport_bit = SROCE_RX_HASH_DST_PORT_UDP;
	}
	if (fields & sport_bit) {
		memcpy(in + n, &k->sport, 2);
		n += 2;
	}
	if (fields & dport_bit) {
		memcpy(in + n, &k->dport, 2);
		n += 2;
	}
	return n;
}

/**
 * sroce_rss_rcv() - a frame for an RSS QP whose flow matched it
 * @qp: the QP, with a reference
 * @k: the frame's fields
 * @hdr: the frame's first @hlen bytes
 * @hlen: their length (0: all of it is in @skb)
 * @skb: the rest of the frame from @skb_off (not consumed)
 * @skb_off: first byte in @skb, from skb->data
 *
 * Bottom halves off.
 */
void sroce_rss_rcv(struct sroce_qp *qp, const struct sroce_flow_key *k,
		   const u8 *hdr, u32 hlen, const struct sk_buff *skb,
		   u32 skb_off)
{
	const struct ib_rwq_ind_table *tbl = qp->ibqp.rwq_ind_tbl;
	struct sroce_stats __percpu *stats = qp->sdev->stats;
	u8 in[SROCE_RSS_INPUT_MAX];
	u32 n, hash;

	n = sroce_rss_input(k, qp->rss->fields, in);
	hash = sroce_rss_toeplitz(qp->rss->key, in, n);
	hash &= (1U << tbl->log_ind_tbl_size) - 1;
	if (sroce_wq_rcv(to_swq(tbl->ind_tbl[hash]), qp, hdr, hlen, skb,
			 skb_off))
		sroce_stats_inc(stats, SROCE_CNT_RAW_RX);
	else
		sroce_stats_inc(stats, SROCE_CNT_RAW_RX_DROPS);
}

static int sroce_rss_check(struct ib_device *ibdev,
			   const struct ib_qp_init_attr *init,
			   struct ib_udata *udata,
			   struct sroce_create_qp_rss_cmd *cmd)
{
	int ret;

	if (init->qp_type != IB_QPT_RAW_PACKET || !udata) {
		ibdev_dbg(ibdev, "create_qp: an indirection table on QP type %d\n",
			  init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	/* It receives only: no send queue, receive queue, SRQ or CQ. */
	if (init->send_cq || init->recv_cq || init->srq ||
	    init->cap.max_send_wr || init->cap.max_send_sge ||
	    init->cap.max_recv_wr || init->cap.max_recv_sge ||
	    init->cap.max_inline_data)
		return -EINVAL;
	ret = sroce_udata_get_cmd(ibdev, udata, cmd, sizeof(*cmd), 0,
				  "create_qp (RSS)");
	if (ret)
		return ret;
	if (cmd->rx_hash_function != SROCE_RX_HASH_FUNC_TOEPLITZ ||
	    (cmd->rx_hash_fields_mask & ~(u64)SROCE_RX_HASH_FIELDS)) {
		ibdev_dbg(ibdev, "create_qp: hash function %#x fields %#llx\n",
			  cmd->rx_hash_function, cmd->rx_hash_fields_mask);
		return -EOPNOTSUPP;
	}
	if (cmd->rx_hash_key_len != SROCE_RX_HASH_KEY_LEN ||
	    memchr_inv(cmd->reserved, 0, sizeof(cmd->reserved)))
		return -EINVAL;
	return 0;
}

/**
 * sroce_rss_qp_create() - ops.create_qp for a QP with an indirection table
 * @qp: allocated and zeroed by the core, ibqp.rwq_ind_tbl set
 * @init: a raw packet QP without send or receive queue, CQs or SRQ
 * @udata: the user's struct sroce_create_qp_rss_cmd
 *
 * Return: 0, -EOPNOTSUPP (another QP type, a kernel user, creation
 * flags, another hash function or unknown hash fields), -EINVAL (queues,
 * another key length, a bad command), -ENOMEM (also beyond SROCE_MAX_QP QPs
 * or QP numbers), -EFAULT.
 */
int sroce_rss_qp_create(struct sroce_qp *qp, struct ib_qp_init_attr *init,
			struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_create_qp_rss_cmd cmd;
	u32 qpn;
	int ret;

	ret = sroce_rss_check(qp->ibqp.device, init, udata, &cmd);
	if (ret)
		return ret;
	if (!atomic_add_unless(&sdev->qp_count, 1, SROCE_MAX_QP))
		return -ENOMEM;
	qp->sdev = sdev;
	qp->user = true;
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	spin_lock_init(&qp->lock);
	init_completion(&qp->released);
	INIT_LIST_HEAD(&qp->mcast);
	ret = -ENOMEM;
	qp->rss = kzalloc(sizeof(*qp->rss), GFP_KERNEL_ACCOUNT);
	if (!qp->rss)
		goto err_dec_count;
	qp->rss->fields = cmd.rx_hash_fields_mask;
	memcpy(qp->rss->key, cmd.rx_hash_key, sizeof(qp->rss->key));
	qp->slot = kmalloc(sizeof(*qp->slot), GFP_KERNEL_ACCOUNT);
	if (!qp->slot)
		goto err_free_rss;
	refcount_set(&qp->slot->ref, 1);
	qp->slot->qp = qp;
	ret = sroce_ident_alloc(&sdev->qp_ids, &sdev->qp_xa, &qpn);
	if (ret < 0)
		goto err_free_slot;
	qp->ibqp.qp_num = qpn;
	memset(&init->cap, 0, sizeof(init->cap));
	/* Publish the initialised QP (xa_store implies a barrier). */
	xa_store(&sdev->qp_xa, qpn, qp->slot, GFP_KERNEL);
	return 0;

err_free_slot:
	kfree(qp->slot);
	qp->slot = NULL;
err_free_rss:
	kfree(qp->rss);
	qp->rss = NULL;
err_dec_count:
	atomic_dec(&sdev->qp_count);
	return ret;
}

/**
 * sroce_rss_qp_destroy() - ops.destroy_qp for an RSS QP
 * @qp: the QP; its flows are gone (the core destroys them first)
 *
 * Waits for the frames in flight.  Sleeps.
 */
void sroce_rss_qp_destroy(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;

	xa_erase(&sdev->qp_xa, qp->ibqp.qp_num);
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);
	kfree_rcu(qp->slot, rcu);
	qp->slot = NULL;
	kfree(qp->rss);
	qp->rss = NULL;
	atomic_dec(&sdev->qp_count);
}
