// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp_pair.h - the QP-pair harness of every test tool: an endpoint (a QP
 * with its CQs, and a PD and a registered buffer of its own unless it
 * borrows them) made on one device and connected to an endpoint on
 * another device, or on the same one, with ibv_modify_qp() alone: RC, UC,
 * or UD made ready; QPN, GID and PSN are exchanged in memory.  One process
 * opens both devices (rdma's shared network namespace mode, the default,
 * shows every device in every namespace); the packets still cross
 * whatever joins the two devices' netdevs.  Public libibverbs only.
 *
 * A failure on the way (creating, connecting) is a failure of the running
 * case (ktap.h), and the function returns false.
 */
#ifndef SROCE_TOOLS_QP_PAIR_H
#define SROCE_TOOLS_QP_PAIR_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include <infiniband/verbs.h>

#include "verbs_util.h"

namespace verbs_util {

/* What an endpoint is created and connected with. */
struct qp_opts {
	ibv_qp_type type = IBV_QPT_RC;
	std::uint32_t send_wr = 16;
	std::uint32_t recv_wr = 16; /* 0 with an SRQ */
	std::uint32_t send_sge = 4;
	std::uint32_t recv_sge = 4;
	std::uint32_t inline_data = 0;
	/* Without inline data where the device refuses inline_data. */
	bool inline_optional = false;
	ibv_srq *srq = nullptr; /* the QP receives from it */
	/*
	 * Not 0: created with ibv_create_qp_ex() and these send_ops_flags
	 * (IBV_QP_EX_WITH_*), for the ibv_wr_*() post API
	 */
	std::uint64_t send_ops = 0;
	int cqe = 64;
	bool sig_all = false;
	bool channel = false; /* the CQs on a completion channel */
	std::size_t buf_size = std::size_t{64} * 1024; /* 0: no buffer */
	int mr_access = IBV_ACCESS_LOCAL_WRITE;
	/* connecting */
	int qp_access = IBV_ACCESS_LOCAL_WRITE;
	ibv_mtu mtu = IBV_MTU_1024;
	std::uint8_t min_rnr_timer = 12; /* 0.64 ms; responder */
	std::uint8_t rnr_retry = 7; /* requester */
	std::uint8_t retry_cnt = 7;
	std::uint8_t timeout = 14; /* 4.096 us * 2^14 = 67 ms */
	std::uint8_t max_rd_atomic = 1; /* requester */
	std::uint8_t max_dest_rd_atomic = 1; /* responder */
	std::uint32_t qkey = 0; /* UD */
};

/* What an endpoint uses without owning it (nullptr: its own). */
struct borrowed {
	ibv_pd *pd = nullptr;
	ibv_cq *scq = nullptr; /* both CQs, or neither */
	ibv_cq *rcq = nullptr;
};

/*
 * A QP, its CQs and (unless borrowed) its PD and a registered buffer.
 * Members go in reverse order: the QP before its CQs, the CQs before their
 * channel, the MR before the buffer and the PD.
 */
struct endpoint {
	device *dev = nullptr;
	qp_opts opts;
	pd_ptr own_pd;
	ibv_pd *pd = nullptr;
	std::vector<unsigned char> buf;
	mr_ptr mr;
	channel_ptr ch;
	cq_ptr own_scq;
	cq_ptr own_rcq;
	ibv_cq *scq = nullptr;
	ibv_cq *rcq = nullptr;
	qp_ptr qp;
	ibv_qp_cap cap{}; /* as ibv_query_qp() reports it */
	std::uint32_t psn = 0;
	/* Events taken from ch and not yet acknowledged, per CQ. */
	unsigned int scq_unacked = 0;
	unsigned int rcq_unacked = 0;

	endpoint() = default;
	endpoint(const endpoint &) = delete;
	endpoint &operator=(const endpoint &) = delete;
	endpoint(endpoint &&) = delete;
	endpoint &operator=(endpoint &&) = delete;
	/* A CQ with unacknowledged events cannot be destroyed. */
	~endpoint();

	/* The address of byte off of buf. */
	std::uint64_t addr(std::size_t off = 0)
	{
		return reinterpret_cast<std::uintptr_t>(buf.data() + off);
	}
};

/*
 * ibv_create_qp() of a QP as o says, on pd and the two CQs (with
 * o.send_ops, ibv_create_qp_ex()); nullptr, errno set, when refused (a
 * test of bad attributes expects that).
 */
ibv_qp *create_qp(ibv_pd *pd, ibv_cq *scq, ibv_cq *rcq, const qp_opts &o);

/* e on d with o: PD, CQs (on a channel if asked), buffer and MR, the QP. */
bool make_endpoint(endpoint &e, device &d, const qp_opts &o,
		   const borrowed &b = {});

/*
 * a on da and b on db, both with o (make_endpoint()), connected
 * (connect()) unless connected is false.
 */
bool make_qp_pair(endpoint &a, endpoint &b, device &da, device &db,
		  const qp_opts &o = {}, bool connected = true);

/* The capacities of qp, as ibv_query_qp() says ({} if it fails). */
ibv_qp_cap query_cap(ibv_qp *qp);

/* A fresh PSN (a fixed sequence: runs repeat). */
std::uint32_t next_psn();

/* The attributes of e's RTR towards peer, and of its RTS (e's opts). */
ibv_qp_attr rtr_attr(const endpoint &e, const endpoint &peer);
ibv_qp_attr rts_attr(const endpoint &e);

/* The masks of those transitions for e's QP type (RC or UC). */
int rtr_mask_of(const endpoint &e);
int rts_mask_of(const endpoint &e);

/* ibv_modify_qp() of e to RTR towards peer, and to RTS. */
int to_rtr(endpoint &e, const endpoint &peer);
int to_rts(endpoint &e);

/*
 * RC or UC: both QPs from RESET (or INIT) to RTS, each towards the other,
 * with fresh PSNs; with b_rts false B stays in RTR (a pure responder).
 * UD: both made ready (ud_ready()).
 */
bool connect(endpoint &a, endpoint &b, bool b_rts = true);

/* As connect(), RC or UC, with the PSNs a and b hold. */
bool bring_up(endpoint &a, endpoint &b, bool b_rts = true);

/* Both QPs back to RESET (their queues emptied) and connected again. */
bool reconnect(endpoint &a, endpoint &b);

/* A UD QP from RESET to RTS, its Q_Key opts.qkey. */
bool ud_ready(endpoint &e);

/* The Q_Key of the tools' UD QPs. */
constexpr std::uint32_t ud_qkey = 0x1234567;

/* The GRH that starts every UD receive buffer. */
constexpr std::size_t grh_len = 40;

/* A UD endpoint on d, default options otherwise, in RTS with Q_Key qkey. */
bool make_ud(endpoint &e, device &d, std::uint32_t qkey);

/* An AH on pd from e's device (its GID) to dgid; nullptr, errno set. */
ibv_ah *make_ah(ibv_pd *pd, const endpoint &e, const ibv_gid &dgid);

/* ---- posting ---------------------------------------------------------------- */

/*
 * One send work request of num_sge SGEs; a failure with a bad_wr other
 * than it is a failure of the case.  The return value of ibv_post_send().
 */
int post_sges(endpoint &e, std::uint64_t wr_id, ibv_sge *sges, int num_sge,
	      ibv_wr_opcode op = IBV_WR_SEND,
	      unsigned int flags = IBV_SEND_SIGNALED, std::uint32_t imm = 0);

/* len bytes of e's buffer at off (no SGE for len 0). */
int post_send(endpoint &e, std::uint64_t wr_id, std::size_t off,
	      std::uint32_t len, ibv_wr_opcode op = IBV_WR_SEND,
	      unsigned int flags = IBV_SEND_SIGNALED, std::uint32_t imm = 0);

/* One receive work request; as post_sges(). */
int post_recv_sges(endpoint &e, std::uint64_t wr_id, ibv_sge *sges,
		   int num_sge);

/* A receive of len bytes of e's buffer at off. */
int post_recv(endpoint &e, std::uint64_t wr_id, std::size_t off,
	      std::uint32_t len);

/*
 * One RDMA or atomic work request from a's SGEs to byte remote_off of
 * b's buffer (b's MR).
 */
int post_rdma(endpoint &a, endpoint &b, std::uint64_t wr_id, ibv_wr_opcode op,
	      ibv_sge *sges, int num_sge, std::size_t remote_off,
	      std::uint64_t compare_add = 0, std::uint64_t swap = 0,
	      std::uint32_t imm = 0);

/*
 * The same to any region: remote address raddr under rkey (a region that
 * is not an endpoint's own: device memory, an ODP region).
 */
int post_rdma_at(endpoint &a, std::uint64_t wr_id, ibv_wr_opcode op,
		 ibv_sge *sges, int num_sge, std::uint64_t raddr,
		 std::uint32_t rkey, std::uint64_t compare_add = 0,
		 std::uint64_t swap = 0, std::uint32_t imm = 0);

/* len bytes of e's buffer at off, a datagram to QP dqpn through ah. */
int post_ud(endpoint &e, std::uint64_t wr_id, ibv_ah *ah, std::uint32_t dqpn,
	    std::uint32_t qkey, std::size_t off, std::uint32_t len,
	    ibv_wr_opcode op = IBV_WR_SEND, std::uint32_t imm = 0);

} /* namespace verbs_util */

#endif /* SROCE_TOOLS_QP_PAIR_H */
