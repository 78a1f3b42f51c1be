// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wr_builder.cpp - see wr_builder.h.
 */
#include "wr_builder.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sroce {

namespace {

void fail(wr_builder &b, int err)
{
	if (b.err == 0)
		b.err = err;
}

/* The open request into the slot at b.prod; the batch fails if it cannot. */
void encode_open(wr_builder &b, work_queue &wq, ibv_qp_type qp_type)
{
	if (!b.open)
		return;
	b.open = false;
	if (b.err != 0)
		return;
	const int ret = wq_encode_send_at(
		wq, qp_type, b.wr, b.prod,
		b.wr.opcode == IBV_WR_ATOMIC_WRITE ? b.atomic_wr : nullptr);
	if (ret != 0)
		fail(b, ret);
	else
		++b.prod;
}

} /* namespace */

int wrb_alloc(wr_builder &b, std::uint32_t max_sge, std::uint32_t max_inline,
	      ibv_pd *pd) noexcept
{
	const std::size_t n = max_sge != 0 ? max_sge : 1;
	const std::size_t inl = max_inline != 0 ? max_inline : 1;
	void *p = obj_alloc(pd, n * sizeof(ibv_sge) + inl, resource::wr_buf,
			    &b.mem);

	b.max_sge = max_sge;
	b.max_inline = max_inline;
	if (p == nullptr)
		return ENOMEM;
	b.sges = static_cast<ibv_sge *>(p);
	b.inl = static_cast<unsigned char *>(p) + n * sizeof(ibv_sge);
	return 0;
}

void wrb_free(wr_builder &b) noexcept
{
	obj_free(b.sges, b.mem, resource::wr_buf);
	b.sges = nullptr;
	b.inl = nullptr;
	b.mem = obj_mem{};
}

void wrb_start(wr_builder &b, const work_queue &wq) noexcept
{
	b.prod = wq.prod;
	b.err = 0;
	b.open = false;
}

void wrb_open(wr_builder &b, work_queue &wq, ibv_qp_type qp_type,
	      ibv_wr_opcode opcode, std::uint64_t wr_id,
	      unsigned int send_flags) noexcept
{
	encode_open(b, wq, qp_type);
	b.wr = ibv_send_wr{};
	b.wr.wr_id = wr_id;
	b.wr.opcode = opcode;
	b.wr.send_flags = send_flags;
	b.wr.sg_list = b.sges;
	b.wr.num_sge = 0;
	b.open = true;
}

void wrb_set_sge_list(wr_builder &b, std::size_t num_sge,
		      const ibv_sge *sg_list) noexcept
{
	if (!b.open || num_sge > b.max_sge) {
		fail(b, EINVAL);
		return;
	}
	if (num_sge != 0)
		std::memcpy(b.sges, sg_list, num_sge * sizeof(ibv_sge));
	b.wr.sg_list = b.sges;
	b.wr.num_sge = static_cast<int>(num_sge);
}

void wrb_set_inline_list(wr_builder &b, std::size_t num_buf,
			 const ibv_data_buf *buf_list) noexcept
{
	std::size_t len = 0;

	if (!b.open) {
		fail(b, EINVAL);
		return;
	}
	for (std::size_t i = 0; i < num_buf; ++i) {
		if (buf_list[i].length > b.max_inline - len) {
			fail(b, EINVAL);
			return;
		}
		if (buf_list[i].length != 0)
			std::memcpy(b.inl + len, buf_list[i].addr,
				    buf_list[i].length);
		len += buf_list[i].length;
	}
	/* One SGE over the copy; the encoder copies it into the WQE. */
	b.sges[0] = ibv_sge{
		.addr = reinterpret_cast<std::uintptr_t>(b.inl),
		.length = static_cast<std::uint32_t>(len),
		.lkey = 0,
	};
	b.wr.sg_list = b.sges;
	b.wr.num_sge = 1;
	b.wr.send_flags |= IBV_SEND_INLINE;
}

void wrb_set_ud_addr(wr_builder &b, ibv_ah *ah, std::uint32_t remote_qpn,
		     std::uint32_t remote_qkey) noexcept
{
	if (!b.open) {
		fail(b, EINVAL);
		return;
	}
	b.wr.wr.ud.ah = ah;
	b.wr.wr.ud.remote_qpn = remote_qpn;
	b.wr.wr.ud.remote_qkey = remote_qkey;
}

void wrb_set_xrc_srqn(wr_builder &b, std::uint32_t remote_srqn) noexcept
{
	if (!b.open) {
		fail(b, EINVAL);
		return;
	}
	b.wr.qp_type.xrc.remote_srqn = remote_srqn;
}

void wrb_set_atomic_wr(wr_builder &b, const void *atomic_wr) noexcept
{
	if (!b.open || b.wr.opcode != IBV_WR_ATOMIC_WRITE ||
	    atomic_wr == nullptr) {
		fail(b, EINVAL);
		return;
	}
	std::memcpy(b.atomic_wr, atomic_wr, sizeof(b.atomic_wr));
}

int wrb_complete(wr_builder &b, work_queue &wq, ibv_qp_type qp_type,
		 std::uint32_t *posted) noexcept
{
	encode_open(b, wq, qp_type);
	*posted = 0;
	if (b.err != 0)
		return b.err;
	*posted = b.prod - wq.prod;
	wq_publish(wq, b.prod);
	return 0;
}

void wrb_abort(wr_builder &b) noexcept
{
	b.open = false;
	b.err = 0;
}

} /* namespace sroce */
