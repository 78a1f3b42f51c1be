// SPDX-License-Identifier: GPL-2.0
/*
 * ext.c - the negotiation between sroce peers: SroceHello, a vendor MAD
 * of class 0x30 on QP1 (Documentation/protocol.md, "Discovery").
 *
 * An RC or XRC QP entering RTR sends Get(SroceHello) to its peer's QP1;
 * the peer's sroce answers GetResp with the features both offer, an IBTA
 * peer's MAD core answers "unsupported" (generate_unmatched_resp()).  A
 * QP has agreed once it holds both the answer to its Get and the peer's
 * own Get.  Received MADs of the class reach sroce_ext_process_mad()
 * (ops.process_mad, offered every MAD before any agent); the device's MAD
 * agent only sends, with the MAD layer's timeout and retries.
 *
 * Nothing here points at a QP across a MAD call: a hello's send buffer
 * names its QP by number and the device-wide epoch of its RTR, looked up
 * again (sroce_qp_get()) when the answer comes; a QP destroyed, reset or
 * connected anew meanwhile simply is not found or has another epoch.  The
 * agent is an ib_client's: removed before the MAD core's port goes
 * (clients go in reverse order of registration), and
 * ib_unregister_mad_agent() flushes its sends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/random.h>
#include <rdma/ib_mad.h>

#include "sroce.h"
#include "counters.h"
#include "ext.h"
#include "qp.h"

/*
 * Read when a device is added: a device added with ext=0 registers no MAD
 * agent, so it sends no hello and Linux's MAD core answers the hellos of
 * others "unsupported", as on any IBTA port.
 */
static bool ext = true;
module_param(ext, bool, 0644);
MODULE_PARM_DESC(ext,
		 "negotiate extensions with sroce peers (SroceHello on QP1), read when a device is added (default: yes)");

/*
 * Read at each hello: a connection whose hellos offered no selective
 * repeat runs IBTA's go-back-N between sroce peers too (the bench's
 * "forced go-back-N").
 */
static bool sr = true;
module_param(sr, bool, 0644);
MODULE_PARM_DESC(sr,
		 "offer selective repeat to sroce peers, read at each connection's hello (default: yes)");

/* The features this side offers now */
static u32 sroce_ext_offered(void)
{
	return READ_ONCE(sr) ? SROCE_EXT_SACK : 0;
}

#define SROCE_EXT_CLASS		0x30	/* vendor range 2: with an OUI */
#define SROCE_EXT_CLASS_VERSION	1
/* Locally administered (bit 1 of the first octet), "SR". */
static const u8 sroce_ext_oui[3] = { 0x02, 0x53, 0x52 };
#define SROCE_EXT_ATTR_HELLO	0x0010

#define SROCE_EXT_TIMEOUT_MS	200
#define SROCE_EXT_RETRIES	3

/* The attribute's data, first in the vendor MAD's data; big-endian. */
struct sroce_hello_wire {
	u8 version;
	u8 reserved[3];
	__be32 features;
	__be32 sender_qpn;
	__be32 peer_qpn;
	__be32 send_psn;
	__be32 expected_psn;
	__be64 nonce;
} __packed;

static_assert(sizeof(struct sroce_hello_wire) == 32);

/* Count an event from process context (counters.h wants BHs off). */
static void sroce_ext_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	local_bh_disable();
	sroce_stats_inc(sdev->stats, c);
	local_bh_enable();
}

static struct sroce_hello_wire *sroce_ext_hello_of(void *mad)
{
	return (struct sroce_hello_wire *)((struct ib_vendor_mad *)mad)->data;
}

void sroce_ext_dev_init(struct sroce_dev *sdev)
{
	spin_lock_init(&sdev->ext.lock);
	xa_init(&sdev->ext.pending);
	atomic_set(&sdev->ext.epoch, 0);
	atomic_set(&sdev->ext.tid, 0);
}

/*
 * sroce_ext_agree() - agree once both halves are there.  The one writer
 * of @features and SROCE_EXT_AGREED.  Return: true when it agreed now.
 */
static bool sroce_ext_agree(struct sroce_qp *qp)
{
	struct sroce_ext_qp *x = &qp->ext;

	lockdep_assert_held(&qp->lock);
	if ((x->flags & (SROCE_EXT_GOT_RESP | SROCE_EXT_GOT_GET)) !=
	    (SROCE_EXT_GOT_RESP | SROCE_EXT_GOT_GET) ||
	    (x->flags & SROCE_EXT_AGREED))
		return false;
	x->version = SROCE_EXT_VERSION;
	WRITE_ONCE(x->features, x->resp_features & x->granted);
	x->flags |= SROCE_EXT_AGREED;
	return true;
}

/* What sroce_ext_send_hello() needs of @qp, copied under its lock. */
static void sroce_ext_hello_copy(struct sroce_qp *qp,
				 struct sroce_ext_hello *hello)
{
	const struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->lock);
	hello->ah_attr = a->ah_attr;
	hello->ah_attr.grh.sgid_attr = NULL;
	hello->pkey_index = a->pkey_index;
	hello->qpn = qp->ibqp.qp_num;
	hello->dest_qpn = a->dest_qp_num;
	hello->sq_psn = a->sq_psn;
	hello->rq_psn = a->rq_psn;
	hello->epoch = qp->ext.epoch;
}

/**
 * sroce_ext_qp_state() - a QP changes state: forget, and maybe say hello
 * @qp: the QP, its lock held, its new state set
 * @prev: its state before
 * @hello: filled in; @hello->epoch is 0 unless sroce_ext_send_hello()
 *	should send it once the lock is dropped
 *
 * RESET forgets the agreement; entering RTR starts a new epoch and, for a
 * connected QP of a device with an agent, asks for a hello.
 */
void sroce_ext_qp_state(struct sroce_qp *qp, enum ib_qp_state prev,
			struct sroce_ext_hello *hello)
{
	struct sroce_dev *sdev = qp->sdev;

	lockdep_assert_held(&qp->lock);
	hello->epoch = 0;
	if (qp->state == IB_QPS_RESET) {
		memset(&qp->ext, 0, sizeof(qp->ext));
		return;
	}
	if (qp->state != IB_QPS_RTR || prev == IB_QPS_RTR ||
	    !sroce_qp_is_rc(qp))
		return;
	memset(&qp->ext, 0, sizeof(qp->ext));
	/* 0 stays "no epoch": skip it when the counter wraps. */
	do {
		qp->ext.epoch = atomic_inc_return(&sdev->ext.epoch);
	} while (!qp->ext.epoch);
	if (!READ_ONCE(sdev->ext.agent))
		return;	/* read again under ext.lock before use */
	sroce_ext_hello_copy(qp, hello);
}

static void sroce_ext_fill(struct ib_mad_send_buf *msg, u8 method,
			   __be64 tid, const struct sroce_hello_wire *hello)
{
	struct ib_vendor_mad *mad = msg->mad;

	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = SROCE_EXT_CLASS;
	mad->mad_hdr.class_version = SROCE_EXT_CLASS_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.tid = tid;
	mad->mad_hdr.attr_id = cpu_to_be16(SROCE_EXT_ATTR_HELLO);
	memcpy(mad->oui, sroce_ext_oui, sizeof(mad->oui));
	memcpy(mad->data, hello, sizeof(*hello));
}

/**
 * sroce_ext_send_hello() - send the hello sroce_ext_qp_state() asked for
 * @sdev: the QP's device
 * @hello: the copy made under the QP's lock
 *
 * Never sleeps, never waits for the answer: the MAD layer retries, and
 * the handlers below finish the job.
 */
void sroce_ext_send_hello(struct sroce_dev *sdev,
			  const struct sroce_ext_hello *hello)
{
	struct sroce_hello_wire w = {
		.version = SROCE_EXT_VERSION,
		.features = cpu_to_be32(sroce_ext_offered()),
		.sender_qpn = cpu_to_be32(hello->qpn),
		.peer_qpn = cpu_to_be32(hello->dest_qpn),
		.send_psn = cpu_to_be32(hello->sq_psn),
		.expected_psn = cpu_to_be32(hello->rq_psn),
		.nonce = cpu_to_be64(get_random_u64()),
	};
	struct ib_mad_send_buf *msg = NULL;
	struct ib_mad_agent *agent;
	struct ib_ah *ah = NULL;
	unsigned long flags;
	bool sent = false;
	u64 tid;

	if (!hello->epoch)
		return;
	spin_lock_irqsave(&sdev->ext.lock, flags);
	agent = sdev->ext.agent;
	if (!agent)
		goto out;
	ah = rdma_create_ah(agent->qp->pd, (struct rdma_ah_attr *)&hello->ah_attr, 0);
	if (IS_ERR(ah)) {
		ah = NULL;
		goto out;
	}
	msg = ib_create_send_mad(agent, 1, hello->pkey_index, 0,
				 IB_MGMT_VENDOR_HDR, IB_MGMT_VENDOR_DATA,
				 GFP_ATOMIC, IB_MGMT_BASE_VERSION);
	if (IS_ERR(msg)) {
		msg = NULL;
		goto out;
	}
	tid = (u64)agent->hi_tid << 32 |
	      (u32)atomic_inc_return(&sdev->ext.tid);
	sroce_ext_fill(msg, IB_MGMT_METHOD_GET, cpu_to_be64(tid), &w);
	msg->ah = ah;
	msg->timeout_ms = SROCE_EXT_TIMEOUT_MS;
	msg->retries = SROCE_EXT_RETRIES;
	msg->context[0] = (void *)(uintptr_t)hello->qpn;
	msg->context[1] = (void *)(uintptr_t)hello->epoch;
	if (xa_err(xa_store(&sdev->ext.pending, (u32)tid, msg, GFP_ATOMIC)))
		goto out;
	sent = !ib_post_send_mad(msg, NULL);
	if (!sent)
		xa_erase(&sdev->ext.pending, (u32)tid);
out:
	if (!sent) {
		if (msg)
			ib_free_send_mad(msg);
		if (ah)
			rdma_destroy_ah(ah, 0);
	}
	spin_unlock_irqrestore(&sdev->ext.lock, flags);
	if (sent)
		sroce_ext_count(sdev, SROCE_CNT_EXT_HELLO_SENT);
}

/* A PSN or a QPN: 24 bits. */
static bool sroce_ext_24(__be32 v)
{
	return !(be32_to_cpu(v) & ~0xffffffU);
}

/* The checks every hello passes before it names a QP. */
static bool sroce_ext_wire_ok(const struct ib_vendor_mad *mad,
			      const struct ib_wc *wc)
{
	const struct sroce_hello_wire *h = (const void *)mad->data;

	/* Whole: the MAD core reads a short datagram's buffer to 256 bytes. */
	return wc->byte_len >= sizeof(struct ib_grh) + IB_MGMT_VENDOR_HDR +
			       sizeof(*h) &&
	       mad->mad_hdr.attr_id == cpu_to_be16(SROCE_EXT_ATTR_HELLO) &&
	       !mad->mad_hdr.attr_mod &&
	       h->version == SROCE_EXT_VERSION &&
	       !h->reserved[0] && !h->reserved[1] && !h->reserved[2] &&
	       sroce_ext_24(h->sender_qpn) && sroce_ext_24(h->peer_qpn) &&
	       sroce_ext_24(h->send_psn) && sroce_ext_24(h->expected_psn) &&
	       (wc->wc_flags & IB_WC_GRH) &&
	       (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE);
}

/*
 * sroce_ext_qp_matches() - a hello names @qp from @sgid: the QP is
 * connected (RTR or RTS) to that QPN at that GID.  Its lock held.
 */
static bool sroce_ext_qp_matches(struct sroce_qp *qp, u32 peer_qpn,
				 const union ib_gid *sgid)
{
	lockdep_assert_held(&qp->lock);
	return sroce_qp_is_rc(qp) && !qp->destroyed && qp->ext.epoch &&
	       (qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS) &&
	       qp->attr.dest_qp_num == peer_qpn &&
	       !memcmp(&qp->av.dgid, sgid, sizeof(*sgid));
}

/*
 * A peer's Get: fill @out with the answer if it names one of our
 * connected QPs consistently.  Return: true to answer, false to drop (the
 * MAD layer of an early peer retries).
 *
 * A peer that sends its Get is connected: if our own Get is unanswered
 * (the peer dropped it, not connected yet when it came), it is sent again
 * now, once per connection, rather than on the MAD layer's retry 200 ms
 * later, which a short connection never sees.
 */
static bool sroce_ext_recv_get(struct sroce_dev *sdev, const struct ib_wc *wc,
			       const struct ib_grh *grh,
			       const struct ib_vendor_mad *mad,
			       struct ib_vendor_mad *out)
{
	const struct sroce_hello_wire *h = (const void *)mad->data;
	u32 sender = be32_to_cpu(h->sender_qpn);
	struct sroce_ext_hello again = {};
	struct sroce_hello_wire w = {};
	bool ok = false, agreed = false;
	union ib_gid sgid, dgid;
	unsigned long flags;
	struct sroce_qp *qp;

	if (!sroce_ext_wire_ok(mad, wc) ||
	    ib_get_gids_from_rdma_hdr((const void *)grh, wc->network_hdr_type,
				      &sgid, &dgid))
		return false;
	qp = sroce_qp_get(sdev, be32_to_cpu(h->peer_qpn));
	if (!qp)
		return false;
	spin_lock_irqsave(&qp->lock, flags);
	/* Its expected PSN is our send PSN, once we have one (RTS). */
	if (sroce_ext_qp_matches(qp, sender, &sgid) &&
	    (qp->state != IB_QPS_RTS ||
	     be32_to_cpu(h->expected_psn) == qp->attr.sq_psn)) {
		ok = true;
		qp->ext.peer_features = be32_to_cpu(h->features);
		/* Its answer: what this responder takes from now on. */
		qp->ext.granted = qp->ext.peer_features & sroce_ext_offered();
		qp->ext.flags |= SROCE_EXT_GOT_GET;
		agreed = sroce_ext_agree(qp);
		if (!(qp->ext.flags & (SROCE_EXT_GOT_RESP | SROCE_EXT_PROMPTED))) {
			qp->ext.flags |= SROCE_EXT_PROMPTED;
			sroce_ext_hello_copy(qp, &again);
		}
		w.version = SROCE_EXT_VERSION;
		w.features = cpu_to_be32(qp->ext.granted);
		w.sender_qpn = cpu_to_be32(qp->ibqp.qp_num);
		w.peer_qpn = h->sender_qpn;
		w.send_psn = cpu_to_be32(qp->attr.sq_psn);
		w.expected_psn = cpu_to_be32(qp->attr.rq_psn);
		w.nonce = h->nonce;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_put(qp);
	if (!ok)
		return false;
	if (agreed)
		sroce_ext_count(sdev, SROCE_CNT_EXT_AGREED);
	sroce_ext_send_hello(sdev, &again);	/* nothing if again.epoch == 0 */
	*out = *mad;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = 0;
	memset(out->data, 0, sizeof(out->data));
	memcpy(out->data, &w, sizeof(w));
	return true;
}

/*
 * The QP's hello was answered: its other Get of the same connection (the
 * first one, or the one sroce_ext_recv_get() sent again) needs no answer
 * any more; its answer, if one still comes, is dropped and counted.
 */
static void sroce_ext_cancel_others(struct sroce_dev *sdev, u32 qpn, u32 epoch)
{
	struct ib_mad_send_buf *msg;
	unsigned long flags, tid;

	spin_lock_irqsave(&sdev->ext.lock, flags);
	xa_for_each(&sdev->ext.pending, tid, msg) {
		if ((uintptr_t)msg->context[0] == qpn &&
		    (uintptr_t)msg->context[1] == epoch) {
			xa_erase(&sdev->ext.pending, tid);
			ib_cancel_mad(msg);
		}
	}
	spin_unlock_irqrestore(&sdev->ext.lock, flags);
}

/*
 * An answer to one of our Gets, matched here by transaction ID (the MAD
 * layer of Linux 6.1 cannot match it over IPv4: rcv_has_same_gid()
 * compares the GRH's destination GID, which for RoCEv2 over IPv4 is the
 * IP header).  A refusal, or the peer's half of the agreement if it
 * answers what we asked.  Return: the counter it moves.
 */
static enum sroce_counter sroce_ext_recv_resp(struct sroce_dev *sdev,
					      const struct ib_wc *wc,
					      const struct ib_vendor_mad *mad)
{
	const struct sroce_hello_wire *h = (const void *)mad->data;
	u64 tid = be64_to_cpu(mad->mad_hdr.tid);
	struct sroce_hello_wire ours;
	struct ib_mad_send_buf *msg;
	bool ok = false, agreed = false;
	unsigned long flags;
	struct sroce_qp *qp;
	u32 qpn, epoch;

	spin_lock_irqsave(&sdev->ext.lock, flags);
	msg = sdev->ext.agent && tid >> 32 == sdev->ext.agent->hi_tid ?
	      xa_erase(&sdev->ext.pending, (u32)tid) : NULL;
	if (msg) {
		ours = *sroce_ext_hello_of(msg->mad);
		qpn = (uintptr_t)msg->context[0];
		epoch = (uintptr_t)msg->context[1];
		/* Done: no retry, no timeout (sroce_ext_send_done()). */
		ib_cancel_mad(msg);
	}
	spin_unlock_irqrestore(&sdev->ext.lock, flags);
	if (!msg)
		return SROCE_CNT_EXT_HELLO_DROPPED;
	if (mad->mad_hdr.status)
		return SROCE_CNT_EXT_HELLO_REFUSED;
	if (!sroce_ext_wire_ok(mad, wc) || h->nonce != ours.nonce ||
	    h->sender_qpn != ours.peer_qpn || h->peer_qpn != ours.sender_qpn)
		return SROCE_CNT_EXT_HELLO_DROPPED;
	qp = sroce_qp_get(sdev, qpn);
	if (!qp)
		return SROCE_CNT_EXT_HELLO_DROPPED;
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->ext.epoch == epoch && !qp->destroyed &&
	    (qp->state == IB_QPS_RTR || qp->state == IB_QPS_RTS)) {
		ok = true;
		/* Never more than our Get offered. */
		qp->ext.resp_features = be32_to_cpu(h->features) &
					be32_to_cpu(ours.features);
		qp->ext.flags |= SROCE_EXT_GOT_RESP;
		agreed = sroce_ext_agree(qp);
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	sroce_qp_put(qp);
	if (ok)
		sroce_ext_cancel_others(sdev, qpn, epoch);
	if (!ok)
		return SROCE_CNT_EXT_HELLO_DROPPED;
	if (agreed)
		sroce_ext_count(sdev, SROCE_CNT_EXT_AGREED);
	return SROCE_CNT_EXT_HELLO_ACCEPTED;
}

/**
 * sroce_ext_process_mad() - the MADs of the class, from ops.process_mad
 * (mad.c), where the MAD core offers every MAD received on QP1 first
 *
 * Takes the MADs of our class and OUI when the device has an agent:
 * answers a peer's Get (or drops it), consumes the answers to ours.
 * Everything else, and everything on a device without an agent, goes on
 * to the MAD core, which answers a Get of a class nobody registered
 * "unsupported".
 *
 * Return: IB_MAD_RESULT_* flags.
 */
int sroce_ext_process_mad(struct ib_device *ibdev, int flags, u32 port,
			  const struct ib_wc *wc, const struct ib_grh *grh,
			  const struct ib_mad *in, struct ib_mad *out,
			  size_t *out_size, u16 *out_pkey_index)
{
	const struct ib_vendor_mad *mad = (const void *)in;
	struct sroce_dev *sdev = to_sdev(ibdev);

	if (!wc || !grh || !in || !out ||
	    in->mad_hdr.mgmt_class != SROCE_EXT_CLASS)
		return IB_MAD_RESULT_SUCCESS;
	if (!READ_ONCE(sdev->ext.agent) ||
	    in->mad_hdr.class_version != SROCE_EXT_CLASS_VERSION ||
	    memcmp(mad->oui, sroce_ext_oui, sizeof(mad->oui)))
		return IB_MAD_RESULT_SUCCESS;
	switch (in->mad_hdr.method) {
	case IB_MGMT_METHOD_GET:
		if (*out_size < sizeof(struct ib_vendor_mad) ||
		    !sroce_ext_recv_get(sdev, wc, grh, mad, (void *)out))
			break;
		*out_size = sizeof(struct ib_vendor_mad);
		sroce_ext_count(sdev, SROCE_CNT_EXT_HELLO_REPLIED);
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
	case IB_MGMT_METHOD_GET_RESP:
		sroce_ext_count(sdev, sroce_ext_recv_resp(sdev, wc, mad));
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	default:
		/* Not a method of SroceHello: the core answers a Set. */
		return IB_MAD_RESULT_SUCCESS;
	}
	sroce_ext_count(sdev, SROCE_CNT_EXT_HELLO_DROPPED);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
}

static void sroce_ext_send_done(struct ib_mad_agent *agent,
				struct ib_mad_send_wc *wc)
{
	struct ib_mad_send_buf *msg = wc->send_buf;
	struct sroce_dev *sdev = agent->context;
	const struct ib_mad_hdr *hdr = msg->mad;
	unsigned long flags;

	spin_lock_irqsave(&sdev->ext.lock, flags);
	xa_erase(&sdev->ext.pending, (u32)be64_to_cpu(hdr->tid));
	spin_unlock_irqrestore(&sdev->ext.lock, flags);
	if (wc->status == IB_WC_RESP_TIMEOUT_ERR)
		sroce_ext_count(sdev, SROCE_CNT_EXT_HELLO_TIMEOUTS);
	rdma_destroy_ah(msg->ah, 0);
	ib_free_send_mad(msg);
}

/*
 * The MAD layer wants a receive handler for sends that expect an answer;
 * every answer of the class stops in sroce_ext_process_mad() first.
 */
static void sroce_ext_recv(struct ib_mad_agent *agent,
			   struct ib_mad_send_buf *send_buf,
			   struct ib_mad_recv_wc *rwc)
{
	sroce_ext_count(agent->context, SROCE_CNT_EXT_HELLO_DROPPED);
	ib_free_recv_mad(rwc);
}

static int sroce_ext_add(struct ib_device *ibdev)
{
	struct sroce_dev *sdev;
	struct ib_mad_agent *agent;
	unsigned long flags;

	if (ibdev->ops.driver_id != SROCE_DRIVER_ID || !READ_ONCE(ext))
		return -EOPNOTSUPP;
	sdev = to_sdev(ibdev);
	/* Sends only: no class registered (sroce_ext_process_mad()). */
	agent = ib_register_mad_agent(ibdev, SROCE_PORT, IB_QPT_GSI, NULL, 0,
				      sroce_ext_send_done, sroce_ext_recv, sdev,
				      0);
	if (IS_ERR(agent)) {
		dev_warn(&ibdev->dev, "no SroceHello MAD agent: %ld\n",
			 PTR_ERR(agent));
		return PTR_ERR(agent);
	}
	spin_lock_irqsave(&sdev->ext.lock, flags);
	sdev->ext.agent = agent;
	spin_unlock_irqrestore(&sdev->ext.lock, flags);
	return 0;
}

static void sroce_ext_remove(struct ib_device *ibdev, void *client_data)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct ib_mad_agent *agent;
	unsigned long flags;

	if (ibdev->ops.driver_id != SROCE_DRIVER_ID)
		return;
	/* No hello is posted once @agent is NULL (sroce_ext_send_hello()). */
	spin_lock_irqsave(&sdev->ext.lock, flags);
	agent = sdev->ext.agent;
	sdev->ext.agent = NULL;
	spin_unlock_irqrestore(&sdev->ext.lock, flags);
	if (agent)
		ib_unregister_mad_agent(agent);
}

static struct ib_client sroce_ext_client = {
	.name = "sroce_ext",
	.add = sroce_ext_add,
	.remove = sroce_ext_remove,
};

int sroce_ext_init(void)
{
	return ib_register_client(&sroce_ext_client);
}

void sroce_ext_exit(void)
{
	ib_unregister_client(&sroce_ext_client);
}
