// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dereg.cpp - dereg-under-traffic: finding 4 (access after
 * deregistration) with the peer's own verbs instead of forged packets,
 * in rounds, as tests/lifecycle.sh runs it: A keeps 16 RDMA
 * WRITEs (or READs) of 4 KiB in flight at B's region while B calls
 * ibv_dereg_mr().
 *
 *   WRITE rounds: every WRITE carries its own byte value; B's region is
 *       copied the moment ibv_dereg_mr() returns, and must still equal
 *       that copy once A's QP has failed and the wire is quiet: not one
 *       byte written after the deregistration returned.
 *   READ rounds: every READ that succeeds brought B's pattern; B sends at
 *       most what one run of its output engine built before the
 *       deregistration (40 packets, as f4-read-after-dereg allows), not
 *       the responses of the READs still coming.
 *
 * In both, A's operations succeed up to a point, then one fails with
 * IBV_WC_REM_ACCESS_ERR and every later one is flushed: none succeeds
 * after the first failure, and the failure comes within 10 s.
 */
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "completion.h"
#include "hostile.h"
#include "ktap.h"

namespace hostile {

using namespace verbs_util;

namespace {

constexpr std::uint32_t slot_len = 4096;
constexpr std::uint32_t slots = 64;
constexpr std::uint32_t depth = 16;
/* Successful operations before B deregisters: the stream is flowing. */
constexpr std::uint64_t before_dereg = 48;

/* The byte WRITE number id carries (never 0, B's region starts zeroed). */
unsigned char write_byte(std::uint64_t id)
{
	return static_cast<unsigned char>(id % 255 + 1);
}

/* What one round saw of A's completions. */
struct round_tally {
	std::uint64_t ok = 0;
	std::uint64_t ok_after_dereg = 0;
	std::uint64_t access_err = 0;
	std::uint64_t flushed = 0;
	bool bad = false;
};

/*
 * A's completion wc (of wr_id next_done, in order) into t; false, said,
 * when it is not what may come: a success after a failure, another
 * status, out of order.
 */
bool take_wc(const ibv_wc &wc, std::uint64_t next_done, bool dereg_done,
	     round_tally &t)
{
	if (wc.wr_id != next_done) {
		print_wc("A's completion", wc);
		ktap::fail("completion of wr_id %llu, expected %llu",
			   static_cast<unsigned long long>(wc.wr_id),
			   static_cast<unsigned long long>(next_done));
		return false;
	}
	const bool failed = t.access_err + t.flushed != 0;
	if (wc.status == IBV_WC_SUCCESS && !failed) {
		++t.ok;
		t.ok_after_dereg += dereg_done;
		return true;
	}
	if (wc.status == IBV_WC_REM_ACCESS_ERR && !failed && dereg_done) {
		++t.access_err;
		return true;
	}
	if (wc.status == IBV_WC_WR_FLUSH_ERR && failed) {
		++t.flushed;
		return true;
	}
	print_wc("A's completion", wc);
	ktap::fail(
		"wr_id %llu: %s %s", static_cast<unsigned long long>(wc.wr_id),
		ibv_wc_status_str(wc.status),
		failed ? "after the first failure (only flushes may follow)"
		: dereg_done ? "(expected success or IBV_WC_REM_ACCESS_ERR)"
			     : "before the deregistration (expected success)");
	return false;
}

/* One round of op (WRITE or READ) at B's region, deregistered under it. */
bool dereg_round(device &a, device &b, ibv_wr_opcode op, unsigned int round)
{
	qp_opts o;
	endpoint x, y;

	o.mtu = IBV_MTU_1024;
	o.buf_size = std::size_t{slot_len} * slots;
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ;
	o.qp_access = o.mr_access;
	o.send_wr = depth;
	o.cqe = 2 * depth;
	o.max_rd_atomic = 16;
	o.max_dest_rd_atomic = 16;
	REQUIRE(make_qp_pair(x, y, a, b, o));
	const bool write = op == IBV_WR_RDMA_WRITE;
	const std::uint32_t rkey = y.mr->rkey;
	const std::uint64_t raddr = y.addr();
	std::memset(y.buf.data(), write ? 0 : 0x5a, y.buf.size());
	std::vector<unsigned char> at_dereg;
	std::uint64_t posted = 0, done = 0;
	long long tx_at_dereg = -1;
	round_tally t;
	bool dereg_done = false;

	ktap::note("round %u: A %ss B's region, %u in flight; B deregisters "
		   "it after %llu succeeded",
		   round, write ? "WRITE" : "READ", depth,
		   static_cast<unsigned long long>(before_dereg));
	auto until = deadline_in(60000);

	while (t.access_err + t.flushed == 0 || done < posted) {
		while (t.access_err + t.flushed == 0 && posted - done < depth) {
			const std::size_t off = (posted % slots) * slot_len;
			ibv_sge sge{x.addr(off), slot_len, x.mr->lkey};
			ibv_send_wr wr{};
			ibv_send_wr *bad = nullptr;

			std::memset(x.buf.data() + off,
				    write ? write_byte(posted) : 0, slot_len);
			wr.wr_id = posted;
			wr.opcode = op;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.wr.rdma.remote_addr = raddr + off;
			wr.wr.rdma.rkey = rkey;
			const int ret = ibv_post_send(x.qp.get(), &wr, &bad);
			if (ret != 0) {
				ktap::fail("A's post_send: %s",
					   std::strerror(ret));
				return false;
			}
			++posted;
		}
		ibv_wc wc{};
		const int n = ibv_poll_cq(x.scq, 1, &wc);
		if (n < 0) {
			ktap::fail("A's poll_cq returned %d", n);
			return false;
		}
		if (n == 1) {
			if (!take_wc(wc, done, dereg_done, t))
				return false;
			if (!write && wc.status == IBV_WC_SUCCESS) {
				const std::size_t off =
					(wc.wr_id % slots) * slot_len;
				const unsigned char *p = x.buf.data() + off;

				EXPECT(std::all_of(p, p + slot_len,
						   [](unsigned char v) {
							   return v == 0x5a;
						   }),
				       "READ %llu succeeded without B's data",
				       static_cast<unsigned long long>(
					       wc.wr_id));
			}
			++done;
		}
		if (!dereg_done && t.ok >= before_dereg) {
			/* Under the stream: 16 operations in flight. */
			y.mr.reset();
			at_dereg = y.buf;
			tx_at_dereg = fresh_counter(b, "tx_packets");
			dereg_done = true;
			until = deadline_in(10000);
		}
		if (clock_type::now() > until) {
			ktap::fail("round %u: %s: %llu posted, %llu completed, "
				   "%s",
				   round, write ? "WRITE" : "READ",
				   static_cast<unsigned long long>(posted),
				   static_cast<unsigned long long>(done),
				   dereg_done ? "no failure within 10 s of the "
						"deregistration"
					      : "the stream did not flow");
			return false;
		}
		if (n == 0)
			usleep(100);
	}
	/* What was on the wire has landed, or never will. */
	usleep(static_cast<useconds_t>(300000 * scale));
	const long long sent = fresh_counter(b, "tx_packets") - tx_at_dereg;
	std::size_t changed = 0;
	for (std::size_t i = 0; i < at_dereg.size(); ++i)
		changed += y.buf[i] != at_dereg[i];
	ktap::note("round %u, %s: %llu succeeded (%llu after ibv_dereg_mr() "
		   "returned), then IBV_WC_REM_ACCESS_ERR, %llu flushed; B "
		   "sent %lld packets after it, %zu bytes of its region "
		   "changed after it",
		   round, write ? "WRITE" : "READ",
		   static_cast<unsigned long long>(t.ok),
		   static_cast<unsigned long long>(t.ok_after_dereg),
		   static_cast<unsigned long long>(t.flushed), sent, changed);
	EXPECT(t.access_err == 1, "round %u: no IBV_WC_REM_ACCESS_ERR", round);
	EXPECT(changed == 0,
	       "round %u: %zu bytes of B's region changed after "
	       "ibv_dereg_mr() returned",
	       round, changed);
	if (!write)
		EXPECT(tx_at_dereg >= 0 && sent <= 40,
		       "round %u: B sent %lld packets after ibv_dereg_mr()",
		       round, sent);
	return true;
}

} /* namespace */

bool f4_dereg_under_traffic(device &a, device &b)
{
	constexpr unsigned int rounds = 4;

	for (unsigned int r = 0; r < rounds; ++r)
		CHECK(dereg_round(
			a, b, r % 2 == 0 ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
			r));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

} /* namespace hostile */
