// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sr.cpp - forged packets of selective repeat (issue #36;
 * drivers/sroce/comp_sr.c, resp_sr.c; Documentation/protocol.md).
 *
 * From A's address, to B's requester of a pair that agreed on selective
 * repeat, while B's SEND is outstanding and A is silent:
 *  - selective ACKs naming a PSN B never sent, or with a BTH PSN that is
 *    not the one before their expected PSN: refused whole (sack_bogus),
 *    nothing acknowledged: the SEND ends in retry exceeded;
 *  - while B's READ of 512 packets has asked for its first piece only (the
 *    window is 128), a selective ACK naming its first PSN lost: B asks
 *    for the READ again once (sr_resent moves by 1), not once per packet
 *    of a run's budget (16: the round's mark fell back behind the READ);
 * to B's responder of such a pair, from A's address, A silent:
 *  - a READ request ahead of the expected PSN, the WRITE before it
 *    missing: held, and executed in its turn once the WRITE comes (the
 *    WRITE after it then lands in turn too), not dropped behind a
 *    selective ACK that shows nothing missing;
 * and to a pair connected with sroce.sr=0 (no selective repeat granted):
 *  - a SEND and a selective ACK with the SXH: unknown opcodes
 *    (rx_err_opcode), as before extensions existed.
 */
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "completion.h"
#include "hostile.h"
#include "ktap.h"

namespace hostile {

using namespace verbs_util;

namespace {

const char sr_param[] = "/sys/module/sroce/parameters/sr";

bool set_sr(bool on)
{
	std::ofstream f(sr_param);

	f << (on ? "1" : "0") << '\n';
	f.flush();
	if (!f) {
		ktap::fail("cannot write %s", sr_param);
		return false;
	}
	return true;
}

/*
 * A pair that finished its hellos: both GetResps taken (the hellos take
 * a round trip through QP1 after RTR).
 */
bool make_agreed_pair(endpoint &x, endpoint &y, device &a, device &b,
		      const qp_opts &o = {})
{
	const long long before = hw_counter(b, "ext_agreements");

	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(counter_moved_by(b, "ext_agreements", before, 1));
	return true;
}

/* A selective ACK to B's QP from A: acknowledges up to psn. */
sroce_hdrs sack_hdrs(const endpoint &y, std::uint32_t psn)
{
	sroce_hdrs h = rc_hdrs(SROCE_OP_SXH_SACK, y.qp->qp_num, psn);

	h.bth.flags = 0;
	h.aeth.syndrome = sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID);
	h.sxh.flags = SROCE_SXH_SACK;
	h.sxh.sack.epsn = psn_add(psn, 1);
	return h;
}

/* A WRITE ONLY with the SXH of len bytes of v to y's buffer at off. */
std::vector<std::uint8_t> sxh_write(const forger &f, endpoint &y,
				    std::uint32_t psn, std::size_t off,
				    std::uint32_t len, std::uint8_t v)
{
	const std::vector<std::uint8_t> payload(len, v);
	sroce_hdrs h = rc_hdrs(SROCE_OP_SXH_RC_WRITE_ONLY, y.qp->qp_num, psn);

	h.sxh.flags = SROCE_SXH_OFFSET;
	h.reth.va = y.addr(off);
	h.reth.rkey = y.mr->rkey;
	h.reth.len = len;
	return f.frame(h, payload.data(), len);
}

} /* namespace */

bool sr_read_ahead(device &a, device &b)
{
	endpoint x, y;
	forger f;

	REQUIRE(set_sr(true));
	REQUIRE(make_agreed_pair(x, y, a, b, rdma_opts(IBV_MTU_1024, 65536)));
	REQUIRE(f.open(a, b));
	REQUIRE(silence(x));
	std::fill(y.buf.begin(), y.buf.end(), 0);
	const std::uint32_t epsn = x.psn; /* nothing sent by x yet */
	const long long held_before = hw_counter(b, "sr_held");

	/* The READ at epsn + 1, the WRITE at epsn not there yet. */
	sroce_hdrs h = rc_hdrs(SROCE_OP_SXH_RC_READ_REQUEST, y.qp->qp_num,
			       psn_add(epsn, 1));
	h.reth.va = y.addr(4096);
	h.reth.rkey = y.mr->rkey;
	h.reth.len = 64;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));
	CHECK(counter_moved_by(b, "sr_held", held_before, 1));
	/* The WRITE at epsn, then one at epsn + 2, after the READ. */
	REQUIRE(f.send(sxh_write(f, y, epsn, 0, 64, 0x11)));
	CHECK(wait_bytes(y.buf.data(), 64, 0x11, 2000));
	REQUIRE(f.send(sxh_write(f, y, psn_add(epsn, 2), 64, 64, 0x22)));
	if (!wait_bytes(y.buf.data() + 64, 64, 0x22, 2000))
		ktap::fail("the WRITE after the READ did not land: the READ "
			   "was not executed in its turn");
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool sr_read_pieces(device &a, device &b)
{
	constexpr std::uint32_t len = 512 * 1024;
	endpoint x, y;
	forger f;

	REQUIRE(set_sr(true));
	REQUIRE(make_agreed_pair(x, y, a, b, rdma_opts(IBV_MTU_1024, len)));
	REQUIRE(f.open(a, b));
	REQUIRE(silence(x));
	const long long pieces_before = hw_counter(b, "read_pieces");
	ibv_sge sge{y.addr(0), len, y.mr->lkey};
	REQUIRE(post_rdma(y, x, 1, IBV_WR_RDMA_READ, &sge, 1, 0) == 0);
	/* Its first piece asked for, then nothing: x is silent. */
	REQUIRE(counter_moved_by(b, "read_pieces", pieces_before, 1));
	const long long sack_before = hw_counter(b, "sack_rcvd");
	const long long resent_before = hw_counter(b, "sr_resent");

	/* Nothing acknowledged, the READ's first PSN missing, its fifth in. */
	sroce_hdrs h = sack_hdrs(y, psn_add(y.psn, SROCE_PSN_MASK));
	h.sxh.sack.map[0] = 1ULL << 3;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));
	REQUIRE(counter_moved_by(b, "sack_rcvd", sack_before, 1));
	usleep(50000);
	const long long resent = hw_counter(b, "sr_resent") - resent_before;
	ktap::note("READ requests sent again after the SACK: %lld", resent);
	/* 1, or a second from a timeout that fell in the 50 ms. */
	CHECK(resent >= 1 && resent <= 2);
	REQUIRE(to_state(y.qp.get(), IBV_QPS_ERR) == 0);
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool sr_forged_sack(device &a, device &b)
{
	endpoint x, y;
	forger f;

	REQUIRE(set_sr(true));
	REQUIRE(make_agreed_pair(x, y, a, b));
	REQUIRE(f.open(a, b));
	REQUIRE(silence(x));
	REQUIRE(post_send(y, 1, 0, 100) == 0);
	const long long bogus_before = hw_counter(b, "sack_bogus");

	std::vector<std::vector<std::uint8_t>> forged;
	/* Its SEND's PSN missing, one 50 after it arrived: never sent. */
	sroce_hdrs h = sack_hdrs(y, psn_add(y.psn, SROCE_PSN_MASK));
	h.sxh.sack.map[0] = 1ULL << 49;
	forged.push_back(f.frame(h, nullptr, 0));
	/* Everything up to the SEND's PSN, the map beyond the window. */
	h = sack_hdrs(y, y.psn);
	h.sxh.sack.map[1] = 1ULL << 63;
	forged.push_back(f.frame(h, nullptr, 0));
	/* The BTH PSN not the one before its expected PSN. */
	h = sack_hdrs(y, y.psn);
	h.sxh.sack.epsn = psn_add(y.psn, 7);
	forged.push_back(f.frame(h, nullptr, 0));
	REQUIRE(f.send_all(forged));
	CHECK(counter_moved_by(b, "sack_bogus", bogus_before, 3));
	const auto wc = wait_wc(y.scq, 10000);
	REQUIRE(wc.has_value());
	print_wc("B's SEND", *wc);
	/* Nothing acknowledged it: it runs out of retries. */
	CHECK(wc->status == IBV_WC_RETRY_EXC_ERR);
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool sr_not_granted(device &a, device &b)
{
	endpoint x, y;
	forger f;
	bool made;

	/* Connected with sroce.sr=0: the hellos offer nothing. */
	REQUIRE(set_sr(false));
	made = make_agreed_pair(x, y, a, b);
	REQUIRE(set_sr(true));
	REQUIRE(made);
	REQUIRE(f.open(a, b));
	REQUIRE(post_recv(x, 1, 0, 100) == 0);
	REQUIRE(post_send(y, 1, 0, 100) == 0);
	CHECK(expect_wc("B's SEND", y.scq, 1, IBV_WC_SUCCESS, IBV_WC_SEND,
			false));
	CHECK(expect_wc("A's receive", x.rcq, 1, IBV_WC_SUCCESS, IBV_WC_RECV,
			false));
	const long long op_before = hw_counter(b, "rx_err_opcode");

	std::vector<std::vector<std::uint8_t>> forged;
	/* A SEND with the SXH at the PSN B expects. */
	sroce_hdrs h = rc_hdrs(SROCE_OP_SXH_RC_SEND_ONLY, y.qp->qp_num, x.psn);
	h.sxh.flags = SROCE_SXH_OFFSET;
	const std::uint8_t payload[64] = {};
	forged.push_back(f.frame(h, payload, sizeof(payload)));
	/* A selective ACK of everything up to B's SEND. */
	forged.push_back(f.frame(sack_hdrs(y, y.psn), nullptr, 0));
	REQUIRE(f.send_all(forged));
	CHECK(counter_moved_by(b, "rx_err_opcode", op_before, 2));
	CHECK(send_arrives(x, y, 21));
	CHECK(send_arrives(y, x, 22));
	return true;
}

} /* namespace hostile */
