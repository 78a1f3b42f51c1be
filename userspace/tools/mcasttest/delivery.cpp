// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * delivery.cpp - sroce-mcasttest's checks of multicast delivery:
 *
 *   mcast       UD multicast over an IPv4 group: A sends with the
 *               multicast QPN, two QPs of B and a second QP of A get
 *               each datagram (GRH destination the group), the sender
 *               does not (mcast_self_skips), a QP with another Q_Key or
 *               without a receive drops its copy, a detached QP gets
 *               nothing; a unicast QPN to the group and the multicast
 *               QPN to a unicast address are dropped (rx_drop_mcast)
 *   mcast6      the same over an IPv6 group (ff02::5e:7:1) from the
 *               devices' link-local GIDs
 */
#include <cstdint>
#include <cstring>
#include <optional>

#include "completion.h"
#include "ktap.h"
#include "mcasttest.h"
#include "qp_pair.h"

namespace mcasttest {

using namespace verbs_util;

namespace {

constexpr std::uint32_t mcast_qpn = 0xffffff;

/* An AH on e's PD to the group mgid, from e's GID sgid_index. */
ibv_ah *make_mcast_ah(endpoint &e, const ibv_gid &mgid, int sgid_index)
{
	ibv_ah_attr a{};

	a.is_global = 1;
	a.grh.dgid = mgid;
	a.grh.sgid_index = static_cast<std::uint8_t>(sgid_index);
	a.grh.hop_limit = 8;
	a.port_num = 1;
	return ibv_create_ah(e.pd, &a);
}

/*
 * e's next receive is the datagram msg of len bytes that QP src sent to
 * the IPv4 group mgid (the GRH's destination).
 */
bool expect_mcast(const char *what, endpoint &e, std::uint64_t wr_id,
		  std::uint32_t src, const ibv_gid &mgid, std::uint32_t len,
		  std::uint32_t msg)
{
	const std::optional<ibv_wc> wc =
		expect_wc(what, e.rcq, wr_id, IBV_WC_SUCCESS, IBV_WC_RECV);
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
	ktap::note("group %s: A's QPs %u (sender) and %u, B's %u, %u and "
		   "%u (another Q_Key) attached",
		   gid_str(mgid).c_str(), a.qp->qp_num, a2.qp->qp_num,
		   b1.qp->qp_num, b2.qp->qp_num, b3.qp->qp_num);
	for (endpoint *e : {&a, &a2, &b1, &b2, &b3})
		REQUIRE(ibv_attach_mcast(e->qp.get(), &mgid, 0) == 0);
	ah_ptr ah(make_mcast_ah(a, mgid, a_gid_index));
	REQUIRE(ah != nullptr);
	const std::uint32_t src = a.qp->qp_num;

	ktap::note("one datagram reaches every attached QP but the sender");
	const long long self_before = fresh_counter(da, "mcast_self_skips");
	const long long qkey_before = fresh_counter(db, "qkey_drops");
	const long long rx_before = fresh_counter(db, "rx_mcast");
	for (endpoint *e : {&a, &a2, &b1, &b2, &b3})
		REQUIRE(post_recv(*e, 1, 0, 4096 + grh_len) == 0);
	fill(a.buf.data(), 200, 1);
	REQUIRE(post_ud(a, 1, ah.get(), mcast_qpn, ud_qkey, 0, 200) == 0);
	REQUIRE(expect_wc("A send", a.scq, 1, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_mcast("B1 receive", b1, 1, src, mgid, 200, 1));
	REQUIRE(expect_mcast("B2 receive", b2, 1, src, mgid, 200, 1));
	REQUIRE(expect_mcast("A2 receive (loopback)", a2, 1, src, mgid, 200,
			     1));
	no_wc("B3 (another Q_Key)", b3.rcq, 300);
	no_wc("A, the sender", a.rcq, 300);
	counter_moved(db, "qkey_drops", qkey_before);
	counter_moved(db, "rx_mcast", rx_before);
	counter_moved(da, "mcast_self_skips", self_before);

	ktap::note("B2 has no receive posted: B1 gets the next one");
	const long long norecv_before = fresh_counter(db, "no_recv_drops");
	fill(a.buf.data(), 64, 2);
	REQUIRE(post_recv(b1, 2, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(a2, 2, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 2, ah.get(), mcast_qpn, ud_qkey, 0, 64) == 0);
	REQUIRE(expect_wc("A send", a.scq, 2, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_mcast("B1 receive", b1, 2, src, mgid, 64, 2));
	REQUIRE(expect_mcast("A2 receive", a2, 2, src, mgid, 64, 2));
	counter_moved(db, "no_recv_drops", norecv_before);

	ktap::note("B1 detached: only B2 gets the next one");
	REQUIRE(ibv_detach_mcast(b1.qp.get(), &mgid, 0) == 0);
	REQUIRE(post_recv(b1, 3, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(b2, 3, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(a2, 3, 0, 4096 + grh_len) == 0);
	fill(a.buf.data(), 100, 3);
	REQUIRE(post_ud(a, 3, ah.get(), mcast_qpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 3, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_mcast("B2 receive", b2, 3, src, mgid, 100, 3));
	REQUIRE(expect_mcast("A2 receive", a2, 3, src, mgid, 100, 3));
	no_wc("B1 (detached)", b1.rcq, 300);

	ktap::note("a unicast QPN to the group address: dropped");
	long long drop_before = fresh_counter(db, "rx_drop_mcast");
	REQUIRE(post_ud(a, 4, ah.get(), b2.qp->qp_num, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 4, IBV_WC_SUCCESS, IBV_WC_SEND));
	no_wc("B2, unicast QPN to a group", b2.rcq, 300);
	counter_moved(db, "rx_drop_mcast", drop_before);

	if (is_v4_mapped(mgid)) {
		ktap::note("the multicast QPN to B's unicast address: "
			   "dropped");
		drop_before = fresh_counter(db, "rx_drop_mcast");
		ah_ptr uah(make_ah(a.pd, a, b2.dev->gid));
		REQUIRE(uah != nullptr);
		REQUIRE(post_ud(a, 5, uah.get(), mcast_qpn, ud_qkey, 0, 100) ==
			0);
		REQUIRE(expect_wc("A send", a.scq, 5, IBV_WC_SUCCESS,
				  IBV_WC_SEND));
		no_wc("B2, multicast QPN to a unicast address", b2.rcq, 300);
		counter_moved(db, "rx_drop_mcast", drop_before);
	}

	ktap::note("all of B detached: nothing reaches B");
	REQUIRE(ibv_detach_mcast(b2.qp.get(), &mgid, 0) == 0);
	REQUIRE(ibv_detach_mcast(b3.qp.get(), &mgid, 0) == 0);
	REQUIRE(post_recv(b3, 6, 0, 4096 + grh_len) == 0);
	REQUIRE(post_recv(a2, 6, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 6, ah.get(), mcast_qpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 6, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_mcast("A2 receive", a2, 6, src, mgid, 100, 3));
	no_wc("B1", b1.rcq, 100);
	no_wc("B2", b2.rcq, 100);
	no_wc("B3", b3.rcq, 100);

	for (endpoint *e : {&a, &a2})
		REQUIRE(ibv_detach_mcast(e->qp.get(), &mgid, 0) == 0);
	return true;
}

} /* namespace */

bool check_mcast(device &da, device &db)
{
	return mcast_delivery(da, db, v4_gid(239, 7, 7, 1), da.gid_index);
}

bool check_mcast6(device &da, device &db)
{
	ibv_gid ga{}, gb{}, mgid{};
	const int ia = find_roce_gid(da, false, &ga);

	REQUIRE(ia >= 0);
	REQUIRE(find_roce_gid(db, false, &gb) >= 0);
	ktap::note("A's IPv6 GID %d %s", ia, gid_str(ga).c_str());
	/* ff02::5e:7:1, link-local scope */
	mgid.raw[0] = 0xff;
	mgid.raw[1] = 0x02;
	mgid.raw[11] = 0x5e;
	mgid.raw[13] = 7;
	mgid.raw[15] = 1;
	return mcast_delivery(da, db, mgid, ia);
}

} /* namespace mcasttest */
