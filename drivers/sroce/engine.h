/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine.h - the transport engine that drives a QP: its tuning constants
 * and the entries its files call one another by.  The requester (req.c,
 * req_fetch.c, req_rdatomic.c), the completer (comp.c), the timers (timers.c),
 * the responder (resp*.c), XRC (xrc.c), raw packet QPs (raw.c) and
 * where they run (task.c); qp.c creates and resets them.
 * Only the engine's files include it: the rest of the driver sees a QP
 * through qp.h.
 */
#ifndef SROCE_ENGINE_H
#define SROCE_ENGINE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

#include "notify.h"
#include "qp.h"
#include "timers.h"
#include "wqe.h"

struct sk_buff;
struct sroce_pkt;
struct sroce_res;
struct work_struct;

/*
 * Requester window: PSNs sent and not yet acknowledged.  Bounded so a
 * burst never overruns the receiver's backlog (netdev_max_backlog, 1000
 * packets by default).  Within it a congestion window moves as TCP's
 * (additive increase, a quarter less on a loss): every PSN in flight when
 * a loss is found is sent again (go-back-N), so on a lossy wire a smaller
 * window wastes less; not too small, or the round trip limits it.
 */
#define SROCE_REQ_WINDOW	128
#define SROCE_REQ_WINDOW_MIN	16
/* Ask for an ACK at least every this many packets (and of the window). */
#define SROCE_REQ_ACK_EVERY	32
/*
 * PSNs one RDMA READ may take (one per response packet): far below half
 * the PSN space, so PSN comparisons hold across it.
 */
#define SROCE_REQ_MAX_READ_PKTS	BIT(22)
/* A READ asks in units of at least the smallest window (wqe.h). */
static_assert(SROCE_REQ_RD_UNIT_MIN == SROCE_REQ_WINDOW_MIN);
/* READ responses the completer keeps beyond a missing one (one u64). */
#define SROCE_RD_SEEN		64
/* Packets the requester builds per lock hold before transmitting them. */
#define SROCE_REQ_BATCH		16
/*
 * Responder packets (READ responses) sent from softirq per received
 * packet; the rest of a long response goes out from the QP's work item.
 */
#define SROCE_RESP_SOFTIRQ_BUDGET	(2 * SROCE_REQ_BATCH)
/*
 * Responder packets one run of the QP's work item sends before it queues
 * itself again behind the other work items of its CPU (as the requester
 * does, SROCE_REQ_RUN_BATCHES): a READ of 2 GiB must not hold the per-CPU
 * workqueue, other QPs' engines included, for its whole length.
 */
#define SROCE_RESP_RUN_BUDGET		(8 * SROCE_REQ_BATCH)

/* task.c: where the engines run (the kicks: qp.h) */
void sroce_req_work(struct work_struct *work);
void sroce_req_retry(struct work_struct *work);
void sroce_resp_work(struct work_struct *work);

/* req.c */
bool sroce_req_run(struct sroce_qp *qp);
void sroce_req_seek(struct sroce_qp *qp, u32 index, u32 psn);
void sroce_req_set_probe(struct sroce_qp *qp, bool due);
void sroce_req_set_sr_due(struct sroce_qp *qp, bool due);
void sroce_req_reset(struct sroce_qp *qp);
void sroce_req_flush(struct sroce_qp *qp, struct sroce_nfy *nfy);

/* req_rdatomic.c */
u32 sroce_req_rd_npsn(const struct sroce_qp *qp, const struct sroce_swqe *w);
void sroce_req_rd_piece(struct sroce_qp *qp, struct sroce_swqe *w, u32 npsn,
			u32 *len);
bool sroce_req_rd_blocked(struct sroce_qp *qp, const struct sroce_swqe *w);

/* req_fetch.c */
bool sroce_req_fetch(struct sroce_qp *qp);
void sroce_req_fetch_flush(struct sroce_qp *qp, struct sroce_nfy *nfy);
u32 sroce_req_ud_pmtu(const struct sroce_qp *qp);
void sroce_req_release_swqe(struct sroce_swqe *w);

/* comp.c (the receive entry: qp.h) */
void sroce_comp_retire(struct sroce_qp *qp, struct sroce_nfy *nfy);
void sroce_comp_reset(struct sroce_qp *qp);
void sroce_comp_loss(struct sroce_qp *qp);
bool sroce_comp_goback(struct sroce_qp *qp, u32 psn, bool force);
void sroce_comp_probe(struct sroce_qp *qp);
bool sroce_comp_gap(struct sroce_qp *qp, u32 psn);
void sroce_comp_rewind(struct sroce_qp *qp, u32 psn);
void sroce_comp_cwnd_grow(struct sroce_qp *qp, u32 n);
void sroce_comp_fail(struct sroce_qp *qp, enum ib_wc_status status,
		     struct sroce_nfy *nfy);
void sroce_comp_fail_oldest(struct sroce_qp *qp, enum ib_wc_status status,
			    struct sroce_nfy *nfy);
void sroce_comp_sent_unacked(struct sroce_qp *qp, struct sroce_nfy *nfy);
void sroce_comp_flush(struct sroce_qp *qp, struct sroce_nfy *nfy);
void sroce_comp_flushed(struct sroce_qp *qp);
void sroce_comp_retry_spent(struct sroce_qp *qp);

/* comp_sr.c: selective repeat, the sender's scoreboard */
struct sroce_sack;
bool sroce_comp_sr_credible(const struct sroce_qp *qp,
			    const struct sroce_sack *sack);
bool sroce_comp_sr_sack(struct sroce_qp *qp, const struct sroce_sack *sack);
bool sroce_comp_sr_next(struct sroce_qp *qp, u32 *psn);
void sroce_comp_sr_reset(struct sroce_qp *qp);

/* resp.c (the receive entries: qp.h) */
void sroce_resp_reset(struct sroce_qp *qp);
bool sroce_resp_run(struct sroce_qp *qp);

/* xrc.c: XRC QPs */
int sroce_xrc_check_init(const struct ib_qp_init_attr *init,
			 const struct ib_udata *udata);
bool sroce_xrc_resp_begin(struct sroce_qp *qp, const struct sroce_pkt *pkt);
struct sroce_srq *sroce_xrc_resp_end(struct sroce_qp *qp);
void sroce_xrc_complete(struct sroce_qp *qp, const struct sroce_cqe *cqe,
			bool solicited, struct sroce_nfy *nfy);

/* resp_rdatomic.c: the responder resources (struct sroce_res: resp.h) */
struct sroce_res *sroce_resp_res_alloc(struct sroce_qp *qp, u32 max_dest);
struct sroce_res *sroce_resp_res_install(struct sroce_qp *qp,
					 struct sroce_res *ring);

#endif /* SROCE_ENGINE_H */
