// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-torture - RC torture between two RDMA devices: N QP pairs, both
 * directions at once, a seeded random mix of SEND, WRITE, WRITE_WITH_IMM,
 * READ and atomics, every byte and every completion checked.
 *
 *   sroce-torture --dev-a NAME --dev-b NAME [options]
 *
 * One process opens both devices and connects QP i of DEV_A to QP i of
 * DEV_B (qp_pair.h); the packets cross whatever joins the two netdevs.
 * Public libibverbs only.  The run is one KTAP case (ktap.h): set-up,
 * progress and summary as diagnostics, every failure a "# FAILED:" line,
 * then the result.
 *
 * Files: workload.cpp, the workload generator (pure: what each operation
 * is and must do, tested on the host by workload_test.cpp); verify.cpp,
 * the verifier; streams.cpp and completions.cpp, the driver (posting,
 * completions); options.cpp, the command line; this file, the set-up and
 * the loop.
 *
 * Options:
 *   --dev-a NAME, --dev-b NAME   the two devices (the same name twice: a
 *                  device talking to itself)
 *   --gid-a N, --gid-b N         GID index (default: the first RoCE v2
 *                  GID holding an IPv4 address)
 *   --qps N        QP pairs (default 4)
 *   --seed S       seed of everything random (default: from the clock);
 *                  always printed, with the command line that replays it
 *   --bytes TOTAL  stop after TOTAL payload bytes (K, M, G suffixes: KiB..)
 *   --ops COUNT    stop after COUNT operations (default 10000 when neither
 *                  is given; with both, whichever comes first).  The budget
 *                  is split evenly over the 2N streams
 *   --max-size B   largest message (default 256K); sizes are drawn
 *                  log-uniformly from 0..B (one in eight near a multiple of
 *                  the path MTU)
 *   --max-sge N    most SGEs per work request (default 4; device limits
 *                  apply)
 *   --depth N      outstanding work requests per QP and direction
 *                  (default 16); also the receive queue depth
 *   --mix send=W,write=W,write_imm=W,read=W,atomic=W   relative weights
 *                  (default 4,3,2,3,2); keys left out of --mix are 0.
 *                  Half the sends carry immediate data, atomics are half
 *                  FETCH_ADD, half CMP_SWP (three in four of them match)
 *   --mtu 256|512|1024|2048|4096   path MTU (default 1024)
 *   --timeout T --retry-cnt C --rnr-retry R   QP attributes (default 14,
 *                  7, 7): a lossy or flapping wire chooses between
 *                  recovering and failing with IBV_WC_RETRY_EXC_ERR
 *   --one-way      the A->B streams only, with the whole budget: DEV_B
 *                  only responds (a peer whose requester must not be
 *                  tested, such as rdma_rxe across a long outage)
 *   --expect-fail-ok  IBV_WC_RETRY_EXC_ERR followed by flushes is a clean
 *                  failure: the QP pair stops, what completed before is
 *                  still verified, exit status 3 instead of 1
 *   --device-loss-ok  a device may go away during the run (rdma link
 *                  delete, its netdev or namespace gone, rmmod): on its
 *                  IBV_EVENT_DEVICE_FATAL its sides are dropped, and each
 *                  QP pair with a lost side stops as after a clean
 *                  failure: the surviving side's sends complete, fail
 *                  with IBV_WC_RETRY_EXC_ERR or flush, its receives flush,
 *                  all within the deadline; exit status 3 (implies
 *                  --expect-fail-ok)
 *   --deadline S   a work request outstanding this long without any
 *                  completion on its queue is lost (default: 20 s, or four
 *                  times the QP's whole retry budget if longer), times
 *                  SROCE_TIMEOUT_SCALE
 *   --progress S   progress line every S seconds (default 5; 0: none)
 *   --quiet        no set-up chatter and no progress lines
 *
 * Exit status: 0 everything verified (the case ok); 1 a mismatch, a lost,
 * duplicate, out-of-order or unexpected completion, or a set-up failure
 * (not ok); 2 usage; 3 only clean failures (--expect-fail-ok; the case
 * ok, with a "# CLEAN FAILURE" line) or lost devices (--device-loss-ok;
 * a "# DEVICE LOST" line).
 *
 * Streams (streams.h): QP pair i carries two streams, A->B and B->A;
 * operation number seq of a stream is a pure function of (seed, qp,
 * direction, seq) (workload.h), and its payload byte j a function of those
 * and j.
 *
 * Verification (verify.h, completions.cpp), and why a wrong byte cannot go
 * unnoticed: guard bytes around and between every destination; SEND data,
 * byte_len and immediate checked in order; WRITE targets compared with a
 * shadow of the responder's memory (stronger than a READ-back: no second
 * transfer whose bugs could cancel the first one's, and the guards are
 * seen too); READ results compared with that shadow; the value every
 * atomic returns predicted at post time; at the end every responder's
 * whole target memory must equal its shadow, and no completion is left.
 *
 * Completions: one per work request (all signaled), on the QP's own CQs,
 * in posting order (wr_id carries the direction and sequence number),
 * with the expected opcode and status; a missing completion within the
 * deadline, a duplicate, one out of order or with an unexpected status
 * stops the run with a message naming QP, direction, seq, op and size.
 * Data mismatches are counted and the run goes on (the first ten are
 * failures with their place, the count one more).  No threads, no events:
 * one loop polls every CQ round-robin.
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <poll.h>
#include <string>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include "completion.h"
#include "ktap.h"
#include "options.h"
#include "streams.h"
#include "verbs_util.h"
#include "workload.h"

namespace {

using namespace verbs_util;
using namespace torture;

/* Open d as name (gid_index: use_gid()) and its PD; said unless quiet. */
bool open_dev(device_with_pd &d, const std::string &name, int gid_index,
	      bool quiet)
{
	if (!open_device(d, name.c_str()) || !use_gid(d, gid_index))
		return false;
	d.pd.reset(ibv_alloc_pd(d.ctx.get()));
	if (!d.pd) {
		ktap::fail("alloc_pd %s: %s", name.c_str(),
			   std::strerror(errno));
		return false;
	}
	if (!quiet)
		ktap::note("%s: GID %d %s, active MTU %d, max_sge %d, "
			   "max_qp_rd_atom %d, atomic_cap %d",
			   name.c_str(), d.gid_index, gid_str(d.gid).c_str(),
			   128 << d.port.active_mtu, d.attr.max_sge,
			   d.attr.max_qp_rd_atom, d.attr.atomic_cap);
	return true;
}

/*
 * Limits from both devices, buffer geometry, the deadline; false (a
 * failure) when the devices cannot run what was asked.
 */
bool configure(config &c, const device &a, const device &b)
{
	const options &o = c.opt;
	const auto dmin = [&](auto fa, auto fb) {
		return std::min<std::int64_t>(fa, fb);
	};

	std::copy(std::begin(o.weight), std::end(o.weight),
		  std::begin(c.w.weight));
	c.w.max_size = o.max_size;
	c.w.mtu_bytes = 128U << static_cast<unsigned int>(o.mtu);
	for (const device *d : {&a, &b}) {
		if (d->port.state != IBV_PORT_ACTIVE) {
			ktap::fail("%s: port 1 is not active", d->name.c_str());
			return false;
		}
		if (o.mtu > d->port.active_mtu) {
			ktap::fail("%s: path MTU %u is above the active MTU %d",
				   d->name.c_str(), c.w.mtu_bytes,
				   128 << d->port.active_mtu);
			return false;
		}
		if (o.max_size > d->port.max_msg_sz) {
			ktap::fail("%s: --max-size %u is above max_msg_sz %u",
				   d->name.c_str(), o.max_size,
				   d->port.max_msg_sz);
			return false;
		}
		if (static_cast<std::int64_t>(o.depth) > d->attr.max_qp_wr) {
			ktap::fail("%s: --depth %u is above max_qp_wr %d",
				   d->name.c_str(), o.depth, d->attr.max_qp_wr);
			return false;
		}
	}
	const auto sge = dmin(a.attr.max_sge, b.attr.max_sge);
	const auto sge_rd = dmin(a.attr.max_sge_rd, b.attr.max_sge_rd);
	c.w.send_sge = static_cast<std::uint32_t>(
		std::clamp<std::int64_t>(sge, 1, o.max_sge));
	c.w.recv_sge = c.w.send_sge;
	c.w.rd_sge = static_cast<std::uint32_t>(
		std::clamp<std::int64_t>(sge_rd, 1, c.w.send_sge));
	const auto rd = std::min(
		{dmin(a.attr.max_qp_init_rd_atom, b.attr.max_qp_init_rd_atom),
		 dmin(a.attr.max_qp_rd_atom, b.attr.max_qp_rd_atom),
		 std::int64_t{16}, static_cast<std::int64_t>(o.depth)});
	if (rd < 1 && (o.weight[fam_read] != 0 || o.weight[fam_atomic] != 0)) {
		ktap::fail("the devices allow no outstanding READ or atomic "
			   "(max_qp_rd_atom)");
		return false;
	}
	c.rd_atomic = static_cast<std::uint8_t>(std::max<std::int64_t>(rd, 1));
	if (o.weight[fam_atomic] != 0 &&
	    (a.attr.atomic_cap == IBV_ATOMIC_NONE ||
	     b.attr.atomic_cap == IBV_ATOMIC_NONE)) {
		ktap::fail("atomics asked for, but a device has atomic_cap "
			   "NONE");
		return false;
	}
	c.w.max_inline = 128;
	c.g = make_geometry(c.w, o.depth);
	c.w.target_slot = c.g.target_slot;
	/* IBTA: 4.096 us << timeout, retry_cnt + 1 tries; 0 is forever. */
	const double t =
		o.timeout == 0
			? 0
			: 4.096e-6 * static_cast<double>(1ULL << o.timeout);
	double dl = o.deadline > 0 ? o.deadline
				   : std::max(20.0, 4 * t * (o.retry_cnt + 1));
	dl *= timeout_scale();
	c.deadline = std::chrono::duration_cast<clock_type::duration>(
		std::chrono::duration<double>(dl));
	ver = verifier(guard_key(o.seed));
	return true;
}

/*
 * The QP pairs; then inline sends up to what every QP got (QPs are created
 * asking for c.w.max_inline bytes, or none where that fails).
 */
bool create_pairs(config &c, pair_list &pairs, device_with_pd &a,
		  device_with_pd &b)
{
	for (unsigned int i = 0; i < c.opt.qps; ++i) {
		auto p = std::make_unique<pair_state>();

		if (!make_pair(c, *p, i, a, b))
			return false;
		for (auto &e : p->ep)
			c.w.max_inline = std::min(c.w.max_inline,
						  e->ep.cap.max_inline_data);
		pairs.push_back(std::move(p));
	}
	return true;
}

struct progress_state {
	clock_type::time_point start;
	clock_type::time_point last;
	std::uint64_t last_bytes = 0;
};

std::size_t in_flight(const pair_list &pairs)
{
	std::size_t n = 0;

	for (const auto &p : pairs)
		for (const stream &s : p->st)
			n += s.sq.size();
	return n;
}

/* " SEND n SEND_IMM n ..." */
std::string counts_str()
{
	std::string s;

	for (unsigned int k = 0; k < op_kinds; ++k)
		s += std::string(" ") + op_names[k] + " " +
		     std::to_string(total.ops[k]);
	return s;
}

std::uint64_t total_ops()
{
	std::uint64_t n = 0;

	for (const std::uint64_t v : total.ops)
		n += v;
	return n;
}

void print_progress(progress_state &ps, const pair_list &pairs)
{
	const auto now = clock_type::now();
	const double t = seconds(now - ps.start);
	const double dt = seconds(now - ps.last);
	const double mib = static_cast<double>(total.bytes) / (1 << 20);

	ktap::note("[%7.1f s] %" PRIu64 " ops, %.1f MiB, %.2f MB/s (now %.2f):"
		   "%s; in flight %zu, errors %" PRIu64,
		   t, total_ops(), mib,
		   t > 0 ? static_cast<double>(total.bytes) / t / 1e6 : 0.0,
		   dt > 0 ? static_cast<double>(total.bytes - ps.last_bytes) /
				    dt / 1e6
			  : 0.0,
		   counts_str().c_str(), in_flight(pairs),
		   ver.errors() + total.fatal);
	ps.last = now;
	ps.last_bytes = total.bytes;
}

/*
 * --device-loss-ok: the async events of d (its file descriptor made
 * non-blocking), noted; true once IBV_EVENT_DEVICE_FATAL came.
 */
bool device_fatal(device_with_pd &d)
{
	ibv_async_event ev{};
	bool fatal_seen = false;

	while (ibv_get_async_event(d.ctx.get(), &ev) == 0) {
		ktap::note("%s: async event %s", d.name.c_str(),
			   ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL) {
			ktap::note("IBV_EVENT_DEVICE_FATAL on %s: its QPs are "
				   "gone; the pairs stop, the survivors must "
				   "end cleanly",
				   d.name.c_str());
			fatal_seen = true;
		}
		ibv_ack_async_event(&ev);
	}
	return fatal_seen;
}

/*
 * --device-loss-ok, after the run: a device whose commands failed with EIO
 * must have sent IBV_EVENT_DEVICE_FATAL (waiting up to 5 s, scaled).
 */
void fatal_came(device_with_pd *dev[2], const bool seen[2])
{
	for (unsigned int x = 0; x < 2; ++x) {
		if (!total.eio_sides[x] || seen[x])
			continue;
		pollfd pfd{dev[x]->ctx->async_fd, POLLIN, 0};
		const auto until = deadline_in(5000);
		bool fatal_seen = false;

		while (!fatal_seen && clock_type::now() < until) {
			if (poll(&pfd, 1, 100) > 0)
				fatal_seen = device_fatal(*dev[x]);
		}
		if (!fatal_seen)
			ktap::fail("%s: commands failed with EIO, but no "
				   "IBV_EVENT_DEVICE_FATAL came",
				   dev[x]->name.c_str());
	}
}

/* Every side on device x (0: a, 1: b) lost (lose_side()). */
void lose_device(pair_list &pairs, unsigned int x)
{
	for (auto &pp : pairs)
		lose_side(*pp, x);
}

/* --device-loss-ok: a look at both devices' events every 10 ms. */
void watch_devices(const config &c, pair_list &pairs, device_with_pd *dev[2],
		   clock_type::time_point &next, bool seen[2])
{
	const auto now = clock_type::now();

	if (!c.opt.device_loss_ok || now < next)
		return;
	next = now + std::chrono::milliseconds(10);
	for (unsigned int x = 0; x < 2; ++x) {
		if (!seen[x] && device_fatal(*dev[x])) {
			seen[x] = true;
			lose_device(pairs, x);
		}
	}
}

void run_loop(const config &c, pair_list &pairs, progress_state &ps,
	      device_with_pd *dev[2], bool seen[2])
{
	const auto every = std::chrono::duration_cast<clock_type::duration>(
		std::chrono::duration<double>(c.opt.progress));
	auto next_progress = ps.start + every;
	auto next_watch = ps.start;
	unsigned int idle = 0;

	for (;;) {
		bool moved = false;
		bool all_done = true;

		watch_devices(c, pairs, dev, next_watch, seen);
		for (auto &pp : pairs) {
			pair_state &p = *pp;

			if (p.done)
				continue;
			for (unsigned int x = 0; x < 2 && !aborted; ++x) {
				if (p.ep[x]->lost)
					continue;
				poll_sq(c, p, x, moved);
				poll_rq(c, p, x, moved);
			}
			if (aborted)
				return;
			if (p.ep[0]->post_failed || p.ep[1]->post_failed) {
				/* No more posting: the loss is coming. */
				p.stopping = true;
				p.failed = true;
			}
			if (p.stopping) {
				advance_stop(c, p);
			} else {
				for (stream &s : p.st) {
					const std::uint64_t before =
						s.next_seq + s.recv_posted;

					post_recvs(c, s);
					post_sends(c, s);
					moved |= s.next_seq + s.recv_posted !=
						 before;
				}
				p.done = stream_finished(p.st[0]) &&
					 stream_finished(p.st[1]);
			}
			if (aborted)
				return;
			const auto now = clock_type::now();
			check_deadlines(c, p, now);
			if (aborted)
				return;
			all_done &= p.done;
		}
		if (all_done)
			return;
		if (c.opt.progress > 0 && !c.opt.quiet) {
			const auto now = clock_type::now();

			if (now >= next_progress) {
				print_progress(ps, pairs);
				next_progress = now + every;
			}
		}
		/* Leave the CPU to the kernel's side when nothing moves. */
		if (moved) {
			idle = 0;
		} else if (++idle > 64) {
			usleep(50);
		}
	}
}

/* The loop; with --device-loss-ok, the events of devices that failed. */
void run(const config &c, pair_list &pairs, progress_state &ps,
	 device_with_pd *dev[2])
{
	bool seen[2] = {};

	run_loop(c, pairs, ps, dev, seen);
	if (c.opt.device_loss_ok && !aborted)
		fatal_came(dev, seen);
}

/*
 * After the run: no completion left over anywhere, every QP not failed
 * still in RTS, every target memory as its shadow says.
 */
void final_checks(const config &c, pair_list &pairs)
{
	usleep(static_cast<useconds_t>(20000 * timeout_scale()));
	for (auto &pp : pairs) {
		pair_state &p = *pp;

		for (unsigned int x = 0; x < 2; ++x) {
			ibv_wc wc{};

			if (p.ep[x]->lost)
				continue;
			if (ibv_poll_cq(p.ep[x]->ep.scq, 1, &wc) != 0 ||
			    ibv_poll_cq(p.ep[x]->ep.rcq, 1, &wc) != 0) {
				print_wc("completion", wc);
				fatal(stream_name(p.st[x]) +
				      ": a completion after all work was done "
				      "(" +
				      wrid_str(wc.wr_id) + ")");
			}
			const ibv_qp_state st = qp_state(p.ep[x]->ep.qp.get());
			if (!p.failed && st != IBV_QPS_RTS)
				fatal(stream_name(p.st[x]) +
				      ": the QP is not in RTS at the end (" +
				      qp_state_str(st) + ")");
		}
		for (const stream &s : p.st) {
			if (s.poisoned)
				continue;
			const side &t = *s.resp;
			const std::string what =
				stream_name(s) + ": final sweep of the target";

			ver.target(what, t.target.data(), t.shadow.data(), 0, 0,
				   c.g.counter_off, 0, c.g.counter_off);
			ver.target(what + " counters", t.target.data(),
				   t.shadow.data(), c.g.counter_off, 0,
				   t.target.size() - c.g.counter_off, 0, 0);
		}
	}
}

void print_summary(const config &c, const progress_state &ps,
		   const std::string &replay)
{
	const double t = seconds(clock_type::now() - ps.start);

	ktap::note("summary: %" PRIu64 " ops, %.1f MiB in %.1f s, %.2f MB/s; "
		   "%u QP pairs, %s",
		   total_ops(), static_cast<double>(total.bytes) / (1 << 20), t,
		   t > 0 ? static_cast<double>(total.bytes) / t / 1e6 : 0.0,
		   c.opt.qps, c.opt.one_way ? "A->B only" : "both directions");
	ktap::note("  ops:%s", counts_str().c_str());
	ktap::note("  receives %" PRIu64 ", CMP_SWP swapped %" PRIu64
		   ", inline %" PRIu64 ", zero-length %" PRIu64
		   ", multi-SGE %" PRIu64 ", bytes compared %" PRIu64,
		   total.recvs, total.swapped, total.inline_ops, total.zero_len,
		   total.multi_sge, ver.checked());
	ktap::note("  data errors %" PRIu64 ", completion errors %" PRIu64
		   ", clean failures %" PRIu64 " (flushed %" PRIu64 ")",
		   ver.errors(), total.fatal, total.clean_failures,
		   total.flushed);
	if (c.opt.device_loss_ok)
		ktap::note("  QP pairs with a lost device %" PRIu64
			   "; the survivors' completions after the loss: "
			   "%" PRIu64 " succeeded, %" PRIu64
			   " IBV_WC_RETRY_EXC_ERR, %" PRIu64 " flushed",
			   total.lost_pairs, total.after_loss_ok,
			   total.after_loss_retry, total.after_loss_flushed);
	ktap::note("  seed %" PRIu64 "; replay: %s", c.opt.seed,
		   replay.c_str());
}

/* The run: set up, the loop, the final checks. */
void run_all(config &c, progress_state &ps)
{
	/* Devices outlive the pairs (declared first). */
	device_with_pd a;
	device_with_pd b;
	pair_list pairs;
	const options &o = c.opt;

	if (!open_dev(a, o.dev_a, o.gid_a, o.quiet) ||
	    !open_dev(b, o.dev_b, o.gid_b, o.quiet) || !configure(c, a, b) ||
	    !create_pairs(c, pairs, a, b)) {
		++total.fatal;
		return;
	}
	if (!o.quiet)
		ktap::note("%u QP pairs %s<->%s, depth %u, sizes 0..%u, %u "
			   "SGEs (%u for READ), inline up to %u, path MTU %u, "
			   "timeout %u retry_cnt %u rnr_retry %u, "
			   "max_rd_atomic %u, deadline %.0f s; budget %" PRIu64
			   " ops, %" PRIu64 " bytes (0: none)",
			   o.qps, a.name.c_str(), b.name.c_str(), o.depth,
			   o.max_size, c.w.send_sge, c.w.rd_sge, c.w.max_inline,
			   c.w.mtu_bytes, o.timeout, o.retry_cnt, o.rnr_retry,
			   c.rd_atomic, seconds(c.deadline), o.ops, o.bytes);
	if (o.device_loss_ok)
		for (const device_with_pd *d : {&a, &b})
			if (fcntl(d->ctx->async_fd, F_SETFL,
				  fcntl(d->ctx->async_fd, F_GETFL) |
					  O_NONBLOCK) != 0) {
				ktap::fail("%s: async_fd: %s", d->name.c_str(),
					   std::strerror(errno));
				++total.fatal;
				return;
			}
	ps.start = clock_type::now();
	ps.last = ps.start;
	device_with_pd *dev[2] = {&a, &b};
	run(c, pairs, ps, dev);
	if (!aborted)
		final_checks(c, pairs);
}

} /* namespace */

int main(int argc, char **argv)
{
	config c;
	const int pr = parse_options(argc, argv, c.opt);

	if (pr != 0)
		return pr;
	const std::string replay = replay_line(argc, argv, c.opt);
	const std::string name = c.opt.dev_a + "<->" + c.opt.dev_b + ": " +
				 std::to_string(c.opt.qps) +
				 " QP pairs both ways, every byte and "
				 "completion verified";

	ktap::header(1);
	ktap::begin();
	ktap::note("sroce-torture: seed %" PRIu64, c.opt.seed);
	progress_state ps{clock_type::now(), clock_type::now(), 0};
	run_all(c, ps);
	print_summary(c, ps, replay);
	if (ver.errors() > verifier::printed)
		ktap::fail("%" PRIu64 " data errors in all, the first %" PRIu64
			   " shown",
			   ver.errors(), verifier::printed);
	if (ktap::reasons().empty() && total.clean_failures != 0)
		ktap::note("CLEAN FAILURE: %" PRIu64
			   " QP(s) ended with IBV_WC_RETRY_EXC_ERR, every "
			   "completion accounted for, everything completed "
			   "verified",
			   total.clean_failures);
	if (ktap::reasons().empty() && total.lost_pairs != 0)
		ktap::note("DEVICE LOST: %" PRIu64
			   " QP pair(s) lost a side, every survivor's "
			   "completion accounted for, everything completed "
			   "verified",
			   total.lost_pairs);
	const bool passed = ktap::end(name);
	if (ktap::exit_status() != 0 || !passed)
		return 1;
	return total.clean_failures != 0 || total.lost_pairs != 0 ? 3 : 0;
}
