// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ring.cpp - see ring.h.
 */
#include "ring.h"

#include <cerrno>
#include <cstring>

namespace sroce {

namespace {

constexpr bool is_pow2(std::uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* A __u32 word at off lies in the mapping, aligned, outside the entries. */
constexpr bool word_ok(std::uint64_t off, std::uint64_t size,
		       std::uint64_t ent_begin, std::uint64_t ent_end)
{
	return off % 4 == 0 && off + 4 <= size &&
	       (off + 4 <= ent_begin || off >= ent_end);
}

} /* namespace */

int parse_ring_info(const sroce_ring_info &info, std::size_t min_entry_size,
		    bool has_notify, std::uint32_t page_size,
		    ring_layout *out) noexcept
{
	const std::uint64_t size = info.mmap_size;
	const std::uint64_t ent_begin = info.entries_offset;
	/* 32-bit operands, 64-bit product and sum: no overflow. */
	const std::uint64_t ent_end =
		ent_begin + std::uint64_t{info.num_entries} * info.entry_size;

	if (page_size == 0 || !is_pow2(page_size))
		return EPROTO;
	if (size == 0 || size % page_size != 0 ||
	    info.mmap_offset % page_size != 0)
		return EPROTO;
	if (!is_pow2(info.num_entries) || info.entry_size < min_entry_size ||
	    info.entry_size % 8 != 0)
		return EPROTO;
	if (ent_begin % 8 != 0 || ent_end > size)
		return EPROTO;
	if (!word_ok(info.producer_offset, size, ent_begin, ent_end) ||
	    !word_ok(info.consumer_offset, size, ent_begin, ent_end) ||
	    info.producer_offset == info.consumer_offset)
		return EPROTO;
	if (has_notify &&
	    (!word_ok(info.notify_offset, size, ent_begin, ent_end) ||
	     info.notify_offset == info.producer_offset ||
	     info.notify_offset == info.consumer_offset))
		return EPROTO;

	*out = ring_layout{
		.mmap_offset = info.mmap_offset,
		.mmap_size = static_cast<std::size_t>(size),
		.num_entries = info.num_entries,
		.entry_size = info.entry_size,
		.entries_offset = info.entries_offset,
		.producer_offset = info.producer_offset,
		.consumer_offset = info.consumer_offset,
		.notify_offset = has_notify ? info.notify_offset : 0,
	};
	return 0;
}

ring_view make_ring_view(void *base, const ring_layout &layout) noexcept
{
	auto *const b = static_cast<unsigned char *>(base);
	auto word = [b](std::uint32_t off) {
		return reinterpret_cast<std::uint32_t *>(b + off);
	};

	return ring_view{
		.entries = b + layout.entries_offset,
		.producer = word(layout.producer_offset),
		.consumer = word(layout.consumer_offset),
		.notify = layout.notify_offset != 0 ? word(layout.notify_offset)
						    : nullptr,
		.mask = layout.num_entries - 1,
		.entry_size = layout.entry_size,
	};
}

namespace {

/*
 * sroce_cqe.network_hdr_type: the kernel's enum rdma_network_type, which no
 * user-space header has.
 */
constexpr std::uint8_t net_ipv4 = 2; /* RDMA_NETWORK_IPV4 */
constexpr std::uint8_t net_ipv6 = 3; /* RDMA_NETWORK_IPV6 */
/* ibv_wc.sl of a RoCE UD receive: mlx5's and hns's L3 header types. */
constexpr std::uint8_t roce_l3_ipv6 = 1;
constexpr std::uint8_t roce_l3_ipv4 = 2;

} /* namespace */

void cqe_to_wc(const sroce_cqe &cqe, ibv_wc *wc) noexcept
{
	unsigned int flags = 0;

	*wc = ibv_wc{};
	wc->wr_id = cqe.wr_id;
	wc->status = static_cast<ibv_wc_status>(cqe.status);
	wc->opcode = static_cast<ibv_wc_opcode>(cqe.opcode);
	wc->vendor_err = cqe.vendor_err;
	wc->byte_len = cqe.byte_len;
	if ((cqe.wc_flags & SROCE_WC_F_WITH_INV) != 0) {
		wc->invalidated_rkey = cqe.imm_data;
		flags |= IBV_WC_WITH_INV;
	} else if ((cqe.wc_flags & SROCE_WC_F_WITH_IMM) != 0) {
		/* Network byte order on both sides: copied as is. */
		wc->imm_data = cqe.imm_data;
		flags |= IBV_WC_WITH_IMM;
	}
	if ((cqe.wc_flags & SROCE_WC_F_GRH) != 0)
		flags |= IBV_WC_GRH;
	wc->wc_flags = flags;
	wc->qp_num = cqe.qp_num;
	wc->src_qp = cqe.src_qp;
	wc->pkey_index = cqe.pkey_index;
	wc->slid = cqe.slid;
	wc->sl = cqe.sl;
	/*
	 * RoCE has no SL: a UD receive reports its L3 header type there, as
	 * mlx5 (the CQE's roce_pkt_type, bits 2:0) and hns do, since ibv_wc
	 * has no field for it.  UCX 1.11-1.18 read it to find the destination
	 * address in the GRH area ((sl & 7) == 2: IPv4) and drop what does
	 * not match a GID (Documentation/provider.md).
	 */
	if ((cqe.wc_flags & SROCE_WC_F_GRH) != 0) {
		if (cqe.network_hdr_type == net_ipv4)
			wc->sl = roce_l3_ipv4;
		else if (cqe.network_hdr_type == net_ipv6)
			wc->sl = roce_l3_ipv6;
	}
	wc->dlid_path_bits = cqe.dlid_path_bits;
}

int cq_ring_poll(const ring_view &ring, std::span<ibv_wc> wc) noexcept
{
	std::atomic_ref<std::uint32_t> prod_ref(*ring.producer);
	std::atomic_ref<std::uint32_t> cons_ref(*ring.consumer);
	/* Only this side writes the consumer index. */
	const std::uint32_t cons = cons_ref.load(std::memory_order_relaxed);
	const std::uint32_t prod = prod_ref.load(std::memory_order_acquire);
	const std::uint32_t used = ring_used(prod, cons);
	std::uint32_t n = 0;

	if (used > ring.mask + 1)
		return -1;
	for (ibv_wc &out : wc) {
		if (n == used)
			break;
		sroce_cqe cqe;

		std::memcpy(&cqe, ring.slot(cons + n).data(), sizeof(cqe));
		cqe_to_wc(cqe, &out);
		++n;
	}
	if (n != 0)
		cons_ref.store(cons + n, std::memory_order_release);
	return static_cast<int>(n);
}

std::uint32_t cq_ring_consumer(const ring_view &ring) noexcept
{
	/* Only this side writes it. */
	return std::atomic_ref<std::uint32_t>(*ring.consumer)
		.load(std::memory_order_relaxed);
}

int cq_ring_at(const ring_view &ring, std::uint32_t cons, std::uint32_t cur,
	       sroce_cqe *cqe) noexcept
{
	const std::uint32_t prod =
		std::atomic_ref<std::uint32_t>(*ring.producer)
			.load(std::memory_order_acquire);
	const std::uint32_t used = ring_used(prod, cons);

	if (used > ring.mask + 1)
		return EIO;
	if (ring_used(cur, cons) >= used)
		return ENOENT;
	std::memcpy(cqe, ring.slot(cur).data(), sizeof(*cqe));
	return 0;
}

void cq_ring_consume(const ring_view &ring, std::uint32_t cons) noexcept
{
	std::atomic_ref<std::uint32_t>(*ring.consumer)
		.store(cons, std::memory_order_release);
}

std::uint32_t cq_ring_purge(const ring_view &ring,
			    std::uint32_t qp_num) noexcept
{
	const std::uint32_t cons = cq_ring_consumer(ring);
	const std::uint32_t prod =
		std::atomic_ref<std::uint32_t>(*ring.producer)
			.load(std::memory_order_acquire);
	const std::uint32_t used = ring_used(prod, cons);
	std::uint32_t dropped = 0;

	if (used > ring.mask + 1)
		return 0;
	/* From the newest down: each kept CQE moves up by the gap so far. */
	for (std::uint32_t k = 1; k <= used; ++k) {
		const std::uint32_t idx = prod - k;
		const std::span<unsigned char> from = ring.slot(idx);
		sroce_cqe cqe;

		std::memcpy(&cqe, from.data(), sizeof(cqe));
		if (cqe.qp_num == qp_num)
			++dropped;
		else if (dropped != 0)
			std::memcpy(ring.slot(idx + dropped).data(),
				    from.data(), from.size());
	}
	if (dropped != 0)
		cq_ring_consume(ring, cons + dropped);
	return dropped;
}

void cq_ring_arm(const ring_view &ring, bool solicited_only) noexcept
{
	std::atomic_ref<std::uint32_t> word(*ring.notify);

	word.fetch_or(solicited_only ? SROCE_CQ_NOTIFY_SOLICITED
				     : SROCE_CQ_NOTIFY_NEXT_COMP,
		      std::memory_order_seq_cst);
}

} /* namespace sroce */
