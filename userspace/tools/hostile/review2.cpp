// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * review2.cpp - the second review round's findings (issue #34) that
 * sroce-hostile checks.
 *
 * r2-privileged-qkey (finding 9): a Q_Key with its high bit set is a
 * privileged one (IBTA 10.2.4; the GSI's 0x80010000 among them), and a
 * UD send whose work request names a Q_Key with that bit takes the QP's
 * own (req_fetch.c).  A process that could give its QP a privileged
 * Q_Key could so send as the kernel's CM does.  Debian's 6.1 core
 * refuses it in modify_qp() to a process without CAP_NET_RAW (uverbs_cmd.c,
 * rdma_nl_get_privileged_qkey(), upstream "RDMA/uverbs: Restrict usage of
 * privileged QKEYs"), before sroce sees the attribute: the check shows
 * that, and that the unprivileged Q_Key next to it is taken.
 * tests/hostile.sh runs it as root and without CAP_NET_RAW.
 *
 * r2-responder-yields (finding 4): a READ of 8 MiB at path MTU 1024,
 * forged from A's address at B's next PSN.  B's output sends 32
 * responses from softirq and the other 8160 from the QP's work item,
 * which must queue itself again every 128 packets (resp_yields) rather
 * than hold its CPU's workqueue, and every other work item there, for
 * the whole READ (before the fix it looped until the READ was sent).
 *
 * r2-read-2g-mtu256 (finding 12): a READ of 2^31 bytes, the largest
 * message, at path MTU 256 takes 2^23 response PSNs: exactly the half of
 * the PSN space that lies before the expected PSN after it, so every one
 * of them is still a duplicate of it (IBTA 9.7.5.1.1), and rdma_rxe
 * takes it.  Forged from A's address, into a region of 2 GiB with remote
 * read access (16 MiB mapped 128 times: struct mapping), B's responder must
 * accept it and stream responses; the QP is reset after the first
 * thousands (the whole READ would take hours under TCG).  Before the fix
 * it was refused with an invalid-request NAK and the QP went to ERROR.
 *
 * r2-xrc-srq-gone (finding 7): an XRC TGT QP of B receives a SEND_FIRST
 * forged from A's address into XRC SRQ X; X and its CQ are destroyed and
 * a new SRQ Y made in the same domain; then the SEND_LAST naming X.  It
 * must be refused (B's TGT QP in ERROR) and complete on nothing: not on
 * Y's CQ, whether by the packet or by the flush of the receive X gave.
 * A guard, not a demonstration: the bug needed X's number reused, which
 * takes about 2^24 creations, so this passes on main's driver too.
 */
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "completion.h"
#include "hostile.h"
#include "ktap.h"
#include "xrc_side.h"

namespace hostile {

namespace {

using namespace verbs_util;

/* CAP_NET_RAW (13) in this process's effective set (/proc/self/status). */
bool has_net_raw()
{
	std::ifstream status("/proc/self/status");
	std::string line;

	while (std::getline(status, line))
		if (line.rfind("CapEff:", 0) == 0)
			return (std::stoull(line.substr(7), nullptr, 16) >>
				13) &
			       1U;
	return false;
}

/* ibv_modify_qp() of a new UD QP on d to INIT with qkey: its result. */
int ud_init_with(device &d, std::uint32_t qkey)
{
	qp_opts o;
	endpoint e;

	o.type = IBV_QPT_UD;
	if (!make_endpoint(e, d, o))
		return -1;
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = qkey;
	return ibv_modify_qp(e.qp.get(), &a,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_QKEY);
}

/*
 * 2 GiB of address space over 16 MiB of memory: one memfd of 16 MiB
 * mapped 128 times side by side, shared.  6.1's ib_umem_get() pins even
 * a read-only region for writing (FOLL_FORCE): private memory, touched or
 * not, would get a copy of each page, which the guest does not have room
 * for, and a read-only shared mapping is refused (EFAULT).
 */
struct mapping {
	static constexpr std::size_t chunk = std::size_t{16} << 20;
	void *p = MAP_FAILED;
	std::size_t len;

	explicit mapping(std::size_t n)
	    : len(n)
	{
		const int fd = memfd_create("r2-12", MFD_CLOEXEC);

		if (fd < 0 || ftruncate(fd, chunk) != 0) {
			if (fd >= 0)
				close(fd);
			return;
		}
		p = mmap(nullptr, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		for (std::size_t off = 0; p != MAP_FAILED && off < len;
		     off += chunk)
			if (mmap(static_cast<char *>(p) + off, chunk,
				 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
				 fd, 0) == MAP_FAILED) {
				munmap(p, len);
				p = MAP_FAILED;
			}
		close(fd);
	}
	mapping(const mapping &) = delete;
	mapping &operator=(const mapping &) = delete;
	~mapping()
	{
		if (p != MAP_FAILED)
			munmap(p, len);
	}
};

} /* namespace */

bool r2_privileged_qkey(device &a, device & /* b */)
{
	const bool raw = has_net_raw();
	const std::uint32_t privileged = 0x80010000U;

	ktap::note("this process %s CAP_NET_RAW", raw ? "has" : "lacks");
	const int plain = ud_init_with(a, 0x11111111U);
	CHECK(plain == 0);
	const int ret = ud_init_with(a, privileged);
	ktap::note("modify_qp to Q_Key %#x: %s", privileged,
		   ret == 0 ? "taken" : std::strerror(ret));
	if (raw)
		CHECK(ret == 0);
	else
		CHECK(ret == EPERM);
	return true;
}

bool r2_responder_yields(device &a, device &b)
{
	constexpr std::uint32_t len = 8U << 20;
	constexpr std::uint32_t mtu = 1024;
	qp_opts o;
	endpoint x, y;
	forger f;

	o.mtu = IBV_MTU_1024;
	o.buf_size = len;
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	o.qp_access = IBV_ACCESS_REMOTE_READ;
	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	/* A asked for nothing: its QP drops B's responses. */
	REQUIRE(silence(x));
	const long long yields = fresh_counter(b, "resp_yields");
	const long long tx_before = fresh_counter(b, "tx_packets");
	REQUIRE(yields >= 0 && tx_before >= 0);
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num, x.psn);
	h.reth.va = y.addr();
	h.reth.rkey = y.mr->rkey;
	h.reth.len = len;
	REQUIRE(f.send(f.frame(h, nullptr, 0)));

	/* Every response sent: up to 120 s (scaled) under TCG. */
	long long sent = 0;
	for (int t = 0; t < 1200 * scale && sent < len / mtu; ++t) {
		usleep(100000);
		sent = fresh_counter(b, "tx_packets") - tx_before;
	}
	const long long runs = fresh_counter(b, "resp_yields") - yields;
	ktap::note("B sent %lld packets for a READ of %u; its work item "
		   "queued itself again %lld times",
		   sent, len / mtu, runs);
	CHECK(sent >= len / mtu);
	/* (8192 - 32) / 128 = 63 budgets used up, the last one ending it. */
	CHECK(runs >= 60);
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool r2_read_2g_mtu256(device &a, device &b)
{
	constexpr std::size_t len = std::size_t{1} << 31;
	constexpr long long want = 4096; /* responses seen before the reset */
	qp_opts o;
	endpoint x, y;
	forger f;

	o.mtu = IBV_MTU_256;
	o.buf_size = 4096;
	o.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	o.qp_access = IBV_ACCESS_REMOTE_READ;
	REQUIRE(make_qp_pair(x, y, a, b, o));
	REQUIRE(f.open(a, b));
	const mapping m(len);
	void *mem = m.p;
	REQUIRE(mem != MAP_FAILED);
	mr_ptr big(ibv_reg_mr(y.pd, mem, len, IBV_ACCESS_REMOTE_READ));
	if (!big)
		ktap::note("ibv_reg_mr of 2 GiB: %s", std::strerror(errno));
	REQUIRE(big);
	REQUIRE(silence(x));
	const long long tx_before = fresh_counter(b, "tx_packets");
	REQUIRE(tx_before >= 0);
	sroce_hdrs h = rc_hdrs(SROCE_OP_RC_READ_REQUEST, y.qp->qp_num, x.psn);
	h.reth.va = reinterpret_cast<std::uintptr_t>(mem);
	h.reth.rkey = big->rkey;
	h.reth.len = static_cast<std::uint32_t>(len);
	REQUIRE(f.send(f.frame(h, nullptr, 0)));

	/* The first responses: up to 60 s (scaled) under TCG. */
	long long sent = 0;
	for (int t = 0; t < 600 * scale && sent < want; ++t) {
		usleep(100000);
		sent = fresh_counter(b, "tx_packets") - tx_before;
	}
	const ibv_qp_state s = qp_state(y.qp.get());
	ktap::note("B sent %lld packets of the READ's %zu, its QP %s", sent,
		   len / 256, qp_state_str(s));
	CHECK(sent >= want);
	CHECK(s == IBV_QPS_RTS);
	/* The rest of it is not waited for: the reset ends it. */
	CHECK(to_state(y.qp.get(), IBV_QPS_RESET) == 0);
	CHECK(new_rc_pair_works(a, b));
	return true;
}

bool r2_xrc_srq_gone(device &a, device &b)
{
	constexpr std::uint32_t ini_qpn = 0x777; /* no such QP: A drops */
	constexpr std::uint32_t mtu = 1024;
	xrctest::target tgt;
	forger f;

	REQUIRE(xrctest::make_target(tgt, b, 1));
	REQUIRE(xrctest::tgt_to_rtr(tgt.qp.get(), ini_qpn, b, a));
	REQUIRE(f.open(a, b));
	xrctest::xsrq &x = tgt.srqs[0];
	const std::uint32_t xnum = x.num;
	REQUIRE(xrctest::post_xrecv(tgt, x, 0) == 0);
	const std::vector<std::uint8_t> data(mtu, 0x5a);
	const std::uint32_t psn = 0x1234; /* tgt_to_rtr()'s rq_psn */
	sroce_hdrs h = rc_hdrs(SROCE_OP_XRC_SEND_FIRST, tgt.qp->qp_num, psn);
	h.xrc_srqn = xnum;
	REQUIRE(f.send(f.frame(h, data.data(), mtu)));
	/* The first packet landed in X's receive buffer. */
	CHECK(wait_bytes(tgt.buf.data(), mtu, 0x5a, 5000 * scale));

	x.srq.reset();
	x.cq.reset();
	xrctest::xsrq y;
	REQUIRE(xrctest::make_xsrq(y, b.ctx.get(), tgt.pd.get(),
				   tgt.dom.xrcd.get()));
	REQUIRE(xrctest::post_xrecv(tgt, y, 1) == 0);
	h = rc_hdrs(SROCE_OP_XRC_SEND_LAST, tgt.qp->qp_num, psn_add(psn, 1));
	h.xrc_srqn = xnum;
	REQUIRE(f.send(f.frame(h, data.data(), 64)));
	/* Refused: the TGT QP goes to ERROR (and flushes X's receive). */
	ibv_qp_state st = qp_state(tgt.qp.get());
	for (int t = 0; t < 50 * scale && st != IBV_QPS_ERR; ++t) {
		usleep(100000);
		st = qp_state(tgt.qp.get());
	}
	ktap::note("TGT QP %s after the message went on in a destroyed SRQ "
		   "(%u; the new one is %u)",
		   qp_state_str(st), xnum, y.num);
	CHECK(st == IBV_QPS_ERR);
	CHECK(no_wc("the new SRQ", y.cq.get(), 500));
	CHECK(new_rc_pair_works(a, b));
	return true;
}

} /* namespace hostile */
