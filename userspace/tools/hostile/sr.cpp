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
 * and to a pair connected with sroce.sr=0 (no selective repeat granted):
 *  - a SEND and a selective ACK with the SXH: unknown opcodes
 *    (rx_err_opcode), as before extensions existed.
 */
#include <unistd.h>

#include <fstream>

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
bool make_agreed_pair(endpoint &x, endpoint &y, device &a, device &b)
{
	const long long before = hw_counter(b, "ext_agreements");

	REQUIRE(make_qp_pair(x, y, a, b));
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

} /* namespace */

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
