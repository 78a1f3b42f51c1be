// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp_errors.cpp - sroce-objtest's check of what QP commands refuse:
 *
 *   qp-errors   create_qp and modify_qp refuse bad attributes (the QP
 *               state stays as it was), and malformed uverbs commands
 *               (CREATE_QP driver data, POST_SEND with work requests,
 *               POST_RECV) are refused
 */
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "ktap.h"
#include "objtest.h"
#include "qp_pair.h"
#include "uverbs_raw.h"

namespace objtest {

using namespace verbs_util;

namespace {

/* A QP of type on pd and cq, wr WRs and sge SGEs each way, inl inline. */
ibv_qp *make_qp(ibv_pd *pd, ibv_cq *cq, ibv_qp_type type, std::uint32_t wr,
		std::uint32_t sge, std::uint32_t inl)
{
	qp_opts o;

	o.type = type;
	o.send_wr = o.recv_wr = wr;
	o.send_sge = o.recv_sge = sge;
	o.inline_data = inl;
	return create_qp(pd, cq, cq, o);
}

/* CREATE_QP as a raw write() command, with a driver tail of our choosing. */
struct raw_create_qp {
	ib_uverbs_cmd_hdr hdr;
	std::uint64_t response;
	std::uint64_t user_handle;
	std::uint32_t pd_handle, send_cq_handle, recv_cq_handle, srq_handle;
	std::uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	std::uint32_t max_inline_data;
	std::uint8_t sq_sig_all, qp_type, is_srq, reserved;
	sroce_create_qp_cmd drv;
	std::uint64_t extra;
};
static_assert(offsetof(raw_create_qp, drv) == 64);

/* 0 if the kernel accepted the command, else the errno of write(). */
int raw_create(ibv_pd *pd, ibv_cq *cq, std::size_t in_bytes,
	       std::size_t out_bytes, const sroce_create_qp_cmd &drv,
	       std::uint64_t extra)
{
	alignas(8) unsigned char resp[32 + sizeof(sroce_create_qp_resp)] = {};
	raw_create_qp cmd{};

	cmd.hdr = uverbs_hdr(IB_USER_VERBS_CMD_CREATE_QP, in_bytes, out_bytes);
	cmd.response = uverbs_ptr(resp);
	cmd.pd_handle = pd->handle;
	cmd.send_cq_handle = cq->handle;
	cmd.recv_cq_handle = cq->handle;
	cmd.max_send_wr = 4;
	cmd.max_recv_wr = 4;
	cmd.max_send_sge = 1;
	cmd.max_recv_sge = 1;
	cmd.qp_type = IBV_QPT_RC;
	cmd.drv = drv;
	cmd.extra = extra;
	return uverbs_write(pd->context, &cmd, in_bytes);
}

bool raw_refused(int err, const char *what)
{
	return raw_result(err, EINVAL, what);
}

} /* namespace */

bool check_qp_errors(device &d, const char * /*arg*/)
{
	ibv_context *ctx = d.ctx.get();

	ibv_device_attr dattr{};
	CHECK(ibv_query_device(ctx, &dattr) == 0);
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	CHECK(pd != nullptr && cq != nullptr);
	if (pd == nullptr || cq == nullptr)
		return false;

	const auto max_wr = static_cast<std::uint32_t>(dattr.max_qp_wr);
	const auto max_sge = static_cast<std::uint32_t>(dattr.max_sge);
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RC, max_wr + 1, 1, 0), EINVAL,
		      "max_qp_wr + 1 WRs"));
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RC, 4, max_sge + 1, 0), EINVAL,
		      "max_sge + 1 SGEs"));
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RC, 4, 1, 1U << 20), EINVAL,
		      "1 MiB of inline data"));
	/* Raw packet QPs exist (tests/raw.sh), with the same limits. */
	CHECK(refused(make_qp(pd, cq, IBV_QPT_RAW_PACKET, max_wr + 1, 1, 0),
		      EINVAL, "a raw packet QP of max_qp_wr + 1 WRs"));

	/* Malformed driver data of CREATE_QP. */
	const sroce_create_qp_cmd good{
		.send_wqe_size = sizeof(sroce_send_wqe),
		.recv_wqe_size = sizeof(sroce_recv_wqe),
		.reserved = {0, 0},
	};
	constexpr std::size_t core_in = 64;
	constexpr std::size_t full_in = core_in + sizeof(sroce_create_qp_cmd);
	constexpr std::size_t full_out = 32 + sizeof(sroce_create_qp_resp);
	sroce_create_qp_cmd bad = good;
	CHECK(raw_refused(raw_create(pd, cq, core_in, full_out, good, 0),
			  "no driver command"));
	CHECK(raw_refused(raw_create(pd, cq, full_in, 32, good, 0),
			  "no room for the driver response"));
	bad.send_wqe_size = 64;
	CHECK(raw_refused(raw_create(pd, cq, full_in, full_out, bad, 0),
			  "wrong send WQE size"));
	bad = good;
	bad.recv_wqe_size = 0;
	CHECK(raw_refused(raw_create(pd, cq, full_in, full_out, bad, 0),
			  "wrong receive WQE size"));
	bad = good;
	bad.reserved[1] = 1;
	CHECK(raw_refused(raw_create(pd, cq, full_in, full_out, bad, 0),
			  "reserved field set"));
	CHECK(raw_refused(raw_create(pd, cq, full_in + 8, full_out, good, 1),
			  "unknown trailing data"));

	ibv_qp *qp = make_qp(pd, cq, IBV_QPT_RC, 4, 1, 0);
	CHECK(qp != nullptr);
	if (qp == nullptr)
		return false;

	/* POST_SEND with a work request, and POST_RECV, as raw commands. */
	struct {
		ib_uverbs_cmd_hdr hdr;
		std::uint64_t response;
		std::uint32_t qp_handle, wr_count, sge_count, wqe_size;
		ib_uverbs_send_wr wr;
	} ps{};
	std::uint32_t ps_resp[2] = {};
	ps.hdr = uverbs_hdr(IB_USER_VERBS_CMD_POST_SEND, sizeof(ps),
			    sizeof(ps_resp));
	ps.response = uverbs_ptr(ps_resp);
	ps.qp_handle = qp->handle;
	ps.wr_count = 1;
	ps.wqe_size = sizeof(ib_uverbs_send_wr);
	CHECK(raw_refused(uverbs_write(ctx, &ps, sizeof(ps)),
			  "POST_SEND command with a work request"));
	ps.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	const int pr = uverbs_write(ctx, &ps, sizeof(ps));
	ktap::note("POST_RECV command: %s",
		   pr != 0 ? std::strerror(pr) : "accepted");
	CHECK(pr != 0);

	/* Transitions and attributes that are refused; state unchanged. */
	ibv_port_attr pattr{};
	CHECK(ibv_query_port(ctx, 1, &pattr) == 0);
	ibv_qp_attr a{};
	a.qp_state = IBV_QPS_RTR;
	CHECK(modify_refused(qp, a, IBV_QP_STATE, "RESET -> RTR"));
	a.qp_state = IBV_QPS_RTS;
	CHECK(modify_refused(qp, a, IBV_QP_STATE, "RESET -> RTS"));
	a = ibv_qp_attr{};
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	CHECK(modify_refused(qp, a, IBV_QP_STATE | IBV_QP_PORT,
			     "INIT without P_Key index and access"));
	a.port_num = 2;
	CHECK(modify_refused(qp, a, init_mask, "INIT on port 2"));
	a.port_num = 1;
	a.pkey_index = 1;
	CHECK(modify_refused(qp, a, init_mask, "INIT with P_Key index 1"));
	a.pkey_index = 0;
	a.qp_access_flags = 1U << 20;
	CHECK(modify_refused(qp, a, init_mask, "INIT with unknown access"));
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK(ibv_modify_qp(qp, &a, init_mask) == 0);
	CHECK(qp_state(qp) == IBV_QPS_INIT);

	ibv_qp_attr r{};
	r.qp_state = IBV_QPS_RTR;
	r.path_mtu = pattr.active_mtu;
	r.dest_qp_num = qp->qp_num;
	r.rq_psn = 1;
	r.min_rnr_timer = 12;
	r.ah_attr.is_global = 1;
	r.ah_attr.grh.sgid_index = 1;
	r.ah_attr.grh.hop_limit = 1;
	CHECK(ibv_query_gid(ctx, 1, 1, &r.ah_attr.grh.dgid) == 0);
	r.ah_attr.port_num = 1;
	ibv_qp_attr b = r;
	b.ah_attr.is_global = 0;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with an AV without GRH"));
	b = r;
	b.path_mtu = static_cast<ibv_mtu>(pattr.active_mtu + 1);
	if (pattr.active_mtu < IBV_MTU_4096)
		CHECK(modify_refused(qp, b, rtr_mask,
				     "RTR with a path MTU above the port's"));
	b = r;
	b.dest_qp_num = 1U << 24;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with a 25-bit QPN"));
	/* A 25-bit PSN never reaches the driver: the core masks it. */
	b = r;
	b.min_rnr_timer = 32;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with RNR timer 32"));
	b = r;
	b.max_dest_rd_atomic = 255;
	CHECK(modify_refused(qp, b, rtr_mask, "RTR with 255 RD atomics"));
	CHECK(ibv_modify_qp(qp, &r, rtr_mask) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RTR);

	ibv_qp_attr t{};
	t.qp_state = IBV_QPS_RTS;
	t.timeout = 14;
	t.retry_cnt = 7;
	t.rnr_retry = 7;
	t.sq_psn = 1;
	b = t;
	b.timeout = 32;
	CHECK(modify_refused(qp, b, rts_mask, "RTS with timeout 32"));
	b = t;
	b.retry_cnt = 8;
	CHECK(modify_refused(qp, b, rts_mask, "RTS with retry count 8"));
	b = t;
	b.rnr_retry = 8;
	CHECK(modify_refused(qp, b, rts_mask, "RTS with RNR retry 8"));
	CHECK(modify_refused(qp, t, IBV_QP_STATE,
			     "RTS without its required attributes"));
	CHECK(ibv_modify_qp(qp, &t, rts_mask) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RTS);
	a = ibv_qp_attr{};
	a.qp_state = IBV_QPS_RTR;
	CHECK(modify_refused(qp, a, IBV_QP_STATE, "RTS -> RTR"));

	a.qp_state = IBV_QPS_RESET;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE) == 0);
	CHECK(qp_state(qp) == IBV_QPS_RESET);
	CHECK(ibv_destroy_qp(qp) == 0);
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_dealloc_pd(pd) == 0);
	return true;
}

} /* namespace objtest */
