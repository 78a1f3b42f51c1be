// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * streams.h - sroce-torture's driver: QP pairs (qp_pair.h endpoints with
 * the torture's memory), the two streams of each, posting what the
 * workload generator says (streams.cpp) and taking every completion
 * (completions.cpp).
 *
 * QP pair i carries two streams, A->B and B->A; each side is the
 * requester of one and the responder of the other.  The receiver walks
 * the same sequence as the requester to post, ahead, a receive for every
 * SEND and WRITE_WITH_IMM, and the requester never posts one of those
 * before its receive is posted (no RNR waits on a clean wire).  Slot
 * seq % depth of each buffer belongs to one operation at a time: a slot is
 * reused only after the completion of its previous operation.
 *
 * Completions: one per work request (all signaled), on the QP's own CQs,
 * in posting order (wr_id carries the direction and sequence number),
 * with the expected opcode and status; a missing completion within the
 * deadline, a duplicate, one out of order or with an unexpected status
 * stops the run (aborted) with a failure naming QP, direction, seq, op and
 * size.
 */
#ifndef SROCE_TOOLS_TORTURE_STREAMS_H
#define SROCE_TOOLS_TORTURE_STREAMS_H

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <infiniband/verbs.h>

#include "options.h"
#include "qp_pair.h"
#include "verbs_util.h"
#include "verify.h"
#include "workload.h"

namespace torture {

using verbs_util::clock_type;

/* What every stream shares: the options, limits and buffer geometry. */
struct config {
	options opt;
	workload w; /* w.target_slot is g.target_slot */
	geometry g;
	std::uint8_t rd_atomic = 1;
	clock_type::duration deadline{};
};

/* A device and the PD of all its QPs (freed before the device is closed). */
struct device_with_pd : verbs_util::device {
	verbs_util::pd_ptr pd;
};

/*
 * One side of a QP pair: its QP and CQs (ep), and its memory.  local: the
 * requester's sources and result buffers (registered twice: two lkeys),
 * recv: receive buffers, target: what the peer's requester WRITEs, READs
 * and atomically updates, shadow: what target must hold.  Declaration
 * order is teardown order reversed: the QP goes first, the buffers last.
 */
struct side {
	std::vector<unsigned char> local;
	std::vector<unsigned char> recv;
	std::vector<unsigned char> target;
	std::vector<unsigned char> shadow;
	verbs_util::mr_ptr local_mr[2];
	verbs_util::mr_ptr recv_mr;
	verbs_util::mr_ptr target_mr;
	verbs_util::endpoint ep;
	/* The send queue reported IBV_WC_RETRY_EXC_ERR (--expect-fail-ok). */
	bool sq_error = false;
	/*
	 * Its device went away (IBV_EVENT_DEVICE_FATAL, --device-loss-ok):
	 * its queues are no longer polled nor posted to, its QP not touched.
	 */
	bool lost = false;
	/* A post failed with EIO (--device-loss-ok): the loss is coming. */
	bool post_failed = false;
};

/* An operation posted and not completed yet. */
struct op_rec {
	std::uint64_t seq = 0;
	op_desc d;
	std::uint64_t recv_index = 0; /* consumes_recv(): which receive */
	std::uint64_t expect = 0; /* atomics: the original value */
	bool swaps = false; /* CMP_SWP: the compare matches */
};

/* A receive posted and not completed yet. */
struct recv_rec {
	std::uint64_t index = 0;
	std::uint64_t seq = 0; /* the operation that will consume it */
	op_desc d;
};

struct stream {
	unsigned int qpi = 0;
	unsigned int dir = 0; /* 0: A->B, 1: B->A */
	side *req = nullptr;
	side *resp = nullptr;
	std::uint64_t key = 0;
	std::uint64_t ops_budget = 0;
	std::uint64_t bytes_budget = 0;
	/* requester */
	std::uint64_t next_seq = 0;
	std::uint64_t bytes_posted = 0;
	std::uint64_t consumers_posted = 0; /* SENDs and WRITE_IMMs */
	bool done_posting = false;
	std::deque<op_rec> sq;
	clock_type::time_point sq_progress;
	/* responder: its walk over the same sequence */
	std::uint64_t rcur_seq = 0;
	std::uint64_t rcur_bytes = 0;
	bool rcur_end = false;
	std::uint64_t recv_posted = 0;
	std::uint64_t recv_ok = 0; /* successful receive completions */
	std::uint64_t recv_due = 0; /* consumers completed successfully */
	std::uint64_t first_flushed = UINT64_MAX;
	std::deque<recv_rec> rq;
	clock_type::time_point rq_progress;
	/* a failed or flushed WRITE or atomic: target memory unknown */
	bool poisoned = false;
};

struct pair_state {
	std::unique_ptr<side> ep[2];
	stream st[2]; /* st[x]: ep[x] is the requester */
	bool stopping = false; /* a clean failure: draining */
	bool err_moved = false; /* both QPs moved to ERROR by us */
	bool done = false;
	bool failed = false; /* a clean failure happened */
	bool lost = false; /* a side's device went away */
};

using pair_list = std::vector<std::unique_ptr<pair_state>>;

/* What a run did and found. */
struct tally {
	std::uint64_t ops[op_kinds] = {};
	std::uint64_t bytes = 0; /* payload of completed operations */
	std::uint64_t recvs = 0;
	std::uint64_t inline_ops = 0;
	std::uint64_t swapped = 0;
	std::uint64_t zero_len = 0;
	std::uint64_t multi_sge = 0;
	std::uint64_t fatal = 0;
	std::uint64_t clean_failures = 0;
	std::uint64_t flushed = 0;
	/* --device-loss-ok: QP pairs with a lost side, and their survivors'
	 * completions after the loss */
	std::uint64_t lost_pairs = 0;
	std::uint64_t after_loss_ok = 0;
	std::uint64_t after_loss_retry = 0;
	std::uint64_t after_loss_flushed = 0;
	/* A command on device a (0) or b (1) failed with EIO: it is gone. */
	bool eio_sides[2] = {};
};

/* The run's tally, whether it stopped, and its verifier. */
extern tally total;
extern bool aborted;
extern verifier ver;

/* A completion-level failure: stops the run. */
void fatal(const std::string &what);

/* d in seconds. */
inline double seconds(clock_type::duration d)
{
	return std::chrono::duration<double>(d).count();
}

/* "qp N A->B" */
std::string stream_name(const stream &s);

/* Operation seq of s: its QP, direction, kind, size and SGEs. */
std::string op_label(const stream &s, std::uint64_t seq, const op_desc &d);

/* The wr_id of s's send (recv false) or receive number n, and in words. */
std::uint64_t make_wrid(const stream &s, bool recv, std::uint64_t n);
std::string wrid_str(std::uint64_t id);
constexpr std::uint64_t wrid_num_mask = (std::uint64_t{1} << 40U) - 1;

/* ---- streams.cpp ---------------------------------------------------------------- */

/*
 * QP pair i: sides on a and b, connected, and its two streams with their
 * share of the budget; the QPs ask for c.w.max_inline bytes of inline
 * data, or none where the device refuses.
 */
bool make_pair(const config &c, pair_state &p, unsigned int i,
	       device_with_pd &a, device_with_pd &b);

/* Receives for s's coming SENDs and WRITE_IMMs, as one list. */
void post_recvs(const config &c, stream &s);

/* s's operations up to the depth, as one list. */
void post_sends(const config &c, stream &s);

/* s posted everything and everything completed. */
bool stream_finished(const stream &s);

/* ---- completions.cpp ------------------------------------------------------------- */

/* Every completion of the send (receive) CQ of p.ep[x]; moved if any. */
void poll_sq(const config &c, pair_state &p, unsigned int x, bool &moved);
void poll_rq(const config &c, pair_state &p, unsigned int x, bool &moved);

/* Nothing of p outstanding beyond the deadline (else fatal). */
void check_deadlines(const config &c, pair_state &p,
		     clock_type::time_point now);

/*
 * After a clean failure: the send queues drain (success, the retry error,
 * flushes), the receives of messages sent successfully complete, then
 * both QPs go to ERROR and the receives left flush.
 */
void advance_stop(const config &c, pair_state &p);

/*
 * Side x of p lost its device (--device-loss-ok): what was outstanding on
 * it is dropped (it will never complete), both streams' targets are
 * unknown from now on, and the pair stops: the survivor's sends complete,
 * fail with the retry error or flush, its receives flush.
 */
void lose_side(pair_state &p, unsigned int x);

} /* namespace torture */

#endif /* SROCE_TOOLS_TORTURE_STREAMS_H */
