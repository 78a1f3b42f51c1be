// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * events.cpp - sroce-rctest's checks of completion events:
 *
 *   solicited   a CQ armed for solicited completions ignores an
 *               unsolicited send and fires for a solicited one
 *   events      completion channels end to end: req_notify_cq,
 *               get_cq_event, ack_cq_events; no spurious events
 */
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <poll.h>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

/* ---- solicited and events --------------------------------------------------- */

namespace {

/* An event on ch within ms (scaled)?  Taken and acknowledged if so. */
bool channel_event(endpoint &e, int ms, ibv_cq **which)
{
	pollfd p{e.ch->fd, POLLIN, 0};
	const int n = poll(&p, 1, ms * scale);

	if (n <= 0)
		return false;
	ibv_cq *cq = nullptr;
	void *cq_ctx = nullptr;
	if (ibv_get_cq_event(e.ch.get(), &cq, &cq_ctx) != 0) {
		ktap::fail("get_cq_event: %s", std::strerror(errno));
		return false;
	}
	if (cq_ctx != &e) {
		ktap::fail("the event's cq_context is not the "
			   "endpoint's");
	}
	if (cq == e.scq)
		++e.scq_unacked;
	else if (cq == e.rcq)
		++e.rcq_unacked;
	*which = cq;
	return true;
}

} /* namespace */

bool check_solicited(device &da, device &db)
{
	qp_opts o;
	qp_opts ob = o;
	ob.channel = true;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, ob));
	REQUIRE(connect(a, b));
	ibv_cq *cq = nullptr;

	for (std::uint64_t round = 0; round < 3; ++round) {
		const std::uint64_t id = round * 2;
		CHECK(ibv_req_notify_cq(b.rcq, 1) == 0);
		CHECK(post_recv(b, id, 0, 4096) == 0);
		CHECK(post_recv(b, id + 1, 4096, 4096) == 0);
		/* Unsolicited: the CQE comes, no event. */
		CHECK(post_send(a, id, 0, 64 + round * 2000) == 0);
		CHECK(expect_wc("send", a.scq, id, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		CHECK(expect_wc("unsolicited recv", b.rcq, id, IBV_WC_SUCCESS,
				IBV_WC_RECV));
		const bool ev = channel_event(b, 300, &cq);
		ktap::note("unsolicited send of %" PRIu64 " bytes: %s",
			   64 + round * 2000, ev ? "EVENT" : "no event");
		CHECK(!ev);
		/* Solicited: an event for the receive CQ. */
		CHECK(post_send(a, id + 1, 0, 64 + round * 2000, IBV_WR_SEND,
				IBV_SEND_SIGNALED | IBV_SEND_SOLICITED) == 0);
		CHECK(expect_wc("send", a.scq, id + 1, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		cq = nullptr;
		CHECK(channel_event(b, 5000, &cq) && cq == b.rcq);
		CHECK(expect_wc("solicited recv", b.rcq, id + 1, IBV_WC_SUCCESS,
				IBV_WC_RECV));
	}
	/* The event fired once: none is left. */
	CHECK(!channel_event(b, 100, &cq));
	ibv_ack_cq_events(b.rcq, b.rcq_unacked);
	b.rcq_unacked = 0;
	return true;
}

bool check_events(device &da, device &db)
{
	qp_opts o;
	o.channel = true;
	endpoint a, b;

	REQUIRE(make_qp_pair(a, b, da, db, o));
	ibv_cq *cq = nullptr;

	/* Armed, nothing happens: no event. */
	CHECK(ibv_req_notify_cq(a.scq, 0) == 0);
	CHECK(ibv_req_notify_cq(b.rcq, 0) == 0);
	CHECK(!channel_event(a, 200, &cq));
	CHECK(!channel_event(b, 10, &cq));

	constexpr unsigned int rounds = 20;
	unsigned int a_events = 0, b_events = 0;
	for (unsigned int i = 0; i < rounds; ++i) {
		const std::uint32_t len = 1 + i * 300;
		fill(a.buf.data(), len, i);
		CHECK(post_recv(b, i, 8192, 16384) == 0);
		CHECK(post_send(a, i, 0, len) == 0);
		/* The event says "look at the CQ": it comes before we poll. */
		cq = nullptr;
		if (channel_event(a, 5000, &cq) && cq == a.scq)
			++a_events;
		cq = nullptr;
		if (channel_event(b, 5000, &cq) && cq == b.rcq)
			++b_events;
		/* Re-arm, then poll: no completion slips between. */
		CHECK(ibv_req_notify_cq(a.scq, 0) == 0);
		CHECK(ibv_req_notify_cq(b.rcq, 0) == 0);
		REQUIRE(expect_wc("send", a.scq, i, IBV_WC_SUCCESS, IBV_WC_SEND,
				  false));
		const auto wc = expect_wc("recv", b.rcq, i, IBV_WC_SUCCESS,
					  IBV_WC_RECV, false);
		REQUIRE(wc && wc->byte_len == len);
		CHECK(mismatch(b.buf.data() + 8192, len, i) < 0);
		/* Acknowledge some events at once, the rest in one go. */
		if (i % 2 == 0) {
			ibv_ack_cq_events(a.scq, a.scq_unacked);
			a.scq_unacked = 0;
		}
	}
	ktap::note("%u rounds: %u send CQ events, %u receive CQ events", rounds,
		   a_events, b_events);
	CHECK(a_events == rounds);
	CHECK(b_events == rounds);
	/*
	 * The CQs are armed and the completions consumed: a completion that
	 * was armed for may still be pending in the channel only if it was
	 * raised twice.  Nothing more.
	 */
	CHECK(!channel_event(a, 200, &cq));
	CHECK(!channel_event(b, 10, &cq));
	ktap::note("acknowledging %u + %u events",
		   a.scq_unacked + a.rcq_unacked,
		   b.scq_unacked + b.rcq_unacked);
	ibv_ack_cq_events(a.scq, a.scq_unacked);
	a.scq_unacked = 0;
	ibv_ack_cq_events(b.rcq, b.rcq_unacked);
	b.rcq_unacked = 0;
	CHECK(a.rcq_unacked == 0 && b.scq_unacked == 0);
	return true;
}

} /* namespace rctest */
