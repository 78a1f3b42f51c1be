// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cq_ex.cpp - the extended CQ: ibv_create_cq_ex() and the poll API of
 * struct ibv_cq_ex (ibv_start_poll, ibv_next_poll, ibv_end_poll and the
 * ibv_wc_read_*() accessors).
 *
 * It is the CQ of cq.cpp, created by the same command on the same ring;
 * ibv_poll_cq() works on it too.  start_poll takes the CQ's lock and keeps
 * it until end_poll (or until it finds nothing), as ibv_start_poll(3)
 * allows: between them no other poller may consume.  Each CQE is read as a
 * work completion by cqe_to_wc(), the conversion poll_cq uses; the
 * accessors read that copy.  The consumer index is stored once, at
 * end_poll (or when next_poll finds the ring drained).
 *
 * Completion timestamps: a CQ created with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP (_WALLCLOCK) asks sroce.ko, by
 * enum sroce_cq_flags in the CREATE_CQ tail, to stamp each CQE it writes
 * with CLOCK_MONOTONIC (CLOCK_REALTIME) in nanoseconds.  The device clock
 * is CLOCK_MONOTONIC: ibv_query_device_ex() reports hca_core_clock
 * 1000000 kHz and a 64-bit mask, ibv_query_rt_values_ex() reads the same
 * clock here, so a raw timestamp and a raw clock read compare directly.
 */
#include <cerrno>
#include <ctime>

#include "cq.h"

namespace sroce {

namespace {

constexpr std::uint64_t supported_wc_flags =
	std::uint64_t{IBV_WC_STANDARD_FLAGS} |
	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
constexpr std::uint32_t supported_cq_comp_mask =
	IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;
constexpr std::uint32_t supported_cq_flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;

inline cq *to_cq(ibv_cq_ex *ibcq) noexcept
{
	return reinterpret_cast<cq *>(ibcq);
}

/* Reads the CQE at c->cur into c->wc, its timestamps and ibv_cq_ex. */
int read_current(cq *c) noexcept
{
	sroce_cqe cqe;
	const int ret = cq_ring_at(c->ring, c->cons, c->cur, &cqe);

	if (ret == 0) {
		cqe_to_wc(cqe, &c->wc);
		c->completion_ts = cqe.completion_ts;
		c->wallclock_ns = cqe.wallclock_ns;
		c->vcq.cq_ex.status = c->wc.status;
		c->vcq.cq_ex.wr_id = c->wc.wr_id;
	}
	return ret;
}

int start_poll(ibv_cq_ex *ibcq, ibv_poll_cq_attr *attr) noexcept
{
	cq *c = to_cq(ibcq);

	if (attr != nullptr && attr->comp_mask != 0)
		return EINVAL;
	pthread_spin_lock(&c->lock);
	if (c->broken) {
		pthread_spin_unlock(&c->lock);
		return EIO;
	}
	c->cons = cq_ring_consumer(c->ring);
	c->cur = c->cons;
	const int ret = read_current(c);
	if (ret != 0)
		pthread_spin_unlock(&c->lock);
	return ret;
}

/* A failure ends the poll (ibv_next_poll(3)): no end_poll follows. */
int next_poll(ibv_cq_ex *ibcq) noexcept
{
	cq *c = to_cq(ibcq);

	++c->cur;
	const int ret = read_current(c);
	if (ret != 0) {
		cq_ring_consume(c->ring, c->cur);
		pthread_spin_unlock(&c->lock);
	}
	return ret;
}

void end_poll(ibv_cq_ex *ibcq) noexcept
{
	cq *c = to_cq(ibcq);

	cq_ring_consume(c->ring, c->cur + 1);
	pthread_spin_unlock(&c->lock);
}

ibv_wc_opcode read_opcode(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.opcode;
}

std::uint32_t read_vendor_err(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.vendor_err;
}

std::uint32_t read_byte_len(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.byte_len;
}

/* The immediate data, or with IBV_WC_WITH_INV the invalidated rkey. */
__be32 read_imm_data(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.imm_data;
}

std::uint32_t read_qp_num(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.qp_num;
}

std::uint32_t read_src_qp(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.src_qp;
}

unsigned int read_wc_flags(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.wc_flags;
}

std::uint32_t read_slid(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.slid;
}

std::uint8_t read_sl(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.sl;
}

std::uint8_t read_dlid_path_bits(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wc.dlid_path_bits;
}

/* The device clock (CLOCK_MONOTONIC, ns) when sroce.ko wrote the CQE. */
std::uint64_t read_completion_ts(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->completion_ts;
}

/* CLOCK_REALTIME in ns when sroce.ko wrote the CQE. */
std::uint64_t read_completion_wallclock_ns(ibv_cq_ex *ibcq) noexcept
{
	return to_cq(ibcq)->wallclock_ns;
}

} /* namespace */

int check_cq_init_attr(const ibv_cq_init_attr_ex &attr) noexcept
{
	if ((attr.wc_flags & ~supported_wc_flags) != 0 ||
	    (attr.comp_mask & ~supported_cq_comp_mask) != 0)
		return EOPNOTSUPP;
	if ((attr.comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) != 0 &&
	    (attr.flags & ~supported_cq_flags) != 0)
		return EOPNOTSUPP;
	if ((attr.comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) != 0 &&
	    (attr.parent_domain == nullptr ||
	     !is_parent_domain(attr.parent_domain)))
		return EINVAL;
	return 0;
}

/*
 * Every accessor ibv_cq_ex documents as always there, and the optional
 * ones wc_flags asks for; the others stay NULL, as libibverbs expects.
 */
void set_cq_ex_ops(cq *c, std::uint64_t wc_flags) noexcept
{
	ibv_cq_ex &x = c->vcq.cq_ex;

	x.start_poll = start_poll;
	x.next_poll = next_poll;
	x.end_poll = end_poll;
	x.read_opcode = read_opcode;
	x.read_vendor_err = read_vendor_err;
	x.read_wc_flags = read_wc_flags;
	if ((wc_flags & IBV_WC_EX_WITH_BYTE_LEN) != 0)
		x.read_byte_len = read_byte_len;
	if ((wc_flags & IBV_WC_EX_WITH_IMM) != 0)
		x.read_imm_data = read_imm_data;
	if ((wc_flags & IBV_WC_EX_WITH_QP_NUM) != 0)
		x.read_qp_num = read_qp_num;
	if ((wc_flags & IBV_WC_EX_WITH_SRC_QP) != 0)
		x.read_src_qp = read_src_qp;
	if ((wc_flags & IBV_WC_EX_WITH_SLID) != 0)
		x.read_slid = read_slid;
	if ((wc_flags & IBV_WC_EX_WITH_SL) != 0)
		x.read_sl = read_sl;
	if ((wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS) != 0)
		x.read_dlid_path_bits = read_dlid_path_bits;
	if ((wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) != 0)
		x.read_completion_ts = read_completion_ts;
	if ((wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) != 0)
		x.read_completion_wallclock_ns = read_completion_wallclock_ns;
}

std::uint32_t cq_stamp_flags(std::uint64_t wc_flags) noexcept
{
	std::uint32_t stamp = 0;

	if ((wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) != 0)
		stamp |= SROCE_CQ_F_TIMESTAMP;
	if ((wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) != 0)
		stamp |= SROCE_CQ_F_WALLCLOCK;
	return stamp;
}

int query_rt_values(ibv_context * /*ibctx*/, ibv_values_ex *values) noexcept
{
	if ((values->comp_mask & ~std::uint32_t{IBV_VALUES_MASK_RAW_CLOCK}) !=
	    0)
		return EINVAL;
	if (values->comp_mask == 0)
		return 0;
	timespec now{};

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return errno;
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = now.tv_sec * 1000000000L + now.tv_nsec;
	return 0;
}

/* libibverbs runs verbs_init_cq() on what this returns. */
ibv_cq_ex *create_cq_ex(ibv_context *ibctx, ibv_cq_init_attr_ex *attr) noexcept
{
	const int ret = check_cq_init_attr(*attr);

	if (ret != 0)
		return null_with_errno(ret);
	ibv_pd *domain = (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) != 0
				 ? attr->parent_domain
				 : nullptr;
	if (domain != nullptr && domain->context != ibctx)
		return null_with_errno(EINVAL);
	ibv_cq *ibcq =
		create_cq_on(ibctx, static_cast<int>(attr->cqe), attr->channel,
			     static_cast<int>(attr->comp_vector), domain,
			     cq_stamp_flags(attr->wc_flags));
	if (ibcq == nullptr)
		return nullptr;
	cq *c = to_cq(ibcq);
	set_cq_ex_ops(c, attr->wc_flags);
	return &c->vcq.cq_ex;
}

} /* namespace sroce */
