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
 */
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "hostile.h"
#include "ktap.h"

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

} /* namespace hostile */
