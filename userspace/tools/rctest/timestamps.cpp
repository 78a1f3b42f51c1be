// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * timestamps.cpp - sroce-rctest's check of completion timestamps:
 *
 *   timestamps  ibv_query_device_ex() reports the device clock (1 GHz, 64
 *               bits), ibv_query_rt_values_ex() reads it (CLOCK_MONOTONIC
 *               in ns); extended CQs with IBV_WC_EX_WITH_COMPLETION_
 *               TIMESTAMP(_WALLCLOCK) stamp SEND, RECV and RDMA WRITE
 *               completions with a raw time between raw clock reads taken
 *               before the post and after the poll, and a wall clock time
 *               between CLOCK_REALTIME reads likewise, never going back on
 *               one CQ; an extended CQ without the flags works and has no
 *               timestamp accessors; flags sroce cannot honour are
 *               EOPNOTSUPP
 */
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <unistd.h>

#include "ktap.h"
#include "qp_pair.h"
#include "rctest.h"

namespace rctest {

using namespace verbs_util;

namespace {

void destroy_cq_ex(ibv_cq_ex *cq)
{
	if (cq != nullptr && ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) != 0)
		ktap::fail("destroy_cq: %s", std::strerror(errno));
}

using cq_ex_ptr = std::unique_ptr<ibv_cq_ex, decltype(&destroy_cq_ex)>;

constexpr std::uint64_t both_stamps =
	std::uint64_t{IBV_WC_EX_WITH_COMPLETION_TIMESTAMP} |
	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

cq_ex_ptr make_cq_ex(device &d, std::uint64_t wc_flags)
{
	ibv_cq_init_attr_ex attr{};

	attr.cqe = 16;
	attr.wc_flags = std::uint64_t{IBV_WC_STANDARD_FLAGS} | wc_flags;
	return {ibv_create_cq_ex(d.ctx.get(), &attr), destroy_cq_ex};
}

std::uint64_t ns_of(clockid_t clock)
{
	timespec t{};

	clock_gettime(clock, &t);
	return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ULL +
	       static_cast<std::uint64_t>(t.tv_nsec);
}

/* The device's raw clock, ibv_query_rt_values_ex(); 0 if it fails. */
std::uint64_t raw_clock(device &d)
{
	ibv_values_ex v{};

	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	const int ret = ibv_query_rt_values_ex(d.ctx.get(), &v);
	if (ret != 0 || (v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK) == 0) {
		ktap::fail("query_rt_values_ex: %d, comp_mask %#x", ret,
			   v.comp_mask);
		return 0;
	}
	return static_cast<std::uint64_t>(v.raw_clock.tv_sec) * 1000000000ULL +
	       static_cast<std::uint64_t>(v.raw_clock.tv_nsec);
}

/* Both clocks at one moment, as the test reads them. */
struct instant {
	std::uint64_t raw;
	std::uint64_t wall;
};

instant now(device &d)
{
	const std::uint64_t raw = raw_clock(d);

	return {raw, ns_of(CLOCK_REALTIME)};
}

/* One completion read with the extended poll API. */
struct stamped {
	std::uint64_t wr_id;
	ibv_wc_status status;
	ibv_wc_opcode opcode;
	std::uint64_t ts; /* 0 without the accessor */
	std::uint64_t wall;
};

std::optional<stamped> poll_ex(ibv_cq_ex *cq)
{
	const auto deadline = deadline_in(10000);
	ibv_poll_cq_attr attr{};

	for (;;) {
		const int ret = ibv_start_poll(cq, &attr);

		if (ret == 0) {
			stamped s{cq->wr_id, cq->status, ibv_wc_read_opcode(cq),
				  0, 0};
			if (cq->read_completion_ts != nullptr)
				s.ts = ibv_wc_read_completion_ts(cq);
			if (cq->read_completion_wallclock_ns != nullptr)
				s.wall =
					ibv_wc_read_completion_wallclock_ns(cq);
			ibv_end_poll(cq);
			return s;
		}
		if (ret != ENOENT) {
			ktap::fail("start_poll: %d", ret);
			return std::nullopt;
		}
		if (clock_type::now() > deadline) {
			ktap::fail("no completion within 10 s (scaled)");
			return std::nullopt;
		}
		usleep(100);
	}
}

/*
 * The next completion of cq is wr_id with opcode, successful, stamped
 * within [from, to] (the wall clock only where want_wall), and not before
 * *last (the previous completion of the same CQ), which it updates.
 */
bool stamped_within(const char *what, ibv_cq_ex *cq, std::uint64_t wr_id,
		    ibv_wc_opcode opcode, const instant &from,
		    const instant &to, bool want_wall, instant *last)
{
	const std::optional<stamped> s = poll_ex(cq);

	if (!s)
		return false;
	ktap::note("%s: wr_id %" PRIu64 " status %d opcode %d ts %" PRIu64
		   " (window %" PRIu64 "..%" PRIu64 ") wall %" PRIu64
		   " (window %" PRIu64 "..%" PRIu64 ")",
		   what, s->wr_id, s->status, s->opcode, s->ts, from.raw,
		   to.raw, s->wall, from.wall, to.wall);
	bool ok = s->wr_id == wr_id && s->status == IBV_WC_SUCCESS &&
		  s->opcode == opcode;
	ok = ok && from.raw <= s->ts && s->ts <= to.raw && last->raw <= s->ts;
	if (want_wall)
		ok = ok && from.wall <= s->wall && s->wall <= to.wall &&
		     last->wall <= s->wall;
	else
		ok = ok && s->wall == 0;
	if (!ok)
		ktap::fail("%s: not the completion or not within its window",
			   what);
	*last = {s->ts, s->wall};
	return ok;
}

bool device_clock_reported(device &d)
{
	ibv_device_attr_ex attr{};
	const int ret = ibv_query_device_ex(d.ctx.get(), nullptr, &attr);

	if (ret != 0) {
		ktap::fail("query_device_ex: %d", ret);
		return false;
	}
	ktap::note("%s: hca_core_clock %" PRIu64
		   " kHz, completion_timestamp_mask %#" PRIx64,
		   d.name.c_str(), attr.hca_core_clock,
		   attr.completion_timestamp_mask);
	return attr.hca_core_clock == 1000000 &&
	       attr.completion_timestamp_mask == UINT64_MAX;
}

/* The raw clock is CLOCK_MONOTONIC in ns: a read lies between two. */
bool raw_clock_is_monotonic(device &d)
{
	const std::uint64_t before = ns_of(CLOCK_MONOTONIC);
	const std::uint64_t raw = raw_clock(d);
	const std::uint64_t after = ns_of(CLOCK_MONOTONIC);

	return before <= raw && raw <= after;
}

bool refused(device &d, std::uint64_t wc_flags)
{
	errno = 0;
	const cq_ex_ptr cq = make_cq_ex(d, both_stamps | wc_flags);

	return cq == nullptr && errno == EOPNOTSUPP;
}

} /* namespace */

bool check_timestamps(device &da, device &db)
{
	CHECK(device_clock_reported(da));
	CHECK(raw_clock_is_monotonic(da));
	CHECK(refused(da, IBV_WC_EX_WITH_CVLAN));
	CHECK(refused(da, IBV_WC_EX_WITH_FLOW_TAG));

	/* A: one CQ, both stamps; B: receives stamped raw only, sends not. */
	const cq_ex_ptr cqa = make_cq_ex(da, both_stamps);
	const cq_ex_ptr cqb =
		make_cq_ex(db, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	const cq_ex_ptr plain = make_cq_ex(db, 0);
	REQUIRE(cqa != nullptr && cqb != nullptr && plain != nullptr);
	CHECK(plain->read_completion_ts == nullptr &&
	      plain->read_completion_wallclock_ns == nullptr);

	qp_opts o;
	o.mr_access = o.qp_access =
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	endpoint a, b;
	REQUIRE(make_endpoint(a, da, o,
			      {nullptr, ibv_cq_ex_to_cq(cqa.get()),
			       ibv_cq_ex_to_cq(cqa.get())}));
	REQUIRE(make_endpoint(b, db, o,
			      {nullptr, ibv_cq_ex_to_cq(plain.get()),
			       ibv_cq_ex_to_cq(cqb.get())}));
	REQUIRE(connect(a, b));

	instant last_a{0, 0}, last_b{0, 0};
	for (std::uint64_t id = 1; id <= 2; ++id) {
		const instant t0 = now(da);
		CHECK(post_recv(b, id, 0, 256) == 0);
		CHECK(post_send(a, id, 0, 64) == 0);
		CHECK(stamped_within("send", cqa.get(), id, IBV_WC_SEND, t0,
				     now(da), true, &last_a));
		CHECK(stamped_within("recv", cqb.get(), id, IBV_WC_RECV, t0,
				     now(db), false, &last_b));

		const instant t1 = now(da);
		ibv_sge sge{a.addr(), 512, a.mr->lkey};
		CHECK(post_rdma(a, b, 100 + id, IBV_WR_RDMA_WRITE, &sge, 1,
				1024) == 0);
		CHECK(stamped_within("rdma write", cqa.get(), 100 + id,
				     IBV_WC_RDMA_WRITE, t1, now(da), true,
				     &last_a));
	}

	/* B to A: B's CQ without stamps works, A's receive is stamped. */
	const instant t2 = now(da);
	CHECK(post_recv(a, 7, 0, 256) == 0);
	CHECK(post_send(b, 7, 0, 64) == 0);
	const std::optional<stamped> s = poll_ex(plain.get());
	CHECK(s && s->wr_id == 7 && s->status == IBV_WC_SUCCESS &&
	      s->opcode == IBV_WC_SEND && s->ts == 0 && s->wall == 0);
	CHECK(stamped_within("recv on A", cqa.get(), 7, IBV_WC_RECV, t2,
			     now(da), true, &last_a));
	return true;
}

} /* namespace rctest */
