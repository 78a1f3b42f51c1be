// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * limits.cpp - sroce-mcasttest's checks of attaching and its limits:
 *
 *   mcast-bad   attach refused on RC and UC QPs and for GIDs outside the
 *               multicast range (EINVAL); detach of a group not attached
 *               EINVAL; a second attach succeeds and makes no second
 *               attachment; an attached QP is not destroyed (EBUSY)
 *   mcast-limits  on A only: max_mcast_grp groups, max_mcast_qp_attach
 *               QPs in a group, max_total_mcast_qp_attach attachments,
 *               one more each time ENOMEM; all detached, the device takes
 *               new ones
 *   mcast-limits-exit  the same up to the limits, then the process exits
 *               with everything attached (after its result line)
 */
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>
#include <utility>
#include <vector>

#include "ktap.h"
#include "mcasttest.h"
#include "qp_pair.h"

namespace mcasttest {

using namespace verbs_util;

/*
 * Refused: a QP other than UD, a GID outside the multicast range, a
 * detach of a group not attached (also a second detach).  Accepted once:
 * a second attach of the same group (uverbs answers it).  An attached QP
 * cannot be destroyed (EBUSY) until detached.
 */
bool check_mcast_bad(device &da, device & /*db*/)
{
	endpoint u, rc, uc;
	qp_opts o;
	const ibv_gid g = v4_gid(239, 7, 7, 2);
	const ibv_gid g2 = v4_gid(239, 7, 7, 3);

	REQUIRE(make_ud(u, da, ud_qkey));
	REQUIRE(make_endpoint(rc, da, o));
	o.type = IBV_QPT_UC;
	REQUIRE(make_endpoint(uc, da, o));

	ktap::note("RC and UC QPs cannot attach");
	CHECK(ibv_attach_mcast(rc.qp.get(), &g, 0) == EINVAL);
	CHECK(ibv_attach_mcast(uc.qp.get(), &g, 0) == EINVAL);
	CHECK(ibv_detach_mcast(rc.qp.get(), &g, 0) == EINVAL);

	ktap::note("GIDs outside the multicast range");
	CHECK(ibv_attach_mcast(u.qp.get(), &da.gid, 0) == EINVAL);
	const ibv_gid v4_unicast = v4_gid(10, 1, 2, 3);
	CHECK(ibv_attach_mcast(u.qp.get(), &v4_unicast, 0) == EINVAL);
	const ibv_gid v4_bcast = v4_gid(255, 255, 255, 255);
	CHECK(ibv_attach_mcast(u.qp.get(), &v4_bcast, 0) == EINVAL);
	ibv_gid ll{};
	ll.raw[0] = 0xfe;
	ll.raw[1] = 0x80;
	ll.raw[15] = 1;
	CHECK(ibv_attach_mcast(u.qp.get(), &ll, 0) == EINVAL);
	const ibv_gid zero{};
	CHECK(ibv_attach_mcast(u.qp.get(), &zero, 0) == EINVAL);

	ktap::note("detach of a group never attached");
	CHECK(ibv_detach_mcast(u.qp.get(), &g, 0) == EINVAL);

	ktap::note("attach twice: one attachment");
	CHECK(ibv_attach_mcast(u.qp.get(), &g, 0) == 0);
	CHECK(ibv_attach_mcast(u.qp.get(), &g, 0) == 0);
	CHECK(ibv_attach_mcast(u.qp.get(), &g2, 0) == 0);
	CHECK(ibv_detach_mcast(u.qp.get(), &g, 0) == 0);
	CHECK(ibv_detach_mcast(u.qp.get(), &g, 0) == EINVAL);

	ktap::note("an attached QP is not destroyed");
	CHECK(ibv_destroy_qp(u.qp.get()) == EBUSY);
	CHECK(qp_state(u.qp.get()) == IBV_QPS_RTS);
	CHECK(ibv_detach_mcast(u.qp.get(), &g2, 0) == 0);
	CHECK(ibv_detach_mcast(u.qp.get(), &g2, 0) == EINVAL);
	return true;
}

namespace {

/*
 * The device's limits: max_mcast_grp groups, then ENOMEM; a group of
 * max_mcast_qp_attach QPs, then ENOMEM; max_total_mcast_qp_attach
 * attachments in all, then ENOMEM.  Everything detached afterwards, the
 * device takes new attachments.  With exit_attached the process leaves,
 * after the case's result, with everything attached (tests/mcast.sh then
 * checks that the groups are gone).
 */
bool limits(device &da, bool exit_attached)
{
	ibv_device_attr attr{};

	REQUIRE(ibv_query_device(da.ctx.get(), &attr) == 0);
	ktap::note("max_mcast_grp %d, max_mcast_qp_attach %d, "
		   "max_total_mcast_qp_attach %d",
		   attr.max_mcast_grp, attr.max_mcast_qp_attach,
		   attr.max_total_mcast_qp_attach);
	REQUIRE(attr.max_mcast_grp > 0 && attr.max_mcast_qp_attach > 0 &&
		attr.max_total_mcast_qp_attach > 0);
	const auto ngrp = static_cast<std::uint32_t>(attr.max_mcast_grp);
	const auto nqp = static_cast<std::uint32_t>(attr.max_mcast_qp_attach);
	const auto ntotal =
		static_cast<std::uint32_t>(attr.max_total_mcast_qp_attach);
	/* Enough QPs to fill one group and to reach the total. */
	const std::uint32_t per_grp_total = (ntotal + ngrp - 1) / ngrp;
	const std::uint32_t nqps = std::max(nqp, per_grp_total) + 2;
	REQUIRE(nqps <= 1024 && ngrp <= 0x10000);

	/* One PD and CQ for all of them, QPs of one WR each. */
	pd_ptr pd(ibv_alloc_pd(da.ctx.get()));
	cq_ptr cq(ibv_create_cq(da.ctx.get(), 16, nullptr, nullptr, 0));
	REQUIRE(pd != nullptr && cq != nullptr);
	qp_opts o;
	o.type = IBV_QPT_UD;
	o.send_wr = o.recv_wr = o.send_sge = o.recv_sge = 1;
	o.buf_size = 0;
	std::vector<std::unique_ptr<endpoint>> qps;
	for (std::uint32_t i = 0; i < nqps; ++i) {
		qps.push_back(std::make_unique<endpoint>());
		REQUIRE(make_endpoint(*qps.back(), da, o,
				      {pd.get(), cq.get(), cq.get()}));
	}
	/* Group i: 239.8.(i >> 8).(i & 255) */
	auto grp = [](std::uint32_t i) {
		return v4_gid(239, 8, static_cast<unsigned char>(i >> 8),
			      static_cast<unsigned char>(i & 0xff));
	};
	/* (QP, group) of every attachment made */
	std::vector<std::pair<std::uint32_t, std::uint32_t>> made;
	auto attach = [&](std::uint32_t q, std::uint32_t g) {
		const ibv_gid gid = grp(g);
		const int ret = ibv_attach_mcast(qps[q]->qp.get(), &gid, 0);

		if (ret == 0)
			made.emplace_back(q, g);
		return ret;
	};

	ktap::note("QP 0 in %u groups, then one more", ngrp);
	for (std::uint32_t g = 0; g < ngrp; ++g)
		EXPECT(attach(0, g) == 0, "group %u: %s", g,
		       std::strerror(errno));
	CHECK(attach(0, ngrp) == ENOMEM);
	CHECK(attach(1, ngrp) == ENOMEM);

	ktap::note("group 0 with %u QPs, then one more", nqp);
	for (std::uint32_t q = 1; q < nqp; ++q)
		EXPECT(attach(q, 0) == 0, "QP %u: %s", q, std::strerror(errno));
	CHECK(attach(nqp, 0) == ENOMEM);

	ktap::note("%u attachments in all, then one more", ntotal);
	/* QPs 1.. in groups 1.. until the total is reached */
	std::uint32_t q = 1, g = 1;
	while (made.size() < ntotal && q < nqps) {
		EXPECT(attach(q, g) == 0, "QP %u group %u: %s", q, g,
		       std::strerror(errno));
		if (++g == ngrp) {
			g = 1;
			++q;
		}
	}
	CHECK(made.size() == ntotal);
	REQUIRE(q < nqps);
	CHECK(attach(q, g) == ENOMEM);

	if (exit_attached) {
		ktap::note("leaving with %zu attachments (the process exits)",
			   made.size());
		ktap::end("mcast-limits-exit");
		std::fflush(stdout);
		_exit(ktap::exit_status());
	}
	ktap::note("detach everything");
	for (const auto &[mq, mg] : made) {
		const ibv_gid gid = grp(mg);

		EXPECT(ibv_detach_mcast(qps[mq]->qp.get(), &gid, 0) == 0,
		       "QP %u group %u: %s", mq, mg, std::strerror(errno));
	}
	ktap::note("the device takes new attachments");
	const ibv_gid gid = grp(0);
	CHECK(ibv_attach_mcast(qps[nqps - 1]->qp.get(), &gid, 0) == 0);
	CHECK(ibv_detach_mcast(qps[nqps - 1]->qp.get(), &gid, 0) == 0);
	return true;
}

} /* namespace */

bool check_mcast_limits(device &da, device & /*db*/)
{
	return limits(da, false);
}

bool check_mcast_limits_exit(device &da, device & /*db*/)
{
	return limits(da, true);
}

} /* namespace mcasttest */
