// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xrc_side.h - the two ends of sroce-xrctest: an XRC INI QP on one device
 * (the initiator, with its buffer) and, on the other, an XRC domain with
 * its XRC SRQs (each with its CQ), a TGT QP and a buffer registered in
 * the SRQs' PD for remote access.  Public libibverbs only.
 */
#ifndef SROCE_TOOLS_XRCTEST_XRC_SIDE_H
#define SROCE_TOOLS_XRCTEST_XRC_SIDE_H

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "completion.h"
#include "verbs_util.h"

namespace xrctest {

using namespace verbs_util;

/* Bytes of each buffer; every message and READ fits in a slot of it. */
constexpr std::size_t buf_size = 64 * 1024;
constexpr std::size_t slot_size = 8 * 1024;

/*
 * An XRC domain opened with a new file (O_CREAT on a temporary file, kept
 * open so another context can open the same domain with xrcd_fd).
 */
struct domain {
	int fd = -1;
	xrcd_ptr xrcd;
	~domain();
};

bool open_domain(domain &dom, ibv_context *ctx);

/* An XRC SRQ of a domain, its CQ and number. */
struct xsrq {
	cq_ptr cq;
	srq_ptr srq;
	std::uint32_t num = 0;
};

bool make_xsrq(xsrq &s, ibv_context *ctx, ibv_pd *pd, ibv_xrcd *xrcd);

/* The initiator: an XRC INI QP with the ibv_wr_*() API, its CQ, buffer. */
struct initiator {
	device *dev = nullptr;
	pd_ptr pd;
	cq_ptr cq;
	std::vector<unsigned char> buf;
	mr_ptr mr;
	qp_ptr qp;
	std::uint64_t addr(std::size_t off) const
	{
		return reinterpret_cast<std::uintptr_t>(buf.data()) + off;
	}
};

/* The target: a domain, its SRQs, a TGT QP, a buffer for remote access. */
struct target {
	device *dev = nullptr;
	domain dom;
	pd_ptr pd;
	std::vector<xsrq> srqs;
	std::vector<unsigned char> buf;
	mr_ptr mr;
	qp_ptr qp;
	std::uint64_t addr(std::size_t off) const
	{
		return reinterpret_cast<std::uintptr_t>(buf.data()) + off;
	}
};

bool make_initiator(initiator &ini, device &d);
bool make_target(target &tgt, device &d, int nsrq);

/* An XRC TGT QP of xrcd (on ctx), RESET. */
ibv_qp *create_tgt_qp(ibv_context *ctx, ibv_xrcd *xrcd);

/*
 * Connect: the TGT QP (of device t) to RTR towards the INI QP, the INI QP
 * to RTS towards the TGT QP (INI QP timeout and retry count given: short
 * ones make a lost peer quick to see).
 */
bool tgt_to_rtr(ibv_qp *tgt, std::uint32_t ini_qpn, const device &t,
		const device &i);
bool ini_to_rts(ibv_qp *ini, std::uint32_t tgt_qpn, const device &i,
		const device &t, std::uint8_t timeout = 14,
		std::uint8_t retry_cnt = 7);

/* A receive of slot on s (buffer of the target), wr_id slot. */
int post_xrecv(target &tgt, xsrq &s, std::uint32_t slot);

/*
 * One send work request of the INI QP to SRQ srqn: opcode with len bytes
 * of the initiator's slot, for RDMA the target's slot rslot, imm_data.
 */
int post_xsend(initiator &ini, std::uint64_t wr_id, ibv_wr_opcode opcode,
	       std::uint32_t srqn, std::uint32_t slot, std::uint32_t len,
	       const target *tgt = nullptr, std::uint32_t rslot = 0,
	       std::uint32_t imm = 0);

} /* namespace xrctest */

#endif /* SROCE_TOOLS_XRCTEST_XRC_SIDE_H */
