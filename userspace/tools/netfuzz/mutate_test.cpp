// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// Host tests of sroce-netfuzz's datagrams (mutate.h) against the protocol
// core: the predicted fates are the ones the receive path gives, nothing
// that could touch a QP's state goes to a QP the tool does not own, and the
// mutations cover the fields the fuzzer promises.
#include "mutate.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

extern "C" {
#include "sroce_proto.h"
}

using namespace netfuzz;

namespace {

gid v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d)
{
	gid g{};
	g[10] = g[11] = 0xff;
	g[12] = a, g[13] = b, g[14] = c, g[15] = d;
	return g;
}

constexpr std::uint32_t victim_a = 0x20, victim_b = 0x21, ud_b = 0x22;
constexpr std::uint32_t foreign_a = 0x11, foreign_b = 0x12;
constexpr std::uint32_t dead_a = 0x8a31c2, dead_b = 0x1f00d5;

config test_config()
{
	config c;
	c.addr[0] = v4(10, 93, 20, 1);
	c.addr[1] = v4(10, 93, 20, 2);
	c.alt[0] = v4(10, 93, 20, 4);
	c.alt[1] = v4(10, 93, 20, 3);
	c.victims[0] = {victim_a};
	c.victims[1] = {victim_b, ud_b};
	c.ud_victims[1] = {ud_b};
	c.dead[0] = {dead_a};
	c.dead[1] = {dead_b, dead_b + 1};
	c.ud_qkey = 0x11111111;
	c.rkeys = {0x1234};
	c.vas = {0x7f0000001000};
	return c;
}

// A packet as the peer of side sends it: UDP payload, good ICRC.
std::vector<std::uint8_t> peer_packet(const config &c, int side,
				      std::uint8_t op, std::uint32_t qpn,
				      std::uint32_t psn, std::uint32_t paylen)
{
	sroce_net net{};
	sroce_hdrs h{};
	std::vector<std::uint8_t> payload(paylen, 0x5a);
	std::vector<std::uint8_t> buf(SROCE_MAX_NET_HLEN + SROCE_MAX_HDR_LEN +
				      paylen + 8);
	std::memcpy(net.saddr, c.addr[1 - side].data(), 16);
	std::memcpy(net.daddr, c.addr[side].data(), 16);
	net.sport = c.sport;
	net.dport = SROCE_UDP_PORT;
	h.bth.opcode = op;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qpn;
	h.bth.psn = psn;
	h.reth.rkey = 0x5678;
	h.reth.va = 0x10000;
	h.reth.len = paylen;
	u32 n = sroce_frame_build(buf.data(), static_cast<u32>(buf.size()),
				  &net, &h, payload.data(), paylen);
	EXPECT_NE(n, 0u);
	u32 nhl = sroce_net_hlen(&net);
	return {buf.begin() + nhl, buf.begin() + n};
}

generator learnt(std::uint64_t seed)
{
	config c = test_config();
	generator g(seed, c);
	for (std::uint32_t i = 0; i < 50; i++) {
		g.learn(0, peer_packet(c, 0, SROCE_OP_RC_SEND_ONLY, foreign_a,
				       100 + i, 64));
		g.learn(0, peer_packet(c, 0, SROCE_OP_RC_WRITE_FIRST, victim_a,
				       200 + i, 1024));
		g.learn(0, peer_packet(c, 0, SROCE_OP_RC_ACK, foreign_a, i, 0));
		g.learn(1, peer_packet(c, 1, SROCE_OP_RC_READ_REQUEST,
				       foreign_b, 300 + i, 0));
		g.learn(1, peer_packet(c, 1, SROCE_OP_UC_SEND_LAST, victim_b,
				       400 + i, 12));
		g.learn(1,
			peer_packet(c, 1, SROCE_OP_UD_SEND_ONLY, ud_b, i, 33));
	}
	return g;
}

} // namespace

TEST(NetfuzzMutate, CounterNames)
{
	EXPECT_EQ(rx_err_counter(SROCE_RX_BAD_ICRC), "rx_err_icrc");
	EXPECT_EQ(rx_err_counter(SROCE_RX_TRUNCATED), "rx_err_truncated");
	EXPECT_EQ(rx_err_counter(SROCE_RX_BAD_SEG_LEN), "rx_err_seg_len");
	std::set<std::string> names;
	for (int r = 1; r < SROCE_RX_REASON_NR; r++) {
		EXPECT_NE(rx_err_counter(r), "rx_err_?") << r;
		names.insert(rx_err_counter(r));
	}
	EXPECT_EQ(names.size(), SROCE_RX_REASON_NR - 1u);
}

// The ICRC over the addresses and ports the kernel writes is the one of
// the protocol core's frame builder.
TEST(NetfuzzMutate, IcrcOfMatchesFrameBuilder)
{
	config c = test_config();
	auto p = peer_packet(c, 0, SROCE_OP_RC_WRITE_ONLY, 0x33, 7, 100);
	EXPECT_TRUE(icrc_good(c, 0, source::peer, p));
	EXPECT_FALSE(icrc_good(c, 0, source::alt, p));
	EXPECT_FALSE(icrc_good(c, 1, source::peer, p));
	p[20] ^= 1;
	EXPECT_FALSE(icrc_good(c, 0, source::peer, p));
}

TEST(NetfuzzMutate, PredictFollowsReceivePath)
{
	config c = test_config();
	datagram g;
	g.side = 0;
	g.bytes = peer_packet(c, 0, SROCE_OP_RC_SEND_ONLY, dead_a, 1, 8);
	EXPECT_EQ(predict(c, g).f, fate::no_qp);
	g.bytes = peer_packet(c, 0, SROCE_OP_RC_SEND_ONLY, victim_a, 1, 8);
	EXPECT_EQ(predict(c, g).f, fate::unpredicted);
	g.bytes = peer_packet(c, 0, SROCE_OP_CNP, victim_a, 1, 0);
	EXPECT_EQ(predict(c, g).f, fate::cnp);
	g.bytes = peer_packet(c, 0, SROCE_OP_UD_SEND_ONLY, mcast_qpn, 1, 8);
	EXPECT_EQ(predict(c, g).f, fate::mcast_drop);
	g.src = source::alt; // the ICRC was made for the peer's address
	prediction p = predict(c, g);
	EXPECT_EQ(p.f, fate::rx_err);
	EXPECT_EQ(p.reason, SROCE_RX_BAD_ICRC);
	g.bytes.resize(10);
	p = predict(c, g);
	EXPECT_EQ(p.f, fate::rx_err);
	EXPECT_EQ(p.reason, SROCE_RX_TRUNCATED);
}

TEST(NetfuzzMutate, LearnsCorpusAndForeignQps)
{
	generator g = learnt(1);
	EXPECT_EQ(g.corpus_size(0), 150u);
	EXPECT_EQ(g.corpus_size(1), 150u);
	EXPECT_EQ(g.foreign_qps(0), 1u);
	EXPECT_EQ(g.foreign_qps(1), 1u);
	std::vector<std::uint8_t> junk(7, 0xff);
	g.learn(0, junk);
	EXPECT_EQ(g.corpus_size(0), 150u);
	for (int i = 0; i < 1000; i++)
		g.learn(0, peer_packet(g.cfg(), 0, SROCE_OP_RC_SEND_ONLY,
				       0x40 + i % 7, i, 4));
	EXPECT_EQ(g.corpus_size(0), 512u); // bounded
	EXPECT_EQ(g.foreign_qps(0), 8u);
}

TEST(NetfuzzMutate, Deterministic)
{
	generator a = learnt(42), b = learnt(42), c = learnt(43);
	bool differ = false;
	for (int i = 0; i < 500; i++) {
		datagram x = a.next(), y = b.next(), z = c.next();
		ASSERT_EQ(x.bytes, y.bytes);
		differ |= x.bytes != z.bytes;
	}
	EXPECT_TRUE(differ);
}

// The promise every run rests on: what may reach a QP's state machine goes
// to the tool's own QPs; everything else has a predicted fate, and that
// fate is the one the protocol core gives.
TEST(NetfuzzMutate, MustDropsArePredictedAndStatefulOnlyToVictims)
{
	generator g = learnt(7);
	const config &c = g.cfg();
	std::map<std::string, int> what;
	std::map<int, int> reasons;
	std::map<fate, int> fates;
	int stateful = 0, near = 0, stateful_to_learnt = 0;
	for (int i = 0; i < 200000; i++) {
		datagram d = g.next();
		what[d.what]++;
		fates[d.pred.f]++;
		ASSERT_EQ(d.frag, d.bytes.size() > c.max_payload);
		sroce_pkt pkt{};
		auto r = sroce_pkt_parse(&pkt, d.bytes.data(),
					 static_cast<u32>(d.bytes.size()),
					 SROCE_DEFAULT_PKEY);
		if (d.stateful) {
			stateful++;
			ASSERT_EQ(d.pred.f, fate::unpredicted);
			ASSERT_EQ(r, SROCE_RX_OK);
			ASSERT_EQ(d.src, source::peer);
			ASSERT_TRUE(icrc_good(c, d.side, d.src, d.bytes));
			ASSERT_TRUE(c.victims[d.side].count(pkt.bth.dqpn))
				<< pkt.bth.dqpn;
			ASSERT_FALSE(d.frag);
			if (pkt.bth.dqpn == victim_a) {
				stateful_to_learnt++;
				std::uint32_t e = 250; // learnt ePSN
				std::uint32_t dist =
					(pkt.bth.psn - e) & SROCE_PSN_MASK;
				near += dist <= 2 || dist >= SROCE_PSN_MASK - 1;
			}
			continue;
		}
		ASSERT_NE(d.pred.f, fate::unpredicted) << d.what;
		if (d.frag) { // IPv4 ID unknown: must fail the parser
			ASSERT_EQ(d.pred.f, fate::rx_err);
			ASSERT_NE(r, SROCE_RX_OK);
		}
		switch (d.pred.f) {
		case fate::rx_err:
			reasons[d.pred.reason]++;
			if (d.pred.reason == SROCE_RX_BAD_ICRC) {
				ASSERT_EQ(r, SROCE_RX_OK);
				ASSERT_FALSE(
					icrc_good(c, d.side, d.src, d.bytes));
			} else {
				ASSERT_EQ(r, d.pred.reason);
			}
			break;
		case fate::qp_drop: // from nobody's peer, passes the QP checks
			ASSERT_EQ(r, SROCE_RX_OK);
			ASSERT_EQ(d.src, source::alt);
			ASSERT_TRUE(icrc_good(c, d.side, d.src, d.bytes));
			ASSERT_NE(sroce_opcode_transport(pkt.bth.opcode),
				  SROCE_TRANSPORT_UD);
			ASSERT_EQ(sroce_pkt_check_qp(&pkt,
						     sroce_opcode_transport(
							     pkt.bth.opcode),
						     c.pmtu),
				  SROCE_RX_OK);
			break;
		case fate::no_qp: {
			// an extension opcode is one only to a QP that took it
			const bool sxh =
				sroce_opcode_lookup(d.bytes[0])->flags &
				SROCE_OPF_SXH;
			const std::uint32_t qpn =
				sroce_get_be32(d.bytes.data() + 4) &
				SROCE_QPN_MASK;
			ASSERT_EQ(r, sxh ? SROCE_RX_BAD_OPCODE : SROCE_RX_OK);
			ASSERT_TRUE(is_dead(c, d.side, qpn));
			break;
		}
		case fate::opcode_or_no_qp: {
			const std::uint32_t qpn =
				sroce_get_be32(d.bytes.data() + 4) &
				SROCE_QPN_MASK;
			ASSERT_EQ(r, SROCE_RX_BAD_OPCODE);
			ASSERT_TRUE(sroce_opcode_lookup(d.bytes[0])->flags &
				    SROCE_OPF_SXH);
			ASSERT_FALSE(is_dead(c, d.side, qpn));
			ASSERT_FALSE(c.victims[d.side].count(qpn));
			break;
		}
		case fate::cnp:
			ASSERT_EQ(pkt.bth.opcode, SROCE_OP_CNP);
			break;
		case fate::mcast_drop:
			ASSERT_EQ(pkt.bth.dqpn, mcast_qpn);
			break;
		default:
			FAIL();
		}
	}
	EXPECT_GT(stateful, 60000);
	EXPECT_GT(near, stateful_to_learnt / 10);
	for (auto f : {fate::rx_err, fate::no_qp, fate::cnp, fate::mcast_drop,
		       fate::qp_drop})
		EXPECT_GT(fates[f], 1000) << static_cast<int>(f);
	for (int r : {SROCE_RX_TRUNCATED, SROCE_RX_BAD_OPCODE,
		      SROCE_RX_BAD_TVER, SROCE_RX_BAD_PKEY, SROCE_RX_BAD_LEN,
		      SROCE_RX_BAD_PAD, SROCE_RX_OVER_MTU, SROCE_RX_BAD_ICRC})
		EXPECT_GT(reasons[r], 100) << rx_err_counter(r);
	for (const char *w :
	     {"opcode",	       "psn",	     "flags",	    "length",
	      "reth",	       "aeth",	     "atomiceth",   "deth",
	      "ieth",	       "pad",	     "synthesized", "tver",
	      "pkey",	       "bad-opcode", "truncated",   "unaligned",
	      "extra-payload", "oversized",  "bad-icrc",    "no-qp",
	      "cnp",	       "mcast-qpn",  "not-peer"})
		EXPECT_GT(what[w], 100) << w;
}

// Without a corpus or victims the generator still makes must-drops only.
TEST(NetfuzzMutate, NothingLearnt)
{
	generator g(3, config{});
	for (int i = 0; i < 20000; i++) {
		datagram d = g.next();
		ASSERT_FALSE(d.stateful);
		ASSERT_NE(d.pred.f, fate::unpredicted) << d.what;
	}
}
