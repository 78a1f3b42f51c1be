// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ext_hello.cpp - forged SroceHello MADs (drivers/sroce/ext.c, the
 * negotiation between sroce peers; Documentation/protocol.md).
 *
 * From A's address to B's QP1, each naming B's QP of a connected pair and
 * each wrong in one way: dropped, counted (ext_hello_dropped), never
 * answered, no agreement.  A last, well-formed one shows that the forged
 * datagrams get through: B answers it (ext_hello_replied).
 */
#include "hostile.h"

#include <unistd.h>

#include <cstring>

#include "ktap.h"

namespace hostile {

using namespace verbs_util;

namespace {

constexpr std::uint32_t gsi_qkey = 0x80010000;

struct hello_fields {
	std::uint8_t version = 1;
	std::uint8_t reserved = 0;
	std::uint32_t sender = 0;
	std::uint32_t peer = 0;
	std::uint32_t send_psn = 0;
	std::uint32_t expected_psn = 0;
	std::size_t len = 256;
};

void put32(std::uint8_t *p, std::uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* A Get(SroceHello) MAD of f.len bytes (256 when whole). */
std::vector<std::uint8_t> hello_mad(const hello_fields &f, std::uint32_t tid)
{
	std::vector<std::uint8_t> m(256, 0);

	m[0] = 1; /* base version */
	m[1] = 0x30; /* class: vendor range 2 */
	m[2] = 1; /* class version */
	m[3] = 0x01; /* Get */
	put32(&m[12], tid);
	m[16] = 0x00; /* attribute SroceHello 0x0010 */
	m[17] = 0x10;
	m[37] = 0x02; /* OUI 02:53:52 */
	m[38] = 0x53;
	m[39] = 0x52;
	m[40] = f.version;
	m[41] = f.reserved;
	put32(&m[48], f.sender);
	put32(&m[52], f.peer);
	put32(&m[56], f.send_psn);
	put32(&m[60], f.expected_psn);
	put32(&m[64], 0x5eed);
	m.resize(f.len);
	return m;
}

/* The MAD as A's GSI QP would send it to B's QP1: UD SEND ONLY. */
bool send_mad(const forger &f, const std::vector<std::uint8_t> &mad)
{
	sroce_hdrs h{};

	h.bth.opcode = SROCE_OP_UD_SEND_ONLY;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = 1;
	h.deth.qkey = gsi_qkey;
	h.deth.sqpn = 1;
	return f.send(
		f.frame(h, mad.data(), static_cast<std::uint32_t>(mad.size())));
}

} /* namespace */

bool ext_forged_hello(device &a, device &b)
{
	endpoint x, y;
	forger f;

	REQUIRE(make_qp_pair(x, y, a, b));
	REQUIRE(f.open(a, b));
	/* The pair's own hellos (an early one retried 200 ms later) settle. */
	usleep(1500000);
	const hello_fields good = {
		.sender = x.qp->qp_num,
		.peer = y.qp->qp_num,
		.send_psn = x.psn,
		.expected_psn = y.psn,
	};
	struct bad_case {
		const char *what;
		hello_fields h;
	};
	std::vector<bad_case> bad = {
		{"another sender QPN", good},
		{"no such QP", good},
		{"version 2", good},
		{"a reserved byte set", good},
		{"a sender QPN over 24 bits", good},
		{"truncated in the attribute", good},
		{"an expected PSN that is not B's send PSN", good},
	};
	bad[0].h.sender = x.qp->qp_num + 100;
	bad[1].h.peer = 0xfffff0;
	bad[2].h.version = 2;
	bad[3].h.reserved = 1;
	bad[4].h.sender |= 0x1000000;
	bad[5].h.len = 40 + 16;
	bad[6].h.expected_psn = (y.psn + 1) & SROCE_PSN_MASK;

	const long long dropped = hw_counter(b, "ext_hello_dropped");
	const long long replied = hw_counter(b, "ext_hello_replied");
	const long long agreed = hw_counter(b, "ext_agreements");
	std::uint32_t tid = 0x70000000;
	for (const auto &c : bad) {
		ktap::note("forged hello: %s", c.what);
		REQUIRE(send_mad(f, hello_mad(c.h, ++tid)));
	}
	CHECK(counter_moved_by(b, "ext_hello_dropped", dropped,
			       static_cast<long long>(bad.size())));
	/* The control: a well-formed one is answered (again), agrees nothing new. */
	REQUIRE(send_mad(f, hello_mad(good, ++tid)));
	CHECK(counter_moved_by(b, "ext_hello_replied", replied, 1));
	usleep(300000);
	const long long d = hw_counter(b, "ext_hello_dropped") - dropped;
	const long long r = hw_counter(b, "ext_hello_replied") - replied;
	const long long g = hw_counter(b, "ext_agreements") - agreed;
	ktap::note("B: %lld dropped, %lld replied, %lld agreements", d, r, g);
	CHECK(d == static_cast<long long>(bad.size()));
	CHECK(r == 1);
	CHECK(g == 0);
	CHECK(new_rc_pair_works(a, b));
	return true;
}

} /* namespace hostile */
