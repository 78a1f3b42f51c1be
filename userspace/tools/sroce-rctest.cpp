// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-rctest - RC send/receive (and UD datagrams) between two RDMA
 * devices, through the public libibverbs API only, as tests/rc.sh and
 * tests/ud.sh need it.
 *
 *   sroce-rctest DEV_A DEV_B CHECK
 *
 * One process opens both devices (rdma's "shared" network namespace mode,
 * the default, shows every device in every namespace) and connects a QP on
 * DEV_A to a QP on DEV_B directly: QPN, GID and PSN are exchanged in
 * memory.  The packets still cross whatever joins the two devices' netdevs
 * (tests/rc.sh: a veth pair between init_net and a namespace).  Each device
 * uses its first RoCE v2 GID that holds an IPv4 address.  A is the
 * requester, B the responder, unless said otherwise.
 *
 * Each CHECK prints what it does and exits 0 when everything behaved as
 * expected, 1 otherwise (2 for a usage error):
 *
 *   wrap        1000 sends through queues of depth 4, every byte checked:
 *               the ring indices wrap many times (PSNs wrap 2^24 too);
 *               half of them signaled, half mostly unsignaled
 *   full        post_recv and post_send fail with ENOMEM exactly at the
 *               max_recv_wr / max_send_wr ibv_query_qp reports, and the
 *               queues work on once drained
 *   state       post_send in RESET, INIT and RTR and post_recv in RESET
 *               fail; invalid transitions and bad attributes of modify_qp
 *               fail with EINVAL and leave the state unchanged; sends
 *               posted in ERROR are flushed
 *   multi-sge   gather from several SGEs of two regions, scatter into
 *               SGEs of odd sizes across packet boundaries; max SGEs
 *   imm         SEND_WITH_IMM: imm_data and IBV_WC_WITH_IMM, 0-byte and
 *               multi-packet messages; a plain SEND has no immediate
 *   solicited   a CQ armed for solicited completions ignores an
 *               unsolicited send and fires for a solicited one
 *   inline      IBV_SEND_INLINE up to max_inline_data, from unregistered
 *               memory; one byte more is refused by post_send
 *   bad-lkey    a wrong lkey or an address outside the region completes
 *               with IBV_WC_LOC_PROT_ERR, the QP goes to ERROR, later WQEs
 *               flush with IBV_WC_WR_FLUSH_ERR, nothing reaches B (its
 *               receive takes A's next good send)
 *   rnr         no receive posted: rnr_retry 0 or 2 ends in
 *               IBV_WC_RNR_RETRY_EXC_ERR; rnr_retry 7 waits for a late
 *               post_recv and succeeds
 *   recv-too-small  a message larger than the receive buffer (in its first
 *               or a later packet): IBV_WC_LOC_LEN_ERR at B,
 *               IBV_WC_REM_INV_REQ_ERR at A
 *   events      completion channels end to end: req_notify_cq,
 *               get_cq_event, ack_cq_events; no spurious events
 *   ud          UD QPs with address handles: the GRH (the IPv4 header) in
 *               the first 40 bytes, source QP, immediate data; a wrong
 *               Q_Key and a missing receive drop the datagram (counted by
 *               sroce's qkey_drops / no_recv_drops when the device has
 *               them); a Q_Key with the high bit set means the sender
 *               QP's own; a receive too small completes with
 *               IBV_WC_LOC_LEN_ERR and the QP works on; an AH of another
 *               PD or a message above the MTU fails the send locally; an
 *               AH to a GID nobody answers for is refused
 *   uc          UC QPs: multi-packet SEND and RDMA WRITE_WITH_IMM arrive
 *               whole; a SEND without a receive posted is dropped (the
 *               next message takes the receive); READ is refused locally
 *   uc-loss     run with packets lost from A to B (tests/ud.sh sets netem
 *               loss): 200 three-packet SENDs, each tagged by its
 *               immediate; B gets some, each whole and right, never part
 *               of one, and not all
 *   mcast       UD multicast over an IPv4 group: A sends with the
 *               multicast QPN, two QPs of B and a second QP of A get
 *               each datagram (GRH destination the group), the sender
 *               does not (mcast_self_skips), a QP with another Q_Key or
 *               without a receive drops its copy, a detached QP gets
 *               nothing; a unicast QPN to the group and the multicast
 *               QPN to a unicast address are dropped (rx_drop_mcast)
 *   mcast6      the same over an IPv6 group (ff02::5e:7:1) from the
 *               devices' link-local GIDs
 *   mcast-bad   attach refused on RC and UC QPs and for GIDs outside the
 *               multicast range (EINVAL); detach of a group not attached
 *               EINVAL; a second attach succeeds and makes no second
 *               attachment; an attached QP is not destroyed (EBUSY)
 *   mcast-limits  on A only: max_mcast_grp groups, max_mcast_qp_attach
 *               QPs in a group, max_total_mcast_qp_attach attachments,
 *               one more each time ENOMEM; all detached, the device takes
 *               new ones.  With SROCE_MCAST_EXIT_ATTACHED set the process
 *               exits with everything attached instead
 *   all         every check above, in this order
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <algorithm>
#include <array>
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

#include "verbs_util.h"

namespace {

using namespace verbs_util;

/* ---- devices and endpoints ----------------------------------------------- */

void describe(const device &d)
{
	std::printf("%s: GID %d %s, active MTU %d\n", d.name.c_str(),
		    d.gid_index, gid_str(d.gid).c_str(),
		    128 << d.port.active_mtu);
}

/* What an endpoint is created and connected with. */
struct qp_opts {
	std::uint32_t send_wr = 16;
	std::uint32_t recv_wr = 16;
	std::uint32_t send_sge = 4;
	std::uint32_t recv_sge = 4;
	std::uint32_t inline_data = 0;
	int cqe = 64;
	bool sig_all = false;
	bool channel = false;
	std::size_t buf_size = std::size_t{64} * 1024;
	ibv_mtu mtu = IBV_MTU_1024;
	std::uint8_t min_rnr_timer = 12; /* 0.64 ms; responder */
	std::uint8_t rnr_retry = 7; /* requester */
	std::uint8_t retry_cnt = 7;
	std::uint8_t timeout = 14; /* 4.096 us * 2^14 = 67 ms */
	int mr_access = IBV_ACCESS_LOCAL_WRITE;
	int qp_access = IBV_ACCESS_LOCAL_WRITE;
	std::uint8_t max_rd_atomic = 1; /* requester */
	std::uint8_t max_dest_rd_atomic = 1; /* responder */
	ibv_qp_type type = IBV_QPT_RC;
};

struct endpoint {
	device *dev = nullptr;
	qp_opts opts;
	channel_ptr ch;
	cq_ptr scq;
	cq_ptr rcq;
	pd_ptr pd;
	std::vector<unsigned char> buf;
	mr_ptr mr;
	qp_ptr qp;
	ibv_qp_cap cap{};
	std::uint32_t psn = 0;
	/* Events taken from ch and not yet acknowledged, per CQ. */
	unsigned int scq_unacked = 0;
	unsigned int rcq_unacked = 0;

	endpoint() = default;
	endpoint(const endpoint &) = delete;
	endpoint &operator=(const endpoint &) = delete;
	endpoint(endpoint &&) = delete;
	endpoint &operator=(endpoint &&) = delete;
	/* A CQ with unacknowledged events cannot be destroyed. */
	~endpoint()
	{
		if (scq_unacked != 0)
			ibv_ack_cq_events(scq.get(), scq_unacked);
		if (rcq_unacked != 0)
			ibv_ack_cq_events(rcq.get(), rcq_unacked);
	}

	std::uint64_t addr(std::size_t off = 0)
	{
		return reinterpret_cast<std::uintptr_t>(buf.data() + off);
	}
};

std::uint32_t next_psn()
{
	static std::uint32_t psn = 0x1234;

	psn = (psn * 1103515245U + 12345U) & 0xffffff;
	return psn;
}

ibv_qp_cap query_cap(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_CAP, &ia) != 0)
		return {};
	return a.cap;
}

/* PD, CQs (on a channel if asked), a registered buffer and an RC QP. */
bool make_endpoint(endpoint &e, device &d, const qp_opts &o)
{
	ibv_context *ctx = d.ctx.get();

	e.dev = &d;
	e.opts = o;
	if (o.channel) {
		e.ch.reset(ibv_create_comp_channel(ctx));
		REQUIRE(e.ch != nullptr);
	}
	e.scq.reset(ibv_create_cq(ctx, o.cqe, &e, e.ch.get(), 0));
	e.rcq.reset(ibv_create_cq(ctx, o.cqe, &e, e.ch.get(), 0));
	e.pd.reset(ibv_alloc_pd(ctx));
	REQUIRE(e.scq != nullptr && e.rcq != nullptr && e.pd != nullptr);
	e.buf.assign(o.buf_size, 0);
	e.mr.reset(ibv_reg_mr(e.pd.get(), e.buf.data(), e.buf.size(),
			      o.mr_access));
	REQUIRE(e.mr != nullptr);

	ibv_qp_init_attr ia{};
	ia.send_cq = e.scq.get();
	ia.recv_cq = e.rcq.get();
	ia.qp_type = o.type;
	ia.sq_sig_all = o.sig_all ? 1 : 0;
	ia.cap.max_send_wr = o.send_wr;
	ia.cap.max_recv_wr = o.recv_wr;
	ia.cap.max_send_sge = o.send_sge;
	ia.cap.max_recv_sge = o.recv_sge;
	ia.cap.max_inline_data = o.inline_data;
	e.qp.reset(ibv_create_qp(e.pd.get(), &ia));
	REQUIRE(e.qp != nullptr);
	e.cap = query_cap(e.qp.get());
	return true;
}

ibv_qp_attr rtr_attr(const endpoint &e, const endpoint &peer)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e.opts.mtu;
	a.dest_qp_num = peer.qp->qp_num;
	a.rq_psn = peer.psn;
	a.max_dest_rd_atomic = e.opts.max_dest_rd_atomic;
	a.min_rnr_timer = e.opts.min_rnr_timer;
	a.ah_attr = roce_av(*e.dev, *peer.dev);
	return a;
}

ibv_qp_attr rts_attr(const endpoint &e)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RTS;
	a.timeout = e.opts.timeout;
	a.retry_cnt = e.opts.retry_cnt;
	a.rnr_retry = e.opts.rnr_retry;
	a.sq_psn = e.psn;
	a.max_rd_atomic = e.opts.max_rd_atomic;
	return a;
}

int to_rtr(endpoint &e, const endpoint &peer)
{
	ibv_qp_attr a = rtr_attr(e, peer);

	return ibv_modify_qp(e.qp.get(), &a, rtr_mask);
}

int to_rts(endpoint &e)
{
	ibv_qp_attr a = rts_attr(e);

	return ibv_modify_qp(e.qp.get(), &a, rts_mask);
}

/*
 * Both QPs from RESET (or INIT) to RTS, each pointing at the other, with
 * fresh PSNs.  With b_rts false, B stays in RTR (a pure responder).
 */
bool connect(endpoint &a, endpoint &b, bool b_rts = true)
{
	a.psn = next_psn();
	b.psn = next_psn();
	REQUIRE(to_init(a.qp.get(), a.opts.qp_access) == 0);
	REQUIRE(to_init(b.qp.get(), b.opts.qp_access) == 0);
	REQUIRE(to_rtr(a, b) == 0);
	REQUIRE(to_rtr(b, a) == 0);
	REQUIRE(to_rts(a) == 0);
	if (b_rts)
		REQUIRE(to_rts(b) == 0);
	return true;
}

/* Both QPs back to RESET (their queues empty) and connected again. */
bool reconnect(endpoint &a, endpoint &b)
{
	REQUIRE(to_state(a.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(to_state(b.qp.get(), IBV_QPS_RESET) == 0);
	return connect(a, b);
}

/* ---- posting and completions --------------------------------------------- */

int post_sges(endpoint &e, std::uint64_t wr_id, ibv_sge *sges, int num_sge,
	      ibv_wr_opcode op = IBV_WR_SEND,
	      unsigned int flags = IBV_SEND_SIGNALED, std::uint32_t imm = 0)
{
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.imm_data = imm;
	const int ret = ibv_post_send(e.qp.get(), &wr, &bad);
	if (ret != 0 && bad != &wr) {
		std::printf("FAILED: post_send returned %d but bad_wr %p\n",
			    ret, static_cast<void *>(bad));
		++failures;
	}
	return ret;
}

/* One SGE of e's buffer. */
int post_send(endpoint &e, std::uint64_t wr_id, std::size_t off,
	      std::uint32_t len, ibv_wr_opcode op = IBV_WR_SEND,
	      unsigned int flags = IBV_SEND_SIGNALED, std::uint32_t imm = 0)
{
	ibv_sge sge{e.addr(off), len, e.mr->lkey};

	return post_sges(e, wr_id, &sge, len != 0 ? 1 : 0, op, flags, imm);
}

int post_recv_sges(endpoint &e, std::uint64_t wr_id, ibv_sge *sges, int num_sge)
{
	ibv_recv_wr wr{};
	ibv_recv_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	const int ret = ibv_post_recv(e.qp.get(), &wr, &bad);
	if (ret != 0 && bad != &wr) {
		std::printf("FAILED: post_recv returned %d but bad_wr %p\n",
			    ret, static_cast<void *>(bad));
		++failures;
	}
	return ret;
}

int post_recv(endpoint &e, std::uint64_t wr_id, std::size_t off,
	      std::uint32_t len)
{
	ibv_sge sge{e.addr(off), len, e.mr->lkey};

	return post_recv_sges(e, wr_id, &sge, 1);
}

void print_wc(const char *what, const ibv_wc &wc)
{
	std::printf("  %s: wr_id %" PRIu64 " status %s (%d) opcode %d "
		    "byte_len %u wc_flags %#x imm %#x qp %#x vendor_err %#x\n",
		    what, wc.wr_id, ibv_wc_status_str(wc.status), wc.status,
		    wc.opcode, wc.byte_len, wc.wc_flags, ntohl(wc.imm_data),
		    wc.qp_num, wc.vendor_err);
}

/*
 * The next completion of cq is wr_id with status (and, for a success,
 * opcode); it is printed when verbose or when it is not as expected.
 */
std::optional<ibv_wc> expect_wc(const char *what, ibv_cq *cq,
				std::uint64_t wr_id, ibv_wc_status status,
				ibv_wc_opcode opcode, bool verbose = true)
{
	const std::optional<ibv_wc> wc = wait_wc(cq);

	if (!wc) {
		std::printf("FAILED: %s: no completion of wr_id %" PRIu64
			    " (expected %s)\n",
			    what, wr_id, ibv_wc_status_str(status));
		++failures;
		return std::nullopt;
	}
	const bool ok = wc->wr_id == wr_id && wc->status == status &&
			(status != IBV_WC_SUCCESS || wc->opcode == opcode);
	if (verbose || !ok)
		print_wc(what, *wc);
	if (!ok) {
		std::printf("FAILED: %s: expected wr_id %" PRIu64
			    " status %s opcode %d\n",
			    what, wr_id, ibv_wc_status_str(status), opcode);
		++failures;
		return std::nullopt;
	}
	return wc;
}

/* Nothing completes on cq within ms (scaled). */
bool no_wc(const char *what, ibv_cq *cq, int ms)
{
	const std::optional<ibv_wc> wc = wait_wc(cq, ms);

	if (wc) {
		print_wc(what, *wc);
		std::printf("FAILED: %s: unexpected completion\n", what);
		++failures;
		return false;
	}
	std::printf("ok: %s: no completion within %d ms\n", what, ms * scale);
	return true;
}

/* ---- data ------------------------------------------------------------------ */

/* p holds message msg from byte from on, for len bytes; -1 or a mismatch. */
long mismatch(const unsigned char *p, std::size_t len, std::uint32_t msg,
	      std::size_t from = 0)
{
	for (std::size_t i = 0; i < len; ++i)
		if (p[i] != pattern(msg, from + i))
			return static_cast<long>(i);
	return -1;
}

/* ---- wrap -------------------------------------------------------------------- */

constexpr std::uint32_t wrap_sizes[] = {1,    64,   1023, 1024,
					1025, 2048, 4000, 4096};
constexpr std::size_t slot_size = 4096;

/*
 * n messages through the QP pair, at most depth outstanding on each side.
 * signal_every: 1 signals every send; k > 1 signals every k-th (and the
 * last), posting sends in lists.  msg0 numbers the first message.
 */
bool stream(endpoint &a, endpoint &b, std::uint32_t msg0, std::uint32_t n,
	    std::uint32_t depth, std::uint32_t signal_every)
{
	std::uint32_t posted_s = 0, done_s = 0, posted_r = 0, done_r = 0;
	auto progress = deadline_in(10000);

	auto size_of = [msg0](std::uint32_t i) {
		return wrap_sizes[(msg0 + i) % std::size(wrap_sizes)];
	};
	while (done_r < n || done_s < n) {
		/* Receives first, as a list of everything there is room for. */
		ibv_recv_wr rwr[16];
		ibv_sge rsge[16];
		int nr = 0;
		while (posted_r < n && posted_r - done_r < depth && nr < 16) {
			const std::size_t off = (posted_r % depth) * slot_size;
			std::memset(b.buf.data() + off, 0, slot_size);
			rsge[nr] = {b.addr(off), slot_size, b.mr->lkey};
			rwr[nr] = {};
			rwr[nr].wr_id = posted_r;
			rwr[nr].sg_list = &rsge[nr];
			rwr[nr].num_sge = 1;
			if (nr > 0)
				rwr[nr - 1].next = &rwr[nr];
			++nr;
			++posted_r;
		}
		if (nr > 0) {
			ibv_recv_wr *bad = nullptr;
			const int ret = ibv_post_recv(b.qp.get(), rwr, &bad);
			EXPECT(ret == 0, "post_recv of %d: %s", nr,
			       std::strerror(ret));
		}

		/* Sends: never ahead of the receives posted. */
		ibv_send_wr swr[16];
		ibv_sge ssge[16];
		int ns = 0;
		while (posted_s < n && posted_s < posted_r &&
		       posted_s - done_s < depth && ns < 16) {
			const std::size_t off = (posted_s % depth) * slot_size;
			const std::uint32_t len = size_of(posted_s);
			fill(a.buf.data() + off, len, msg0 + posted_s);
			ssge[ns] = {a.addr(off), len, a.mr->lkey};
			swr[ns] = {};
			swr[ns].wr_id = posted_s;
			swr[ns].sg_list = &ssge[ns];
			swr[ns].num_sge = 1;
			swr[ns].opcode = IBV_WR_SEND;
			if (signal_every <= 1 ||
			    posted_s % signal_every == signal_every - 1 ||
			    posted_s + 1 == n)
				swr[ns].send_flags = IBV_SEND_SIGNALED;
			if (ns > 0)
				swr[ns - 1].next = &swr[ns];
			++ns;
			++posted_s;
			if (signal_every <= 1)
				break; /* one at a time */
		}
		if (ns > 0) {
			ibv_send_wr *bad = nullptr;
			const int ret = ibv_post_send(a.qp.get(), swr, &bad);
			EXPECT(ret == 0, "post_send of %d at %u: %s", ns,
			       posted_s - ns, std::strerror(ret));
		}

		ibv_wc wc[8];
		int got = ibv_poll_cq(a.scq.get(), 8, wc);
		EXPECT(got >= 0, "poll_cq %d", got);
		for (int i = 0; i < got; ++i) {
			EXPECT(wc[i].status == IBV_WC_SUCCESS &&
				       wc[i].opcode == IBV_WC_SEND &&
				       wc[i].wr_id >= done_s &&
				       wc[i].wr_id < posted_s,
			       "send wc wr_id %" PRIu64
			       " status %s opcode %d, expected "
			       "%u..%u",
			       wc[i].wr_id, ibv_wc_status_str(wc[i].status),
			       wc[i].opcode, done_s, posted_s - 1);
			EXPECT(signal_every > 1 || wc[i].wr_id == done_s,
			       "send wc wr_id %" PRIu64 ", expected %u",
			       wc[i].wr_id, done_s);
			done_s = static_cast<std::uint32_t>(wc[i].wr_id) + 1;
			progress = deadline_in(10000);
		}
		got = ibv_poll_cq(b.rcq.get(), 8, wc);
		EXPECT(got >= 0, "poll_cq %d", got);
		for (int i = 0; i < got; ++i) {
			const std::uint32_t len = size_of(done_r);
			const unsigned char *p =
				b.buf.data() + (done_r % depth) * slot_size;
			EXPECT(wc[i].status == IBV_WC_SUCCESS &&
				       wc[i].opcode == IBV_WC_RECV &&
				       wc[i].wr_id == done_r &&
				       wc[i].byte_len == len &&
				       (wc[i].wc_flags & IBV_WC_WITH_IMM) == 0,
			       "recv wc wr_id %" PRIu64
			       " status %s opcode %d byte_len %u flags %#x; "
			       "expected %u, %u bytes",
			       wc[i].wr_id, ibv_wc_status_str(wc[i].status),
			       wc[i].opcode, wc[i].byte_len, wc[i].wc_flags,
			       done_r, len);
			const long bad = mismatch(p, len, msg0 + done_r);
			EXPECT(bad < 0, "message %u: byte %ld of %u differs",
			       msg0 + done_r, bad, len);
			EXPECT(p[len] == 0 || len == slot_size,
			       "message %u: byte after the end written",
			       msg0 + done_r);
			++done_r;
			progress = deadline_in(10000);
		}
		if (nr == 0 && ns == 0 && got == 0)
			usleep(20);
		EXPECT(clock_type::now() < progress,
		       "no progress for 10 s: sent %u/%u completed %u, "
		       "received %u/%u posted",
		       posted_s, n, done_s, done_r, posted_r);
	}
	return true;
}

bool check_wrap(device &da, device &db)
{
	constexpr std::uint32_t depth = 4;
	qp_opts o;
	o.send_wr = depth;
	o.recv_wr = depth;
	o.cqe = depth;
	o.buf_size = depth * slot_size;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	std::printf("  granted: send_wr %u recv_wr %u, CQs of %d and %d\n",
		    a.cap.max_send_wr, b.cap.max_recv_wr, a.scq->cqe,
		    b.rcq->cqe);
	REQUIRE(a.cap.max_send_wr == depth && b.cap.max_recv_wr == depth);
	/* Start the PSNs just below 2^24: they wrap as well. */
	REQUIRE(to_init(a.qp.get()) == 0 && to_init(b.qp.get()) == 0);
	a.psn = 0xffffff - 40;
	b.psn = 0xffffff - 3;
	REQUIRE(to_rtr(a, b) == 0 && to_rtr(b, a) == 0);
	REQUIRE(to_rts(a) == 0 && to_rts(b) == 0);

	REQUIRE(stream(a, b, 0, 500, depth, 1));
	std::printf("ok: 500 signaled sends of 1..4096 bytes, depth %u\n",
		    depth);
	REQUIRE(stream(a, b, 500, 500, depth, depth));
	std::printf("ok: 500 sends in lists, every %u-th signaled\n", depth);
	/* And the other way round on the same QPs. */
	REQUIRE(stream(b, a, 1000, 100, depth, 1));
	std::printf("ok: 100 sends from B to A\n");
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	CHECK(qp_state(b.qp.get()) == IBV_QPS_RTS);
	return true;
}

/* ---- full -------------------------------------------------------------------- */

bool check_full(device &da, device &db)
{
	qp_opts o;
	o.send_wr = 10;
	o.recv_wr = 10;
	o.cqe = 256;

	/* The receive queue of a QP in INIT: nothing consumes it. */
	{
		endpoint c;
		REQUIRE(make_endpoint(c, db, o));
		REQUIRE(to_init(c.qp.get()) == 0);
		const std::uint32_t r = query_cap(c.qp.get()).max_recv_wr;
		std::printf("  max_recv_wr asked 10, ibv_query_qp says %u\n",
			    r);
		REQUIRE(r >= 10);
		for (std::uint32_t i = 0; i + 1 < r; ++i)
			EXPECT(post_recv(c, i, 0, 64) == 0, "post_recv %u", i);
		/* A list of two with room for one: the second is bad_wr. */
		ibv_sge sge[2] = {{c.addr(), 64, c.mr->lkey},
				  {c.addr(), 64, c.mr->lkey}};
		ibv_recv_wr wr[2] = {};
		wr[0].wr_id = r - 1;
		wr[0].sg_list = &sge[0];
		wr[0].num_sge = 1;
		wr[0].next = &wr[1];
		wr[1].wr_id = r;
		wr[1].sg_list = &sge[1];
		wr[1].num_sge = 1;
		ibv_recv_wr *bad = nullptr;
		CHECK(ibv_post_recv(c.qp.get(), wr, &bad) == ENOMEM &&
		      bad == &wr[1]);
		CHECK(post_recv(c, r + 1, 0, 64) == ENOMEM);
		/* RESET empties the queue; it holds r receives again. */
		CHECK(to_state(c.qp.get(), IBV_QPS_RESET) == 0);
		CHECK(to_init(c.qp.get()) == 0);
		std::uint32_t n = 0;
		while (n <= r && post_recv(c, n, 0, 64) == 0)
			++n;
		std::printf("  after RESET: %u receives posted\n", n);
		CHECK(n == r);
	}

	/*
	 * The send queue: B has no receive posted and A retries RNR NAKs
	 * forever, so nothing A posts retires until B posts receives.
	 */
	o.recv_wr = 64;
	o.min_rnr_timer = 14; /* 1.28 ms */
	endpoint a, b;
	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));
	const std::uint32_t s = query_cap(a.qp.get()).max_send_wr;
	std::printf("  max_send_wr asked 10, ibv_query_qp says %u\n", s);
	REQUIRE(s >= 10 && s <= b.cap.max_recv_wr);
	for (std::uint32_t i = 0; i < s; ++i) {
		fill(a.buf.data() + std::size_t{i} * 256, 256, i);
		EXPECT(post_send(a, i, std::size_t{i} * 256, 256) == 0,
		       "post_send %u", i);
	}
	CHECK(post_send(a, s, 0, 256) == ENOMEM);
	CHECK(no_wc("A's sends while B has no receive", a.scq.get(), 300));
	CHECK(post_send(a, s, 0, 256) == ENOMEM);

	/* B's receives let everything through, in order. */
	for (std::uint32_t i = 0; i < s; ++i)
		EXPECT(post_recv(b, i, std::size_t{i} * 256, 256) == 0,
		       "post_recv %u", i);
	for (std::uint32_t i = 0; i < s; ++i) {
		REQUIRE(expect_wc("send", a.scq.get(), i, IBV_WC_SUCCESS,
				  IBV_WC_SEND, false));
		const auto wc = expect_wc("recv", b.rcq.get(), i,
					  IBV_WC_SUCCESS, IBV_WC_RECV, false);
		REQUIRE(wc && wc->byte_len == 256);
		EXPECT(mismatch(b.buf.data() + std::size_t{i} * 256, 256, i) <
			       0,
		       "message %u differs", i);
	}
	std::printf("ok: %u sends and receives completed after the late "
		    "receives\n",
		    s);

	/* Drained: the full depth can be posted again. */
	for (std::uint32_t i = 0; i < s; ++i)
		EXPECT(post_recv(b, s + i, std::size_t{i} * 256, 256) == 0,
		       "post_recv %u", s + i);
	for (std::uint32_t i = 0; i < s; ++i)
		EXPECT(post_send(a, s + i, std::size_t{i} * 256, 256) == 0,
		       "post_send %u", s + i);
	for (std::uint32_t i = 0; i < s; ++i) {
		REQUIRE(expect_wc("send", a.scq.get(), s + i, IBV_WC_SUCCESS,
				  IBV_WC_SEND, false));
		REQUIRE(expect_wc("recv", b.rcq.get(), s + i, IBV_WC_SUCCESS,
				  IBV_WC_RECV, false));
	}
	std::printf("ok: the full depth again after draining\n");
	return true;
}

/* ---- state ------------------------------------------------------------------- */

bool send_refused(endpoint &e, const char *what)
{
	const int ret = post_send(e, 1, 0, 16);

	std::printf("  post_send in %s: %d (%s)\n", what, ret,
		    ret != 0 ? std::strerror(ret) : "accepted");
	return ret != 0;
}

bool check_state(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	ibv_qp *qa = a.qp.get();
	a.psn = next_psn();
	b.psn = next_psn();

	/* RESET */
	CHECK(qp_state(qa) == IBV_QPS_RESET);
	CHECK(send_refused(a, "RESET"));
	const int rret = post_recv(a, 1, 0, 16);
	std::printf("  post_recv in RESET: %d (%s)\n", rret,
		    std::strerror(rret));
	CHECK(rret != 0);
	ibv_qp_attr x{};
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask, "RESET -> RTR"));
	CHECK(modify_refused(qa, rts_attr(a), rts_mask, "RESET -> RTS"));
	x.qp_state = IBV_QPS_SQD;
	CHECK(modify_refused(qa, x, IBV_QP_STATE, "RESET -> SQD"));
	x = {};
	x.qp_state = IBV_QPS_INIT;
	x.port_num = 2;
	CHECK(modify_refused(qa, x, init_mask, "RESET -> INIT on port 2"));
	x.port_num = 1;
	x.pkey_index = 5;
	CHECK(modify_refused(qa, x, init_mask,
			     "RESET -> INIT with P_Key index 5"));

	/* INIT */
	REQUIRE(to_init(qa) == 0);
	CHECK(qp_state(qa) == IBV_QPS_INIT);
	CHECK(send_refused(a, "INIT"));
	CHECK(post_recv(a, 2, 0, 16) == 0);
	CHECK(to_init(qa) == 0); /* INIT -> INIT is allowed */
	CHECK(modify_refused(qa, rts_attr(a), rts_mask, "INIT -> RTS"));
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask & ~IBV_QP_AV,
			     "INIT -> RTR without an address vector"));
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask & ~IBV_QP_DEST_QPN,
			     "INIT -> RTR without a destination QP"));
	ibv_qp_attr r = rtr_attr(a, b);
	r.dest_qp_num = 1U << 24;
	CHECK(modify_refused(qa, r, rtr_mask, "INIT -> RTR with a 25-bit QPN"));
	/* An empty GID entry: the RDMA core answers ENODATA. */
	r = rtr_attr(a, b);
	r.ah_attr.grh.sgid_index = 200;
	CHECK(modify_refused(qa, r, rtr_mask,
			     "INIT -> RTR with an empty source GID entry",
			     ENODATA));
	if (a.dev->port.active_mtu < IBV_MTU_4096) {
		r = rtr_attr(a, b);
		r.path_mtu = static_cast<ibv_mtu>(a.dev->port.active_mtu + 1);
		CHECK(modify_refused(qa, r, rtr_mask,
				     "INIT -> RTR with a path MTU above the "
				     "port's"));
	}

	/* RTR */
	REQUIRE(to_rtr(a, b) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RTR);
	CHECK(send_refused(a, "RTR"));
	CHECK(post_recv(a, 3, 0, 16) == 0);
	x = {};
	x.qp_state = IBV_QPS_INIT;
	CHECK(modify_refused(qa, x, IBV_QP_STATE, "RTR -> INIT"));
	CHECK(modify_refused(qa, rts_attr(a), IBV_QP_STATE,
			     "RTR -> RTS without its attributes"));
	ibv_qp_attr t = rts_attr(a);
	t.retry_cnt = 8;
	CHECK(modify_refused(qa, t, rts_mask, "RTR -> RTS with retry count 8"));
	t = rts_attr(a);
	t.timeout = 32;
	CHECK(modify_refused(qa, t, rts_mask, "RTR -> RTS with timeout 32"));

	/* RTS */
	REQUIRE(to_rts(a) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RTS);
	CHECK(modify_refused(qa, rtr_attr(a, b), rtr_mask, "RTS -> RTR"));
	x = {};
	x.qp_state = IBV_QPS_INIT;
	CHECK(modify_refused(qa, x, IBV_QP_STATE, "RTS -> INIT"));
	/* RTS -> RTS with a new RNR timer is allowed. */
	x = {};
	x.qp_state = IBV_QPS_RTS;
	x.min_rnr_timer = 14;
	CHECK(ibv_modify_qp(qa, &x, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RTS);

	/* ERROR: the receives posted in INIT and RTR flush; so do sends. */
	REQUIRE(to_state(qa, IBV_QPS_ERR) == 0);
	CHECK(qp_state(qa) == IBV_QPS_ERR);
	CHECK(expect_wc("recv posted in INIT", a.rcq.get(), 2,
			IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV));
	CHECK(expect_wc("recv posted in RTR", a.rcq.get(), 3,
			IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV));
	CHECK(post_send(a, 4, 0, 16) == 0);
	CHECK(expect_wc("send posted in ERROR", a.scq.get(), 4,
			IBV_WC_WR_FLUSH_ERR, IBV_WC_SEND));
	CHECK(modify_refused(qa, rts_attr(a), rts_mask, "ERROR -> RTS"));
	x = {};
	x.qp_state = IBV_QPS_INIT;
	CHECK(modify_refused(qa, x, init_mask, "ERROR -> INIT"));
	CHECK(no_wc("A's send CQ", a.scq.get(), 50));
	CHECK(no_wc("A's receive CQ", a.rcq.get(), 50));

	/* Back to RESET, and usable again. */
	REQUIRE(to_state(qa, IBV_QPS_RESET) == 0);
	CHECK(qp_state(qa) == IBV_QPS_RESET);
	CHECK(send_refused(a, "RESET again"));
	REQUIRE(to_state(b.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(connect(a, b));
	fill(a.buf.data(), 100, 7);
	CHECK(post_recv(b, 10, 0, 100) == 0);
	CHECK(post_send(a, 11, 0, 100) == 0);
	CHECK(expect_wc("send after RESET", a.scq.get(), 11, IBV_WC_SUCCESS,
			IBV_WC_SEND));
	CHECK(expect_wc("recv after RESET", b.rcq.get(), 10, IBV_WC_SUCCESS,
			IBV_WC_RECV));
	CHECK(mismatch(b.buf.data(), 100, 7) < 0);
	return true;
}

/* ---- multi-sge ---------------------------------------------------------------- */

struct piece {
	std::size_t off;
	std::uint32_t len;
	bool second; /* in the second region */
};

bool check_multi_sge(device &da, device &db)
{
	qp_opts o;
	o.send_sge = 8;
	o.recv_sge = 8;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	std::printf("  granted: send SGEs %u, receive SGEs %u\n",
		    a.cap.max_send_sge, b.cap.max_recv_sge);
	REQUIRE(a.cap.max_send_sge >= 8 && b.cap.max_recv_sge >= 8);
	/* A second region on each side. */
	std::vector<unsigned char> a2(16384), b2(16384);
	mr_ptr a2mr(ibv_reg_mr(a.pd.get(), a2.data(), a2.size(), acc_lw));
	mr_ptr b2mr(ibv_reg_mr(b.pd.get(), b2.data(), b2.size(), acc_lw));
	REQUIRE(a2mr != nullptr && b2mr != nullptr);
	REQUIRE(connect(a, b));

	auto sge_of = [](endpoint &e, std::vector<unsigned char> &v,
			 const mr_ptr &mr2, const piece &p) {
		unsigned char *base = p.second ? v.data() : e.buf.data();
		return ibv_sge{reinterpret_cast<std::uintptr_t>(base + p.off),
			       p.len, p.second ? mr2->lkey : e.mr->lkey};
	};
	auto bytes_of = [](endpoint &e, std::vector<unsigned char> &v,
			   const piece &p) {
		return (p.second ? v.data() : e.buf.data()) + p.off;
	};

	/*
	 * 3552 bytes (4 packets of 1024) gathered from 4 pieces, scattered
	 * into 4 pieces of 7 + 1000 + 3 + 2600 bytes; none of the
	 * boundaries is a packet boundary.
	 */
	const piece gather[] = {{11, 5, false},
				{500, 2047, true},
				{5000, 1, false},
				{7001, 1499, false}};
	const piece scatter[] = {{1, 7, false},
				 {100, 1000, true},
				 {2001, 3, false},
				 {3003, 2600, false}};
	std::uint32_t total = 0;
	std::vector<ibv_sge> ss, rs;
	/* Message byte i is pattern(1, i), spread over the pieces. */
	for (const piece &p : gather) {
		ss.push_back(sge_of(a, a2, a2mr, p));
		unsigned char *q = bytes_of(a, a2, p);
		for (std::uint32_t i = 0; i < p.len; ++i)
			q[i] = pattern(1, total + i);
		total += p.len;
	}
	std::memset(b.buf.data(), 0xee, b.buf.size());
	std::memset(b2.data(), 0xee, b2.size());
	for (const piece &p : scatter)
		rs.push_back(sge_of(b, b2, b2mr, p));
	REQUIRE(post_recv_sges(b, 1, rs.data(), static_cast<int>(rs.size())) ==
		0);
	REQUIRE(post_sges(a, 1, ss.data(), static_cast<int>(ss.size())) == 0);
	REQUIRE(expect_wc("send", a.scq.get(), 1, IBV_WC_SUCCESS, IBV_WC_SEND));
	auto wc =
		expect_wc("recv", b.rcq.get(), 1, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc);
	CHECK(wc->byte_len == total);
	std::uint32_t at = 0;
	for (const piece &p : scatter) {
		const unsigned char *q = bytes_of(b, b2, p);
		const std::uint32_t n = std::min(p.len, total - at);
		const long bad = mismatch(q, n, 1, at);
		if (bad >= 0)
			std::printf("  scatter piece at %zu: byte %ld of %u "
				    "differs\n",
				    p.off, bad, n);
		CHECK(bad < 0);
		CHECK(q[-1] == 0xee);
		CHECK(q[p.len] == 0xee);
		for (std::uint32_t i = n; i < p.len; ++i)
			if (q[i] != 0xee) {
				std::printf("FAILED: byte %u of the last piece "
					    "written past the message\n",
					    i);
				++failures;
				break;
			}
		at += n;
	}
	std::printf("  %u bytes from %zu SGEs into %zu SGEs\n", total,
		    std::size(gather), std::size(scatter));

	/*
	 * As many SGEs as granted on both sides, of odd sizes, one after
	 * the other with gaps of 16 bytes; the last receive SGE takes the
	 * rest and 5 bytes more.
	 */
	const std::uint32_t ns = a.cap.max_send_sge, nr = b.cap.max_recv_sge;
	ss.clear();
	rs.clear();
	total = 0;
	std::size_t off = 0;
	for (std::uint32_t i = 0; i < ns; ++i) {
		const std::uint32_t len = 13 + 97 * i;
		REQUIRE(off + len <= a.buf.size());
		ss.push_back({a.addr(off), len, a.mr->lkey});
		for (std::uint32_t k = 0; k < len; ++k)
			a.buf[off + k] = pattern(2, total + k);
		total += len;
		off += len + 16;
	}
	std::uint32_t room = 0;
	off = 0;
	for (std::uint32_t i = 0; i < nr; ++i) {
		std::uint32_t len = 3 + 31 * i;
		if (i + 1 == nr) {
			REQUIRE(room < total);
			len = total - room + 5;
		}
		REQUIRE(off + len <= b.buf.size());
		rs.push_back({b.addr(off), len, b.mr->lkey});
		room += len;
		off += len + 16;
	}
	std::memset(b.buf.data(), 0xee, b.buf.size());
	REQUIRE(post_recv_sges(b, 2, rs.data(), static_cast<int>(rs.size())) ==
		0);
	REQUIRE(post_sges(a, 2, ss.data(), static_cast<int>(ss.size())) == 0);
	REQUIRE(expect_wc("send", a.scq.get(), 2, IBV_WC_SUCCESS, IBV_WC_SEND));
	wc = expect_wc("recv", b.rcq.get(), 2, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc);
	CHECK(wc->byte_len == total);
	at = 0;
	bool same = true;
	for (const ibv_sge &s : rs) {
		const std::uint32_t n = std::min(s.length, total - at);
		if (mismatch(b.buf.data() + (s.addr - b.addr()), n, 2, at) >= 0)
			same = false;
		at += n;
	}
	std::printf("  %u bytes from %u SGEs into %u SGEs\n", total, ns, nr);
	CHECK(same);

	/* One SGE more than granted is refused by post_send/post_recv. */
	ss.push_back(ss.back());
	rs.push_back(rs.back());
	CHECK(post_recv_sges(b, 3, rs.data(), static_cast<int>(rs.size())) !=
	      0);
	CHECK(post_sges(a, 3, ss.data(), static_cast<int>(ss.size())) != 0);
	CHECK(no_wc("A's send CQ", a.scq.get(), 50));
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	return true;
}

/* ---- imm ---------------------------------------------------------------------- */

bool check_imm(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));

	struct {
		std::uint32_t len;
		bool imm;
		std::uint32_t value;
	} const cases[] = {
		{100, true, 0x12345678},
		{0, true, 0xdeadbeef},
		{5000, true, 0x01020304},
		{10, false, 0},
		{0, false, 0},
		{1, true, 0},
	};
	std::uint64_t id = 1;
	for (const auto &c : cases) {
		std::printf("  %s of %u bytes, imm %#x\n",
			    c.imm ? "SEND_WITH_IMM" : "SEND", c.len, c.value);
		fill(a.buf.data(), c.len, static_cast<std::uint32_t>(id));
		std::memset(b.buf.data(), 0, 8192);
		CHECK(post_recv(b, id, 0, 8192) == 0);
		CHECK(post_send(a, id, 0, c.len,
				c.imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				IBV_SEND_SIGNALED, htonl(c.value)) == 0);
		CHECK(expect_wc("send", a.scq.get(), id, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		const auto wc = expect_wc("recv", b.rcq.get(), id,
					  IBV_WC_SUCCESS, IBV_WC_RECV);
		REQUIRE(wc);
		CHECK(wc->byte_len == c.len);
		CHECK(mismatch(b.buf.data(), c.len,
			       static_cast<std::uint32_t>(id)) < 0);
		if (c.imm) {
			CHECK((wc->wc_flags & IBV_WC_WITH_IMM) != 0);
			CHECK(wc->imm_data == htonl(c.value));
		} else {
			CHECK((wc->wc_flags & IBV_WC_WITH_IMM) == 0);
		}
		CHECK(wc->qp_num == b.qp->qp_num);
		++id;
	}
	return true;
}

/* ---- solicited and events --------------------------------------------------- */

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
		std::printf("FAILED: get_cq_event: %s\n", std::strerror(errno));
		++failures;
		return false;
	}
	if (cq_ctx != &e) {
		std::printf("FAILED: the event's cq_context is not the "
			    "endpoint's\n");
		++failures;
	}
	if (cq == e.scq.get())
		++e.scq_unacked;
	else if (cq == e.rcq.get())
		++e.rcq_unacked;
	*which = cq;
	return true;
}

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
		CHECK(ibv_req_notify_cq(b.rcq.get(), 1) == 0);
		CHECK(post_recv(b, id, 0, 4096) == 0);
		CHECK(post_recv(b, id + 1, 4096, 4096) == 0);
		/* Unsolicited: the CQE comes, no event. */
		CHECK(post_send(a, id, 0, 64 + round * 2000) == 0);
		CHECK(expect_wc("send", a.scq.get(), id, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		CHECK(expect_wc("unsolicited recv", b.rcq.get(), id,
				IBV_WC_SUCCESS, IBV_WC_RECV));
		const bool ev = channel_event(b, 300, &cq);
		std::printf("  unsolicited send of %" PRIu64 " bytes: %s\n",
			    64 + round * 2000, ev ? "EVENT" : "no event");
		CHECK(!ev);
		/* Solicited: an event for the receive CQ. */
		CHECK(post_send(a, id + 1, 0, 64 + round * 2000, IBV_WR_SEND,
				IBV_SEND_SIGNALED | IBV_SEND_SOLICITED) == 0);
		CHECK(expect_wc("send", a.scq.get(), id + 1, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		cq = nullptr;
		CHECK(channel_event(b, 5000, &cq) && cq == b.rcq.get());
		CHECK(expect_wc("solicited recv", b.rcq.get(), id + 1,
				IBV_WC_SUCCESS, IBV_WC_RECV));
	}
	/* The event fired once: none is left. */
	CHECK(!channel_event(b, 100, &cq));
	ibv_ack_cq_events(b.rcq.get(), b.rcq_unacked);
	b.rcq_unacked = 0;
	return true;
}

bool check_events(device &da, device &db)
{
	qp_opts o;
	o.channel = true;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));
	ibv_cq *cq = nullptr;

	/* Armed, nothing happens: no event. */
	CHECK(ibv_req_notify_cq(a.scq.get(), 0) == 0);
	CHECK(ibv_req_notify_cq(b.rcq.get(), 0) == 0);
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
		if (channel_event(a, 5000, &cq) && cq == a.scq.get())
			++a_events;
		cq = nullptr;
		if (channel_event(b, 5000, &cq) && cq == b.rcq.get())
			++b_events;
		/* Re-arm, then poll: no completion slips between. */
		CHECK(ibv_req_notify_cq(a.scq.get(), 0) == 0);
		CHECK(ibv_req_notify_cq(b.rcq.get(), 0) == 0);
		REQUIRE(expect_wc("send", a.scq.get(), i, IBV_WC_SUCCESS,
				  IBV_WC_SEND, false));
		const auto wc = expect_wc("recv", b.rcq.get(), i,
					  IBV_WC_SUCCESS, IBV_WC_RECV, false);
		REQUIRE(wc && wc->byte_len == len);
		CHECK(mismatch(b.buf.data() + 8192, len, i) < 0);
		/* Acknowledge some events at once, the rest in one go. */
		if (i % 2 == 0) {
			ibv_ack_cq_events(a.scq.get(), a.scq_unacked);
			a.scq_unacked = 0;
		}
	}
	std::printf("  %u rounds: %u send CQ events, %u receive CQ events\n",
		    rounds, a_events, b_events);
	CHECK(a_events == rounds);
	CHECK(b_events == rounds);
	/*
	 * The CQs are armed and the completions consumed: a completion that
	 * was armed for may still be pending in the channel only if it was
	 * raised twice.  Nothing more.
	 */
	CHECK(!channel_event(a, 200, &cq));
	CHECK(!channel_event(b, 10, &cq));
	std::printf("  acknowledging %u + %u events\n",
		    a.scq_unacked + a.rcq_unacked,
		    b.scq_unacked + b.rcq_unacked);
	ibv_ack_cq_events(a.scq.get(), a.scq_unacked);
	a.scq_unacked = 0;
	ibv_ack_cq_events(b.rcq.get(), b.rcq_unacked);
	b.rcq_unacked = 0;
	CHECK(a.rcq_unacked == 0 && b.scq_unacked == 0);
	return true;
}

/* ---- inline ------------------------------------------------------------------- */

bool check_inline(device &da, device &db)
{
	qp_opts o;
	o.inline_data = 64;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));
	const std::uint32_t max_inline = a.cap.max_inline_data;
	std::printf("  max_inline_data asked 64, granted %u\n", max_inline);
	REQUIRE(max_inline >= 64);

	/* Unregistered memory, lkey 0: only inline can send it. */
	std::vector<unsigned char> src(max_inline + 16);
	std::uint64_t id = 1;
	for (const std::uint32_t len :
	     {1U, 17U, 64U, max_inline - 1, max_inline}) {
		fill(src.data(), len, static_cast<std::uint32_t>(id));
		ibv_sge s[2] = {
			{reinterpret_cast<std::uintptr_t>(src.data()), len / 2,
			 0},
			{reinterpret_cast<std::uintptr_t>(src.data() + len / 2),
			 len - len / 2, 0}};
		CHECK(post_recv(b, id, 0, 4096) == 0);
		const int n = len / 2 != 0 ? 2 : 1;
		CHECK(post_sges(a, id, len / 2 != 0 ? s : &s[1], n, IBV_WR_SEND,
				IBV_SEND_SIGNALED | IBV_SEND_INLINE) == 0);
		/* Posted: the source may change at once. */
		std::memset(src.data(), 0x5a, src.size());
		CHECK(expect_wc("inline send", a.scq.get(), id, IBV_WC_SUCCESS,
				IBV_WC_SEND));
		const auto wc = expect_wc("recv", b.rcq.get(), id,
					  IBV_WC_SUCCESS, IBV_WC_RECV);
		REQUIRE(wc);
		std::printf("  %u bytes inline in %d SGE(s): received %u\n",
			    len, n, wc->byte_len);
		CHECK(wc->byte_len == len);
		CHECK(mismatch(b.buf.data(), len,
			       static_cast<std::uint32_t>(id)) < 0);
		++id;
	}
	/* One byte more is refused at post time; the QP is unaffected. */
	ibv_sge big{reinterpret_cast<std::uintptr_t>(src.data()),
		    max_inline + 1, 0};
	const int ret = post_sges(a, id, &big, 1, IBV_WR_SEND,
				  IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	std::printf("  %u bytes inline: %d (%s)\n", max_inline + 1, ret,
		    std::strerror(ret));
	CHECK(ret != 0);
	CHECK(no_wc("A's send CQ", a.scq.get(), 100));
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	fill(a.buf.data(), 300, 99);
	CHECK(post_recv(b, 99, 0, 4096) == 0);
	CHECK(post_send(a, 99, 0, 300) == 0);
	CHECK(expect_wc("send", a.scq.get(), 99, IBV_WC_SUCCESS, IBV_WC_SEND));
	CHECK(expect_wc("recv", b.rcq.get(), 99, IBV_WC_SUCCESS, IBV_WC_RECV));
	CHECK(mismatch(b.buf.data(), 300, 99) < 0);
	return true;
}

/* ---- bad-lkey ------------------------------------------------------------------ */

/*
 * A posts a bad WQE followed by two good ones in one list: the bad one
 * completes with LOC_PROT_ERR, the others flush, A is in ERROR and B, with
 * a receive posted, sees nothing.  Then A alone is reconnected and a good
 * send goes through into that very receive.
 */
bool bad_send(endpoint &a, endpoint &b, const ibv_sge &bad, const char *what,
	      std::uint64_t id)
{
	std::printf("  %s\n", what);
	fill(a.buf.data(), 200, static_cast<std::uint32_t>(id));
	ibv_sge good{a.addr(), 200, a.mr->lkey};
	ibv_sge bad_copy = bad;
	ibv_send_wr wr[3] = {};
	for (int i = 0; i < 3; ++i) {
		wr[i].wr_id = id + static_cast<std::uint64_t>(i);
		wr[i].sg_list = i == 0 ? &bad_copy : &good;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (i < 2)
			wr[i].next = &wr[i + 1];
	}
	ibv_send_wr *bad_wr = nullptr;
	REQUIRE(ibv_post_send(a.qp.get(), wr, &bad_wr) == 0);
	CHECK(expect_wc("bad WQE", a.scq.get(), id, IBV_WC_LOC_PROT_ERR,
			IBV_WC_SEND));
	CHECK(expect_wc("next WQE", a.scq.get(), id + 1, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_SEND));
	CHECK(expect_wc("last WQE", a.scq.get(), id + 2, IBV_WC_WR_FLUSH_ERR,
			IBV_WC_SEND));
	CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
	/* A send posted now flushes as well. */
	CHECK(post_send(a, id + 3, 0, 200) == 0);
	CHECK(expect_wc("WQE posted in ERROR", a.scq.get(), id + 3,
			IBV_WC_WR_FLUSH_ERR, IBV_WC_SEND));
	CHECK(no_wc("B's receive CQ", b.rcq.get(), 200));
	CHECK(qp_state(b.qp.get()) == IBV_QPS_RTS);

	/*
	 * Nothing reached B: A, back from RESET with the same PSN, sends
	 * into the receive B posted before, with the PSN B still expects.
	 */
	REQUIRE(to_state(a.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(to_init(a.qp.get()) == 0);
	REQUIRE(to_rtr(a, b) == 0);
	REQUIRE(to_rts(a) == 0);
	CHECK(post_send(a, id + 4, 0, 200) == 0);
	CHECK(expect_wc("send after reconnecting A", a.scq.get(), id + 4,
			IBV_WC_SUCCESS, IBV_WC_SEND));
	const auto wc = expect_wc("B's receive posted before", b.rcq.get(), id,
				  IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc && wc->byte_len == 200 &&
	      mismatch(b.buf.data(), 200, static_cast<std::uint32_t>(id)) < 0);
	/* A's PSN moved on by one message: keep B's view in step. */
	a.psn = (a.psn + 1) & 0xffffff;
	return true;
}

bool check_bad_lkey(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));
	const std::uint32_t lkey = a.mr->lkey;
	const std::size_t len = a.buf.size();

	std::uint64_t id = 10;
	auto one = [&](const ibv_sge &s, const char *what) {
		CHECK(post_recv(b, id, 0, 4096) == 0);
		const bool ok = bad_send(a, b, s, what, id);
		id += 10;
		return ok;
	};
	REQUIRE(one({a.addr(), 64, lkey + 0x100}, "an lkey of no region"));
	REQUIRE(one({a.addr(), 64, lkey ^ 0x1}, "an lkey of another variant"));
	REQUIRE(one({a.addr(len - 10), 100, lkey},
		    "an SGE running past the end of the region"));
	REQUIRE(one({a.addr() - 4096, 100, lkey},
		    "an SGE starting below the region"));
	REQUIRE(one({a.addr(len), 1, lkey}, "one byte just past the region"));
	/* The right key of another device's region. */
	REQUIRE(one({b.addr(), 64, b.mr->lkey},
		    "the lkey and address of B's region (another device)"));
	return true;
}

/* ---- rnr ---------------------------------------------------------------------- */

bool check_rnr(device &da, device &db)
{
	qp_opts o;
	o.min_rnr_timer = 1; /* 0.01 ms */
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));

	for (const std::uint8_t retries : {0, 2}) {
		a.opts.rnr_retry = retries;
		REQUIRE(reconnect(a, b));
		std::printf("  rnr_retry %u, no receive posted\n", retries);
		CHECK(post_send(a, retries, 0, 100) == 0);
		CHECK(expect_wc("send", a.scq.get(), retries,
				IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_SEND));
		CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
		CHECK(no_wc("B's receive CQ", b.rcq.get(), 50));
	}

	/* Retried forever, until B posts a receive late. */
	a.opts.rnr_retry = 7;
	b.opts.min_rnr_timer = 14; /* 1.28 ms */
	REQUIRE(reconnect(a, b));
	fill(a.buf.data(), 3000, 5);
	std::printf("  rnr_retry 7, receive posted late\n");
	CHECK(post_send(a, 5, 0, 3000) == 0);
	CHECK(no_wc("A's send CQ before the receive", a.scq.get(), 500));
	CHECK(post_recv(b, 5, 0, 4096) == 0);
	CHECK(expect_wc("send", a.scq.get(), 5, IBV_WC_SUCCESS, IBV_WC_SEND));
	const auto wc =
		expect_wc("recv", b.rcq.get(), 5, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc && wc->byte_len == 3000 &&
	      mismatch(b.buf.data(), 3000, 5) < 0);
	CHECK(qp_state(a.qp.get()) == IBV_QPS_RTS);
	return true;
}

/* ---- recv-too-small ------------------------------------------------------------- */

bool check_recv_too_small(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;

	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));

	struct {
		std::uint32_t recv, send;
		const char *what;
	} const cases[] = {
		{100, 200, "200 bytes into 100 (one packet)"},
		{1500, 3000,
		 "3000 bytes into 1500 (the second packet "
		 "overflows)"},
		{4096, 4097, "4097 bytes into 4096 (one byte too many)"},
	};
	std::uint64_t id = 1;
	for (const auto &c : cases) {
		REQUIRE(reconnect(a, b));
		std::printf("  %s\n", c.what);
		CHECK(post_recv(b, id, 0, c.recv) == 0);
		CHECK(post_send(a, id, 0, c.send) == 0);
		CHECK(expect_wc("recv", b.rcq.get(), id, IBV_WC_LOC_LEN_ERR,
				IBV_WC_RECV));
		CHECK(expect_wc("send", a.scq.get(), id, IBV_WC_REM_INV_REQ_ERR,
				IBV_WC_SEND));
		CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
		CHECK(qp_state(b.qp.get()) == IBV_QPS_ERR);
		++id;
	}
	/* Exactly the size fits. */
	REQUIRE(reconnect(a, b));
	fill(a.buf.data(), 3000, 9);
	CHECK(post_recv(b, 9, 0, 3000) == 0);
	CHECK(post_send(a, 9, 0, 3000) == 0);
	CHECK(expect_wc("send", a.scq.get(), 9, IBV_WC_SUCCESS, IBV_WC_SEND));
	const auto wc = expect_wc("recv of exactly its size", b.rcq.get(), 9,
				  IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc && wc->byte_len == 3000 &&
	      mismatch(b.buf.data(), 3000, 9) < 0);
	return true;
}

/* ---- one-sided operations --------------------------------------------------- */

constexpr int acc_remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

/* One RDMA or atomic work request from a's buffer to b's. */
int post_remote(endpoint &a, endpoint &b, std::uint64_t wr_id, ibv_wr_opcode op,
		ibv_sge *sges, int num_sge, std::size_t remote_off,
		std::uint64_t compare_add = 0, std::uint64_t swap = 0,
		std::uint32_t imm = 0)
{
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = imm;
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = b.addr(remote_off);
		wr.wr.atomic.rkey = b.mr->rkey;
		wr.wr.atomic.compare_add = compare_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = b.addr(remote_off);
		wr.wr.rdma.rkey = b.mr->rkey;
	}
	return ibv_post_send(a.qp.get(), &wr, &bad);
}

bool make_remote_pair(endpoint &a, endpoint &b, device &da, device &db,
		      qp_opts o)
{
	o.mr_access = acc_remote;
	o.qp_access = acc_remote;
	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	return connect(a, b);
}

/*
 * RDMA WRITE and WRITE_WITH_IMM of several sizes (across the path MTU),
 * READ scattered into three local SGEs, and atomics whose every result is
 * checked: run under a wire that duplicates every packet, this shows
 * duplicate requests are answered, not executed, again.
 */
bool check_rdma(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;
	std::uint64_t id = 1;

	o.buf_size = std::size_t{256} * 1024;
	REQUIRE(make_remote_pair(a, b, da, db, o));
	constexpr std::size_t half = std::size_t{128} * 1024;

	for (const std::uint32_t len : {0U, 1U, 1024U, 1025U, 5000U, 65536U}) {
		std::printf("  RDMA WRITE of %u bytes\n", len);
		fill(a.buf.data(), len, static_cast<std::uint32_t>(id));
		std::memset(b.buf.data(), 0, len + 64);
		ibv_sge sge{a.addr(), len, a.mr->lkey};
		CHECK(post_remote(a, b, id, IBV_WR_RDMA_WRITE, &sge,
				  len != 0 ? 1 : 0, 0) == 0);
		CHECK(expect_wc("write", a.scq.get(), id, IBV_WC_SUCCESS,
				IBV_WC_RDMA_WRITE, false));
		CHECK(mismatch(b.buf.data(), len,
			       static_cast<std::uint32_t>(id)) < 0);
		CHECK(b.buf[len] == 0); /* nothing past it */
		++id;
	}
	for (const std::uint32_t len : {0U, 100U, 3000U}) {
		std::printf("  RDMA WRITE_WITH_IMM of %u bytes\n", len);
		fill(a.buf.data(), len, static_cast<std::uint32_t>(id));
		CHECK(post_recv(b, id, half, 16) == 0);
		ibv_sge sge{a.addr(), len, a.mr->lkey};
		CHECK(post_remote(a, b, id, IBV_WR_RDMA_WRITE_WITH_IMM, &sge,
				  len != 0 ? 1 : 0, 0, 0, 0,
				  htonl(0xabc00000U + len)) == 0);
		CHECK(expect_wc("write_imm", a.scq.get(), id, IBV_WC_SUCCESS,
				IBV_WC_RDMA_WRITE, false));
		const auto wc =
			expect_wc("recv", b.rcq.get(), id, IBV_WC_SUCCESS,
				  IBV_WC_RECV_RDMA_WITH_IMM);
		CHECK(wc && wc->byte_len == len &&
		      (wc->wc_flags & IBV_WC_WITH_IMM) != 0 &&
		      wc->imm_data == htonl(0xabc00000U + len));
		CHECK(mismatch(b.buf.data(), len,
			       static_cast<std::uint32_t>(id)) < 0);
		++id;
	}
	for (const std::uint32_t len : {0U, 1U, 1024U, 3000U, 65536U}) {
		std::printf("  RDMA READ of %u bytes into 3 SGEs\n", len);
		fill(b.buf.data(), len, static_cast<std::uint32_t>(id));
		std::memset(a.buf.data(), 0, half);
		/* Pieces at three places of a's buffer, 4 KiB apart. */
		const std::uint32_t p0 = len / 3, p1 = len / 3;
		const std::uint32_t p2 = len - p0 - p1;
		ibv_sge sges[3] = {
			{a.addr(0), p0, a.mr->lkey},
			{a.addr(p0 + 4096), p1, a.mr->lkey},
			{a.addr(p0 + p1 + 8192), p2, a.mr->lkey},
		};
		CHECK(post_remote(a, b, id, IBV_WR_RDMA_READ, sges,
				  len != 0 ? 3 : 0, 0) == 0);
		const auto wc =
			expect_wc("read", a.scq.get(), id, IBV_WC_SUCCESS,
				  IBV_WC_RDMA_READ, false);
		CHECK(wc && wc->byte_len == len);
		CHECK(mismatch(a.buf.data(), p0, static_cast<std::uint32_t>(id),
			       0) < 0);
		CHECK(mismatch(a.buf.data() + p0 + 4096, p1,
			       static_cast<std::uint32_t>(id), p0) < 0);
		CHECK(mismatch(a.buf.data() + p0 + p1 + 8192, p2,
			       static_cast<std::uint32_t>(id), p0 + p1) < 0);
		++id;
	}

	/* 64 FETCH_ADDs of 3: every original value once, the sum exact. */
	constexpr std::size_t ctr = half + 64;
	store64(b.buf.data() + ctr, 1000);
	for (std::uint64_t i = 0; i < 64; ++i, ++id) {
		ibv_sge sge{a.addr(8 * i), 8, a.mr->lkey};
		EXPECT(post_remote(a, b, id, IBV_WR_ATOMIC_FETCH_AND_ADD, &sge,
				   1, ctr, 3) == 0,
		       "post fetch_add %" PRIu64, i);
		const auto wc =
			expect_wc("fetch_add", a.scq.get(), id, IBV_WC_SUCCESS,
				  IBV_WC_FETCH_ADD, false);
		EXPECT(wc && wc->byte_len == 8, "fetch_add %" PRIu64, i);
		EXPECT(load64(a.buf.data() + 8 * i) == 1000 + 3 * i,
		       "fetch_add %" PRIu64 " returned %" PRIu64, i,
		       load64(a.buf.data() + 8 * i));
	}
	CHECK(load64(b.buf.data() + ctr) == 1000 + 3 * 64);
	/* CMP_SWP: a match swaps, a mismatch does not; both return it. */
	ibv_sge sge{a.addr(1024), 8, a.mr->lkey};
	CHECK(post_remote(a, b, id, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 1, ctr,
			  1000 + 3 * 64, 77) == 0);
	CHECK(expect_wc("cmp_swp", a.scq.get(), id++, IBV_WC_SUCCESS,
			IBV_WC_COMP_SWAP));
	CHECK(load64(a.buf.data() + 1024) == 1000 + 3 * 64 &&
	      load64(b.buf.data() + ctr) == 77);
	CHECK(post_remote(a, b, id, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 1, ctr, 5,
			  99) == 0);
	CHECK(expect_wc("cmp_swp", a.scq.get(), id++, IBV_WC_SUCCESS,
			IBV_WC_COMP_SWAP));
	CHECK(load64(a.buf.data() + 1024) == 77 &&
	      load64(b.buf.data() + ctr) == 77);

	/* A burst of mixed operations completes in order. */
	fill(b.buf.data(), 4096, 500);
	ibv_sge w{a.addr(0), 2000, a.mr->lkey};
	ibv_sge r{a.addr(8192), 4096, a.mr->lkey};
	ibv_sge f{a.addr(16384), 8, a.mr->lkey};
	fill(a.buf.data(), 2000, 501);
	const std::uint64_t first = id;
	CHECK(post_remote(a, b, id++, IBV_WR_RDMA_READ, &r, 1, 0) == 0);
	CHECK(post_remote(a, b, id++, IBV_WR_RDMA_WRITE, &w, 1, 32768) == 0);
	CHECK(post_remote(a, b, id++, IBV_WR_ATOMIC_FETCH_AND_ADD, &f, 1, ctr,
			  1) == 0);
	CHECK(post_remote(a, b, id++, IBV_WR_RDMA_READ, &r, 1, 0) == 0);
	const ibv_wc_opcode ops[] = {IBV_WC_RDMA_READ, IBV_WC_RDMA_WRITE,
				     IBV_WC_FETCH_ADD, IBV_WC_RDMA_READ};
	for (std::uint64_t i = 0; i < 4; ++i)
		CHECK(expect_wc("burst", a.scq.get(), first + i, IBV_WC_SUCCESS,
				ops[i], false));
	CHECK(mismatch(a.buf.data() + 8192, 4096, 500) < 0);
	CHECK(mismatch(b.buf.data() + 32768, 2000, 501) < 0);
	CHECK(load64(a.buf.data() + 16384) == 77 &&
	      load64(b.buf.data() + ctr) == 78);
	return true;
}

/*
 * max_rd_atomic: a requester allowed one outstanding READ at a time gets
 * all of them done against a responder that grants one; one allowed four
 * against a responder granting one is refused (invalid request) once a
 * second READ arrives while the first one's responses still go out.  That
 * takes a first READ long enough for its responses to leave from the
 * responder's work item (more than 32 packets) yet inside the requester's
 * window (128 PSNs): 96 packets.  Whether the second request arrives
 * before the work item is done is up to the scheduler, so a few attempts
 * are allowed; a refusal must come in one of them, and never elsewhere.
 */
bool check_rd_limit(device &da, device &db)
{
	qp_opts o;

	o.max_dest_rd_atomic = 1;
	{
		constexpr std::uint32_t len = 4U << 20U;
		endpoint a, b;
		o.buf_size = std::size_t{2} * len;
		o.max_rd_atomic = 1;
		REQUIRE(make_remote_pair(a, b, da, db, o));
		fill(b.buf.data(), len, 7);
		for (std::uint64_t i = 0; i < 4; ++i) {
			ibv_sge sge{a.addr(), len, a.mr->lkey};
			CHECK(post_remote(a, b, i, IBV_WR_RDMA_READ, &sge, 1,
					  0) == 0);
		}
		for (std::uint64_t i = 0; i < 4; ++i)
			CHECK(expect_wc("read within max_rd_atomic 1",
					a.scq.get(), i, IBV_WC_SUCCESS,
					IBV_WC_RDMA_READ));
		CHECK(mismatch(a.buf.data(), len, 7) < 0);
	}
	/*
	 * Four READs of 96 KiB in one post.  The requester builds the first
	 * two requests in one batch (the second starts within its window of
	 * 128 PSNs) and sends them back to back from one context; the
	 * responder, which answers the first in softirq for 32 packets and
	 * from a work item of this CPU for the rest, sees the second while
	 * the first still holds its only resource.  (Posted one by one, the
	 * work item could finish the first READ before the next post.)
	 */
	const std::uint32_t len = 96 * 1024;
	o.buf_size = len;
	o.max_rd_atomic = 4;
	for (int attempt = 1; attempt <= 5; ++attempt) {
		endpoint a, b;
		REQUIRE(make_remote_pair(a, b, da, db, o));
		ibv_sge sge{a.addr(), len, a.mr->lkey};
		std::array<ibv_send_wr, 4> wrs{};
		ibv_send_wr *bad = nullptr;
		for (std::size_t i = 0; i < wrs.size(); ++i) {
			wrs[i].wr_id = i;
			wrs[i].sg_list = &sge;
			wrs[i].num_sge = 1;
			wrs[i].opcode = IBV_WR_RDMA_READ;
			wrs[i].send_flags = IBV_SEND_SIGNALED;
			wrs[i].wr.rdma.remote_addr = b.addr();
			wrs[i].wr.rdma.rkey = b.mr->rkey;
			wrs[i].next =
				i + 1 < wrs.size() ? &wrs[i + 1] : nullptr;
		}
		CHECK(ibv_post_send(a.qp.get(), wrs.data(), &bad) == 0);
		int refused = 0, flushed = 0, done = 0;
		for (std::uint64_t i = 0; i < 4; ++i) {
			const std::optional<ibv_wc> wc = wait_wc(a.scq.get());
			REQUIRE(wc);
			print_wc("read beyond the responder's resources", *wc);
			REQUIRE(wc->wr_id == i);
			refused += wc->status == IBV_WC_REM_INV_REQ_ERR;
			flushed += wc->status == IBV_WC_WR_FLUSH_ERR;
			done += wc->status == IBV_WC_SUCCESS;
		}
		if (refused == 0) {
			/* Every response went out before the next request. */
			REQUIRE(done == 4);
			std::printf("  attempt %d: no overlap, all done\n",
				    attempt);
			continue;
		}
		/* The first READ done, one refused, the rest flushed. */
		CHECK(refused == 1 && done >= 1 &&
		      done + refused + flushed == 4);
		CHECK(qp_state(a.qp.get()) == IBV_QPS_ERR);
		CHECK(qp_state(b.qp.get()) == IBV_QPS_ERR);
		return true;
	}
	std::printf("FAILED: no READ beyond max_dest_rd_atomic was refused "
		    "in 5 attempts\n");
	++failures;
	return false;
}

/*
 * ibv_rereg_mr: new access rights take effect (a READ refused before is
 * served after), a new translation points the keys at another buffer, and
 * the keys the region had before no longer work when the kernel gave it
 * new ones.
 */
bool check_rereg(device &da, device &db)
{
	qp_opts o;
	endpoint a, b;
	std::vector<unsigned char> other(8192);

	o.qp_access = acc_remote;
	o.mr_access = acc_remote;
	REQUIRE(make_endpoint(a, da, o));
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(connect(a, b));
	fill(b.buf.data(), 4096, 3);
	ibv_sge sge{a.addr(), 4096, a.mr->lkey};

	CHECK(post_remote(a, b, 1, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	CHECK(expect_wc("read without REMOTE_READ", a.scq.get(), 1,
			IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ));
	REQUIRE(reconnect(a, b));

	const std::uint32_t old_rkey = b.mr->rkey;
	REQUIRE(ibv_rereg_mr(b.mr.get(), IBV_REREG_MR_CHANGE_ACCESS, nullptr,
			     nullptr, 0, acc_remote) == 0);
	std::printf("  rkey %#x -> %#x after rereg (access)\n", old_rkey,
		    b.mr->rkey);
	CHECK(post_remote(a, b, 2, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	CHECK(expect_wc("read after rereg", a.scq.get(), 2, IBV_WC_SUCCESS,
			IBV_WC_RDMA_READ));
	CHECK(mismatch(a.buf.data(), 4096, 3) < 0);

	/* The same keys' translation to another buffer. */
	fill(other.data(), other.size(), 4);
	REQUIRE(ibv_rereg_mr(b.mr.get(), IBV_REREG_MR_CHANGE_TRANSLATION,
			     nullptr, other.data(), other.size(), 0) == 0);
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;
	wr.wr_id = 3;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(other.data());
	wr.wr.rdma.rkey = b.mr->rkey;
	CHECK(ibv_post_send(a.qp.get(), &wr, &bad) == 0);
	CHECK(expect_wc("read of the new translation", a.scq.get(), 3,
			IBV_WC_SUCCESS, IBV_WC_RDMA_READ));
	CHECK(mismatch(a.buf.data(), 4096, 4) < 0);
	if (b.mr->rkey != old_rkey) {
		wr.wr_id = 4;
		wr.wr.rdma.rkey = old_rkey;
		CHECK(ibv_post_send(a.qp.get(), &wr, &bad) == 0);
		CHECK(expect_wc("read with the rkey before rereg", a.scq.get(),
				4, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_READ));
	}
	return true;
}

/* ---- main ----------------------------------------------------------------------- */

/* ---- ud ----------------------------------------------------------------------- */

constexpr std::uint32_t ud_qkey = 0x1234567;
constexpr std::size_t grh_len = 40;

/* A UD QP from RESET to RTS with Q_Key qkey. */
bool ud_ready(endpoint &e, std::uint32_t qkey)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = qkey;
	REQUIRE(ibv_modify_qp(e.qp.get(), &a,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_QKEY) == 0);
	REQUIRE(to_state(e.qp.get(), IBV_QPS_RTR) == 0);
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = next_psn();
	REQUIRE(ibv_modify_qp(e.qp.get(), &a, IBV_QP_STATE | IBV_QP_SQ_PSN) ==
		0);
	return true;
}

/* An AH on pd from e's device to dgid. */
ibv_ah *make_ah(ibv_pd *pd, const endpoint &e, const ibv_gid &dgid)
{
	ibv_ah_attr a{};

	a.is_global = 1;
	a.grh.dgid = dgid;
	a.grh.sgid_index = static_cast<std::uint8_t>(e.dev->gid_index);
	a.grh.hop_limit = 64;
	a.port_num = 1;
	return ibv_create_ah(pd, &a);
}

/* len bytes of e's buffer at off as a datagram to QP dqpn through ah. */
int post_ud(endpoint &e, std::uint64_t wr_id, ibv_ah *ah, std::uint32_t dqpn,
	    std::uint32_t qkey, std::size_t off, std::uint32_t len,
	    ibv_wr_opcode op = IBV_WR_SEND, std::uint32_t imm = 0)
{
	ibv_sge sge{e.addr(off), len, e.mr->lkey};
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = len != 0 ? 1 : 0;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = imm;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = dqpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(e.qp.get(), &wr, &bad);
}

/* A hw counter of the device, or -1 if it has none of that name. */
long long hw_counter(const device &d, const char *name)
{
	const std::string path = "/sys/class/infiniband/" + d.name +
				 "/ports/1/hw_counters/" + name;
	FILE *f = std::fopen(path.c_str(), "r");
	long long v = -1;

	if (f == nullptr)
		return -1;
	if (std::fscanf(f, "%lld", &v) != 1)
		v = -1;
	std::fclose(f);
	return v;
}

/* The counter moved by at least one since before (-1: not counted). */
void counter_moved(const device &d, const char *name, long long before)
{
	if (before < 0) {
		std::printf("  (%s has no counter %s: not checked)\n",
			    d.name.c_str(), name);
		return;
	}
	const long long now = hw_counter(d, name);
	std::printf("  %s %s: %lld -> %lld\n", d.name.c_str(), name, before,
		    now);
	CHECK(now > before);
}

/*
 * B's next receive is message msg of len bytes from A: the GRH holds
 * A's and B's IPv4 addresses, the source QP is A's.
 */
bool expect_datagram(endpoint &a, endpoint &b, std::uint64_t wr_id,
		     std::size_t off, std::uint32_t len, std::uint32_t msg,
		     std::optional<std::uint32_t> imm = std::nullopt)
{
	const std::optional<ibv_wc> wc = expect_wc(
		"B receive", b.rcq.get(), wr_id, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	CHECK(wc->byte_len == grh_len + len);
	CHECK((wc->wc_flags & IBV_WC_GRH) != 0);
	CHECK(wc->src_qp == a.qp->qp_num);
	CHECK(((wc->wc_flags & IBV_WC_WITH_IMM) != 0) == imm.has_value());
	if (imm)
		CHECK(ntohl(wc->imm_data) == *imm);
	const unsigned char *grh = b.buf.data() + off;
	/* RoCEv2 over IPv4: 20 bytes of nothing, then the IPv4 header. */
	CHECK(grh[20] == 0x45);
	CHECK(std::memcmp(grh + 32, a.dev->gid.raw + 12, 4) == 0);
	CHECK(std::memcmp(grh + 36, b.dev->gid.raw + 12, 4) == 0);
	CHECK(mismatch(grh + grh_len, len, msg) == -1);
	return true;
}

bool check_ud(device &da, device &db)
{
	endpoint a, b;
	qp_opts o;
	const std::uint32_t mtu = 128U << da.port.active_mtu;

	o.type = IBV_QPT_UD;
	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	REQUIRE(ud_ready(a, ud_qkey));
	REQUIRE(ud_ready(b, ud_qkey));
	ah_ptr ah(make_ah(a.pd.get(), a, b.dev->gid));
	REQUIRE(ah != nullptr);
	const std::uint32_t bqpn = b.qp->qp_num;

	std::printf("a datagram of 100 bytes, then one of the MTU (%u)\n", mtu);
	fill(a.buf.data(), 100, 1);
	REQUIRE(post_recv(b, 1, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 1, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 1, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 1, 0, 100, 1));
	fill(a.buf.data(), mtu, 2);
	REQUIRE(post_recv(b, 2, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 2, ah.get(), bqpn, ud_qkey, 0, mtu) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 2, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 2, 0, mtu, 2));

	std::printf("SEND_WITH_IMM of 0 and 8 bytes\n");
	REQUIRE(post_recv(b, 3, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 3, ah.get(), bqpn, ud_qkey, 0, 0,
			IBV_WR_SEND_WITH_IMM, htonl(0xabcd0123)) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 3, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 3, 0, 0, 3, 0xabcd0123));
	fill(a.buf.data(), 8, 4);
	REQUIRE(post_recv(b, 4, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 4, ah.get(), bqpn, ud_qkey, 0, 8,
			IBV_WR_SEND_WITH_IMM, htonl(7)) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 4, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 4, 0, 8, 4, 7));

	std::printf("a wrong Q_Key: dropped, the receive stays posted\n");
	long long before = hw_counter(db, "qkey_drops");
	REQUIRE(post_recv(b, 5, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 5, ah.get(), bqpn, ud_qkey + 1, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 5, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	no_wc("B, datagram with a wrong Q_Key", b.rcq.get(), 300);
	counter_moved(db, "qkey_drops", before);

	std::printf("Q_Key 0x80000000: the sender QP's own Q_Key is used\n");
	fill(a.buf.data(), 64, 6);
	REQUIRE(post_ud(a, 6, ah.get(), bqpn, 0x80000000U, 0, 64) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 6, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 5, 0, 64, 6));

	std::printf("a receive too small: IBV_WC_LOC_LEN_ERR, B works on\n");
	REQUIRE(post_recv(b, 7, 0, grh_len + 10) == 0);
	REQUIRE(post_ud(a, 7, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 7, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_wc("B receive", b.rcq.get(), 7, IBV_WC_LOC_LEN_ERR,
			  IBV_WC_RECV));
	CHECK(qp_state(b.qp.get()) == IBV_QPS_RTS);
	fill(a.buf.data(), 100, 8);
	REQUIRE(post_recv(b, 8, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 8, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 8, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 8, 0, 100, 8));

	std::printf("no receive posted: dropped, not kept for later\n");
	before = hw_counter(db, "no_recv_drops");
	REQUIRE(post_ud(a, 9, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 9, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	usleep(static_cast<useconds_t>(300000 * scale));
	REQUIRE(post_recv(b, 9, 0, 4096 + grh_len) == 0);
	no_wc("B, datagram that found no receive", b.rcq.get(), 300);
	counter_moved(db, "no_recv_drops", before);

	/*
	 * B's subnet, an address nobody holds (B's last byte plus 100): the
	 * core resolves the destination MAC before sroce sees the AH, finds
	 * no neighbour and fails ibv_create_ah after its 1 s timeout.
	 */
	std::printf("an AH to a GID nobody answers for: refused, A works on\n");
	ibv_gid ghost = b.dev->gid;
	ghost.raw[15] = static_cast<std::uint8_t>(ghost.raw[15] + 100);
	errno = 0;
	ibv_ah *bad_ah = make_ah(a.pd.get(), a, ghost);
	const int ah_errno = errno;
	std::printf("  ibv_create_ah: %s (errno %d %s)\n",
		    bad_ah != nullptr ? "created" : "refused", ah_errno,
		    std::strerror(ah_errno));
	if (bad_ah != nullptr)
		ibv_destroy_ah(bad_ah);
	CHECK(bad_ah == nullptr);
	CHECK(ah_errno != 0);
	/* B's receive 9, posted above, takes it. */
	fill(a.buf.data(), 100, 12);
	REQUIRE(post_ud(a, 12, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 12, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 9, 0, 100, 12));

	std::printf("an AH of another PD: IBV_WC_LOC_QP_OP_ERR\n");
	pd_ptr pd2(ibv_alloc_pd(da.ctx.get()));
	REQUIRE(pd2 != nullptr);
	ah_ptr ah2(make_ah(pd2.get(), a, b.dev->gid));
	REQUIRE(ah2 != nullptr);
	REQUIRE(post_ud(a, 10, ah2.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 10, IBV_WC_LOC_QP_OP_ERR,
			  IBV_WC_SEND));
	no_wc("B, the send that failed", b.rcq.get(), 300);

	std::printf("a message above the MTU: IBV_WC_LOC_LEN_ERR\n");
	REQUIRE(to_state(a.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(ud_ready(a, ud_qkey));
	REQUIRE(post_ud(a, 11, ah.get(), bqpn, ud_qkey, 0, mtu + 1) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 11, IBV_WC_LOC_LEN_ERR,
			  IBV_WC_SEND));
	no_wc("B, the send that failed", b.rcq.get(), 300);
	return true;
}

/* ---- mcast ----------------------------------------------------------------------- */

constexpr std::uint32_t mcast_qpn = 0xffffff;

/* ::ffff:a.b.c.d */
ibv_gid v4_gid(unsigned char a, unsigned char b, unsigned char c,
	       unsigned char d)
{
	ibv_gid g{};

	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	g.raw[12] = a;
	g.raw[13] = b;
	g.raw[14] = c;
	g.raw[15] = d;
	return g;
}

/*
 * The counter moved by at least one since before, within 2 s: the core
 * caches hw counters for a few milliseconds, and the receiving device may
 * still be walking the group's other QPs.
 */
void counter_moves(const device &d, const char *name, long long before)
{
	long long now = hw_counter(d, name);

	for (int i = 0; i < 100 * scale && now >= 0 && now <= before; ++i) {
		usleep(20000);
		now = hw_counter(d, name);
	}
	std::printf("  %s %s: %lld -> %lld\n", d.name.c_str(), name, before,
		    now);
	CHECK(before >= 0 && now > before);
}

/* A counter read past the core's cache (10 ms): no stale "before". */
long long fresh_counter(const device &d, const char *name)
{
	usleep(20000);
	return hw_counter(d, name);
}

/* An AH on e's PD to the group mgid, from e's GID sgid_index. */
ibv_ah *make_mcast_ah(endpoint &e, const ibv_gid &mgid, int sgid_index)
{
	ibv_ah_attr a{};

	a.is_global = 1;
	a.grh.dgid = mgid;
	a.grh.sgid_index = static_cast<std::uint8_t>(sgid_index);
	a.grh.hop_limit = 8;
	a.port_num = 1;
	return ibv_create_ah(e.pd.get(), &a);
}

/*
 * e's next receive is the datagram msg of len bytes that QP src sent to
 * the IPv4 group mgid (the GRH's destination).
 */
bool expect_mcast(const char *what, endpoint &e, std::uint64_t wr_id,
		  std::uint32_t src, const ibv_gid &mgid, std::uint32_t len,
		  std::uint32_t msg)
{
	const std::optional<ibv_wc> wc = expect_wc(what, e.rcq.get(), wr_id,
						   IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	CHECK(wc->byte_len == grh_len + len);
	CHECK(wc->src_qp == src);
	const unsigned char *grh = e.buf.data();
	if (is_v4_mapped(mgid)) {
		CHECK(grh[20] == 0x45);
		CHECK(std::memcmp(grh + 36, mgid.raw + 12, 4) == 0);
	} else {
		CHECK((grh[0] >> 4) == 6);
		CHECK(std::memcmp(grh + 24, mgid.raw, 16) == 0);
	}
	CHECK(mismatch(grh + grh_len, len, msg) == -1);
	return true;
}

/* A UD endpoint on d in RTS with Q_Key qkey. */
bool make_ud(endpoint &e, device &d, std::uint32_t qkey)
{
	qp_opts o;

	o.type = IBV_QPT_UD;
	REQUIRE(make_endpoint(e, d, o));
	return ud_ready(e, qkey);
}

/*
 * Delivery to a group: A sends, two QPs of B and one of A (besides the
 * sender, also attached) are attached; each gets its own copy; the
 * sender never gets its own; a QP with another Q_Key or no receive drops
 * its copy; detach stops delivery; multicast QPN and address must go
 * together.  With v6, the same over an IPv6 group from link-local GIDs.
 */
bool mcast_delivery(device &da, device &db, const ibv_gid &mgid,
		    int a_gid_index)
{
	endpoint a, a2, b1, b2, b3;

	REQUIRE(make_ud(a, da, ud_qkey));
	REQUIRE(make_ud(a2, da, ud_qkey));
	REQUIRE(make_ud(b1, db, ud_qkey));
	REQUIRE(make_ud(b2, db, ud_qkey));
	REQUIRE(make_ud(b3, db, ud_qkey + 1));
	std::printf("group %s: A's QPs %u (sender) and %u, B's %u, %u and "
		    "%u (another Q_Key) attached\n",
		    gid_str(mgid).c_str(), a.qp->qp_num, a2.qp->qp_num,
		    b1.qp->qp_num, b2.qp->qp_num, b3.qp->qp_num);
	for (endpoint *e : {&a, &a2, &b1, &b2, &b3})
		REQUIRE(ibv_attach_mcast(e->qp.get(), &mgid, 0) == 0);
	ah_ptr ah(make_mcast_ah(a, mgid, a_gid_index));
	REQUIRE(ah != nullptr);
	const std::uint32_t src = a.qp->qp_num;

	std::printf("one datagram reaches every attached QP but the sender\n");
	const long long self_before = fresh_counter(da, "mcast_self_skips");
	const long long qkey_before = fresh_counter(db, "qkey_drops");
	const long long rx_before = fresh_counter(db, "rx_mcast");
	for (endpoint *e : {&a, &a2, &b1, &b2, &b3})
		REQUIRE(post_recv(*e, 1, 0, 4096 + grh_len) == 0);
	fill(a.buf.data(), 200, 1);
	REQUIRE(post_ud(a, 1, ah.get(), mcast_qpn, ud_qkey, 0, 200) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 1, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_mcast("B1 receive", b1, 1, src, mgid, 200, 1));
	REQUIRE(expect_mcast("B2 receive", b2, 1, src, mgid, 200, 1));
	REQUIRE(expect_mcast("A2 receive (loopback)", a2, 1, src, mgid, 200,
			     1));
	no_wc("B3 (another Q_Key)", b3.rcq.get(), 300);
	no_wc("A, the sender", a.rcq.get(), 300);
	counter_moves(db, "qkey_drops", qkey_before);
	counter_moves(db, "rx_mcast", rx_before);
	counter_moves(da, "mcast_self_skips", self_before);

	std::printf("B2 has no receive posted: B1 gets the next one\n");
	const long long norecv_before = fresh_counter(db, "no_recv_drops");
	fill(a.buf.data(), 64, 2);
	REQUIRE(post_recv(b1, 2, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(a2, 2, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 2, ah.get(), mcast_qpn, ud_qkey, 0, 64) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 2, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_mcast("B1 receive", b1, 2, src, mgid, 64, 2));
	REQUIRE(expect_mcast("A2 receive", a2, 2, src, mgid, 64, 2));
	counter_moves(db, "no_recv_drops", norecv_before);

	std::printf("B1 detached: only B2 gets the next one\n");
	REQUIRE(ibv_detach_mcast(b1.qp.get(), &mgid, 0) == 0);
	REQUIRE(post_recv(b1, 3, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(b2, 3, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(a2, 3, 0, 4096 + grh_len) == 0);
	fill(a.buf.data(), 100, 3);
	REQUIRE(post_ud(a, 3, ah.get(), mcast_qpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 3, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_mcast("B2 receive", b2, 3, src, mgid, 100, 3));
	REQUIRE(expect_mcast("A2 receive", a2, 3, src, mgid, 100, 3));
	no_wc("B1 (detached)", b1.rcq.get(), 300);

	std::printf("a unicast QPN to the group address: dropped\n");
	long long drop_before = fresh_counter(db, "rx_drop_mcast");
	REQUIRE(post_ud(a, 4, ah.get(), b2.qp->qp_num, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 4, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	no_wc("B2, unicast QPN to a group", b2.rcq.get(), 300);
	counter_moves(db, "rx_drop_mcast", drop_before);

	if (is_v4_mapped(mgid)) {
		std::printf("the multicast QPN to B's unicast address: "
			    "dropped\n");
		drop_before = fresh_counter(db, "rx_drop_mcast");
		ah_ptr uah(make_ah(a.pd.get(), a, b2.dev->gid));
		REQUIRE(uah != nullptr);
		REQUIRE(post_ud(a, 5, uah.get(), mcast_qpn, ud_qkey, 0, 100) ==
			0);
		REQUIRE(expect_wc("A send", a.scq.get(), 5, IBV_WC_SUCCESS,
				  IBV_WC_SEND));
		no_wc("B2, multicast QPN to a unicast address", b2.rcq.get(),
		      300);
		counter_moves(db, "rx_drop_mcast", drop_before);
	}

	std::printf("all of B detached: nothing reaches B\n");
	REQUIRE(ibv_detach_mcast(b2.qp.get(), &mgid, 0) == 0);
	REQUIRE(ibv_detach_mcast(b3.qp.get(), &mgid, 0) == 0);
	REQUIRE(post_recv(b3, 6, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(a2, 6, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 6, ah.get(), mcast_qpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 6, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	REQUIRE(expect_mcast("A2 receive", a2, 6, src, mgid, 100, 3));
	no_wc("B1", b1.rcq.get(), 100);
	no_wc("B2", b2.rcq.get(), 100);
	no_wc("B3", b3.rcq.get(), 100);

	for (endpoint *e : {&a, &a2})
		REQUIRE(ibv_detach_mcast(e->qp.get(), &mgid, 0) == 0);
	return true;
}

bool check_mcast(device &da, device &db)
{
	return mcast_delivery(da, db, v4_gid(239, 7, 7, 1), da.gid_index);
}

/* The first RoCE v2 GID of d that is not IPv4-mapped, or -1. */
int ipv6_gid_index(device &d, ibv_gid *gid)
{
	std::vector<ibv_gid_entry> gids(d.port.gid_tbl_len);
	const ssize_t count =
		ibv_query_gid_table(d.ctx.get(), gids.data(), gids.size(), 0);

	for (ssize_t i = 0; i < count; ++i) {
		const ibv_gid_entry &e = gids[static_cast<std::size_t>(i)];

		if (e.port_num == 1 && e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !is_v4_mapped(e.gid)) {
			*gid = e.gid;
			return static_cast<int>(e.gid_index);
		}
	}
	return -1;
}

bool check_mcast6(device &da, device &db)
{
	ibv_gid ga{}, gb{}, mgid{};
	const int ia = ipv6_gid_index(da, &ga);

	REQUIRE(ia >= 0);
	REQUIRE(ipv6_gid_index(db, &gb) >= 0);
	std::printf("A's IPv6 GID %d %s\n", ia, gid_str(ga).c_str());
	/* ff02::5e:7:1, link-local scope */
	mgid.raw[0] = 0xff;
	mgid.raw[1] = 0x02;
	mgid.raw[11] = 0x5e;
	mgid.raw[13] = 7;
	mgid.raw[15] = 1;
	return mcast_delivery(da, db, mgid, ia);
}

/*
 * Refused: a QP other than UD, a GID outside the multicast range, a
 * detach of a group not attached (also a second detach).  Accepted once:
 * a second attach of the same group (uverbs answers it).  An attached QP
 * cannot be destroyed (EBUSY) until detached.
 */
bool check_mcast_bad(device &da, device & /*db*/)
{
	endpoint u, rc, uc;
	qp_opts o;
	const ibv_gid g = v4_gid(239, 7, 7, 2);
	const ibv_gid g2 = v4_gid(239, 7, 7, 3);

	REQUIRE(make_ud(u, da, ud_qkey));
	REQUIRE(make_endpoint(rc, da, o));
	o.type = IBV_QPT_UC;
	REQUIRE(make_endpoint(uc, da, o));

	std::printf("RC and UC QPs cannot attach\n");
	CHECK(ibv_attach_mcast(rc.qp.get(), &g, 0) == EINVAL);
	CHECK(ibv_attach_mcast(uc.qp.get(), &g, 0) == EINVAL);
	CHECK(ibv_detach_mcast(rc.qp.get(), &g, 0) == EINVAL);

	std::printf("GIDs outside the multicast range\n");
	CHECK(ibv_attach_mcast(u.qp.get(), &da.gid, 0) == EINVAL);
	const ibv_gid v4_unicast = v4_gid(10, 1, 2, 3);
	CHECK(ibv_attach_mcast(u.qp.get(), &v4_unicast, 0) == EINVAL);
	const ibv_gid v4_bcast = v4_gid(255, 255, 255, 255);
	CHECK(ibv_attach_mcast(u.qp.get(), &v4_bcast, 0) == EINVAL);
	ibv_gid ll{};
	ll.raw[0] = 0xfe;
	ll.raw[1] = 0x80;
	ll.raw[15] = 1;
	CHECK(ibv_attach_mcast(u.qp.get(), &ll, 0) == EINVAL);
	const ibv_gid zero{};
	CHECK(ibv_attach_mcast(u.qp.get(), &zero, 0) == EINVAL);

	std::printf("detach of a group never attached\n");
	CHECK(ibv_detach_mcast(u.qp.get(), &g, 0) == EINVAL);

	std::printf("attach twice: one attachment\n");
	CHECK(ibv_attach_mcast(u.qp.get(), &g, 0) == 0);
	CHECK(ibv_attach_mcast(u.qp.get(), &g, 0) == 0);
	CHECK(ibv_attach_mcast(u.qp.get(), &g2, 0) == 0);
	CHECK(ibv_detach_mcast(u.qp.get(), &g, 0) == 0);
	CHECK(ibv_detach_mcast(u.qp.get(), &g, 0) == EINVAL);

	std::printf("an attached QP is not destroyed\n");
	CHECK(ibv_destroy_qp(u.qp.get()) == EBUSY);
	CHECK(qp_state(u.qp.get()) == IBV_QPS_RTS);
	CHECK(ibv_detach_mcast(u.qp.get(), &g2, 0) == 0);
	CHECK(ibv_detach_mcast(u.qp.get(), &g2, 0) == EINVAL);
	return true;
}

/*
 * The device's limits: max_mcast_grp groups, then ENOMEM; a group of
 * max_mcast_qp_attach QPs, then ENOMEM; max_total_mcast_qp_attach
 * attachments in all, then ENOMEM.  Everything detached afterwards, the
 * device takes new attachments.  With attach=exit the process leaves with
 * everything attached (tests/mcast.sh then checks the groups are gone).
 */
bool check_mcast_limits(device &da, device & /*db*/)
{
	ibv_device_attr attr{};

	REQUIRE(ibv_query_device(da.ctx.get(), &attr) == 0);
	std::printf("max_mcast_grp %d, max_mcast_qp_attach %d, "
		    "max_total_mcast_qp_attach %d\n",
		    attr.max_mcast_grp, attr.max_mcast_qp_attach,
		    attr.max_total_mcast_qp_attach);
	REQUIRE(attr.max_mcast_grp > 0 && attr.max_mcast_qp_attach > 0 &&
		attr.max_total_mcast_qp_attach > 0);
	const auto ngrp = static_cast<std::uint32_t>(attr.max_mcast_grp);
	const auto nqp = static_cast<std::uint32_t>(attr.max_mcast_qp_attach);
	const auto ntotal =
		static_cast<std::uint32_t>(attr.max_total_mcast_qp_attach);
	/* Enough QPs to fill one group and to reach the total. */
	const std::uint32_t per_grp_total = (ntotal + ngrp - 1) / ngrp;
	const std::uint32_t nqps = std::max(nqp, per_grp_total) + 2;
	REQUIRE(nqps <= 1024 && ngrp <= 0x10000);

	/* One PD and CQ for all of them, QPs of one WR each. */
	pd_ptr pd(ibv_alloc_pd(da.ctx.get()));
	cq_ptr cq(ibv_create_cq(da.ctx.get(), 16, nullptr, nullptr, 0));
	REQUIRE(pd != nullptr && cq != nullptr);
	std::vector<qp_ptr> qps;
	for (std::uint32_t i = 0; i < nqps; ++i) {
		ibv_qp_init_attr ia{};
		ia.send_cq = cq.get();
		ia.recv_cq = cq.get();
		ia.qp_type = IBV_QPT_UD;
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qps.emplace_back(ibv_create_qp(pd.get(), &ia));
		REQUIRE(qps.back() != nullptr);
	}
	/* Group i: 239.8.(i >> 8).(i & 255) */
	auto grp = [](std::uint32_t i) {
		return v4_gid(239, 8, static_cast<unsigned char>(i >> 8),
			      static_cast<unsigned char>(i & 0xff));
	};
	/* (QP, group) of every attachment made */
	std::vector<std::pair<std::uint32_t, std::uint32_t>> made;
	auto attach = [&](std::uint32_t q, std::uint32_t g) {
		const ibv_gid gid = grp(g);
		const int ret = ibv_attach_mcast(qps[q].get(), &gid, 0);

		if (ret == 0)
			made.emplace_back(q, g);
		return ret;
	};

	std::printf("QP 0 in %u groups, then one more\n", ngrp);
	for (std::uint32_t g = 0; g < ngrp; ++g)
		EXPECT(attach(0, g) == 0, "group %u: %s", g,
		       std::strerror(errno));
	CHECK(attach(0, ngrp) == ENOMEM);
	CHECK(attach(1, ngrp) == ENOMEM);

	std::printf("group 0 with %u QPs, then one more\n", nqp);
	for (std::uint32_t q = 1; q < nqp; ++q)
		EXPECT(attach(q, 0) == 0, "QP %u: %s", q, std::strerror(errno));
	CHECK(attach(nqp, 0) == ENOMEM);

	std::printf("%u attachments in all, then one more\n", ntotal);
	/* QPs 1.. in groups 1.. until the total is reached */
	std::uint32_t q = 1, g = 1;
	while (made.size() < ntotal && q < nqps) {
		EXPECT(attach(q, g) == 0, "QP %u group %u: %s", q, g,
		       std::strerror(errno));
		if (++g == ngrp) {
			g = 1;
			++q;
		}
	}
	CHECK(made.size() == ntotal);
	REQUIRE(q < nqps);
	CHECK(attach(q, g) == ENOMEM);

	if (std::getenv("SROCE_MCAST_EXIT_ATTACHED") != nullptr) {
		std::printf(
			"leaving with %zu attachments (the process exits)\n",
			made.size());
		std::fflush(stdout);
		_exit(failures != 0 ? 1 : 0);
	}
	std::printf("detach everything\n");
	for (const auto &[mq, mg] : made) {
		const ibv_gid gid = grp(mg);

		EXPECT(ibv_detach_mcast(qps[mq].get(), &gid, 0) == 0,
		       "QP %u group %u: %s", mq, mg, std::strerror(errno));
	}
	std::printf("the device takes new attachments\n");
	const ibv_gid gid = grp(0);
	CHECK(ibv_attach_mcast(qps[nqps - 1].get(), &gid, 0) == 0);
	CHECK(ibv_detach_mcast(qps[nqps - 1].get(), &gid, 0) == 0);
	return true;
}

/* ---- uc ----------------------------------------------------------------------- */

/* Both UC QPs from RESET to RTS, each pointing at the other. */
bool uc_connect(endpoint &a, endpoint &b)
{
	constexpr int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	a.psn = next_psn();
	b.psn = next_psn();
	for (endpoint *e : {&a, &b}) {
		endpoint &peer = e == &a ? b : a;
		ibv_qp_attr at = rtr_attr(*e, peer);

		REQUIRE(to_init(e->qp.get(), e->opts.qp_access) == 0);
		REQUIRE(ibv_modify_qp(e->qp.get(), &at, rtr) == 0);
	}
	for (endpoint *e : {&a, &b}) {
		ibv_qp_attr at{};

		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = e->psn;
		REQUIRE(ibv_modify_qp(e->qp.get(), &at,
				      IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
	}
	return true;
}

bool make_uc_pair(endpoint &a, endpoint &b, device &da, device &db)
{
	qp_opts o;

	o.type = IBV_QPT_UC;
	o.recv_wr = 256;
	o.send_wr = 256;
	o.cqe = 512;
	o.buf_size = std::size_t{1} << 20;
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	o.qp_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	REQUIRE(make_endpoint(a, da, o));
	REQUIRE(make_endpoint(b, db, o));
	return uc_connect(a, b);
}

bool check_uc(device &da, device &db)
{
	endpoint a, b;

	REQUIRE(make_uc_pair(a, b, da, db));
	std::printf("a SEND of 3000 bytes (3 packets)\n");
	fill(a.buf.data(), 3000, 1);
	REQUIRE(post_recv(b, 1, 0, 8192) == 0);
	REQUIRE(post_send(a, 1, 0, 3000) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 1, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	const std::optional<ibv_wc> wc = expect_wc("B receive", b.rcq.get(), 1,
						   IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	CHECK(wc->byte_len == 3000);
	CHECK(mismatch(b.buf.data(), 3000, 1) == -1);

	std::printf("RDMA WRITE_WITH_IMM of 5000 bytes\n");
	fill(a.buf.data(), 5000, 2);
	REQUIRE(post_recv(b, 2, 0, 0) == 0);
	{
		ibv_sge sge{a.addr(0), 5000, a.mr->lkey};
		ibv_send_wr wr{};
		ibv_send_wr *bad = nullptr;

		wr.wr_id = 2;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = htonl(0x5150);
		wr.wr.rdma.remote_addr = b.addr(65536);
		wr.wr.rdma.rkey = b.mr->rkey;
		REQUIRE(ibv_post_send(a.qp.get(), &wr, &bad) == 0);
	}
	REQUIRE(expect_wc("A write", a.scq.get(), 2, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE));
	const std::optional<ibv_wc> wi =
		expect_wc("B receive", b.rcq.get(), 2, IBV_WC_SUCCESS,
			  IBV_WC_RECV_RDMA_WITH_IMM);
	REQUIRE(wi.has_value());
	CHECK(ntohl(wi->imm_data) == 0x5150);
	CHECK(mismatch(b.buf.data() + 65536, 5000, 2) == -1);

	std::printf("no receive posted: the SEND is dropped\n");
	const long long before = hw_counter(db, "no_recv_drops");
	fill(a.buf.data(), 3000, 3);
	REQUIRE(post_send(a, 3, 0, 3000) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 3, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	usleep(static_cast<useconds_t>(300000 * scale));
	counter_moved(db, "no_recv_drops", before);
	REQUIRE(post_recv(b, 4, 0, 8192) == 0);
	no_wc("B, the SEND that found no receive", b.rcq.get(), 300);
	fill(a.buf.data(), 2000, 4);
	REQUIRE(post_send(a, 4, 0, 2000) == 0);
	REQUIRE(expect_wc("A send", a.scq.get(), 4, IBV_WC_SUCCESS,
			  IBV_WC_SEND));
	const std::optional<ibv_wc> w4 = expect_wc("B receive", b.rcq.get(), 4,
						   IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(w4.has_value());
	CHECK(w4->byte_len == 2000);
	CHECK(mismatch(b.buf.data(), 2000, 4) == -1);

	std::printf("RDMA READ on UC: refused locally\n");
	{
		ibv_sge sge{a.addr(0), 64, a.mr->lkey};
		ibv_send_wr wr{};
		ibv_send_wr *bad = nullptr;

		wr.wr_id = 5;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = b.addr(0);
		wr.wr.rdma.rkey = b.mr->rkey;
		const int ret = ibv_post_send(a.qp.get(), &wr, &bad);
		CHECK(ret == EINVAL || ret == EOPNOTSUPP);
	}
	return true;
}

bool check_uc_loss(device &da, device &db)
{
	constexpr std::uint32_t n = 200, len = 3000;
	endpoint a, b;
	std::uint32_t got = 0;

	REQUIRE(make_uc_pair(a, b, da, db));
	for (std::uint32_t i = 0; i < n; ++i)
		REQUIRE(post_recv(b, i, std::size_t{i % 64} * 4096, 4096) == 0);
	/* One message at a time in A's buffer: each is sent before the next
	 * is written (signaled, waited for). */
	for (std::uint32_t i = 0; i < n; ++i) {
		fill(a.buf.data() + std::size_t{i % 64} * 4096, len, 1000 + i);
		ibv_sge sge{a.addr(std::size_t{i % 64} * 4096), len,
			    a.mr->lkey};
		REQUIRE(post_sges(a, i, &sge, 1, IBV_WR_SEND_WITH_IMM,
				  IBV_SEND_SIGNALED, htonl(i)) == 0);
		REQUIRE(expect_wc("A send", a.scq.get(), i, IBV_WC_SUCCESS,
				  IBV_WC_SEND, false));
		/* B's completions so far: each a whole message, in order. */
		for (;;) {
			const std::optional<ibv_wc> wc =
				wait_wc(b.rcq.get(), 0);
			if (!wc)
				break;
			const std::uint32_t msg = ntohl(wc->imm_data);
			const unsigned char *p =
				b.buf.data() + (wc->wr_id % 64) * 4096;
			EXPECT(wc->status == IBV_WC_SUCCESS &&
				       wc->byte_len == len && msg < n,
			       "receive %" PRIu64 ": status %d byte_len %u "
			       "message %u",
			       wc->wr_id, wc->status, wc->byte_len, msg);
			EXPECT(mismatch(p, len, 1000 + msg) == -1,
			       "receive %" PRIu64 " holds message %u with "
			       "bytes of another",
			       wc->wr_id, msg);
			++got;
		}
		usleep(2000);
	}
	usleep(static_cast<useconds_t>(300000 * scale));
	for (;;) {
		const std::optional<ibv_wc> wc = wait_wc(b.rcq.get(), 0);
		if (!wc)
			break;
		EXPECT(wc->status == IBV_WC_SUCCESS && wc->byte_len == len,
		       "late receive: status %d byte_len %u", wc->status,
		       wc->byte_len);
		++got;
	}
	std::printf("%u of %u messages arrived, each whole\n", got, n);
	CHECK(got > 0);
	CHECK(got < n);
	return true;
}

constexpr check checks[] = {
	{"wrap", check_wrap},
	{"full", check_full},
	{"state", check_state},
	{"multi-sge", check_multi_sge},
	{"imm", check_imm},
	{"solicited", check_solicited},
	{"inline", check_inline},
	{"bad-lkey", check_bad_lkey},
	{"rnr", check_rnr},
	{"recv-too-small", check_recv_too_small},
	{"events", check_events},
	{"rdma", check_rdma},
	{"rd-limit", check_rd_limit},
	{"rereg", check_rereg},
	{"ud", check_ud},
	{"uc", check_uc},
	{"uc-loss", check_uc_loss},
	{"mcast", check_mcast},
	{"mcast6", check_mcast6},
	{"mcast-bad", check_mcast_bad},
	{"mcast-limits", check_mcast_limits},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
