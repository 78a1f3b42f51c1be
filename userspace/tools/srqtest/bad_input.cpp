// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * bad_input.cpp - sroce-srqtest's check of what an SRQ refuses:
 *
 *   bad-input   create with max_wr 0 or beyond max_srq_wr, or max_sge
 *               beyond max_srq_sge, fails; modify with a limit above
 *               max_wr fails with EINVAL, a resize with EOPNOTSUPP and
 *               an unknown attribute with EINVAL, the SRQ unchanged;
 *               destroying an SRQ a QP uses fails with EBUSY, and works
 *               once the QP is gone; CREATE_SRQ as a raw command with a
 *               missing or malformed driver tail, or no room for the
 *               driver response, fails with EINVAL (the same command
 *               with a good tail succeeds)
 */
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "ktap.h"
#include "srq_side.h"
#include "srqtest.h"
#include "uverbs_raw.h"

namespace srqtest {

using namespace verbs_util;

namespace {

/* CREATE_SRQ as a raw write() command, with a driver tail of our choosing. */
struct raw_create_srq {
	ib_uverbs_cmd_hdr hdr;
	/* struct ib_uverbs_create_srq, which ends in a flexible array */
	std::uint64_t response;
	std::uint64_t user_handle;
	std::uint32_t pd_handle, max_wr, max_sge, srq_limit;
	sroce_create_srq_cmd drv;
	std::uint64_t extra;
};
static_assert(offsetof(raw_create_srq, drv) == 40);

/*
 * CREATE_SRQ of in_bytes with room for out_bytes of response, drv as its
 * driver data and extra after it: 0 if the kernel accepted the command
 * (the SRQ is destroyed again at once), else the errno of write().
 */
int raw_create(ibv_pd *pd, std::size_t in_bytes, std::size_t out_bytes,
	       const sroce_create_srq_cmd &drv, std::uint64_t extra)
{
	alignas(8) unsigned char resp[sizeof(ib_uverbs_create_srq_resp) +
				      sizeof(sroce_create_srq_resp)] = {};
	raw_create_srq cmd{};

	cmd.hdr = uverbs_hdr(IB_USER_VERBS_CMD_CREATE_SRQ, in_bytes, out_bytes);
	cmd.response = uverbs_ptr(resp);
	cmd.pd_handle = pd->handle;
	cmd.max_wr = 4;
	cmd.max_sge = 1;
	cmd.drv = drv;
	cmd.extra = extra;
	const int err = uverbs_write(pd->context, &cmd, in_bytes);
	if (err != 0)
		return err;

	/* Accepted: destroy it again, or its PD could not go. */
	ib_uverbs_create_srq_resp core{};
	std::memcpy(&core, resp, sizeof(core));
	struct {
		ib_uverbs_cmd_hdr hdr;
		ib_uverbs_destroy_srq core;
	} destroy{};
	ib_uverbs_destroy_srq_resp dresp{};
	destroy.hdr = uverbs_hdr(IB_USER_VERBS_CMD_DESTROY_SRQ, sizeof(destroy),
				 sizeof(dresp));
	destroy.core.response = uverbs_ptr(&dresp);
	destroy.core.srq_handle = core.srq_handle;
	const int derr = uverbs_write(pd->context, &destroy, sizeof(destroy));
	if (derr != 0)
		ktap::fail("raw DESTROY_SRQ: %s", std::strerror(derr));
	return 0;
}

bool check_raw_create(ibv_pd *pd)
{
	const sroce_create_srq_cmd good{
		.recv_wqe_size = sizeof(sroce_recv_wqe),
		.reserved = 0,
	};
	constexpr std::size_t core_in = 40;
	constexpr std::size_t full_in = core_in + sizeof(sroce_create_srq_cmd);
	constexpr std::size_t core_out = sizeof(ib_uverbs_create_srq_resp);
	constexpr std::size_t full_out =
		core_out + sizeof(sroce_create_srq_resp);
	sroce_create_srq_cmd bad = good;

	CHECK(raw_result(raw_create(pd, core_in, full_out, good, 0), EINVAL,
			 "raw CREATE_SRQ, no driver command"));
	CHECK(raw_result(raw_create(pd, full_in, core_out, good, 0), EINVAL,
			 "raw CREATE_SRQ, no room for the driver response"));
	bad.recv_wqe_size = 32;
	CHECK(raw_result(raw_create(pd, full_in, full_out, bad, 0), EINVAL,
			 "raw CREATE_SRQ, wrong receive WQE size"));
	bad = good;
	bad.reserved = 1;
	CHECK(raw_result(raw_create(pd, full_in, full_out, bad, 0), EINVAL,
			 "raw CREATE_SRQ, reserved field set"));
	CHECK(raw_result(raw_create(pd, full_in + 8, full_out, good, 1), EINVAL,
			 "raw CREATE_SRQ, unknown trailing data"));
	/* The command itself is right: with a good tail it works. */
	CHECK(raw_result(raw_create(pd, full_in + 8, full_out, good, 0), 0,
			 "raw CREATE_SRQ, good tail, zero trailing data"));
	return true;
}

} /* namespace */
bool check_bad_input(device &da, device &db)
{
	(void)da;
	side b;
	ibv_srq_init_attr sia{};

	REQUIRE(make_side(b, db, 0, 16, 64 * msg_size));
	ibv_pd *pd = b.pd.get();
	sia.attr.max_wr = 0;
	sia.attr.max_sge = 1;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);
	sia.attr.max_wr = static_cast<std::uint32_t>(db.attr.max_srq_wr) + 1;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);
	sia.attr.max_wr = 0xffffffff;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);
	sia.attr.max_wr = 4;
	sia.attr.max_sge = static_cast<std::uint32_t>(db.attr.max_srq_sge) + 1;
	CHECK(ibv_create_srq(pd, &sia) == nullptr);

	ibv_srq *srq = b.srq.get();
	const ibv_srq_attr before = query(srq);
	REQUIRE(arm(srq, 4) == 0);
	CHECK(arm(srq, before.max_wr + 1) == EINVAL);
	CHECK(arm(srq, 0xffffffff) == EINVAL);
	ibv_srq_attr resize{};
	resize.max_wr = before.max_wr * 2;
	CHECK(ibv_modify_srq(srq, &resize, IBV_SRQ_MAX_WR) == EOPNOTSUPP);
	CHECK(ibv_modify_srq(srq, &resize, 1 << 5) == EINVAL);
	const ibv_srq_attr after = query(srq);
	CHECK(after.max_wr == before.max_wr &&
	      after.max_sge == before.max_sge && after.srq_limit == 4);
	CHECK(arm(srq, before.max_wr) == 0);
	CHECK(arm(srq, 0) == 0 && query(srq).srq_limit == 0);

	/* In use by a QP: the core refuses to destroy it. */
	REQUIRE(add_qp(b, srq));
	CHECK(ibv_destroy_srq(srq) == EBUSY);
	CHECK(query(srq).max_wr == before.max_wr);
	b.qps.clear();
	CHECK(ibv_destroy_srq(b.srq.release()) == 0);
	return check_raw_create(pd);
}

} /* namespace srqtest */
