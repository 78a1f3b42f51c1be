// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rss.cpp - sroce-rawtest's checks of receive WQs and RSS raw packet QPs:
 *
 *   rss       the tool's own Toeplitz hash gives the Microsoft RSS
 *             verification suite's values; an RSS QP over four WQs (one
 *             CQ each) hashing IPv4 addresses and UDP ports with that key
 *             delivers each of five UDP frames (the suite's addresses and
 *             ports) to WQ (hash & 3), whole, and to no other; a WQ in
 *             RESET or ERR receives nothing (dropped and counted in
 *             raw_rx_drops); entering ERR flushes its WQEs, and a WQE
 *             posted in ERR is flushed too; back to RESET and RDY it
 *             receives again
 *   wq-overflow  a WQ whose CQ of 4 entries overflows (12 frames, none
 *             polled): IBV_EVENT_CQ_ERR and IBV_EVENT_WQ_FATAL, the WQ
 *             consumes no WQE after the lost completion, so every frame
 *             counted in raw_rx has its completion on the CQ and the rest
 *             are raw_rx_drops (before, the WQ stayed RDY and took the
 *             WQEs without completions, counting the frames as received)
 *   rss-bad   clean errors: a WQ of 0 or 2^20 WQEs, a transition
 *             RESET->ERR or a wrong current state (EINVAL); a table of
 *             2^9 WQs (EINVAL); another hash function or an unknown hash
 *             field (EOPNOTSUPP), a key of 16 bytes (EINVAL), a table on
 *             a UD QP (EOPNOTSUPP); modify_qp of an RSS QP (EOPNOTSUPP);
 *             a table used by a QP, a WQ used by a table (EBUSY)
 */
#include <arpa/inet.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "completion.h"
#include "ktap.h"
#include "raw_ep.h"
#include "rawtest.h"

namespace rawtest {

using namespace verbs_util;

namespace {

/* The Microsoft RSS verification suite's key. */
constexpr unsigned char ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Its IPv4 cases: the hash of the addresses, and with the ports. */
struct ms_case {
	const char *src;
	std::uint16_t sport;
	const char *dst;
	std::uint16_t dport;
	std::uint32_t hash_ip;
	std::uint32_t hash_ports;
};

constexpr ms_case ms_cases[] = {
	{"66.9.149.187", 2794, "161.142.100.80", 1766, 0x323e8fc2, 0x51ccc178},
	{"199.92.111.2", 14230, "65.69.140.83", 4739, 0xd718262a, 0xc626b0ea},
	{"24.19.198.95", 12898, "12.22.207.184", 38024, 0xd2d0a5de, 0x5c2b394a},
	{"38.27.205.30", 48228, "209.142.163.6", 2217, 0x82989176, 0xafc7327f},
	{"153.39.163.191", 44251, "202.188.127.2", 1303, 0x5d1809c5,
	 0x10e828a2},
};

/* Toeplitz over in, bit by bit: the 32 key bits from each set bit on. */
std::uint32_t toeplitz(const unsigned char *in, std::size_t len)
{
	std::uint32_t hash = 0;

	for (std::size_t bit = 0; bit < len * 8; bit++) {
		if ((in[bit / 8] & (0x80U >> (bit % 8))) == 0)
			continue;
		std::uint32_t window = 0;
		for (std::size_t k = 0; k < 32; k++) {
			const std::size_t kb = bit + k;
			window = window << 1 |
				 ((ms_key[kb / 8] >> (7 - kb % 8)) & 1U);
		}
		hash ^= window;
	}
	return hash;
}

/* The input of an IPv4 case: source, destination, then their ports. */
std::vector<unsigned char> ms_input(const ms_case &c, bool ports)
{
	std::vector<unsigned char> in(ports ? 12 : 8);
	inet_pton(AF_INET, c.src, in.data());
	inet_pton(AF_INET, c.dst, in.data() + 4);
	if (ports) {
		in[8] = static_cast<unsigned char>(c.sport >> 8);
		in[9] = static_cast<unsigned char>(c.sport);
		in[10] = static_cast<unsigned char>(c.dport >> 8);
		in[11] = static_cast<unsigned char>(c.dport);
	}
	return in;
}

/* An Ethernet + IPv4 + UDP frame of len bytes for case c. */
std::vector<unsigned char> udp_frame(const ms_case &c, std::size_t len,
				     unsigned char pattern)
{
	std::vector<unsigned char> f(len, pattern);
	std::memcpy(f.data(), dst_mac.data(), 6);
	std::memcpy(f.data() + 6, src_mac.data(), 6);
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45;
	f[15] = 0;
	f[16] = static_cast<unsigned char>((len - 14) >> 8);
	f[17] = static_cast<unsigned char>(len - 14);
	f[18] = f[19] = 0;
	f[20] = 0x40;
	f[21] = 0;
	f[22] = 64;
	f[23] = IPPROTO_UDP;
	f[24] = f[25] = 0;
	const std::vector<unsigned char> in = ms_input(c, true);
	std::memcpy(f.data() + 26, in.data(), 12);
	return f;
}

constexpr int nwq = 4; /* a table of 2^2 WQs */
constexpr std::size_t rss_slot = 2048;
constexpr std::size_t rss_slots = 8; /* receives per WQ */

/* A WQ with its CQ, destroyed (WQ first) with it. */
struct wq_ep {
	cq_ptr cq;
	ibv_wq *wq = nullptr;

	wq_ep() = default;
	wq_ep(const wq_ep &) = delete;
	wq_ep &operator=(const wq_ep &) = delete;
	~wq_ep()
	{
		if (wq != nullptr && ibv_destroy_wq(wq) != 0)
			ktap::fail("ibv_destroy_wq failed");
	}
};

struct table_ref {
	ibv_rwq_ind_table *tbl = nullptr;

	table_ref() = default;
	table_ref(const table_ref &) = delete;
	table_ref &operator=(const table_ref &) = delete;
	~table_ref()
	{
		if (tbl != nullptr && ibv_destroy_rwq_ind_table(tbl) != 0)
			ktap::fail("ibv_destroy_rwq_ind_table failed");
	}
};

/* Four WQs of a PD, each with its CQ and 8 receive slots in buf. */
struct rss_set {
	pd_ptr pd;
	std::vector<unsigned char> buf =
		std::vector<unsigned char>(nwq * rss_slots * rss_slot);
	mr_ptr mr;
	wq_ep wqs[nwq];
	table_ref tbl;
	qp_ptr qp;
	std::uint64_t next_wr[nwq] = {};
};

ibv_wq *create_wq(device &d, ibv_pd *pd, ibv_cq *cq, std::uint32_t max_wr)
{
	ibv_wq_init_attr a{};
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = max_wr;
	a.max_sge = 1;
	a.pd = pd;
	a.cq = cq;
	return ibv_create_wq(d.ctx.get(), &a);
}

int modify_wq(ibv_wq *wq, ibv_wq_state state)
{
	ibv_wq_attr a{};
	a.attr_mask = IBV_WQ_ATTR_STATE;
	a.wq_state = state;
	return ibv_modify_wq(wq, &a);
}

/* The receive of WQ k, wr_id k << 8 | n, in slot n % 8. */
bool post_wq(rss_set &s, int k)
{
	const std::uint64_t n = s.next_wr[k]++;
	unsigned char *p =
		s.buf.data() + (k * rss_slots + n % rss_slots) * rss_slot;
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(p), rss_slot, s.mr->lkey};
	ibv_recv_wr wr{};
	ibv_recv_wr *bad = nullptr;
	wr.wr_id = static_cast<std::uint64_t>(k) << 8 | n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	REQUIRE(ibv_post_wq_recv(s.wqs[k].wq, &wr, &bad) == 0);
	return true;
}

ibv_qp *create_rss_qp(device &d, ibv_pd *pd, ibv_rwq_ind_table *tbl,
		      ibv_qp_type type, std::uint8_t function,
		      std::uint64_t fields, std::uint8_t key_len)
{
	unsigned char key[40];
	std::memcpy(key, ms_key, sizeof(key));
	ibv_qp_init_attr_ex a{};
	a.qp_type = type;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		      IBV_QP_INIT_ATTR_RX_HASH;
	a.pd = pd;
	a.rwq_ind_tbl = tbl;
	a.rx_hash_conf.rx_hash_function = function;
	a.rx_hash_conf.rx_hash_key_len = key_len;
	a.rx_hash_conf.rx_hash_key = key;
	a.rx_hash_conf.rx_hash_fields_mask = fields;
	return ibv_create_qp_ex(d.ctx.get(), &a);
}

constexpr std::uint64_t ip_udp_fields =
	IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_PORT_UDP |
	IBV_RX_HASH_DST_PORT_UDP;

/* Four WQs in RDY, 8 receives each, the table, the RSS QP. */
bool make_rss(device &d, rss_set &s, int cqe = 64)
{
	s.pd.reset(ibv_alloc_pd(d.ctx.get()));
	REQUIRE(s.pd != nullptr);
	s.mr.reset(ibv_reg_mr(s.pd.get(), s.buf.data(), s.buf.size(),
			      IBV_ACCESS_LOCAL_WRITE));
	REQUIRE(s.mr != nullptr);
	ibv_wq *tbl[nwq];
	for (int k = 0; k < nwq; k++) {
		s.wqs[k].cq.reset(
			ibv_create_cq(d.ctx.get(), cqe, nullptr, nullptr, 0));
		REQUIRE(s.wqs[k].cq != nullptr);
		s.wqs[k].wq = create_wq(d, s.pd.get(), s.wqs[k].cq.get(), 16);
		REQUIRE(s.wqs[k].wq != nullptr);
		REQUIRE(modify_wq(s.wqs[k].wq, IBV_WQS_RDY) == 0);
		for (std::size_t n = 0; n < rss_slots; n++)
			REQUIRE(post_wq(s, k));
		tbl[k] = s.wqs[k].wq;
	}
	ibv_rwq_ind_table_init_attr ta{};
	ta.log_ind_tbl_size = 2;
	ta.ind_tbl = tbl;
	s.tbl.tbl = ibv_create_rwq_ind_table(d.ctx.get(), &ta);
	REQUIRE(s.tbl.tbl != nullptr);
	s.qp.reset(create_rss_qp(d, s.pd.get(), s.tbl.tbl, IBV_QPT_RAW_PACKET,
				 IBV_RX_HASH_FUNC_TOEPLITZ, ip_udp_fields, 40));
	REQUIRE(s.qp != nullptr);
	return true;
}

/* Nothing on any WQ's CQ within ms. */
bool no_rss_wc(const char *what, rss_set &s, int ms)
{
	for (auto &w : s.wqs)
		REQUIRE(no_wc(what, w.cq.get(), ms / nwq));
	return true;
}

/* Frame f arrives whole on WQ k (its next receive), and nowhere else. */
bool expect_on_wq(const char *what, rss_set &s, int k,
		  const std::vector<unsigned char> &f, std::uint64_t n)
{
	const std::uint64_t wr_id = static_cast<std::uint64_t>(k) << 8 | n;
	const std::optional<ibv_wc> wc = expect_wc(
		what, s.wqs[k].cq.get(), wr_id, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	CHECK(wc->byte_len == f.size());
	const unsigned char *p =
		s.buf.data() + (k * rss_slots + n % rss_slots) * rss_slot;
	CHECK(std::memcmp(p, f.data(), f.size()) == 0);
	for (int j = 0; j < nwq; j++)
		if (j != k)
			CHECK(no_wc(what, s.wqs[j].cq.get(), 20));
	return true;
}

} /* namespace */

bool check_rss(device &da, device & /*db*/)
{
	for (const ms_case &c : ms_cases) {
		const std::vector<unsigned char> ip = ms_input(c, false);
		const std::vector<unsigned char> ports = ms_input(c, true);
		EXPECT(toeplitz(ip.data(), ip.size()) == c.hash_ip,
		       "Toeplitz of %s %s: %#x, the suite says %#x", c.src,
		       c.dst, toeplitz(ip.data(), ip.size()), c.hash_ip);
		EXPECT(toeplitz(ports.data(), ports.size()) == c.hash_ports,
		       "Toeplitz of %s:%u %s:%u: %#x, the suite says %#x",
		       c.src, c.sport, c.dst, c.dport,
		       toeplitz(ports.data(), ports.size()), c.hash_ports);
	}
	REQUIRE(ktap::failures() == 0);

	raw_ep client;
	rss_set s;
	flow_ref fl;
	REQUIRE(make_raw(da, client));
	REQUIRE(make_rss(da, s));
	flow_builder b;
	b.eth(dst_mac, 0x0800);
	REQUIRE(create_flow(s.qp.get(), b, fl));

	/* Each frame to WQ (hash & 3), with the hash the tool computes. */
	std::uint64_t got[nwq] = {};
	unsigned int hit = 0;
	for (std::size_t i = 0; i < std::size(ms_cases); i++) {
		const ms_case &c = ms_cases[i];
		const std::vector<unsigned char> in = ms_input(c, true);
		const int k = static_cast<int>(toeplitz(in.data(), in.size()) &
					       (nwq - 1));
		const std::vector<unsigned char> f = udp_frame(
			c, 100 + 50 * i, static_cast<unsigned char>(i));
		ktap::note("%s:%u -> %s:%u: WQ %d", c.src, c.sport, c.dst,
			   c.dport, k);
		REQUIRE(send_frame(client, f, 500 + i));
		REQUIRE(expect_on_wq("a frame hashed to its WQ", s, k, f,
				     got[k]++));
		hit |= 1U << k;
	}
	EXPECT(__builtin_popcount(hit) >= 3, "only WQs %#x hit", hit);

	/* WQ 0 (case 0 hashes there) in RESET: dropped and counted. */
	const ms_case &c0 = ms_cases[0];
	const std::vector<unsigned char> in0 = ms_input(c0, true);
	REQUIRE((toeplitz(in0.data(), in0.size()) & (nwq - 1)) == 0);
	const std::vector<unsigned char> f0 = udp_frame(c0, 120, 0x5a);
	REQUIRE(modify_wq(s.wqs[0].wq, IBV_WQS_RESET) == 0);
	long long drops = fresh_counter(da, "raw_rx_drops");
	REQUIRE(send_frame(client, f0, 510));
	CHECK(counter_moved(da, "raw_rx_drops", drops));
	CHECK(no_rss_wc("a frame for a WQ in RESET", s, 200));

	/* Back to RDY: the WQEs were discarded; a new one receives. */
	REQUIRE(modify_wq(s.wqs[0].wq, IBV_WQS_RDY) == 0);
	s.next_wr[0] = 0x80;
	REQUIRE(post_wq(s, 0));
	REQUIRE(send_frame(client, f0, 511));
	REQUIRE(expect_on_wq("a frame after RESET and RDY", s, 0, f0, 0x80));

	/* ERR: the posted WQEs flush, frames drop, posts flush. */
	REQUIRE(post_wq(s, 0));
	REQUIRE(post_wq(s, 0));
	REQUIRE(modify_wq(s.wqs[0].wq, IBV_WQS_ERR) == 0);
	for (std::uint64_t n = 0x81; n <= 0x82; n++)
		CHECK(expect_wc("a WQE flushed by ERR", s.wqs[0].cq.get(), n,
				IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV)
			      .has_value());
	drops = fresh_counter(da, "raw_rx_drops");
	REQUIRE(send_frame(client, f0, 512));
	CHECK(counter_moved(da, "raw_rx_drops", drops));
	REQUIRE(post_wq(s, 0));
	CHECK(expect_wc("a WQE posted in ERR", s.wqs[0].cq.get(), 0x83,
			IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV)
		      .has_value());
	CHECK(no_rss_wc("a frame for a WQ in ERR", s, 200));
	return true;
}

bool check_wq_overflow(device &da, device & /*db*/)
{
	constexpr int cqe = 4;
	constexpr int frames = 12;
	raw_ep client;
	rss_set s;
	flow_ref fl;
	REQUIRE(make_raw(da, client));
	REQUIRE(make_rss(da, s, cqe));
	flow_builder b;
	b.eth(dst_mac, 0x0800);
	REQUIRE(create_flow(s.qp.get(), b, fl));
	/* Case 0 hashes to WQ 0: 16 WQEs there, more than the frames. */
	for (std::size_t n = rss_slots; n < 2 * rss_slots; n++)
		REQUIRE(post_wq(s, 0));
	const std::vector<unsigned char> f0 = udp_frame(ms_cases[0], 120, 0x3c);
	const long long rx = fresh_counter(da, "raw_rx");
	const long long drops = fresh_counter(da, "raw_rx_drops");
	REQUIRE(rx >= 0 && drops >= 0);
	for (int i = 0; i < frames; i++)
		REQUIRE(send_frame(client, f0, 600 + i));

	bool cq_err = false;
	bool wq_fatal = false;
	for (int ev; (ev = next_async_event(da.ctx.get(), 2000)) >= 0;) {
		cq_err |= ev == IBV_EVENT_CQ_ERR;
		wq_fatal |= ev == IBV_EVENT_WQ_FATAL;
	}
	CHECK(cq_err);
	CHECK(wq_fatal);
	int ok = 0;
	for (ibv_wc wc{}; ibv_poll_cq(s.wqs[0].cq.get(), 1, &wc) == 1;)
		ok += wc.status == IBV_WC_SUCCESS ? 1 : 0;
	const long long got = fresh_counter(da, "raw_rx") - rx;
	const long long dropped = fresh_counter(da, "raw_rx_drops") - drops;
	ktap::note("%d frames to a WQ whose CQ holds %d: %d completions, "
		   "raw_rx %lld, raw_rx_drops %lld",
		   frames, cqe, ok, got, dropped);
	CHECK(ok == cqe);
	EXPECT(got == ok, "%lld frames counted as received, %d completed", got,
	       ok);
	CHECK(dropped == frames - ok);
	return true;
}

bool check_rss_bad(device &da, device & /*db*/)
{
	rss_set s;
	REQUIRE(make_rss(da, s));
	ibv_pd *pd = s.pd.get();
	ibv_cq *cq = s.wqs[0].cq.get();

	struct {
		const char *what;
		std::uint32_t max_wr;
	} const sizes[] = {{"a WQ of 0 WQEs", 0},
			   {"a WQ of 2^20 WQEs", 1U << 20}};
	for (const auto &c : sizes) {
		errno = 0;
		ibv_wq *w = create_wq(da, pd, cq, c.max_wr);
		const int err = errno;
		if (w != nullptr)
			ibv_destroy_wq(w);
		EXPECT(w == nullptr && err == EINVAL, "%s: errno %d", c.what,
		       err);
	}

	/* Transitions: RESET->ERR, and a wrong current state. */
	wq_ep extra;
	extra.wq = create_wq(da, pd, cq, 4);
	REQUIRE(extra.wq != nullptr);
	CHECK(modify_wq(extra.wq, IBV_WQS_ERR) == EINVAL);
	ibv_wq_attr wa{};
	wa.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE;
	wa.wq_state = IBV_WQS_RESET;
	wa.curr_wq_state = IBV_WQS_RDY;
	CHECK(ibv_modify_wq(extra.wq, &wa) == EINVAL);

	/* A table of 2^9 WQs: above the device's 2^8. */
	std::vector<ibv_wq *> many(1U << 9, extra.wq);
	ibv_rwq_ind_table_init_attr ta{};
	ta.log_ind_tbl_size = 9;
	ta.ind_tbl = many.data();
	errno = 0;
	ibv_rwq_ind_table *t = ibv_create_rwq_ind_table(da.ctx.get(), &ta);
	int err = errno;
	if (t != nullptr)
		ibv_destroy_rwq_ind_table(t);
	EXPECT(t == nullptr && err == EINVAL, "a table of 2^9 WQs: errno %d",
	       err);

	struct {
		const char *what;
		ibv_qp_type type;
		std::uint8_t function;
		std::uint64_t fields;
		std::uint8_t key_len;
		int want;
	} const qps[] = {
		{"hash function 2", IBV_QPT_RAW_PACKET, 2, ip_udp_fields, 40,
		 EOPNOTSUPP},
		{"hash field IPSEC_SPI", IBV_QPT_RAW_PACKET,
		 IBV_RX_HASH_FUNC_TOEPLITZ, IBV_RX_HASH_IPSEC_SPI, 40,
		 EOPNOTSUPP},
		{"a 16-byte key", IBV_QPT_RAW_PACKET, IBV_RX_HASH_FUNC_TOEPLITZ,
		 ip_udp_fields, 16, EINVAL},
		{"a UD QP", IBV_QPT_UD, IBV_RX_HASH_FUNC_TOEPLITZ,
		 ip_udp_fields, 40, EOPNOTSUPP},
	};
	for (const auto &c : qps) {
		errno = 0;
		ibv_qp *q = create_rss_qp(da, pd, s.tbl.tbl, c.type, c.function,
					  c.fields, c.key_len);
		err = errno;
		if (q != nullptr)
			ibv_destroy_qp(q);
		EXPECT(q == nullptr && err == c.want,
		       "an RSS QP with %s: errno %d, expected %d", c.what, err,
		       c.want);
	}

	ibv_qp_attr qa{};
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	CHECK(ibv_modify_qp(s.qp.get(), &qa, IBV_QP_STATE | IBV_QP_PORT) ==
	      EOPNOTSUPP);

	/* In use: the table by the QP, a WQ by the table. */
	CHECK(ibv_destroy_rwq_ind_table(s.tbl.tbl) == EBUSY);
	CHECK(ibv_destroy_wq(s.wqs[1].wq) == EBUSY);
	s.qp.reset();
	CHECK(ibv_destroy_wq(s.wqs[1].wq) == EBUSY);
	return true;
}

} /* namespace rawtest */
