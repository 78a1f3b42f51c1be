// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-srqtest - shared receive queues between two RDMA devices, through
 * the public libibverbs API only, as tests/srq.sh needs it.
 *
 *   sroce-srqtest DEV_A DEV_B CHECK
 *
 * As sroce-rctest: one process opens both devices and connects RC QPs of
 * DEV_A (requesters, each with its own receive queue) to RC QPs of DEV_B
 * (responders, all created with one SRQ of DEV_B); the packets cross
 * whatever joins the two netdevs.  Each CHECK prints what it does and
 * exits 0 when everything behaved as expected, 1 otherwise (2 for a usage
 * error):
 *
 *   limit       an SRQ of 16 WQEs armed with limit 8: no
 *               IBV_EVENT_SRQ_LIMIT_REACHED while 8 or more remain, one
 *               when the 9th is taken, the limit then reads 0 and no
 *               further event comes; armed again, it fires again
 *   shared      3 QPs on one SRQ: one message at a time, the WQEs are
 *               taken in ring order whichever QP receives (wr_id, qp_num
 *               and data of every completion checked); then a burst from
 *               all three at once: every QP's messages arrive in its
 *               order, each in a WQE later than the one before
 *   full        ibv_post_srq_recv fails with ENOMEM exactly at the max_wr
 *               ibv_query_srq reports (bad_wr at the first refused), and
 *               takes one more once a WQE was consumed; a QP created with
 *               the SRQ reports max_recv_wr 0 and refuses ibv_post_recv
 *   error       one of two QPs sharing the SRQ goes to ERROR: it reports
 *               IBV_EVENT_QP_LAST_WQE_REACHED, the SRQ's WQEs are not
 *               flushed, and they serve the other QP, in order
 *   bad-input   create with max_wr 0 or beyond max_srq_wr, or max_sge
 *               beyond max_srq_sge, fails; modify with a limit above
 *               max_wr fails with EINVAL, a resize with EOPNOTSUPP and
 *               an unknown attribute with EINVAL, the SRQ unchanged;
 *               destroying an SRQ a QP uses fails with EBUSY, and works
 *               once the QP is gone; CREATE_SRQ as a raw command with a
 *               missing or malformed driver tail, or no room for the
 *               driver response, fails with EINVAL (the same command
 *               with a good tail succeeds)
 *   all         every check above, in this order
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <poll.h>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "verbs_util.h"

namespace {

using namespace verbs_util;

void describe(const device &d)
{
	std::printf("%s: GID index %d, max_srq %d max_srq_wr %d "
		    "max_srq_sge %d\n",
		    d.name.c_str(), d.gid_index, d.attr.max_srq,
		    d.attr.max_srq_wr, d.attr.max_srq_sge);
}

/* ---- the two sides ------------------------------------------------------- */

constexpr std::uint32_t msg_size = 256;

/*
 * One side: PD, CQs, a registered buffer and nqp RC QPs, all on one SRQ
 * when the side has one (B), each with a receive queue otherwise (A).
 */
struct side {
	device *dev = nullptr;
	pd_ptr pd;
	cq_ptr scq;
	cq_ptr rcq;
	std::vector<unsigned char> buf;
	mr_ptr mr;
	srq_ptr srq;
	std::vector<qp_ptr> qps;
	std::vector<std::uint32_t> psn;

	std::uint64_t addr(std::size_t off = 0)
	{
		return reinterpret_cast<std::uintptr_t>(buf.data() + off);
	}
};

std::uint32_t next_psn()
{
	static std::uint32_t psn = 0x4321;

	psn = (psn * 1103515245U + 12345U) & 0xffffff;
	return psn;
}

ibv_qp *make_qp(side &s, ibv_srq *srq)
{
	ibv_qp_init_attr ia{};

	ia.send_cq = s.scq.get();
	ia.recv_cq = s.rcq.get();
	ia.srq = srq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 64;
	ia.cap.max_recv_wr = srq != nullptr ? 0 : 64;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = srq != nullptr ? 0 : 1;
	return ibv_create_qp(s.pd.get(), &ia);
}

/* srq_wr 0: no SRQ.  An SRQ of srq_wr WQEs otherwise. */
bool make_side(side &s, device &d, int nqp, std::uint32_t srq_wr,
	       std::uint32_t buf_size)
{
	ibv_context *ctx = d.ctx.get();

	s.dev = &d;
	s.scq.reset(ibv_create_cq(ctx, 256, nullptr, nullptr, 0));
	s.rcq.reset(ibv_create_cq(ctx, 256, nullptr, nullptr, 0));
	s.pd.reset(ibv_alloc_pd(ctx));
	REQUIRE(s.scq != nullptr && s.rcq != nullptr && s.pd != nullptr);
	s.buf.assign(buf_size, 0);
	s.mr.reset(ibv_reg_mr(s.pd.get(), s.buf.data(), s.buf.size(), acc_lw));
	REQUIRE(s.mr != nullptr);
	if (srq_wr != 0) {
		ibv_srq_init_attr sia{};

		sia.attr.max_wr = srq_wr;
		sia.attr.max_sge = 1;
		s.srq.reset(ibv_create_srq(s.pd.get(), &sia));
		REQUIRE(s.srq != nullptr);
		std::printf("  SRQ of %u WQEs asked, %u x %u SGE granted\n",
			    srq_wr, sia.attr.max_wr, sia.attr.max_sge);
	}
	for (int i = 0; i < nqp; ++i) {
		s.qps.emplace_back(make_qp(s, s.srq.get()));
		REQUIRE(s.qps.back() != nullptr);
		s.psn.push_back(next_psn());
	}
	return true;
}

/* QP i of x from RESET to RTS towards QP i of y. */
bool connect_one(side &x, side &y, std::size_t i)
{
	ibv_qp *qp = x.qps[i].get();
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	REQUIRE(ibv_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS) == 0);
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = y.qps[i]->qp_num;
	a.rq_psn = y.psn[i];
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr = roce_av(*x.dev, *y.dev);
	REQUIRE(ibv_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER) == 0);
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = x.psn[i];
	a.max_rd_atomic = 1;
	REQUIRE(ibv_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				      IBV_QP_MAX_QP_RD_ATOMIC) == 0);
	return true;
}

bool connect_all(side &a, side &b)
{
	REQUIRE(a.qps.size() == b.qps.size());
	for (std::size_t i = 0; i < a.qps.size(); ++i) {
		REQUIRE(connect_one(a, b, i));
		REQUIRE(connect_one(b, a, i));
	}
	return true;
}

/* ---- posting, completions, events ---------------------------------------- */

/* The message of QP q, number n: every byte says who sent it. */
unsigned char pattern(std::uint32_t q, std::uint32_t n, std::size_t i)
{
	return static_cast<unsigned char>(q * 131 + n * 31 + i * 7 + 1);
}

/* Receive WQE wr_id, into slot wr_id of b's buffer. */
int post_srq(side &b, std::uint64_t wr_id, ibv_recv_wr **bad = nullptr)
{
	ibv_sge sge{b.addr(wr_id * msg_size), msg_size, b.mr->lkey};
	ibv_recv_wr wr{};
	ibv_recv_wr *bad_local = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_srq_recv(b.srq.get(), &wr,
				 bad != nullptr ? bad : &bad_local);
}

/* Message n of QP q of a, from slot q of a's buffer. */
int send_msg(side &a, std::uint32_t q, std::uint32_t n)
{
	unsigned char *p = a.buf.data() + std::size_t{q} * msg_size;
	for (std::size_t i = 0; i < msg_size; ++i)
		p[i] = pattern(q, n, i);
	ibv_sge sge{a.addr(std::size_t{q} * msg_size), msg_size, a.mr->lkey};
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = (std::uint64_t{q} << 32) | n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	return ibv_post_send(a.qps[q].get(), &wr, &bad);
}

/* The send of message n of QP q of a completed successfully. */
bool sent_ok(side &a, std::uint32_t q, std::uint32_t n)
{
	const std::optional<ibv_wc> wc = wait_wc(a.scq.get());

	EXPECT(wc.has_value(), "no send completion of QP %u message %u", q, n);
	EXPECT(wc->status == IBV_WC_SUCCESS &&
		       wc->wr_id == ((std::uint64_t{q} << 32) | n),
	       "send completion wr_id %#" PRIx64 " status %s", wc->wr_id,
	       ibv_wc_status_str(wc->status));
	return true;
}

/*
 * The next receive completion at b: success, of msg_size bytes, into the
 * slot its wr_id names, holding message n of QP q.  *wr_id gets the WQE
 * taken; with q < 0 the QP is whatever the completion says (*qidx).
 */
bool received(side &b, std::uint64_t *wr_id, int *qidx, std::uint32_t n)
{
	const std::optional<ibv_wc> wc = wait_wc(b.rcq.get());

	EXPECT(wc.has_value(), "no receive completion");
	EXPECT(wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_RECV &&
		       wc->byte_len == msg_size,
	       "receive wr_id %" PRIu64 " status %s opcode %d len %u",
	       wc->wr_id, ibv_wc_status_str(wc->status), wc->opcode,
	       wc->byte_len);
	int q = -1;
	for (std::size_t i = 0; i < b.qps.size(); ++i)
		if (b.qps[i]->qp_num == wc->qp_num)
			q = static_cast<int>(i);
	EXPECT(q >= 0, "completion of unknown QP %#x", wc->qp_num);
	EXPECT(*qidx < 0 || *qidx == q, "completion on QP %d, expected %d", q,
	       *qidx);
	*qidx = q;
	*wr_id = wc->wr_id;
	const unsigned char *p = b.buf.data() + wc->wr_id * msg_size;
	for (std::size_t i = 0; i < msg_size; ++i)
		EXPECT(p[i] == pattern(static_cast<std::uint32_t>(q), n, i),
		       "WQE %" PRIu64 " byte %zu is %#x, not message %u of "
		       "QP %d",
		       wc->wr_id, i, p[i], n, q);
	return true;
}

/* The next async event of ctx within ms (scaled); acknowledged. */
std::optional<ibv_async_event> wait_event(ibv_context *ctx, int ms)
{
	pollfd pfd{ctx->async_fd, POLLIN, 0};

	if (poll(&pfd, 1, ms * scale) != 1)
		return std::nullopt;
	ibv_async_event ev{};
	if (ibv_get_async_event(ctx, &ev) != 0)
		return std::nullopt;
	ibv_async_event copy = ev;
	ibv_ack_async_event(&ev);
	std::printf("  async event: %s\n", ibv_event_type_str(ev.event_type));
	return copy;
}

bool no_event(ibv_context *ctx, int ms, const char *what)
{
	const std::optional<ibv_async_event> ev = wait_event(ctx, ms);

	EXPECT(!ev.has_value(), "%s: unexpected event %s", what,
	       ibv_event_type_str(ev->event_type));
	std::printf("ok: %s: no async event within %d ms\n", what, ms * scale);
	return true;
}

/* A non-blocking async fd, so wait_event() never hangs. */
bool async_nonblock(ibv_context *ctx)
{
	const int fl = fcntl(ctx->async_fd, F_GETFL);

	return fl >= 0 && fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

ibv_srq_attr query(ibv_srq *srq)
{
	ibv_srq_attr a{};

	if (ibv_query_srq(srq, &a) != 0)
		std::printf("FAILED: query_srq: %s\n", std::strerror(errno));
	return a;
}

int arm(ibv_srq *srq, std::uint32_t limit)
{
	ibv_srq_attr a{};

	a.srq_limit = limit;
	return ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
}

/* ---- checks ---------------------------------------------------------------- */

/* One message from QP q of a, received by QP q of b from WQE wr_id. */
bool one_message(side &a, side &b, std::uint32_t q, std::uint32_t n,
		 std::uint64_t expect_wr_id)
{
	std::uint64_t wr_id = 0;
	int qidx = static_cast<int>(q);

	EXPECT(send_msg(a, q, n) == 0, "post_send");
	if (!received(b, &wr_id, &qidx, n) || !sent_ok(a, q, n))
		return false;
	EXPECT(wr_id == expect_wr_id,
	       "WQE %" PRIu64 " taken, expected %" PRIu64, wr_id, expect_wr_id);
	return true;
}

bool check_limit(device &da, device &db)
{
	side a, b;

	REQUIRE(async_nonblock(db.ctx.get()));
	REQUIRE(make_side(a, da, 1, 0, 64 * 1024));
	REQUIRE(make_side(b, db, 1, 16, 64 * 1024));
	REQUIRE(connect_all(a, b));
	const ibv_srq_attr before = query(b.srq.get());
	REQUIRE(before.max_wr == 16 && before.srq_limit == 0);
	for (std::uint64_t i = 0; i < 16; ++i)
		REQUIRE(post_srq(b, i) == 0);
	REQUIRE(arm(b.srq.get(), 8) == 0);
	CHECK(query(b.srq.get()).srq_limit == 8);

	/* 16 posted: taking 8 leaves 8, not below the limit. */
	for (std::uint32_t n = 0; n < 8; ++n)
		REQUIRE(one_message(a, b, 0, n, n));
	REQUIRE(no_event(db.ctx.get(), 300, "8 WQEs left, limit 8"));
	CHECK(query(b.srq.get()).srq_limit == 8);

	/* The 9th leaves 7: the event, once, and the limit disarmed. */
	REQUIRE(one_message(a, b, 0, 8, 8));
	const std::optional<ibv_async_event> ev =
		wait_event(db.ctx.get(), 3000);
	CHECK(ev.has_value() && ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	      ev->element.srq == b.srq.get());
	CHECK(query(b.srq.get()).srq_limit == 0);
	for (std::uint32_t n = 9; n < 12; ++n)
		REQUIRE(one_message(a, b, 0, n, n));
	REQUIRE(no_event(db.ctx.get(), 300, "disarmed"));

	/* 4 left; armed at 3 it fires again when the next leaves 2. */
	REQUIRE(arm(b.srq.get(), 3) == 0);
	REQUIRE(one_message(a, b, 0, 12, 12));
	REQUIRE(no_event(db.ctx.get(), 300, "3 WQEs left, limit 3"));
	REQUIRE(one_message(a, b, 0, 13, 13));
	const std::optional<ibv_async_event> ev2 =
		wait_event(db.ctx.get(), 3000);
	CHECK(ev2.has_value() &&
	      ev2->event_type == IBV_EVENT_SRQ_LIMIT_REACHED);
	REQUIRE(no_event(db.ctx.get(), 200, "after the second event"));
	return true;
}

bool check_shared(device &da, device &db)
{
	constexpr std::uint32_t nqp = 3;
	constexpr std::uint32_t rounds = 10;
	constexpr std::uint32_t burst = 8;
	side a, b;

	REQUIRE(make_side(a, da, nqp, 0, 64 * 1024));
	REQUIRE(make_side(b, db, nqp, 64, 64 * msg_size));
	REQUIRE(connect_all(a, b));
	for (std::uint64_t i = 0; i < 64; ++i)
		REQUIRE(post_srq(b, i) == 0);

	/* One at a time, QPs in a scrambled order: WQEs in ring order. */
	std::uint64_t next = 0;
	std::vector<std::uint32_t> sent(nqp, 0);
	for (std::uint32_t r = 0; r < rounds; ++r) {
		for (std::uint32_t k = 0; k < nqp; ++k) {
			const std::uint32_t q = (k * 2 + r) % nqp;

			if (!one_message(a, b, q, sent[q]++, next++))
				return false;
		}
	}
	std::printf("ok: %" PRIu64 " messages of %u QPs took WQEs 0..%" PRIu64
		    " in order\n",
		    next, nqp, next - 1);

	/* A burst from every QP: each QP's messages in order. */
	const std::uint64_t first = next;
	for (std::uint32_t n = 0; n < burst; ++n)
		for (std::uint32_t q = 0; q < nqp; ++q)
			REQUIRE(send_msg(a, q, sent[q] + n) == 0);
	std::vector<std::uint64_t> last_wr(nqp, 0);
	std::vector<std::uint32_t> got(nqp, 0);
	std::vector<bool> taken(64, false);
	for (std::uint32_t m = 0; m < burst * nqp; ++m) {
		std::uint64_t wr_id = 0;
		int qidx = -1;
		const std::optional<ibv_wc> wc = wait_wc(b.rcq.get());
		EXPECT(wc.has_value() && wc->status == IBV_WC_SUCCESS,
		       "burst receive %u", m);
		for (std::uint32_t q = 0; q < nqp; ++q)
			if (b.qps[q]->qp_num == wc->qp_num)
				qidx = static_cast<int>(q);
		EXPECT(qidx >= 0, "unknown QP %#x", wc->qp_num);
		const auto q = static_cast<std::uint32_t>(qidx);
		wr_id = wc->wr_id;
		EXPECT(wr_id >= first && wr_id < 64 && !taken[wr_id],
		       "burst WQE %" PRIu64, wr_id);
		taken[wr_id] = true;
		EXPECT(got[q] == 0 || wr_id > last_wr[q],
		       "QP %u took WQE %" PRIu64 " after %" PRIu64, q, wr_id,
		       last_wr[q]);
		const std::uint32_t n = sent[q] + got[q];
		const unsigned char *p = b.buf.data() + wr_id * msg_size;
		for (std::size_t i = 0; i < msg_size; ++i)
			EXPECT(p[i] == pattern(q, n, i),
			       "QP %u message %u in WQE %" PRIu64
			       " byte %zu wrong",
			       q, n, wr_id, i);
		last_wr[q] = wr_id;
		++got[q];
	}
	for (std::uint32_t m = 0; m < burst * nqp; ++m) {
		const std::optional<ibv_wc> wc = wait_wc(a.scq.get());
		EXPECT(wc.has_value() && wc->status == IBV_WC_SUCCESS,
		       "burst send completion %u", m);
	}
	std::printf("ok: a burst of %u messages from each of %u QPs, every "
		    "QP's in order\n",
		    burst, nqp);
	return true;
}

bool check_full(device &da, device &db)
{
	side a, b;

	REQUIRE(make_side(a, da, 1, 0, 64 * 1024));
	REQUIRE(make_side(b, db, 1, 10, 64 * msg_size));
	REQUIRE(connect_all(a, b));
	const ibv_srq_attr attr = query(b.srq.get());
	std::printf("  max_wr %u (10 asked)\n", attr.max_wr);
	REQUIRE(attr.max_wr >= 10 && attr.max_wr <= 64);

	std::uint64_t i = 0;
	for (; i < attr.max_wr; ++i)
		REQUIRE(post_srq(b, i) == 0);
	ibv_recv_wr *bad = nullptr;
	CHECK(post_srq(b, i, &bad) == ENOMEM && bad != nullptr &&
	      bad->wr_id == i);
	/* Take one: room for exactly one more. */
	REQUIRE(one_message(a, b, 0, 0, 0));
	CHECK(post_srq(b, i) == 0);
	CHECK(post_srq(b, i + 1) == ENOMEM);

	/* The QP has no receive queue of its own. */
	ibv_qp_attr qa{};
	ibv_qp_init_attr qia{};
	REQUIRE(ibv_query_qp(b.qps[0].get(), &qa, IBV_QP_CAP, &qia) == 0);
	CHECK(qa.cap.max_recv_wr == 0);
	ibv_sge sge{b.addr(), 16, b.mr->lkey};
	ibv_recv_wr wr{};
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CHECK(ibv_post_recv(b.qps[0].get(), &wr, &bad) != 0);
	/* The WQEs still posted all serve. */
	for (std::uint32_t n = 1; n <= attr.max_wr; ++n)
		REQUIRE(one_message(a, b, 0, n, n));
	return true;
}

bool check_error(device &da, device &db)
{
	side a, b;

	REQUIRE(async_nonblock(db.ctx.get()));
	REQUIRE(make_side(a, da, 2, 0, 64 * 1024));
	REQUIRE(make_side(b, db, 2, 16, 16 * msg_size));
	REQUIRE(connect_all(a, b));
	for (std::uint64_t i = 0; i < 8; ++i)
		REQUIRE(post_srq(b, i) == 0);
	/* Both QPs receive once. */
	REQUIRE(one_message(a, b, 0, 0, 0));
	REQUIRE(one_message(a, b, 1, 0, 1));

	REQUIRE(to_state(b.qps[0].get(), IBV_QPS_ERR) == 0);
	const std::optional<ibv_async_event> ev =
		wait_event(db.ctx.get(), 3000);
	CHECK(ev.has_value() &&
	      ev->event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
	      ev->element.qp == b.qps[0].get());
	REQUIRE(no_event(db.ctx.get(), 200, "one LAST_WQE_REACHED only"));
	const std::optional<ibv_wc> flushed = wait_wc(b.rcq.get(), 300);
	CHECK(!flushed.has_value());
	if (flushed)
		std::printf("  unexpected completion wr_id %" PRIu64
			    " status %s\n",
			    flushed->wr_id, ibv_wc_status_str(flushed->status));
	/* The 6 WQEs left serve the other QP, in ring order. */
	for (std::uint32_t n = 1; n <= 6; ++n)
		REQUIRE(one_message(a, b, 1, n, n + 1));
	CHECK(to_state(b.qps[0].get(), IBV_QPS_RESET) == 0);
	return true;
}

/* CREATE_SRQ as a raw write() command, with a driver tail of our choosing. */
struct raw_create_srq {
	ib_uverbs_cmd_hdr hdr;
	/* struct ib_uverbs_create_srq, which ends in a flexible array */
	std::uint64_t response;
	std::uint64_t user_handle;
	std::uint32_t pd_handle, max_wr, max_sge, srq_limit;
	sroce_create_srq_cmd drv;
	std::uint64_t extra;
};
static_assert(offsetof(raw_create_srq, drv) == 40);

/* 0 if the kernel accepted the command, else the errno of write(). */
int raw_create(ibv_pd *pd, std::size_t in_bytes, std::size_t out_bytes,
	       const sroce_create_srq_cmd &drv, std::uint64_t extra)
{
	alignas(8) unsigned char resp[sizeof(ib_uverbs_create_srq_resp) +
				      sizeof(sroce_create_srq_resp)] = {};
	raw_create_srq cmd{};

	cmd.hdr.command = IB_USER_VERBS_CMD_CREATE_SRQ;
	cmd.hdr.in_words = static_cast<std::uint16_t>(in_bytes / 4);
	cmd.hdr.out_words = static_cast<std::uint16_t>(out_bytes / 4);
	cmd.response = reinterpret_cast<std::uintptr_t>(resp);
	cmd.pd_handle = pd->handle;
	cmd.max_wr = 4;
	cmd.max_sge = 1;
	cmd.drv = drv;
	cmd.extra = extra;
	if (write(pd->context->cmd_fd, &cmd, in_bytes) !=
	    static_cast<ssize_t>(in_bytes))
		return errno;

	/* Accepted: destroy it again, or its PD could not go. */
	ib_uverbs_create_srq_resp core{};
	std::memcpy(&core, resp, sizeof(core));
	struct {
		ib_uverbs_cmd_hdr hdr;
		ib_uverbs_destroy_srq core;
	} destroy{};
	ib_uverbs_destroy_srq_resp dresp{};
	destroy.hdr.command = IB_USER_VERBS_CMD_DESTROY_SRQ;
	destroy.hdr.in_words = sizeof(destroy) / 4;
	destroy.hdr.out_words = sizeof(dresp) / 4;
	destroy.core.response = reinterpret_cast<std::uintptr_t>(&dresp);
	destroy.core.srq_handle = core.srq_handle;
	if (write(pd->context->cmd_fd, &destroy, sizeof(destroy)) !=
	    static_cast<ssize_t>(sizeof(destroy))) {
		std::printf("FAILED: raw DESTROY_SRQ: %s\n",
			    std::strerror(errno));
		++failures;
	}
	return 0;
}

bool raw_is(int err, int expected, const char *what)
{
	std::printf("  raw CREATE_SRQ, %s: %s\n", what,
		    err != 0 ? std::strerror(err) : "accepted");
	return err == expected;
}

bool check_raw_create(ibv_pd *pd)
{
	const sroce_create_srq_cmd good{
		.recv_wqe_size = sizeof(sroce_recv_wqe),
		.reserved = 0,
	};
	constexpr std::size_t core_in = 40;
	constexpr std::size_t full_in = core_in + sizeof(sroce_create_srq_cmd);
	constexpr std::size_t core_out = sizeof(ib_uverbs_create_srq_resp);
	constexpr std::size_t full_out =
		core_out + sizeof(sroce_create_srq_resp);
	sroce_create_srq_cmd bad = good;

	CHECK(raw_is(raw_create(pd, core_in, full_out, good, 0), EINVAL,
		     "no driver command"));
	CHECK(raw_is(raw_create(pd, full_in, core_out, good, 0), EINVAL,
		     "no room for the driver response"));
	bad.recv_wqe_size = 32;
	CHECK(raw_is(raw_create(pd, full_in, full_out, bad, 0), EINVAL,
		     "wrong receive WQE size"));
	bad = good;
	bad.reserved = 1;
	CHECK(raw_is(raw_create(pd, full_in, full_out, bad, 0), EINVAL,
		     "reserved field set"));
	CHECK(raw_is(raw_create(pd, full_in + 8, full_out, good, 1), EINVAL,
		     "unknown trailing data"));
	/* The command itself is right: with a good tail it works. */
	CHECK(raw_is(raw_create(pd, full_in + 8, full_out, good, 0), 0,
		     "good tail, zero trailing data"));
	return true;
}

bool check_bad_input(device &da, device &db)
{
	(void)da;
	side b;
	ibv_srq_init_attr sia{};

	REQUIRE(make_side(b, db, 0, 16, 64 * msg_size));
	ibv_pd *pd = b.pd.get();
	sia.attr.max_wr = 0;
	sia.attr.max_sge = 1;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);
	sia.attr.max_wr = static_cast<std::uint32_t>(db.attr.max_srq_wr) + 1;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);
	sia.attr.max_wr = 0xffffffff;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);
	sia.attr.max_wr = 4;
	sia.attr.max_sge = static_cast<std::uint32_t>(db.attr.max_srq_sge) + 1;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);

	ibv_srq *srq = b.srq.get();
	const ibv_srq_attr before = query(srq);
	REQUIRE(arm(srq, 4) == 0);
	CHECK(arm(srq, before.max_wr + 1) == EINVAL);
	CHECK(arm(srq, 0xffffffff) == EINVAL);
	ibv_srq_attr resize{};
	resize.max_wr = before.max_wr * 2;
	CHECK(ibv_modify_srq(srq, &resize, IBV_SRQ_MAX_WR) == EOPNOTSUPP);
	CHECK(ibv_modify_srq(srq, &resize, 1 << 5) == EINVAL);
	const ibv_srq_attr after = query(srq);
	CHECK(after.max_wr == before.max_wr &&
	      after.max_sge == before.max_sge && after.srq_limit == 4);
	CHECK(arm(srq, before.max_wr) == 0);
	CHECK(arm(srq, 0) == 0 && query(srq).srq_limit == 0);

	/* In use by a QP: the core refuses to destroy it. */
	qp_ptr qp(make_qp(b, srq));
	REQUIRE(qp != nullptr);
	CHECK(ibv_destroy_srq(srq) == EBUSY);
	CHECK(query(srq).max_wr == before.max_wr);
	qp.reset();
	CHECK(ibv_destroy_srq(b.srq.release()) == 0);
	return check_raw_create(pd);
}

/* ---- main ------------------------------------------------------------------ */

constexpr check checks[] = {
	{"limit", check_limit},		{"shared", check_shared},
	{"full", check_full},		{"error", check_error},
	{"bad-input", check_bad_input},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
