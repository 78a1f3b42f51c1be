// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * raw.cpp - sroce-rawtest's checks of raw packet QPs and flows:
 *
 *   loop          two raw QPs of A: a frame matching the server's flow
 *                 (Ethernet + IPv4 + UDP specs) arrives whole, with its
 *                 length; frames that differ in the UDP port, the
 *                 destination MAC or the transport do not; a QP whose two
 *                 flows match a frame gets it once; no flow, no frame
 *   wire          a raw QP of A sends an IPv6/UDP frame across the veth,
 *                 a flow of B (Ethernet + IPv6 + UDP) receives it; an
 *                 IPv4 frame does not match it
 *   length        a 10-byte frame, and frames one byte above the netdev's
 *                 MTU (with and without a VLAN tag), complete with
 *                 IBV_WC_LOC_LEN_ERR; the longest frames go out; a frame
 *                 longer than the receive completes it with
 *                 IBV_WC_LOC_LEN_ERR and the QP goes on
 *   flow-bad      create_flow refused: a UD QP, a sniffer flow, a tag
 *                 action, an inner spec, two Ethernet specs; a QP with a
 *                 flow is not destroyed (EBUSY); a frame without a receive
 *                 is dropped and counted (raw_rx_drops)
 *   unprivileged  without CAP_NET_RAW ibv_create_qp() of a raw packet QP
 *                 fails with EPERM, a UD QP is created (skipped as root)
 *
 * The veth's MTU is 1500 (tests/raw.sh leaves it so).
 */
#include <arpa/inet.h>
#include <unistd.h>

#include <array>
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

bool make_raw(device &d, raw_ep &e)
{
	e.pd.reset(ibv_alloc_pd(d.ctx.get()));
	REQUIRE(e.pd != nullptr);
	e.cq.reset(ibv_create_cq(d.ctx.get(), 64, nullptr, nullptr, 0));
	REQUIRE(e.cq != nullptr);
	e.mr.reset(ibv_reg_mr(e.pd.get(), e.buf.data(), e.buf.size(),
			      IBV_ACCESS_LOCAL_WRITE));
	REQUIRE(e.mr != nullptr);
	ibv_qp_init_attr ia{};
	ia.send_cq = e.cq.get();
	ia.recv_cq = e.cq.get();
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RAW_PACKET;
	e.qp.reset(ibv_create_qp(e.pd.get(), &ia));
	REQUIRE(e.qp != nullptr);
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	REQUIRE(ibv_modify_qp(e.qp.get(), &a, IBV_QP_STATE | IBV_QP_PORT) == 0);
	a = {};
	a.qp_state = IBV_QPS_RTR;
	REQUIRE(ibv_modify_qp(e.qp.get(), &a, IBV_QP_STATE) == 0);
	a.qp_state = IBV_QPS_RTS;
	REQUIRE(ibv_modify_qp(e.qp.get(), &a, IBV_QP_STATE) == 0);
	return true;
}

namespace {

constexpr std::size_t netdev_mtu = 1500;

constexpr const char *src4 = "1.1.1.1";
constexpr const char *dst4 = "2.2.2.2";
constexpr const char *src6 = "a0a1::a2a3:a4a5:a6a7:a8a9";
constexpr const char *dst6 = "b0b1::b2b3:b4b5:b6b7:b8b9";

void put16(std::vector<unsigned char> &f, std::size_t at, std::uint16_t v)
{
	f[at] = static_cast<unsigned char>(v >> 8);
	f[at + 1] = static_cast<unsigned char>(v);
}

/* A frame of len bytes: Ethernet, IPv4 or IPv6, UDP or TCP, a pattern. */
std::vector<unsigned char> frame(const mac &dmac, bool v6, int proto,
				 std::uint16_t dst_port, std::size_t len,
				 std::uint32_t msg)
{
	std::vector<unsigned char> f(len);
	fill(f.data(), len, msg);
	if (len < 14)
		return f;
	std::memcpy(f.data(), dmac.data(), 6);
	std::memcpy(f.data() + 6, src_mac.data(), 6);
	put16(f, 12, v6 ? 0x86dd : 0x0800);
	std::size_t l4 = 0;
	if (!v6 && len >= 14 + 20 + 8) {
		f[14] = 0x45;
		f[15] = 0;
		put16(f, 16, static_cast<std::uint16_t>(len - 14));
		put16(f, 18, 0);
		put16(f, 20, 0x4000);
		f[22] = 64;
		f[23] = static_cast<unsigned char>(proto);
		put16(f, 24, 0);
		inet_pton(AF_INET, src4, f.data() + 26);
		inet_pton(AF_INET, dst4, f.data() + 30);
		l4 = 34;
	} else if (v6 && len >= 14 + 40 + 8) {
		f[14] = 0x60;
		f[15] = f[16] = f[17] = 0;
		put16(f, 18, static_cast<std::uint16_t>(len - 54));
		f[20] = static_cast<unsigned char>(proto);
		f[21] = 64;
		inet_pton(AF_INET6, src6, f.data() + 22);
		inet_pton(AF_INET6, dst6, f.data() + 38);
		l4 = 54;
	}
	if (l4 != 0) {
		put16(f, l4, sport);
		put16(f, l4 + 2, dst_port);
	}
	return f;
}

std::vector<unsigned char> udp4(std::size_t len, std::uint32_t msg,
				std::uint16_t port = dport,
				const mac &dmac = dst_mac)
{
	return frame(dmac, false, IPPROTO_UDP, port, len, msg);
}

/* Post receive i (slot i of the buffer, len bytes). */
bool post_recv(raw_ep &e, std::uint64_t i, std::uint32_t len = slot)
{
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(e.buf.data() + i * slot),
		    len, e.mr->lkey};
	ibv_recv_wr wr{};
	ibv_recv_wr *bad = nullptr;
	wr.wr_id = i;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	REQUIRE(ibv_post_recv(e.qp.get(), &wr, &bad) == 0);
	return true;
}

/* The next completion of e is receive i of frame f, whole. */
bool expect_frame(const char *what, raw_ep &e, std::uint64_t i,
		  const std::vector<unsigned char> &f)
{
	const std::optional<ibv_wc> wc =
		expect_wc(what, e.cq.get(), i, IBV_WC_SUCCESS, IBV_WC_RECV);
	REQUIRE(wc.has_value());
	CHECK(wc->byte_len == f.size());
	CHECK(wc->qp_num == e.qp->qp_num);
	CHECK(std::memcmp(e.buf.data() + i * slot, f.data(), f.size()) == 0);
	return true;
}

/* ibv_create_flow() of b on qp fails with want. */
bool flow_refused(const char *what, ibv_qp *qp, flow_builder &b, int want)
{
	errno = 0;
	ibv_flow *f = ibv_create_flow(qp, b.attr());
	const int err = errno;
	if (f != nullptr) {
		ibv_destroy_flow(f);
		ktap::fail("%s: ibv_create_flow succeeded", what);
		return false;
	}
	EXPECT(err == want, "%s: errno %d, expected %d", what, err, want);
	ktap::note("ok: %s refused with errno %d", what, err);
	return true;
}

} /* namespace */

/* Send frame f as wr_id; its completion has status. */
bool send_frame(raw_ep &e, const std::vector<unsigned char> &f,
		std::uint64_t wr_id, ibv_wc_status status)
{
	REQUIRE(f.size() <= buf_len - send_off);
	std::memcpy(e.buf.data() + send_off, f.data(), f.size());
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(e.buf.data() + send_off),
		    static_cast<std::uint32_t>(f.size()), e.mr->lkey};
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;
	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	REQUIRE(ibv_post_send(e.qp.get(), &wr, &bad) == 0);
	REQUIRE(expect_wc("send", e.cq.get(), wr_id, status, IBV_WC_SEND)
			.has_value());
	return true;
}

bool create_flow(ibv_qp *qp, flow_builder &b, flow_ref &out)
{
	out.flow = ibv_create_flow(qp, b.attr());
	REQUIRE(out.flow != nullptr);
	return true;
}

bool check_loop(device &da, device & /*db*/)
{
	raw_ep client, server;
	flow_ref f1, f2;

	REQUIRE(make_raw(da, client));
	REQUIRE(make_raw(da, server));
	for (std::uint64_t i = 0; i < 4; i++)
		REQUIRE(post_recv(server, i));
	const long long rx0 = fresh_counter(da, "raw_rx");
	const long long tx0 = fresh_counter(da, "raw_tx");

	flow_builder b;
	b.eth(dst_mac, 0x0800);
	b.ipv4_dst(dst4);
	b.udp_dport(dport);
	REQUIRE(create_flow(server.qp.get(), b, f1));

	const std::vector<unsigned char> f = udp4(300, 1);
	REQUIRE(send_frame(client, f, 100));
	REQUIRE(expect_frame("the matching frame", server, 0, f));

	/* Another UDP port, another MAC, TCP: none matches. */
	REQUIRE(send_frame(client, udp4(300, 2, dport + 1), 101));
	REQUIRE(send_frame(client, udp4(300, 3, dport, other_mac), 102));
	REQUIRE(send_frame(client,
			   frame(dst_mac, false, IPPROTO_TCP, dport, 300, 4),
			   103));
	CHECK(no_wc("frames matching no flow", server.cq.get(), 300));

	/* A second flow of the same QP that matches too: one copy. */
	flow_builder b2;
	b2.eth(dst_mac, 0);
	REQUIRE(create_flow(server.qp.get(), b2, f2));
	const std::vector<unsigned char> g = udp4(1000, 5);
	REQUIRE(send_frame(client, g, 104));
	REQUIRE(expect_frame("a frame two flows of the QP match", server, 1,
			     g));
	CHECK(no_wc("a second copy", server.cq.get(), 300));
	/* Only the Ethernet flow matches a TCP frame. */
	const std::vector<unsigned char> t =
		frame(dst_mac, false, IPPROTO_TCP, dport, 200, 6);
	REQUIRE(send_frame(client, t, 105));
	REQUIRE(expect_frame("a TCP frame through the Ethernet flow", server, 2,
			     t));

	/* The flows gone, nothing arrives. */
	f1.reset();
	f2.reset();
	REQUIRE(send_frame(client, f, 106));
	CHECK(no_wc("a frame after the flows went", server.cq.get(), 300));
	CHECK(no_wc("the client (no flow)", client.cq.get(), 100));
	CHECK(counter_moved(da, "raw_rx", rx0 + 2));
	CHECK(fresh_counter(da, "raw_tx") >= tx0 + 7);
	return true;
}

bool check_wire(device &da, device &db)
{
	raw_ep client, server;
	flow_ref fl;

	REQUIRE(make_raw(da, client));
	REQUIRE(make_raw(db, server));
	for (std::uint64_t i = 0; i < 2; i++)
		REQUIRE(post_recv(server, i));
	flow_builder b;
	b.eth(dst_mac, 0x86dd);
	b.ipv6_dst(dst6);
	b.udp_dport(dport);
	REQUIRE(create_flow(server.qp.get(), b, fl));
	const long long rx0 = fresh_counter(db, "raw_rx");

	const std::vector<unsigned char> f =
		frame(dst_mac, true, IPPROTO_UDP, dport, 500, 7);
	REQUIRE(send_frame(client, f, 200));
	REQUIRE(expect_frame("an IPv6/UDP frame across the veth", server, 0,
			     f));
	CHECK(counter_moved(db, "raw_rx", rx0));
	REQUIRE(send_frame(client, udp4(500, 8), 201));
	CHECK(no_wc("an IPv4 frame", server.cq.get(), 300));
	return true;
}

bool check_length(device &da, device & /*db*/)
{
	raw_ep server;
	flow_ref fl;

	REQUIRE(make_raw(da, server));
	flow_builder b;
	b.eth(dst_mac, 0x0800);
	REQUIRE(create_flow(server.qp.get(), b, fl));

	struct {
		const char *what;
		std::size_t len;
		bool vlan;
		ibv_wc_status status;
	} const cases[] = {
		{"10 bytes", 10, false, IBV_WC_LOC_LEN_ERR},
		{"MTU + 15 bytes", netdev_mtu + 15, false, IBV_WC_LOC_LEN_ERR},
		{"MTU + 19 bytes with a VLAN tag", netdev_mtu + 19, true,
		 IBV_WC_LOC_LEN_ERR},
		{"MTU + 14 bytes", netdev_mtu + 14, false, IBV_WC_SUCCESS},
		{"MTU + 18 bytes with a VLAN tag", netdev_mtu + 18, true,
		 IBV_WC_SUCCESS},
	};
	for (const auto &c : cases) {
		raw_ep client;

		ktap::note("a frame of %s", c.what);
		REQUIRE(make_raw(da, client));
		std::vector<unsigned char> f = udp4(c.len, 9, dport, other_mac);
		if (c.vlan) {
			put16(f, 12, 0x8100);
			put16(f, 14, 5);
			put16(f, 16, 0x0800);
		}
		REQUIRE(send_frame(client, f, 300, c.status));
		if (c.status != IBV_WC_SUCCESS)
			CHECK(qp_state(client.qp.get()) == IBV_QPS_ERR);
	}

	/* A receive too short: IBV_WC_LOC_LEN_ERR, the QP goes on. */
	raw_ep client;
	REQUIRE(make_raw(da, client));
	REQUIRE(post_recv(server, 0, 64));
	REQUIRE(post_recv(server, 1));
	const std::vector<unsigned char> f = udp4(300, 10);
	REQUIRE(send_frame(client, f, 301));
	CHECK(expect_wc("a receive of 64 bytes", server.cq.get(), 0,
			IBV_WC_LOC_LEN_ERR, IBV_WC_RECV)
		      .has_value());
	CHECK(qp_state(server.qp.get()) == IBV_QPS_RTS);
	REQUIRE(send_frame(client, f, 302));
	REQUIRE(expect_frame("the next receive", server, 1, f));
	return true;
}

bool check_flow_bad(device &da, device & /*db*/)
{
	raw_ep e, client;
	REQUIRE(make_raw(da, e));
	REQUIRE(make_raw(da, client));

	/* A UD QP: uverbs passes it on, sroce steers only raw QPs. */
	ibv_qp_init_attr ia{};
	ia.send_cq = e.cq.get();
	ia.recv_cq = e.cq.get();
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_UD;
	qp_ptr ud(ibv_create_qp(e.pd.get(), &ia));
	REQUIRE(ud != nullptr);
	flow_builder b;
	b.eth(dst_mac, 0x0800);
	REQUIRE(flow_refused("a UD QP", ud.get(), b, EOPNOTSUPP));

	flow_builder sniffer(IBV_FLOW_ATTR_SNIFFER);
	REQUIRE(flow_refused("a sniffer flow", e.qp.get(), sniffer,
			     EOPNOTSUPP));
	flow_builder tag;
	tag.eth(dst_mac, 0x0800);
	ibv_flow_spec_action_tag t{};
	t.type = IBV_FLOW_SPEC_ACTION_TAG;
	t.size = sizeof(t);
	t.tag_id = 7;
	tag.add(t);
	REQUIRE(flow_refused("a tag action", e.qp.get(), tag, EOPNOTSUPP));
	flow_builder inner;
	ibv_flow_spec_eth ie{};
	ie.type = static_cast<ibv_flow_spec_type>(IBV_FLOW_SPEC_ETH |
						  IBV_FLOW_SPEC_INNER);
	ie.size = sizeof(ie);
	inner.add(ie);
	REQUIRE(flow_refused("an inner Ethernet spec", e.qp.get(), inner,
			     EOPNOTSUPP));
	flow_builder twice;
	twice.eth(dst_mac, 0x0800);
	twice.eth(dst_mac, 0x0800);
	REQUIRE(flow_refused("two Ethernet specs", e.qp.get(), twice,
			     EOPNOTSUPP));

	/* A frame without a receive: dropped and counted. */
	flow_ref fl;
	REQUIRE(create_flow(e.qp.get(), b, fl));
	const long long drops0 = fresh_counter(da, "raw_rx_drops");
	REQUIRE(send_frame(client, udp4(100, 11), 400));
	CHECK(counter_moved(da, "raw_rx_drops", drops0));
	CHECK(no_wc("no receive posted", e.cq.get(), 100));

	/* The core keeps a QP with flows. */
	errno = 0;
	const int ret = ibv_destroy_qp(e.qp.get());
	CHECK(ret == EBUSY);
	if (ret == 0)
		static_cast<void>(e.qp.release());
	fl.reset();
	return true;
}

bool check_unprivileged(device &da, device & /*db*/)
{
	if (geteuid() == 0) {
		ktap::skip(
			"runs without CAP_NET_RAW (tests/raw.sh: as nobody)");
		return true;
	}
	pd_ptr pd(ibv_alloc_pd(da.ctx.get()));
	REQUIRE(pd != nullptr);
	cq_ptr cq(ibv_create_cq(da.ctx.get(), 4, nullptr, nullptr, 0));
	REQUIRE(cq != nullptr);
	ibv_qp_init_attr ia{};
	ia.send_cq = cq.get();
	ia.recv_cq = cq.get();
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RAW_PACKET;
	errno = 0;
	qp_ptr raw(ibv_create_qp(pd.get(), &ia));
	const int err = errno;
	CHECK(raw == nullptr);
	EXPECT(err == EPERM, "errno %d, expected EPERM", err);
	ia.qp_type = IBV_QPT_UD;
	qp_ptr ud(ibv_create_qp(pd.get(), &ia));
	CHECK(ud != nullptr);
	return true;
}

} /* namespace rawtest */
