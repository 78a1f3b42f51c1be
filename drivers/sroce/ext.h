/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext.h - extensions between sroce peers: the SroceHello negotiation on
 * QP1 (Documentation/protocol.md, "Extensions between sroce peers").
 */
#ifndef SROCE_EXT_H
#define SROCE_EXT_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

/*
 * The features a hello offers, a bit each, for the issues that define
 * them.  Implemented: SROCE_EXT_SACK (offered unless sroce.sr=0).
 */
enum sroce_ext_feature {
	SROCE_EXT_SACK		= BIT(0),	/* #36 selective repeat */
	SROCE_EXT_WIRE_SEG	= BIT(1),	/* #37 wire-sized segments */
	SROCE_EXT_ACK_RIDE	= BIT(2),	/* #37 piggybacked ACKs */
	SROCE_EXT_SECURE	= BIT(3),	/* #39 secure mode */
};

#define SROCE_EXT_VERSION	1

/**
 * struct sroce_ext_dev - a device's side of the negotiation
 * @lock: guards @agent; taken with interrupts off, never across a sleep
 * @agent: the send-only MAD agent of port 1, NULL when the device has
 *	none (added with sroce.ext=0, or its client is being removed)
 * @epoch: numbers the RTRs of the device's QPs, so that an answer to an
 *	older hello (or to a QP destroyed since, whose number came back)
 *	never counts for a QP
 * @tid: the low 32 bits of the next hello's transaction ID
 * @pending: the hellos posted and not answered, by the low 32 bits of
 *	their transaction ID; under @lock (and the xarray's own)
 */
struct sroce_ext_dev {
	spinlock_t lock; /* see @lock above */
	struct ib_mad_agent *agent;
	atomic_t epoch;
	atomic_t tid;
	struct xarray pending;
};

/* sroce_ext_qp.flags */
#define SROCE_EXT_GOT_RESP	BIT(0)	/* the peer answered our Get */
#define SROCE_EXT_GOT_GET	BIT(1)	/* the peer's own Get arrived */
#define SROCE_EXT_AGREED	BIT(2)	/* both: @version, @features hold */
#define SROCE_EXT_PROMPTED	BIT(3)	/* the peer's Get sent ours again */

/**
 * struct sroce_ext_qp - a QP's side of the negotiation
 *
 * Written by ext.c only, under the QP's lock; the engine may read it under
 * the lock (or @features with READ_ONCE()).
 * @epoch: the device's RTR number of this QP's current connection (0: not
 *	connected since its creation or last RESET)
 * @flags: SROCE_EXT_* above, of this epoch
 * @version: the version agreed
 * @resp_features: the features the peer's GetResp granted
 * @peer_features: the features the peer's Get offered
 * @granted: the features our answer to the peer's Get granted
 * @features: the features agreed: 0 until SROCE_EXT_AGREED
 *
 * A feature that one end's requests use and the other end's responder
 * takes (selective repeat) goes by direction, not by @features: the
 * requester uses it once the peer's GetResp granted it
 * (sroce_ext_sack_tx()), and the responder takes it from the moment its
 * own GetResp granted it (sroce_ext_sack_rx()).  So the agreement can
 * never be one-sided for it: a lost GetResp leaves that direction IBTA.
 */
struct sroce_ext_qp {
	u32 epoch;
	u8 flags;
	u8 version;
	u32 resp_features;
	u32 peer_features;
	u32 granted;
	u32 features;
};

/* The peer's responder takes our requests with selective repeat. */
static inline bool sroce_ext_sack_tx(const struct sroce_ext_qp *x)
{
	return (READ_ONCE(x->flags) & SROCE_EXT_GOT_RESP) &&
	       (READ_ONCE(x->resp_features) & SROCE_EXT_SACK);
}

/* Our responder granted the peer selective repeat. */
static inline bool sroce_ext_sack_rx(const struct sroce_ext_qp *x)
{
	return (READ_ONCE(x->flags) & SROCE_EXT_GOT_GET) &&
	       (READ_ONCE(x->granted) & SROCE_EXT_SACK);
}

/**
 * struct sroce_ext_hello - what a QP's hello needs, copied under its lock
 * @ah_attr: the QP's path, its sgid_attr not taken
 * @pkey_index: the QP's P_Key index
 * @qpn: the QP's number
 * @dest_qpn: the peer QP's number
 * @sq_psn: the QP's send PSN (as set, 0 before RTS)
 * @rq_psn: the PSN it expects
 * @epoch: the QP's new sroce_ext_qp.epoch; 0: send nothing
 */
struct sroce_ext_hello {
	struct rdma_ah_attr ah_attr;
	u16 pkey_index;
	u32 qpn;
	u32 dest_qpn;
	u32 sq_psn;
	u32 rq_psn;
	u32 epoch;
};

struct sroce_qp;
struct sroce_dev;

void sroce_ext_dev_init(struct sroce_dev *sdev);
void sroce_ext_qp_state(struct sroce_qp *qp, enum ib_qp_state prev,
			struct sroce_ext_hello *hello);
void sroce_ext_send_hello(struct sroce_dev *sdev,
			  const struct sroce_ext_hello *hello);
int sroce_ext_process_mad(struct ib_device *ibdev, int flags, u32 port,
			  const struct ib_wc *wc, const struct ib_grh *grh,
			  const struct ib_mad *in, struct ib_mad *out,
			  size_t *out_size, u16 *out_pkey_index);
int sroce_ext_init(void);
void sroce_ext_exit(void);

#endif /* SROCE_EXT_H */
