// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-xrctest - XRC between two RDMA devices, through the public
 * libibverbs API only, as tests/xrc.sh needs it.
 *
 *   sroce-xrctest DEV_A DEV_B CHECK|all
 *
 * One process opens both devices: an XRC INI QP on DEV_A sends to an XRC
 * TGT QP on DEV_B, whose receives come from the XRC SRQs of its domain
 * that each request names (xrc_side.h).  Each CHECK is a KTAP case
 * (ktap.h); the exit status is 0 when every case passed, 1 otherwise, 2
 * for a usage error.
 *
 *   two-srqs      SEND (one packet and several) and RDMA WRITE with
 *                 immediate (ibv_post_send and the ibv_wr_*() API) through
 *                 one INI QP to two SRQs: each lands on its own SRQ's CQ
 *                 with the TGT QP's number, the data where it belongs
 *   read-atomic   RDMA READ of several packets, fetch-and-add and
 *                 compare-and-swap, checked against the SRQ's PD
 *   bad-srqn      a request naming no SRQ: NAK, the INI WQE completes with
 *                 IBV_WC_REM_INV_REQ_ERR, the INI QP is in ERROR, no SRQ
 *                 received anything
 *   other-xrcd    a request naming an SRQ of another domain: the same
 *   tgt-lifetime  a TGT QP created by one context (closed at once with all
 *                 it had, as a process exits) lives on while another
 *                 context has it open (ibv_open_qp) and receives into that
 *                 context's SRQ; it goes with its last handle
 *   bad-input     what the verbs refuse
 *   all           every check above, in turn
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#include <cerrno>
#include <endian.h>
#include <cinttypes>
#include <cstring>
#include <fcntl.h>

#include "check_main.h"
#include "completion.h"
#include "ktap.h"
#include "xrc_side.h"

namespace {

using namespace verbs_util;
using namespace xrctest;

void describe(const device &d)
{
	ktap::note("%s: GID index %d, XRC %s", d.name.c_str(), d.gid_index,
		   (d.attr.device_cap_flags & IBV_DEVICE_XRC) != 0 ? "yes"
								   : "no");
}

/* The INI QP and the TGT QP with nsrq SRQs, connected. */
bool setup(initiator &ini, target &tgt, device &a, device &b, int nsrq)
{
	return make_initiator(ini, a) && make_target(tgt, b, nsrq) &&
	       tgt_to_rtr(tgt.qp.get(), ini.qp->qp_num, b, a) &&
	       ini_to_rts(ini.qp.get(), tgt.qp->qp_num, a, b);
}

/* The next completion of s: wr_id slot, opcode, len bytes, imm. */
bool received(const target &tgt, const xsrq &s, std::uint32_t slot,
	      ibv_wc_opcode opcode, std::uint32_t len, std::uint32_t imm)
{
	const std::optional<ibv_wc> wc = expect_wc(
		"XRC SRQ receive", s.cq.get(), slot, IBV_WC_SUCCESS, opcode);

	if (!wc)
		return false;
	EXPECT(wc->byte_len == len, "byte_len %u, expected %u", wc->byte_len,
	       len);
	EXPECT(wc->qp_num == tgt.qp->qp_num, "qp_num %#x, expected TGT QP %#x",
	       wc->qp_num, tgt.qp->qp_num);
	EXPECT(opcode == IBV_WC_RECV ||
		       ((wc->wc_flags & IBV_WC_WITH_IMM) != 0 &&
			be32toh(wc->imm_data) == imm),
	       "immediate data %#x flags %#x, expected %#x",
	       be32toh(wc->imm_data), wc->wc_flags, imm);
	return true;
}

bool sent(initiator &ini, std::uint64_t wr_id, ibv_wc_opcode opcode)
{
	return expect_wc("INI completion", ini.cq.get(), wr_id, IBV_WC_SUCCESS,
			 opcode)
		.has_value();
}

/* Bytes [off, off + len) of the target's buffer are message msg's. */
bool landed(const target &tgt, std::size_t off, std::size_t len,
	    std::uint32_t msg)
{
	const long bad = mismatch(tgt.buf.data() + off, len, msg);

	EXPECT(bad < 0, "target byte %ld of message %u differs", bad, msg);
	return true;
}

bool check_two_srqs(device &a, device &b)
{
	initiator ini;
	target tgt;

	if (!setup(ini, tgt, a, b, 2))
		return false;
	xsrq &s0 = tgt.srqs[0];
	xsrq &s1 = tgt.srqs[1];
	for (std::uint32_t slot = 0; slot < 2; ++slot) {
		REQUIRE(post_xrecv(tgt, s0, slot) == 0);
		REQUIRE(post_xrecv(tgt, s1, 2 + slot) == 0);
	}
	fill(ini.buf.data(), slot_size, 1);
	fill(ini.buf.data() + slot_size, slot_size, 2);
	fill(ini.buf.data() + 2 * slot_size, slot_size, 3);
	fill(ini.buf.data() + 3 * slot_size, slot_size, 4);
	/* One packet to s0, four packets to s1. */
	REQUIRE(post_xsend(ini, 1, IBV_WR_SEND, s0.num, 0, 100) == 0);
	REQUIRE(post_xsend(ini, 2, IBV_WR_SEND, s1.num, 1, 4000) == 0);
	if (!sent(ini, 1, IBV_WC_SEND) || !sent(ini, 2, IBV_WC_SEND) ||
	    !received(tgt, s0, 0, IBV_WC_RECV, 100, 0) ||
	    !received(tgt, s1, 2, IBV_WC_RECV, 4000, 0) ||
	    !landed(tgt, 0, 100, 1) || !landed(tgt, 2 * slot_size, 4000, 2))
		return false;

	/* WRITE with immediate: to s1 by ibv_post_send, to s0 by ibv_wr_*. */
	REQUIRE(post_xsend(ini, 3, IBV_WR_RDMA_WRITE_WITH_IMM, s1.num, 2, 3000,
			   &tgt, 5, 0xabc001) == 0);
	ibv_qp_ex *qpx = ibv_qp_to_qp_ex(ini.qp.get());
	REQUIRE(qpx != nullptr);
	ibv_wr_start(qpx);
	qpx->wr_id = 4;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, tgt.mr->rkey, tgt.addr(6 * slot_size),
			      htobe32(0xabc002));
	ibv_wr_set_xrc_srqn(qpx, s0.num);
	ibv_wr_set_sge(qpx, ini.mr->lkey, ini.addr(3 * slot_size), 2000);
	REQUIRE(ibv_wr_complete(qpx) == 0);
	if (!sent(ini, 3, IBV_WC_RDMA_WRITE) ||
	    !sent(ini, 4, IBV_WC_RDMA_WRITE) ||
	    !received(tgt, s1, 3, IBV_WC_RECV_RDMA_WITH_IMM, 3000, 0xabc001) ||
	    !received(tgt, s0, 1, IBV_WC_RECV_RDMA_WITH_IMM, 2000, 0xabc002) ||
	    !landed(tgt, 5 * slot_size, 3000, 3) ||
	    !landed(tgt, 6 * slot_size, 2000, 4))
		return false;
	/* Each receive on its own SRQ's CQ, nothing more. */
	return no_wc("SRQ 0", s0.cq.get(), 100) &&
	       no_wc("SRQ 1", s1.cq.get(), 100) &&
	       no_wc("INI", ini.cq.get(), 100);
}

bool check_read_atomic(device &a, device &b)
{
	initiator ini;
	target tgt;

	if (!setup(ini, tgt, a, b, 1))
		return false;
	const std::uint32_t srqn = tgt.srqs[0].num;
	fill(tgt.buf.data(), 5000, 7);
	REQUIRE(post_xsend(ini, 1, IBV_WR_RDMA_READ, srqn, 0, 5000, &tgt, 0) ==
		0);
	if (!sent(ini, 1, IBV_WC_RDMA_READ))
		return false;
	EXPECT(mismatch(ini.buf.data(), 5000, 7) < 0, "READ: byte %ld differs",
	       mismatch(ini.buf.data(), 5000, 7));

	unsigned char *word = tgt.buf.data() + slot_size;
	store64(word, 1000);
	ibv_sge sge{ini.addr(slot_size), 8, ini.mr->lkey};
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;
	wr.wr_id = 2;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.qp_type.xrc.remote_srqn = srqn;
	wr.wr.atomic.remote_addr = tgt.addr(slot_size);
	wr.wr.atomic.rkey = tgt.mr->rkey;
	wr.wr.atomic.compare_add = 234;
	REQUIRE(ibv_post_send(ini.qp.get(), &wr, &bad) == 0);
	if (!sent(ini, 2, IBV_WC_FETCH_ADD))
		return false;
	EXPECT(load64(ini.buf.data() + slot_size) == 1000 &&
		       load64(word) == 1234,
	       "fetch-and-add: returned %" PRIu64 ", target %" PRIu64,
	       load64(ini.buf.data() + slot_size), load64(word));
	wr.wr_id = 3;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 1234;
	wr.wr.atomic.swap = 0x5eed;
	REQUIRE(ibv_post_send(ini.qp.get(), &wr, &bad) == 0);
	if (!sent(ini, 3, IBV_WC_COMP_SWAP))
		return false;
	EXPECT(load64(ini.buf.data() + slot_size) == 1234 &&
		       load64(word) == 0x5eed,
	       "compare-and-swap: returned %" PRIu64 ", target %#" PRIx64,
	       load64(ini.buf.data() + slot_size), load64(word));
	return no_wc("SRQ", tgt.srqs[0].cq.get(), 100);
}

/*
 * A SEND naming srqn is refused by the target: the INI WQE completes with
 * IBV_WC_REM_INV_REQ_ERR and the INI QP is in ERROR; watch receives
 * nothing.
 */
bool refused(initiator &ini, std::uint32_t srqn, xsrq &watch)
{
	REQUIRE(post_xsend(ini, 9, IBV_WR_SEND, srqn, 0, 64) == 0);
	if (!expect_wc("INI completion", ini.cq.get(), 9,
		       IBV_WC_REM_INV_REQ_ERR, IBV_WC_SEND))
		return false;
	const ibv_qp_state st = qp_state(ini.qp.get());
	EXPECT(st == IBV_QPS_ERR, "INI QP in %s, expected ERR",
	       qp_state_str(st));
	return no_wc("the SRQ", watch.cq.get(), 200);
}

bool check_bad_srqn(device &a, device &b)
{
	initiator ini;
	target tgt;

	if (!setup(ini, tgt, a, b, 1))
		return false;
	REQUIRE(post_xrecv(tgt, tgt.srqs[0], 0) == 0);
	/*
	 * No SRQ has the number of one destroyed: it does not come back
	 * before 2^24 others were handed out (drivers/sroce/ident.c).
	 */
	std::uint32_t gone = 0;
	{
		xsrq s;
		if (!make_xsrq(s, b.ctx.get(), tgt.pd.get(),
			       tgt.dom.xrcd.get()))
			return false;
		gone = s.num;
	}
	return refused(ini, gone, tgt.srqs[0]);
}

bool check_other_xrcd(device &a, device &b)
{
	initiator ini;
	target tgt;
	domain other;
	xsrq foreign;

	if (!setup(ini, tgt, a, b, 1) || !open_domain(other, b.ctx.get()) ||
	    !make_xsrq(foreign, b.ctx.get(), tgt.pd.get(), other.xrcd.get()))
		return false;
	REQUIRE(post_xrecv(tgt, foreign, 0) == 0);
	return refused(ini, foreign.num, foreign);
}

bool check_tgt_lifetime(device &a, device &b)
{
	initiator ini;
	REQUIRE(make_initiator(ini, a));

	/* The creator: a context of its own, closed with everything in it. */
	context_ptr creator(open_context(b.name.c_str()));
	REQUIRE(creator != nullptr);
	domain dom;
	if (!open_domain(dom, creator.get()))
		return false;
	ibv_qp *tgt_qp = create_tgt_qp(creator.get(), dom.xrcd.get());
	REQUIRE(tgt_qp != nullptr);
	const std::uint32_t qpn = tgt_qp->qp_num;
	if (!tgt_to_rtr(tgt_qp, ini.qp->qp_num, b, a))
		return false;

	/* The opener: the same domain (same file), the QP, an SRQ. */
	ibv_xrcd_init_attr xa{};
	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = dom.fd;
	xa.oflags = 0;
	xrcd_ptr xrcd(ibv_open_xrcd(b.ctx.get(), &xa));
	REQUIRE(xrcd != nullptr);
	ibv_qp_open_attr oa{};
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = qpn;
	oa.qp_type = IBV_QPT_XRC_RECV;
	oa.xrcd = xrcd.get();
	qp_ptr opened(ibv_open_qp(b.ctx.get(), &oa));
	REQUIRE(opened != nullptr);
	target tgt;
	tgt.dev = &b;
	tgt.pd.reset(ibv_alloc_pd(b.ctx.get()));
	REQUIRE(tgt.pd != nullptr);
	tgt.srqs.resize(1);
	if (!make_xsrq(tgt.srqs[0], b.ctx.get(), tgt.pd.get(), xrcd.get()))
		return false;
	tgt.buf.assign(buf_size, 0);
	tgt.mr.reset(ibv_reg_mr(tgt.pd.get(), tgt.buf.data(), tgt.buf.size(),
				acc_lw));
	REQUIRE(tgt.mr != nullptr);
	tgt.qp = std::move(opened);

	/*
	 * The creator goes as a process exiting would: its file closed with
	 * its handles of the QP and the domain still in it (their user-space
	 * memory is left behind on purpose).
	 */
	dom.xrcd.release();
	creator.reset();
	ktap::note("the creating context is closed; TGT QP %#x opened here",
		   qpn);
	REQUIRE(ini_to_rts(ini.qp.get(), qpn, a, b, 10, 1));
	REQUIRE(post_xrecv(tgt, tgt.srqs[0], 0) == 0);
	fill(ini.buf.data(), 512, 5);
	REQUIRE(post_xsend(ini, 1, IBV_WR_SEND, tgt.srqs[0].num, 0, 512) == 0);
	if (!sent(ini, 1, IBV_WC_SEND) ||
	    !received(tgt, tgt.srqs[0], 0, IBV_WC_RECV, 512, 0) ||
	    !landed(tgt, 0, 512, 5))
		return false;

	/* The last handle closed: the QP is gone. */
	tgt.qp.reset();
	errno = 0;
	qp_ptr again(ibv_open_qp(b.ctx.get(), &oa));
	EXPECT(again == nullptr,
	       "TGT QP %#x opened again after its last handle", qpn);
	ktap::note("ok: ibv_open_qp of the closed TGT QP fails: %s",
		   std::strerror(errno));
	REQUIRE(post_xrecv(tgt, tgt.srqs[0], 1) == 0);
	REQUIRE(post_xsend(ini, 2, IBV_WR_SEND, tgt.srqs[0].num, 0, 64) == 0);
	if (!expect_wc("INI completion to a QP that is gone", ini.cq.get(), 2,
		       IBV_WC_RETRY_EXC_ERR, IBV_WC_SEND))
		return false;
	return no_wc("the SRQ", tgt.srqs[0].cq.get(), 100);
}

bool check_bad_input(device &a, device &b)
{
	initiator ini;
	target tgt;

	if (!make_initiator(ini, a) || !make_target(tgt, b, 1))
		return false;
	ibv_context *ctx = b.ctx.get();

	ibv_qp_init_attr_ex qa{};
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = tgt.pd.get();
	qp_ptr q(ibv_create_qp_ex(ctx, &qa));
	EXPECT(q == nullptr, "XRC TGT QP without a domain created");
	qa = ibv_qp_init_attr_ex{};
	qa.qp_type = IBV_QPT_XRC_SEND;
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qa.xrcd = tgt.dom.xrcd.get();
	qa.send_cq = tgt.srqs[0].cq.get();
	qa.cap.max_send_wr = 1;
	q.reset(ibv_create_qp_ex(ctx, &qa));
	EXPECT(q == nullptr, "XRC INI QP without a PD created");
	ktap::note("ok: XRC QPs without their domain or PD refused");

	ibv_sge sge{ini.addr(0), 8, ini.mr->lkey};
	ibv_recv_wr rwr{};
	ibv_recv_wr *rbad = nullptr;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	REQUIRE(to_init(ini.qp.get(), 0) == 0);
	REQUIRE(to_init(tgt.qp.get(), acc_rw) == 0);
	EXPECT(ibv_post_recv(ini.qp.get(), &rwr, &rbad) != 0,
	       "post_recv on an INI QP accepted");
	EXPECT(ibv_post_recv(tgt.qp.get(), &rwr, &rbad) != 0,
	       "post_recv on a TGT QP accepted");
	ibv_send_wr swr{};
	ibv_send_wr *sbad = nullptr;
	swr.opcode = IBV_WR_SEND;
	EXPECT(ibv_post_send(tgt.qp.get(), &swr, &sbad) != 0,
	       "post_send on a TGT QP accepted");
	ktap::note("ok: no receive queue on XRC QPs, no send queue on TGT");

	ibv_srq_init_attr sia{};
	sia.attr.max_wr = 4;
	sia.attr.max_sge = 1;
	srq_ptr basic(ibv_create_srq(tgt.pd.get(), &sia));
	REQUIRE(basic != nullptr);
	std::uint32_t num = 0;
	EXPECT(ibv_get_srq_num(basic.get(), &num) != 0,
	       "a basic SRQ has number %u", num);
	ibv_srq_init_attr_ex xa{};
	xa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_XRCD;
	xa.srq_type = IBV_SRQT_XRC;
	xa.pd = tgt.pd.get();
	xa.xrcd = tgt.dom.xrcd.get();
	xa.attr.max_wr = 4;
	xa.attr.max_sge = 1;
	srq_ptr nocq(ibv_create_srq_ex(ctx, &xa));
	EXPECT(nocq == nullptr, "XRC SRQ without a CQ created");
	ktap::note("ok: no number for a basic SRQ, no XRC SRQ without CQ");

	const int ret = ibv_close_xrcd(tgt.dom.xrcd.get());
	EXPECT(ret == EBUSY, "closing a domain in use: %d (%s), expected EBUSY",
	       ret, std::strerror(ret));
	ibv_qp_open_attr oa{};
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = ini.qp->qp_num; /* no TGT QP of the domain */
	oa.qp_type = IBV_QPT_XRC_RECV;
	oa.xrcd = tgt.dom.xrcd.get();
	qp_ptr opened(ibv_open_qp(ctx, &oa));
	EXPECT(opened == nullptr, "opened QP %#x, not a TGT QP of the domain",
	       oa.qp_num);
	ktap::note("ok: a domain in use stays; no QP outside it opens");
	return true;
}

constexpr check checks[] = {
	{"two-srqs", check_two_srqs},
	{"read-atomic", check_read_atomic},
	{"bad-srqn", check_bad_srqn},
	{"other-xrcd", check_other_xrcd},
	{"tgt-lifetime", check_tgt_lifetime},
	{"bad-input", check_bad_input},
};

} /* namespace */

int main(int argc, char **argv)
{
	return check_main(argc, argv, checks, describe);
}
