// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wqe.cpp - see wqe.h.
 */
#include "wqe.h"

#include <array>
#include <atomic>
#include <cstring>

#include "ah.h"

extern "C" {
#include "wr.h"
}

namespace sroce {

namespace {

/* The QP type as a bit of the work-request table's masks (proto/wr.h). */
constexpr std::uint8_t wr_qpt(ibv_qp_type qp_type)
{
	switch (qp_type) {
	case IBV_QPT_UD:
		return SROCE_WR_QPT_UD;
	case IBV_QPT_UC:
		return SROCE_WR_QPT_UC;
	case IBV_QPT_RAW_PACKET: /* a SEND's gathered bytes are a frame */
		return SROCE_WR_QPT_RAW;
	case IBV_QPT_XRC_RECV: /* no send queue: it posts nothing */
		return 0;
	case IBV_QPT_XRC_SEND: /* XRC INI: RC's requests, but atomic write */
		return SROCE_WR_QPT_XRC;
	default:
		return SROCE_WR_QPT_RC;
	}
}

/*
 * The row of a work request's opcode in the protocol core's table, if the
 * QP type may post it from user space (ibv_post_send(3)); the table is
 * keyed by the uverbs opcodes, which are libibverbs' too.
 */
const struct sroce_wr_info *send_opcode(ibv_wr_opcode op, ibv_qp_type qp_type)
{
	const struct sroce_wr_info *info = sroce_wr_info(op);

	if (info == nullptr || (info->qp_types & wr_qpt(qp_type)) == 0 ||
	    (info->flags & SROCE_WRF_KERNEL) != 0)
		return nullptr;
	return info;
}

static_assert(int(SROCE_WR_OP_RDMA_WRITE) == int(IBV_WR_RDMA_WRITE) &&
	      int(SROCE_WR_OP_RDMA_WRITE_IMM) ==
		      int(IBV_WR_RDMA_WRITE_WITH_IMM) &&
	      int(SROCE_WR_OP_SEND) == int(IBV_WR_SEND) &&
	      int(SROCE_WR_OP_SEND_IMM) == int(IBV_WR_SEND_WITH_IMM) &&
	      int(SROCE_WR_OP_RDMA_READ) == int(IBV_WR_RDMA_READ) &&
	      int(SROCE_WR_OP_CMP_SWAP) == int(IBV_WR_ATOMIC_CMP_AND_SWP) &&
	      int(SROCE_WR_OP_FETCH_ADD) == int(IBV_WR_ATOMIC_FETCH_AND_ADD) &&
	      int(SROCE_WR_OP_LOCAL_INV) == int(IBV_WR_LOCAL_INV) &&
	      int(SROCE_WR_OP_BIND_MW) == int(IBV_WR_BIND_MW) &&
	      int(SROCE_WR_OP_SEND_INV) == int(IBV_WR_SEND_WITH_INV) &&
	      int(SROCE_WR_OP_ATOMIC_WRITE) == int(IBV_WR_ATOMIC_WRITE) &&
	      int(SROCE_WR_OP_ATOMIC_WRITE) == int(SROCE_WR_ATOMIC_WRITE) &&
	      int(SROCE_WR_OP_REG_MR) == int(SROCE_WR_REG_MR));
static_assert(int(SROCE_WC_OP_ATOMIC_WRITE) == int(IBV_WC_ATOMIC_WRITE));

/*
 * Can this BIND_MW be posted?  The WQE names the window by its new rkey
 * alone, so that key must be the window's own with another low byte
 * (sroce-abi.h): any other index would bind whichever window it names.  A
 * bind of length 0 unbinds a type 1 window and needs no region; a type 2
 * window is unbound by invalidation only.  A region must come from the
 * window's context (its lkey means nothing elsewhere).
 */
bool bind_is_valid(const ibv_send_wr &wr)
{
	const ibv_mw *mw = wr.bind_mw.mw;
	const ibv_mw_bind_info &info = wr.bind_mw.bind_info;

	if (mw == nullptr ||
	    ((wr.bind_mw.rkey ^ mw->rkey) & ~key_variant_mask) != 0)
		return false;
	if (info.length == 0)
		return mw->type == IBV_MW_TYPE_1;
	return (mw->type == IBV_MW_TYPE_1 || mw->type == IBV_MW_TYPE_2) &&
	       info.mr != nullptr && info.mr->context == mw->context;
}

constexpr unsigned int known_send_flags = IBV_SEND_FENCE | IBV_SEND_SIGNALED |
					  IBV_SEND_SOLICITED | IBV_SEND_INLINE;

/* IBV_SEND_* to sroce's own bits (equal numbers, converted by name). */
constexpr std::uint32_t to_sroce_send_flags(unsigned int flags)
{
	std::uint32_t out = 0;

	if ((flags & IBV_SEND_FENCE) != 0)
		out |= SROCE_SEND_FENCE;
	if ((flags & IBV_SEND_SIGNALED) != 0)
		out |= SROCE_SEND_SIGNALED;
	if ((flags & IBV_SEND_SOLICITED) != 0)
		out |= SROCE_SEND_SOLICITED;
	if ((flags & IBV_SEND_INLINE) != 0)
		out |= SROCE_SEND_INLINE;
	return out;
}

/*
 * The gather (or scatter) list of a request, if it has at most max_sge
 * entries; libibverbs hands it over as a pointer and a signed count.
 */
template <typename Wr>
bool sge_list(const Wr &wr, std::uint32_t max_sge,
	      std::span<const ibv_sge> *out)
{
	if (wr.num_sge < 0 || static_cast<std::uint32_t>(wr.num_sge) > max_sge)
		return false;
	*out = {wr.sg_list, static_cast<std::size_t>(wr.num_sge)};
	return true;
}

/* The list as sroce_sge entries; dst holds sges.size() of them. */
void put_sges(std::span<const ibv_sge> sges, std::span<unsigned char> dst)
{
	for (const ibv_sge &sge : sges) {
		const sroce_sge s{
			.addr = sge.addr,
			.length = sge.length,
			.lkey = sge.lkey,
		};
		std::memcpy(dst.data(), &s, sizeof(s));
		dst = dst.subspan(sizeof(s));
	}
}

/* The bytes at the SGEs' addresses, one after the other, into dst. */
void put_inline(std::span<const ibv_sge> sges, std::span<unsigned char> dst)
{
	for (const ibv_sge &sge : sges) {
		if (sge.length == 0)
			continue;
		/* Inline data is read from the caller's memory. */
		// NOLINTNEXTLINE(performance-no-int-to-ptr)
		const auto *src = reinterpret_cast<const void *>(
			static_cast<std::uintptr_t>(sge.addr));
		std::memcpy(dst.data(), src, sge.length);
		dst = dst.subspan(sge.length);
	}
}

/*
 * The 8 bytes of an atomic write into value: from atomic_wr (with no
 * gather list), else from the gather list's addresses, which must hold
 * exactly 8 bytes.  False when they do not.
 */
bool atomic_write_value(std::span<const ibv_sge> sges, const void *atomic_wr,
			std::span<unsigned char, 8> value)
{
	std::uint64_t len = 0;

	if (atomic_wr != nullptr) {
		if (!sges.empty())
			return false;
		std::memcpy(value.data(), atomic_wr, value.size());
		return true;
	}
	for (const ibv_sge &sge : sges)
		len += sge.length;
	if (len != value.size())
		return false;
	put_inline(sges, value);
	return true;
}

std::uint32_t load_consumer(const ring_view &ring)
{
	return std::atomic_ref<std::uint32_t>(*ring.consumer)
		.load(std::memory_order_acquire);
}

/*
 * Room for the WQE at prod?  *cons is the consumer index last seen; it is
 * loaded again only when the ring looks full.  A consumer index the kernel
 * could not have written (more than a ring behind, or ahead of prod) makes
 * ring_used() exceed the ring: full.
 */
bool has_room(const ring_view &ring, std::uint32_t prod, std::uint32_t *cons)
{
	const std::uint32_t entries = ring.mask + 1;

	if (ring_used(prod, *cons) < entries)
		return true;
	*cons = load_consumer(ring);
	return ring_used(prod, *cons) < entries;
}

/* encode_send_wqe() with the queue's limits, if it carries the opcode. */
int encode_send_on(const work_queue &wq, ibv_qp_type qp_type,
		   const ibv_send_wr &wr, std::span<unsigned char> slot,
		   const void *atomic_wr)
{
	if (wr.opcode == IBV_WR_ATOMIC_WRITE && !wq.atomic_write)
		return EINVAL;
	return encode_send_wqe(wr, qp_type, wq.max_sge, wq.max_inline, slot,
			       atomic_wr);
}

/*
 * wq_post_send() and wq_post_recv(): encode(*wr, slot) each request into
 * the slot of the next producer index while there is room, publish what
 * was written.  Returns 0 or the errno with *bad_wr at the request that
 * stopped the list; *posted counts the WQEs written.
 */
template <typename Wr, typename Encode>
int post_list(work_queue &wq, Wr *wr, Wr **bad_wr, std::uint32_t *posted,
	      Encode encode)
{
	const std::uint32_t start = wq.prod;
	std::uint32_t prod = start;
	std::uint32_t cons = load_consumer(wq.ring);
	int ret = 0;

	for (; wr != nullptr; wr = wr->next, ++prod) {
		if (!has_room(wq.ring, prod, &cons)) {
			ret = ENOMEM;
			break;
		}
		ret = encode(*wr, wq.ring.slot(prod));
		if (ret != 0)
			break;
	}
	wq_publish(wq, prod);
	if (ret != 0)
		*bad_wr = wr;
	*posted = prod - start;
	return ret;
}

} /* namespace */

bool send_opcode_supported(ibv_wr_opcode opcode, ibv_qp_type qp_type) noexcept
{
	return send_opcode(opcode, qp_type) != nullptr;
}

int encode_send_wqe(const ibv_send_wr &wr, ibv_qp_type qp_type,
		    std::uint32_t max_sge, std::uint32_t max_inline,
		    std::span<unsigned char> slot,
		    const void *atomic_wr) noexcept
{
	const struct sroce_wr_info *info = send_opcode(wr.opcode, qp_type);
	std::span<const ibv_sge> sges;

	if (info == nullptr)
		return EINVAL;
	const std::uint32_t opcode = wr.opcode;
	/* A bind has no gather list: num_sge and sg_list are not read. */
	const bool bind = opcode == IB_UVERBS_WR_BIND_MW;
	if (bind && !bind_is_valid(wr))
		return EINVAL;
	if (!bind && !sge_list(wr, max_sge, &sges))
		return EINVAL;
	if ((wr.send_flags & ~known_send_flags) != 0)
		return EINVAL;

	/* An atomic write's 8 bytes travel in the header (sroce-abi.h). */
	const bool atomic_write = (info->flags & SROCE_WRF_ATOMIC_WRITE) != 0;
	std::array<unsigned char, 8> value{};
	if (atomic_write && !atomic_write_value(sges, atomic_wr, value))
		return EINVAL;
	if (atomic_write)
		sges = {};

	const bool inl =
		!atomic_write && (wr.send_flags & IBV_SEND_INLINE) != 0;
	std::uint64_t inline_len = 0;

	if (inl) {
		if ((info->flags & SROCE_WRF_GATHER) == 0)
			return EINVAL;
		for (const ibv_sge &sge : sges)
			inline_len += sge.length;
		if (inline_len > max_inline)
			return EINVAL;
	}
	const std::uint64_t payload_len =
		inl ? inline_len : sges.size() * sizeof(sroce_sge);
	if (sizeof(sroce_send_wqe) + payload_len > slot.size())
		return EINVAL;

	sroce_send_wqe w{};
	w.wr_id = wr.wr_id;
	w.opcode = opcode;
	/* An atomic write's bytes are in the header, never inline. */
	w.send_flags = to_sroce_send_flags(
		atomic_write ? wr.send_flags & ~unsigned{IBV_SEND_INLINE}
			     : wr.send_flags);
	/* XRC INI QPs name the SRQ at the target in every request. */
	if (qp_type == IBV_QPT_XRC_SEND)
		w.xrc_srqn = wr.qp_type.xrc.remote_srqn;
	if ((info->flags & SROCE_WRF_IMM) != 0)
		w.imm_data = wr.imm_data; /* network order on both sides */
	else if ((info->flags & SROCE_WRF_INV) != 0)
		w.invalidate_rkey = wr.invalidate_rkey;
	if ((info->flags & SROCE_WRF_ATOMIC) != 0) {
		w.op.atomic = {
			.remote_addr = wr.wr.atomic.remote_addr,
			.compare_add = wr.wr.atomic.compare_add,
			.swap = wr.wr.atomic.swap,
			.rkey = wr.wr.atomic.rkey,
			.reserved = 0,
		};
	} else if (atomic_write) {
		w.op.atomic_write = {
			.remote_addr = wr.wr.rdma.remote_addr,
			.rkey = wr.wr.rdma.rkey,
			.reserved = 0,
			.data = {},
		};
		std::memcpy(w.op.atomic_write.data, value.data(), value.size());
	} else if ((info->flags & (SROCE_WRF_WRITE | SROCE_WRF_READ)) != 0) {
		w.op.rdma = {
			.remote_addr = wr.wr.rdma.remote_addr,
			.rkey = wr.wr.rdma.rkey,
			.reserved = 0,
		};
	} else if (bind) {
		const ibv_mw_bind_info &b = wr.bind_mw.bind_info;

		w.op.bind = {
			.addr = b.addr,
			.length = b.length,
			/* The region's lkey; an unbind may have no region. */
			.mr_lkey = b.length != 0 ? b.mr->lkey : 0,
			.rkey = wr.bind_mw.rkey,
			/* IBV_ACCESS_* as they are: the kernel checks them. */
			.access = b.mw_access_flags,
			.reserved = 0,
		};
	} else if (qp_type == IBV_QPT_UD) {
		w.op.ud = {
			/* The kernel checks the number (its AH, of the QP's PD). */
			.ah = wr.wr.ud.ah != nullptr ? to_ah(wr.wr.ud.ah)->num
						     : 0,
			.remote_qpn = wr.wr.ud.remote_qpn,
			.remote_qkey = wr.wr.ud.remote_qkey,
			.reserved = 0,
		};
	}

	const std::span<unsigned char> payload = slot.subspan(sizeof(w));
	if (inl) {
		w.inline_len = static_cast<std::uint32_t>(inline_len);
		w.num_sge = 0;
		put_inline(sges, payload);
	} else {
		w.num_sge = static_cast<std::uint32_t>(sges.size());
		put_sges(sges, payload);
	}
	std::memcpy(slot.data(), &w, sizeof(w));
	return 0;
}

int encode_recv_wqe(const ibv_recv_wr &wr, std::uint32_t max_sge,
		    std::span<unsigned char> slot) noexcept
{
	std::span<const ibv_sge> sges;

	if (!sge_list(wr, max_sge, &sges) ||
	    sizeof(sroce_recv_wqe) + sges.size() * sizeof(sroce_sge) >
		    slot.size())
		return EINVAL;

	const sroce_recv_wqe w{
		.wr_id = wr.wr_id,
		.num_sge = static_cast<std::uint32_t>(sges.size()),
		.reserved = 0,
	};
	std::memcpy(slot.data(), &w, sizeof(w));
	put_sges(sges, slot.subspan(sizeof(w)));
	return 0;
}

/* Make the WQEs up to prod visible to the kernel. */
void wq_publish(work_queue &wq, std::uint32_t prod) noexcept
{
	if (prod == wq.prod)
		return;
	std::atomic_ref<std::uint32_t>(*wq.ring.producer)
		.store(prod, std::memory_order_release);
	wq.prod = prod;
}

int wq_encode_send_at(work_queue &wq, ibv_qp_type qp_type,
		      const ibv_send_wr &wr, std::uint32_t prod,
		      const void *atomic_wr) noexcept
{
	std::uint32_t cons = load_consumer(wq.ring);

	if (!has_room(wq.ring, prod, &cons))
		return ENOMEM;
	return encode_send_on(wq, qp_type, wr, wq.ring.slot(prod), atomic_wr);
}

int wq_post_send(work_queue &wq, ibv_qp_type qp_type, ibv_send_wr *wr,
		 ibv_send_wr **bad_wr, std::uint32_t *posted) noexcept
{
	std::uint32_t n = 0;
	const int ret = post_list(
		wq, wr, bad_wr, &n,
		[&wq, qp_type](const ibv_send_wr &w,
			       std::span<unsigned char> slot) {
			return encode_send_on(wq, qp_type, w, slot, nullptr);
		});

	if (posted != nullptr)
		*posted = n;
	return ret;
}

int wq_post_recv(work_queue &wq, ibv_recv_wr *wr, ibv_recv_wr **bad_wr) noexcept
{
	std::uint32_t n = 0;

	return post_list(
		wq, wr, bad_wr, &n,
		[&wq](const ibv_recv_wr &w, std::span<unsigned char> slot) {
			return encode_recv_wqe(w, wq.max_sge, slot);
		});
}

bool sq_doorbell_needed(const ring_view &sq) noexcept
{
	/* Orders the producer store before the load (Dekker with the kernel). */
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return doorbell_wanted(std::atomic_ref<std::uint32_t>(*sq.notify)
				       .load(std::memory_order_seq_cst));
}

bool sq_doorbell_after_post(const ring_view &sq, std::uint32_t prod,
			    std::uint32_t posted) noexcept
{
	return posted != 0 &&
	       (sq_doorbell_due(prod, posted) || sq_doorbell_needed(sq));
}

post_send_cmd make_doorbell_cmd(std::uint32_t qp_handle,
				ib_uverbs_post_send_resp *resp) noexcept
{
	post_send_cmd cmd{};
	ib_uverbs_post_send core{};

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = post_send_cmd::size / 4;
	cmd.hdr.out_words = sizeof(*resp) / 4;
	core.response = reinterpret_cast<std::uintptr_t>(resp);
	core.qp_handle = qp_handle;
	core.wr_count = 0;
	core.sge_count = 0;
	core.wqe_size = sizeof(ib_uverbs_send_wr);
	std::memcpy(cmd.core, &core, sizeof(cmd.core));
	return cmd;
}

} /* namespace sroce */
