/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qp.h - queue pairs (qp.c): the QP, its slot in the device's table, the
 * state of its three engines (requester, completer, responder) and their
 * flags, its predicates and its verbs.  What the engine shares among its
 * own files is engine.h's; the WQE copies are wqe.h's.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "ah.h"
#include "ext.h"
#include "param.h"
#include "proto/opcode.h"
#include "proto/sack.h"
#include "queue.h"
#include "timers.h"
#include "wqe.h"

struct sroce_cq;
struct sroce_dev;
struct sroce_nfy;
struct sroce_pkt;
struct sroce_res;
struct sroce_rss;
struct sroce_srq;

/* The GRH a UD receive buffer starts with (IBTA 11.4.1.2) */
#define SROCE_GRH_LEN		40

/* An ACK or NAK the responder has decided to send. */
struct sroce_resp_ack {
	bool send;
	u8 syndrome;
	u32 psn;
	u32 msn;
};

/*
 * Bits of struct sroce_qp.flags.  Each engine that transmits has a
 * RUNNING bit (one context runs it) followed by an AGAIN bit (it must
 * look once more): sroce_qp_run_one() relies on the order.
 */
enum sroce_qp_flag {
	SROCE_QPF_REQ_RUNNING,	/* one context runs the requester */
	SROCE_QPF_REQ_AGAIN,	/* it must look at the queue once more */
	SROCE_QPF_RESP_RUNNING,	/* one context sends the responder's packets */
	SROCE_QPF_RESP_AGAIN,
	SROCE_QPF_ODP_REQ_ERR,	/* a page fault of the requester failed */
	SROCE_QPF_ODP_RESP_ERR,	/* one of the responder failed */
	SROCE_QPF_ODP_RESP_OUT_ERR, /* one of the responder's output failed */
	SROCE_QPF_ODP_COMP_ERR,	/* one of the completer failed (odp.c) */
};

/**
 * struct sroce_req - the requester's state, under the QP lock
 * @sq_head: index of the next WQE to fetch from the SQ ring (req_fetch.c;
 *	req.c resets it)
 * @sq_cur: index of the WQE the requester sends next (req.c; the others
 *	move it with sroce_req_seek())
 * @cur_off: payload bytes of WQE @sq_cur already sent (req.c, likewise)
 * @psn_next: PSN of the next packet the requester sends (req.c, likewise)
 * @psn_max: the PSN after the highest one ever sent (tells resends apart;
 *	req.c)
 * @ackreq_gap: packets sent since the last one asking for an ACK (req.c)
 * @ackreq_owed: the last packet built ends a SEND or WRITE message and
 *	does not ask for an ACK yet: it does if no packet follows it in its
 *	batch (sroce_req_build(); req.c)
 * @ackreq_owed_fresh: that packet is a first transmission (req.c)
 * @probe_due: the packet at the completer's probe_psn is to be sent
 *	again, alone, asking for an ACK (sroce_comp_probe()); req.c, the
 *	completer through sroce_req_set_probe()
 * @sr_due: selective repeat: the completer found PSNs lost that are to
 *	be sent again, one by one (sroce_comp_sr_next()); req.c, the
 *	completer through sroce_req_set_sr_due()
 *
 * qp.c sets the PSNs when modify_qp names the send PSN.
 */
struct sroce_req {
	u32 sq_head;
	u32 sq_cur;
	u32 cur_off;
	u32 psn_next;
	u32 psn_max;
	u32 ackreq_gap;
	bool ackreq_owed;
	bool ackreq_owed_fresh;
	bool probe_due;
	bool sr_due;
};

/**
 * struct sroce_comp - the completer's state, under the QP lock; every
 *	field written by comp.c (the others call its entries)
 * @sq_retire: index of the oldest WQE not retired (the SQ's consumer)
 * @psn_una: oldest PSN not acknowledged
 * @rd_seen: READ responses placed ahead of @psn_una, a bit per PSN
 *	modulo SROCE_RD_SEEN (those within SROCE_RD_SEEN after it)
 * @cwnd: the congestion window, in PSNs (SROCE_REQ_WINDOW_MIN to
 *	SROCE_REQ_WINDOW)
 * @cwnd_acked: PSNs acknowledged since @cwnd last grew
 * @probe_psn: the PSN of a tail loss probe (sroce_comp_probe()): the one
 *	before the requester's psn_max when the timer fired
 * @retry: retries left of the current packet (retry_cnt after progress;
 *	the local ACK timeout spends one, sroce_comp_retry_spent())
 * @rnr_retry_left: RNR retries left (7: infinite)
 * @sb: selective repeat: the scoreboard, which PSNs after @psn_una the
 *	peer's selective ACKs acknowledged (comp_sr.c)
 * @sr_mark: the lost PSNs before it were sent again in this round
 *	(comp_sr.c)
 * @sr_round_ns: when the round began: a round trip later the lost PSNs
 *	go again (comp_sr.c)
 * @sr_recover: the window shrinks at most once per loss event: not again
 *	for a loss before this PSN, the highest sent at the last one
 *	(comp_sr.c)
 *
 * When the requester last went back is the timers' (struct sroce_goback).
 * qp.c sets @psn_una, @cwnd and the retries at creation and modify_qp.
 */
struct sroce_comp {
	u32 sq_retire;
	u32 psn_una;
	u64 rd_seen;
	u32 cwnd;
	u32 cwnd_acked;
	u32 probe_psn;
	u8 retry;
	u8 rnr_retry_left;
	struct sroce_sb sb;
	u32 sr_mark;
	u64 sr_round_ns;
	u32 sr_recover;
};

/**
 * struct sroce_resp - the responder's state, under the QP lock; after
 *	each field the file that writes it (sroce_resp_reset() runs each
 *	file's reset)
 * @rq_cons: index of the receive WQE in use or next (the RQ's consumer;
 *	resp_msg.c)
 * @rwqe: the receive WQE in use while @in_msg (resp_msg.c; srq.c fills
 *	it for a QP with an SRQ)
 * @in_msg: the responder is inside a SEND message (resp_msg.c)
 * @recv_off: bytes of the current message written to @rwqe (resp_msg.c)
 * @in_write: the responder is inside an RDMA WRITE message (resp_msg.c)
 * @wr_mr: the region the current RDMA WRITE writes (NULL if zero-length;
 *	resp_msg.c)
 * @wr_rkey: the key of its RETH, checked again for every packet
 *	(resp_msg.c)
 * @wr_va: its address from the RETH (resp_msg.c)
 * @wr_len: its length from the RETH (resp_msg.c)
 * @wr_off: bytes of it written so far (resp_msg.c)
 * @epsn: the expected PSN (resp.c; qp.c sets it from modify_qp)
 * @msn: the message sequence number (resp.c)
 * @nak_sent: a sequence NAK for @epsn was sent (one per gap), or an RNR
 *	NAK for an ODP fault (no sequence NAK till @epsn comes again; resp.c)
 * @odp_held: the SEND at @epsn found pages of its receive WQE missing
 *	(odp.c) with its first packet: the WQE in use waits for it again
 *	(resp_msg.c)
 * @res: the responder resources, a ring by free-running index (NULL
 *	while max_dest_rd_atomic was never set above 0; resp_rdatomic.c installs
 *	it, qp.c frees it)
 * @res_size: its entries, sroce_res_ring_size() of max_dest_rd_atomic
 *	(resp_rdatomic.c; qp.c zeroes it with @res)
 * @res_head: index of the next resource to fill (resp_rdatomic.c)
 * @res_tail: index of the oldest resource whose responses are not all
 *	sent (@res_head when all are; resp_out.c)
 * @ack: the ACK or NAK to send once the responses before it are out
 *	(resp_out.c)
 * @xsrq: XRC TGT QP: the XRC SRQ the packet being executed names, with a
 *	reference, or NULL (xrc.c); set for the execution of one packet
 * @xrc_serial: XRC TGT QP: the identity (struct sroce_srq.serial) of the
 *	SRQ @rwqe came from, checked before the message goes on or
 *	completes in an SRQ of its number (xrc.c)
 * @xrc_srqn: XRC TGT QP: the number of the SRQ @rwqe came from
 *	(resp_msg.c)
 * @sr_on: the peer sends with selective repeat (the last request came
 *	with an SXH): requests ahead of @epsn are held, ACKs are selective
 *	(resp_sr.c)
 * @sr_held: those requests, in PSN order, at most SROCE_SACK_BITS PSNs
 *	after @epsn (resp_sr.c)
 */
struct sroce_resp {
	u32 rq_cons;
	struct sroce_rwqe rwqe;
	bool in_msg;
	u32 recv_off;
	bool in_write;
	struct sroce_mr *wr_mr;
	u32 wr_rkey;
	u64 wr_va;
	u32 wr_len;
	u32 wr_off;
	u32 epsn;
	u32 msn;
	bool nak_sent;
	bool odp_held;
	struct sroce_res *res;
	u32 res_size;
	u32 res_head;
	u32 res_tail;
	struct sroce_resp_ack ack;
	struct sroce_srq *xsrq;
	u64 xrc_serial;
	u32 xrc_srqn;
	bool sr_on;
	struct sk_buff_head sr_held;
};

/**
 * struct sroce_qp_slot - a QP in the device's table of QPs by number
 * @ref: lookups from the receive path hold one; plus the QP's own
 * @qp: the QP; read only with a reference
 * @rcu: the slot is freed a grace period after the QP left the table (a
 *	lookup may still read @ref), the QP itself at once: destroying a
 *	QP waits for no grace period
 */
struct sroce_qp_slot {
	refcount_t ref;
	struct sroce_qp *qp;
	struct rcu_head rcu;
};

/**
 * struct sroce_qp - a queue pair
 * @ibqp: the core QP; must stay first
 * @sdev: the device
 * @slot: what the device's table holds for the QP, with its references
 * @released: completed when @slot's references drop to zero
 * @lock: guards everything below that is not said to be constant, taken
 *	with interrupts off (kernel users may post from any context, the
 *	engine runs in softirq); never held while transmitting or while a
 *	CQ's completion handler runs
 * @flags: enum sroce_qp_flag bits, atomic
 * @user: created for user space (the rings are mapped there); constant
 * @sq_sig_all: every send WQE completes; constant
 * @state: the IBTA state
 * @destroyed: destroy_qp has begun: timers and work do nothing
 * @mcast_used: it was attached to a group once (the multicast receive path
 *	may still read the QP through a detached attachment for a grace
 *	period); set under the device's mcast.lock
 * @sq: the send queue ring; user space (or sroce_qp_post_send()) produces
 * @rq: the receive queue ring, likewise; unused (zeroed) for a QP with an
 *	SRQ (ibqp.srq), whose responder takes WQEs from the SRQ (srq.c)
 * @swqe: the kernel's copies of fetched send WQEs, by slot (sroce_swqe_at())
 * @swqe_size: bytes per entry of @swqe
 * @req: the requester's state
 * @comp: the completer's state
 * @timers: the requester's timers (timers.c)
 * @req_work: runs the requester in process context (from timers and
 *	kernel posts made with interrupts off, and when a run used up its
 *	budget)
 * @req_retry: runs the requester again a jiffy later, when it found no
 *	memory for a packet
 * @resp: the responder's state
 * @resp_work: sends the rest of long READ responses in process context
 * @odp_fault: each engine's pending page fault (odp.c)
 * @odp_resets: RESETs since creation (odp.c, under @lock)
 * @attr: the attributes modify_qp set (state, PSNs, path, limits...), as
 *	query_qp reports them
 * @av: the path (set with IB_QP_AV): GIDs, traffic class, hop limit;
 *	written under @lock, and the transmit path copies it under @lock
 *	(net.c).  Only the receive path's peer check (recv.c) reads it
 *	without: a read torn by an SQD to SQD change judges one packet
 *	against a mix of two peers' GIDs, and a sender that can forge one
 *	could forge the peer's own address as well.
 * @pmtu: path MTU in bytes
 * @cap: the capabilities granted at creation; constant
 * @xrcd: XRC TGT QP: its XRC domain; constant
 * @rss: an RSS QP's hash (rss.c): it has an indirection table and no
 *	rings, and none of the engines; NULL for every other QP.  Constant
 * @mcast: UD: the QP's multicast attachments (mcast.c), under the
 *	device's mcast.lock
 * @ext: the negotiation with the peer (ext.c, its only writer, under
 *	@lock): the extensions agreed, none before an agreement
 *
 * The core allocates it (kzalloc) for every QP: 2456 bytes with Debian
 * 6.1's struct ib_qp (360 of them @odp_fault), over the 2 KiB slab class,
 * so in the 4 KiB one (tests/scale.sh measures an idle QP's memory).
 */
struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *sdev;
	struct sroce_qp_slot *slot;
	struct completion released;
	spinlock_t lock; /* see @lock above */
	unsigned long flags;
	bool user;
	bool sq_sig_all;
	bool destroyed;
	bool mcast_used;
	enum ib_qp_state state;

	struct sroce_queue sq;
	struct sroce_queue rq;
	void *swqe;
	size_t swqe_size;

	struct sroce_req req;
	struct sroce_comp comp;
	struct sroce_timers timers;
	struct work_struct req_work;
	struct delayed_work req_retry;

	struct sroce_resp resp;
	struct work_struct resp_work;
	struct sroce_odp_fault odp_fault[SROCE_ODP_ENGINES];
	u32 odp_resets;

	struct ib_qp_attr attr;
	struct sroce_av av;
	u32 pmtu;
	struct ib_qp_cap cap;
	struct ib_xrcd *xrcd;
	struct sroce_rss *rss;
	struct list_head mcast;
	struct sroce_ext_qp ext;
	struct sroce_cc_qp cc;
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

/* The kernel's copy of the send WQE of free-running index @index */
static inline struct sroce_swqe *sroce_swqe_at(struct sroce_qp *qp, u32 index)
{
	return qp->swqe + (size_t)(index & (qp->sq.num_entries - 1)) *
			  qp->swqe_size;
}

/* An XRC QP: the initiator (send side) or the target (receive side). */
static inline bool sroce_qp_is_xrc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	       qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

/* A reliable QP: its packets are acknowledged and sent again. */
static inline bool sroce_qp_is_rc(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || sroce_qp_is_xrc(qp);
}

/*
 * Selective repeat (ext.h): our requests may use it (the peer granted
 * it), or our responder takes it (we granted it).  RC only.
 */
static inline bool sroce_qp_sack_tx(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC && sroce_ext_sack_tx(&qp->ext);
}

static inline bool sroce_qp_sack_rx(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC && sroce_ext_sack_rx(&qp->ext);
}

/* A QP with a receive queue of its own: neither with an SRQ nor XRC. */
static inline bool sroce_qp_has_rq(const struct sroce_qp *qp)
{
	return !qp->ibqp.srq && !sroce_qp_is_xrc(qp);
}

/*
 * A QP whose receives come from SRQs: created with one, or an XRC TGT QP
 * (from the XRC SRQ each request names).
 */
static inline bool sroce_qp_takes_srq(const struct sroce_qp *qp)
{
	return qp->ibqp.srq || qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

/* A datagram QP: UD, or the GSI QP (QP1), which is UD on the wire. */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/*
 * The address of a UD packet, copied from its WQE's AH: in the skb's
 * control buffer from the build to the transmission.
 */
static inline struct sroce_av *sroce_skb_av(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_av) > sizeof(skb->cb));
	return (struct sroce_av *)skb->cb;
}

/* The transport of the QP's opcodes on the wire */
static inline enum sroce_transport sroce_qp_transport(const struct sroce_qp *qp)
{
	if (sroce_qp_is_ud(qp))
		return SROCE_TRANSPORT_UD;
	if (sroce_qp_is_xrc(qp))
		return SROCE_TRANSPORT_XRC;
	return qp->ibqp.qp_type == IB_QPT_UC ? SROCE_TRANSPORT_UC :
					      SROCE_TRANSPORT_RC;
}

static inline struct sroce_cq *sroce_qp_send_cq(struct sroce_qp *qp)
{
	return container_of(qp->ibqp.send_cq, struct sroce_cq, ibcq);
}

static inline struct sroce_cq *sroce_qp_recv_cq(struct sroce_qp *qp)
{
	return container_of(qp->ibqp.recv_cq, struct sroce_cq, ibcq);
}

/* qp.c: verbs (post.c's: wqe.h) */
int sroce_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);

/* qp.c: lookups by number, and the move to ERROR */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);
void sroce_qp_error(struct sroce_qp *qp, struct sroce_nfy *nfy);

/*
 * The engine's entries for the rest of the driver (its own: engine.h).
 * task.c: run a QP's requester or responder (the post verbs, odp.c);
 * comp.c, resp.c: a packet for the QP (recv.c); resp.c: complete the
 * receive WQEs of a QP in ERROR (post.c).
 */
void sroce_req_kick(struct sroce_qp *qp);
void sroce_resp_kick(struct sroce_qp *qp);
void sroce_comp_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		    const struct sroce_pkt *pkt);
void sroce_resp_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		    const struct sroce_pkt *pkt);
void sroce_resp_flush(struct sroce_qp *qp, struct sroce_nfy *nfy);

#endif /* SROCE_QP_H */
