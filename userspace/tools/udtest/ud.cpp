// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ud.cpp - sroce-udtest's check of UD QPs:
 *
 *   ud          UD QPs with address handles: the GRH (the IPv4 header) in
 *               the first 40 bytes, source QP, immediate data; a wrong
 *               Q_Key and a missing receive drop the datagram (counted by
 *               sroce's qkey_drops / no_recv_drops when the device has
 *               them); a Q_Key with the high bit set means the sender
 *               QP's own; a receive too small completes with
 *               IBV_WC_LOC_LEN_ERR and the QP works on; an AH of another
 *               PD or a message above the MTU fails the send locally; an
 *               AH to a GID nobody answers for is refused
 */
#include <arpa/inet.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unistd.h>

#include "completion.h"
#include "ktap.h"
#include "qp_pair.h"
#include "udtest.h"

namespace udtest {

using namespace verbs_util;

/* ---- ud ----------------------------------------------------------------------- */

namespace {

/*
 * B's next receive is message msg of len bytes from A: the GRH holds
 * A's and B's IPv4 addresses, the source QP is A's.
 */
bool expect_datagram(endpoint &a, endpoint &b, std::uint64_t wr_id,
		     std::size_t off, std::uint32_t len, std::uint32_t msg,
		     std::optional<std::uint32_t> imm = std::nullopt)
{
	const std::optional<ibv_wc> wc = expect_wc("B receive", b.rcq, wr_id,
						   IBV_WC_SUCCESS, IBV_WC_RECV);
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

} /* namespace */
bool check_ud(device &da, device &db)
{
	endpoint a, b;
	const std::uint32_t mtu = 128U << da.port.active_mtu;

	REQUIRE(make_ud(a, da, ud_qkey));
	REQUIRE(make_ud(b, db, ud_qkey));
	ah_ptr ah(make_ah(a.pd, a, b.dev->gid));
	REQUIRE(ah != nullptr);
	const std::uint32_t bqpn = b.qp->qp_num;

	ktap::note("a datagram of 100 bytes, then one of the MTU (%u)", mtu);
	fill(a.buf.data(), 100, 1);
	REQUIRE(post_recv(b, 1, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 1, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 1, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 1, 0, 100, 1));
	fill(a.buf.data(), mtu, 2);
	REQUIRE(post_recv(b, 2, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 2, ah.get(), bqpn, ud_qkey, 0, mtu) == 0);
	REQUIRE(expect_wc("A send", a.scq, 2, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 2, 0, mtu, 2));

	ktap::note("SEND_WITH_IMM of 0 and 8 bytes");
	REQUIRE(post_recv(b, 3, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 3, ah.get(), bqpn, ud_qkey, 0, 0,
			IBV_WR_SEND_WITH_IMM, htonl(0xabcd0123)) == 0);
	REQUIRE(expect_wc("A send", a.scq, 3, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 3, 0, 0, 3, 0xabcd0123));
	fill(a.buf.data(), 8, 4);
	REQUIRE(post_recv(b, 4, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 4, ah.get(), bqpn, ud_qkey, 0, 8,
			IBV_WR_SEND_WITH_IMM, htonl(7)) == 0);
	REQUIRE(expect_wc("A send", a.scq, 4, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 4, 0, 8, 4, 7));

	ktap::note("a wrong Q_Key: dropped, the receive stays posted");
	long long before = hw_counter(db, "qkey_drops");
	REQUIRE(post_recv(b, 5, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 5, ah.get(), bqpn, ud_qkey + 1, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 5, IBV_WC_SUCCESS, IBV_WC_SEND));
	no_wc("B, datagram with a wrong Q_Key", b.rcq, 300);
	counter_moved(db, "qkey_drops", before, false);

	ktap::note("Q_Key 0x80000000: the sender QP's own Q_Key is used");
	fill(a.buf.data(), 64, 6);
	REQUIRE(post_ud(a, 6, ah.get(), bqpn, 0x80000000U, 0, 64) == 0);
	REQUIRE(expect_wc("A send", a.scq, 6, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 5, 0, 64, 6));

	ktap::note("a receive too small: IBV_WC_LOC_LEN_ERR, B works on");
	REQUIRE(post_recv(b, 7, 0, grh_len + 10) == 0);
	REQUIRE(post_ud(a, 7, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 7, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_wc("B receive", b.rcq, 7, IBV_WC_LOC_LEN_ERR,
			  IBV_WC_RECV));
	CHECK(qp_state(b.qp.get()) == IBV_QPS_RTS);
	fill(a.buf.data(), 100, 8);
	REQUIRE(post_recv(b, 8, 0, 4096 + grh_len) == 0);
	REQUIRE(post_ud(a, 8, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 8, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 8, 0, 100, 8));

	ktap::note("no receive posted: dropped, not kept for later");
	before = hw_counter(db, "no_recv_drops");
	REQUIRE(post_ud(a, 9, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 9, IBV_WC_SUCCESS, IBV_WC_SEND));
	usleep(static_cast<useconds_t>(300000 * scale));
	REQUIRE(post_recv(b, 9, 0, 4096 + grh_len) == 0);
	no_wc("B, datagram that found no receive", b.rcq, 300);
	counter_moved(db, "no_recv_drops", before, false);

	/*
	 * B's subnet, an address nobody holds (B's last byte plus 100): the
	 * core resolves the destination MAC before sroce sees the AH, finds
	 * no neighbour and fails ibv_create_ah after its 1 s timeout.
	 */
	ktap::note("an AH to a GID nobody answers for: refused, A works on");
	ibv_gid ghost = b.dev->gid;
	ghost.raw[15] = static_cast<std::uint8_t>(ghost.raw[15] + 100);
	errno = 0;
	ibv_ah *bad_ah = make_ah(a.pd, a, ghost);
	const int ah_errno = errno;
	ktap::note("ibv_create_ah: %s (errno %d %s)",
		   bad_ah != nullptr ? "created" : "refused", ah_errno,
		   std::strerror(ah_errno));
	if (bad_ah != nullptr)
		ibv_destroy_ah(bad_ah);
	CHECK(bad_ah == nullptr);
	CHECK(ah_errno != 0);
	/* B's receive 9, posted above, takes it. */
	fill(a.buf.data(), 100, 12);
	REQUIRE(post_ud(a, 12, ah.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 12, IBV_WC_SUCCESS, IBV_WC_SEND));
	REQUIRE(expect_datagram(a, b, 9, 0, 100, 12));

	ktap::note("an AH of another PD: IBV_WC_LOC_QP_OP_ERR");
	pd_ptr pd2(ibv_alloc_pd(da.ctx.get()));
	REQUIRE(pd2 != nullptr);
	ah_ptr ah2(make_ah(pd2.get(), a, b.dev->gid));
	REQUIRE(ah2 != nullptr);
	REQUIRE(post_ud(a, 10, ah2.get(), bqpn, ud_qkey, 0, 100) == 0);
	REQUIRE(expect_wc("A send", a.scq, 10, IBV_WC_LOC_QP_OP_ERR,
			  IBV_WC_SEND));
	no_wc("B, the send that failed", b.rcq, 300);

	ktap::note("a message above the MTU: IBV_WC_LOC_LEN_ERR");
	REQUIRE(to_state(a.qp.get(), IBV_QPS_RESET) == 0);
	REQUIRE(ud_ready(a));
	REQUIRE(post_ud(a, 11, ah.get(), bqpn, ud_qkey, 0, mtu + 1) == 0);
	REQUIRE(expect_wc("A send", a.scq, 11, IBV_WC_LOC_LEN_ERR,
			  IBV_WC_SEND));
	no_wc("B, the send that failed", b.rcq, 300);
	return true;
}

} /* namespace udtest */
