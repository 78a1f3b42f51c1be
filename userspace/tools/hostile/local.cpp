// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * local.cpp - sroce-hostile's findings an unprivileged process exploits on
 * its own machine, with its own mapped rings (reached through the
 * provider's QP, qp.h) or with verbs no well-behaved process would use so.
 *
 *   f2-rewound-producer  A's SQ producer index written back behind the
 *       WQEs the kernel has fetched but not retired, and the doorbell
 *       rung: the doorbell returns at once, nothing is fetched again, every
 *       WQE posted still completes
 *   f5-requester-budget  8192 UD sends posted in one call: the doorbell
 *       returns after a bounded run, the rest goes out in the background
 *   f7-memcg  in a memory cgroup limited by memory.max (tests/hostile.sh
 *       puts the tool there), huge CQs and QPs end in ENOMEM before they
 *       take much more than the limit
 *   f8-cq-overflow  B's receive CQ overflows: IBV_EVENT_CQ_ERR, and B's QP
 *       enters ERROR instead of losing completions silently
 */
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "completion.h"
#include "hostile.h"
#include "ktap.h"
#include "qp.h" /* the provider's QP: its mapped rings */
#include "uverbs_raw.h"

namespace hostile {

using namespace verbs_util;

namespace {

/* The doorbell, a POST_SEND without work requests, written by hand. */
int doorbell(ibv_qp *qp)
{
	struct {
		ib_uverbs_cmd_hdr hdr;
		ib_uverbs_post_send core;
	} cmd{};
	ib_uverbs_post_send_resp resp{};

	static_assert(sizeof(cmd) == 32);
	cmd.hdr = uverbs_hdr(IB_USER_VERBS_CMD_POST_SEND, sizeof(cmd),
			     sizeof(resp));
	cmd.core.response = uverbs_ptr(&resp);
	cmd.core.qp_handle = qp->handle;
	cmd.core.wqe_size = sizeof(ib_uverbs_send_wr);
	return uverbs_write(qp->context, &cmd, sizeof(cmd));
}

std::uint32_t load_index(const std::uint32_t *p)
{
	return std::atomic_ref<const std::uint32_t>(*p).load(
		std::memory_order_acquire);
}

void store_index(std::uint32_t *p, std::uint32_t v)
{
	std::atomic_ref<std::uint32_t>(*p).store(v, std::memory_order_release);
}

double ms_since(clock_type::time_point t0)
{
	return std::chrono::duration<double, std::milli>(clock_type::now() - t0)
		.count();
}

} /* namespace */

/* ---- f2 ------------------------------------------------------------------ */

bool f2_rewound_producer(device &a, device &b)
{
	constexpr std::uint32_t n = 4;
	qp_opts o;
	endpoint x, y;

	/* A's sends stay outstanding: B does not answer, A retries slowly. */
	o.timeout = 17; /* 0.5 s */
	o.retry_cnt = 3;
	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(to_state(y.qp.get(), IBV_QPS_ERR) == 0);
	for (std::uint32_t i = 0; i < n; ++i)
		REQUIRE(post_send(x, i, 0, 64) == 0);
	usleep(100000);

	const sroce::qp *q = sroce::to_qp(x.qp.get());
	std::uint32_t *prod = q->sq.ring.producer;
	const std::uint32_t *cons = q->sq.ring.consumer;
	const std::uint32_t posted = load_index(prod);
	ktap::note("A's SQ: producer %u, consumer (retired) %u", posted,
		   load_index(cons));
	REQUIRE(posted - load_index(cons) == n);

	/* Behind the WQEs fetched, still ahead of the oldest not retired. */
	store_index(prod, posted - 2);
	ktap::note("producer rewound to %u; the doorbell", posted - 2);
	const auto t0 = clock_type::now();
	const int err = doorbell(x.qp.get());
	const double ms = ms_since(t0);
	store_index(prod, posted);
	ktap::note("the doorbell returned %d after %.1f ms", err, ms);
	CHECK(err == 0);
	CHECK(ms < 1000.0 * scale);

	/* Every WQE completes, none twice: B never answered. */
	for (std::uint32_t i = 0; i < n; ++i) {
		const auto wc = wait_wc(x.scq, 20000);
		REQUIRE(wc.has_value());
		EXPECT(wc->wr_id == i, "completion of wr_id %llu, expected %u",
		       static_cast<unsigned long long>(wc->wr_id), i);
		EXPECT(wc->status != IBV_WC_SUCCESS,
		       "WQE %u succeeded though B never answered", i);
	}
	CHECK(no_wc("A's send CQ after its WQEs", x.scq, 200));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

/* ---- f5 ------------------------------------------------------------------ */

bool f5_requester_budget(device &a, device &b)
{
	constexpr std::uint32_t n = 8192;
	qp_opts o;
	endpoint x, y;

	o.type = IBV_QPT_UD;
	o.qkey = ud_qkey;
	o.send_wr = n;
	o.cqe = 64;
	REQUIRE(make_endpoint(x, a, o) && ud_ready(x));
	REQUIRE(make_ud(y, b, ud_qkey));
	ah_ptr ah(make_ah(x.pd, x, b.gid));
	REQUIRE(ah != nullptr);

	std::vector<ibv_send_wr> wr(n);
	for (std::uint32_t i = 0; i < n; ++i) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = i == n - 1 ? IBV_SEND_SIGNALED : 0;
		wr[i].wr.ud.ah = ah.get();
		wr[i].wr.ud.remote_qpn = y.qp->qp_num;
		wr[i].wr.ud.remote_qkey = ud_qkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : nullptr;
	}
	const sroce::qp *q = sroce::to_qp(x.qp.get());
	const long long tx_before = hw_counter(a, "tx_packets");
	ibv_send_wr *bad = nullptr;
	const auto t0 = clock_type::now();
	REQUIRE(ibv_post_send(x.qp.get(), wr.data(), &bad) == 0);
	const std::uint32_t retired = load_index(q->sq.ring.consumer);
	const double ms = ms_since(t0);
	ktap::note("ibv_post_send() of %u UD sends returned after %.1f ms with "
		   "%u of them sent",
		   n, ms, retired);
	/* The doorbell ran a bounded batch; the work item does the rest. */
	CHECK(retired < n / 2);
	CHECK(expect_wc("the last send", x.scq, n - 1, IBV_WC_SUCCESS,
			IBV_WC_SEND));
	CHECK(counter_moved_by(a, "tx_packets", tx_before, n));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

/* ---- f7 ------------------------------------------------------------------ */

namespace {

/* memory.max of the cgroup v2 this process is in; 0 if none or "max". */
long long memcg_max()
{
	std::ifstream cg("/proc/self/cgroup");
	std::string line, path;

	while (std::getline(cg, line))
		if (line.rfind("0::", 0) == 0)
			path = line.substr(3);
	if (path.empty())
		return 0;
	std::ifstream mx("/sys/fs/cgroup" + path + "/memory.max");
	std::string v;
	if (!(mx >> v) || v == "max")
		return 0;
	ktap::note("in cgroup %s, memory.max %s", path.c_str(), v.c_str());
	return std::stoll(v);
}

} /* namespace */

bool f7_memcg(device &a, device & /*b*/)
{
	const long long limit = memcg_max();
	if (limit == 0) {
		ktap::fail("not in a memory cgroup with a memory.max: "
			   "tests/hostile.sh runs this check in one");
		return false;
	}
	pd_ptr pd(ibv_alloc_pd(a.ctx.get()));
	REQUIRE(pd != nullptr);
	std::vector<cq_ptr> cqs;
	std::vector<qp_ptr> qps;
	long long bytes = 0;
	int err = 0;
	const int max_cqe = a.attr.max_cqe;
	const std::uint32_t max_wr =
		static_cast<std::uint32_t>(a.attr.max_qp_wr);

	while (bytes < 4 * limit) {
		ibv_cq *cq = ibv_create_cq(a.ctx.get(), max_cqe, nullptr,
					   nullptr, 0);
		if (cq == nullptr) {
			err = errno;
			break;
		}
		cqs.emplace_back(cq);
		bytes += static_cast<long long>(cq->cqe) * 64;
		qp_opts o;
		o.send_wr = max_wr;
		o.recv_wr = max_wr;
		o.send_sge = 1;
		o.recv_sge = 1;
		ibv_qp *qp = create_qp(pd.get(), cq, cq, o);
		if (qp == nullptr) {
			err = errno;
			break;
		}
		qps.emplace_back(qp);
		/* At least a WQE header per entry of both rings. */
		bytes += static_cast<long long>(max_wr) * (64 + 32);
	}
	ktap::note("%zu CQs of %d entries and %zu QPs of %u WRs: at least "
		   "%lld MiB of rings in a cgroup limited to %lld MiB; the "
		   "last one: %s",
		   cqs.size(), max_cqe, qps.size(), max_wr, bytes >> 20,
		   limit >> 20, err != 0 ? std::strerror(err) : "not refused");
	CHECK(err == ENOMEM);
	CHECK(bytes < 2 * limit);
	return true;
}

/* ---- f8 ------------------------------------------------------------------ */

bool f8_cq_overflow(device &a, device &b)
{
	qp_opts ox, oy;
	endpoint x, y;

	oy.cqe = 4;
	oy.recv_wr = 64;
	REQUIRE(make_endpoint(x, a, ox) && make_endpoint(y, b, oy));
	REQUIRE(connect(x, y));
	const int cap = y.rcq->cqe;
	const int n = cap + 8;
	ktap::note("B's receive CQ holds %d; %d receives, %d sends, B polls "
		   "nothing",
		   cap, n, n);
	REQUIRE(n <= 64);
	for (int i = 0; i < n; ++i)
		REQUIRE(post_recv(y, static_cast<std::uint64_t>(i), 0, 64) ==
			0);
	int ok = 0;
	for (int i = 0; i < n; ++i) {
		REQUIRE(post_send(x, static_cast<std::uint64_t>(i), 0, 64) ==
			0);
		const auto wc = wait_wc(x.scq, 20000);
		REQUIRE(wc.has_value());
		if (wc->status != IBV_WC_SUCCESS) {
			print_wc("A's send", *wc);
			break;
		}
		++ok;
	}
	ktap::note("%d of A's sends succeeded", ok);
	/* B stopped answering once its CQ could take no more. */
	CHECK(ok < n);
	bool cq_err = false;
	bool qp_fatal = false;
	for (int ev; (ev = next_async_event(b.ctx.get(), 2000)) >= 0;) {
		cq_err |= ev == IBV_EVENT_CQ_ERR;
		qp_fatal |= ev == IBV_EVENT_QP_FATAL;
	}
	CHECK(cq_err);
	CHECK(qp_fatal);
	CHECK(qp_state(y.qp.get()) == IBV_QPS_ERR);
	return true;
}

} /* namespace hostile */
