// SPDX-License-Identifier: GPL-2.0
/*
 * req_rdatomic.c - the requester's READ and atomic requests: how many may wait
 * for their responses, and in what pieces a READ asks.
 *
 * A READ, an atomic or an atomic write takes one of the responder's
 * resources until its responses came (max_rd_atomic of them), and a
 * fenced WQE waits for all of them.  A READ whose responses would not fit
 * the room left in the congestion window asks for them in pieces, each
 * one request, ending at a unit boundary (sroce_swqe_rd_unit()); the
 * pieces sent are a bit each in struct sroce_swqe.rd_ends, so that a
 * request again from within a piece (the requester went back) ends where
 * that piece did, as the responder expects of a duplicate.  The
 * completer (comp.c) kicks the requester at each unit answered.
 */
#include "sroce.h"
#include "engine.h"
#include "counters.h"
#include "proto/sroce_proto.h"

/*
 * The response packets the READ request of WQE @w at the requester's
 * position asks for.  Within a piece asked for before (the requester went
 * back), the rest of that piece: the responder takes it for a duplicate
 * only so.  Beyond, the rest of the READ, or as much of it as fits the
 * room the congestion window has left, cut at a unit boundary
 * (sroce_rd_unit()), at least up to the next one.  Lock held.
 */
u32 sroce_req_rd_npsn(const struct sroce_qp *qp, const struct sroce_swqe *w)
{
	u32 npkts = sroce_seg_npkts(w->length, qp->pmtu);
	u32 unit = sroce_rd_unit(npkts);
	u32 done = qp->req.cur_off / qp->pmtu;
	u32 out = sroce_psn_outstanding(qp->req.psn_next, qp->comp.psn_una);
	u32 room = qp->comp.cwnd > out ? qp->comp.cwnd - out : 0;
	u64 asked = w->rd_ends & GENMASK_ULL(SROCE_REQ_RD_UNITS - 1,
					     done / unit);
	u32 end;

	if (asked)
		end = (__ffs64(asked) + 1) * unit;
	else if (done + room >= npkts)
		end = npkts;
	else
		end = max(rounddown(done + room, unit),
			  rounddown(done, unit) + unit);
	return min(end, npkts) - done;
}

/*
 * The READ request of WQE @w at the requester's position asks for @npsn
 * response packets (sroce_req_rd_npsn()): its RETH length in *@len (the
 * rest of the READ on entry), and its end recorded in rd_ends.
 */
void sroce_req_rd_piece(struct sroce_qp *qp, struct sroce_swqe *w,
			u32 npsn, u32 *len)
{
	u32 unit = sroce_swqe_rd_unit(w, qp->pmtu);
	u32 done = qp->req.cur_off / qp->pmtu;

	if (*len > npsn * qp->pmtu) {
		*len = npsn * qp->pmtu;
		sroce_stats_inc(qp->sdev->stats, SROCE_CNT_READ_PIECES);
	}
	w->rd_ends |= BIT_ULL((done + npsn - 1) / unit);
}

/*
 * The requests of WQE @w that wait for their responses: an atomic's (or
 * atomic write's) until it retires; a READ's pieces sent whose last
 * response has not come, of the units before @upto.  Lock held.
 */
static u32 sroce_req_rd_waiting(const struct sroce_qp *qp,
				const struct sroce_swqe *w, u32 upto)
{
	u32 got, from;

	if (!sroce_wr_op_is_rd(w->opcode))
		return 0;
	if (w->opcode != IB_UVERBS_WR_RDMA_READ)
		return 1;
	if (!w->numbered || sroce_psn_before(w->last_psn, qp->comp.psn_una))
		return 0;
	got = sroce_psn_before(qp->comp.psn_una, w->first_psn) ? 0 :
	      sroce_psn_outstanding(qp->comp.psn_una, w->first_psn);
	from = got / sroce_swqe_rd_unit(w, qp->pmtu);	/* units all answered */
	if (from >= upto)
		return 0;
	return hweight64(w->rd_ends & GENMASK_ULL(upto - 1, from));
}

/*
 * Must WQE @w wait before its next packet: a READ or atomic request
 * (a READ's first or next piece) beyond the max_rd_atomic waiting for
 * their responses, or a fenced WQE's first packet behind a READ or atomic
 * not yet complete.  Lock held.
 */
bool sroce_req_rd_blocked(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	bool rd = sroce_wr_op_is_rd(w->opcode);
	u32 i, n = 0, unit;

	lockdep_assert_held(&qp->lock);
	if (!rd && (qp->req.cur_off || !(w->send_flags & SROCE_SEND_FENCE)))
		return false;
	for (i = qp->comp.sq_retire; i != qp->req.sq_cur; i++)
		n += sroce_req_rd_waiting(qp, sroce_swqe_at(qp, i),
					  SROCE_REQ_RD_UNITS);
	if (qp->req.cur_off) {
		/* A READ's next piece, beside its own pieces waiting. */
		unit = sroce_swqe_rd_unit(w, qp->pmtu);
		n += sroce_req_rd_waiting(qp, w,
					  qp->req.cur_off / qp->pmtu / unit);
		return n && n >= qp->attr.max_rd_atomic;
	}
	if (n && (w->send_flags & SROCE_SEND_FENCE))
		return true;
	return rd && n >= qp->attr.max_rd_atomic;
}
