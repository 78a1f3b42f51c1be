// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cq.cpp - completion queues on a ring the kernel shares with us.
 *
 * CREATE_CQ (and RESIZE_CQ) return a struct sroce_ring_info; the ring is
 * mapped from the uverbs file at its offset.  Polling and arming touch only
 * the mapping: no system call.  Completion channels need nothing here: the
 * kernel signals the channel itself when it finds the CQ armed, and
 * libibverbs reads the event from the channel's file.
 */
#include <cinttypes>
#include <cstdlib>
#include <span>
#include <sys/mman.h>

#include "objects.h"
#include "uverbs_cmd.h"

namespace sroce {

namespace {

/* Map the ring a response describes; *view and *map on success. */
int map_ring(ibv_context *ibctx, const sroce_ring_info &info, ring_view *view,
	     void **map, std::size_t *map_size) noexcept
{
	ring_layout layout{};
	int ret = parse_ring_info(info, sizeof(sroce_cqe), true,
				  to_ctx(ibctx)->params.page_size, &layout);

	if (ret != 0) {
		__verbs_log(
			&to_ctx(ibctx)->vctx, VERBS_LOG_ERR,
			"sroce: CQ ring description refused: offset %#" PRIx64
			" size %" PRIu32 " entries %" PRIu32 "\n",
			static_cast<std::uint64_t>(info.mmap_offset),
			info.mmap_size, info.num_entries);
		return ret;
	}
	void *m = mmap(nullptr, layout.mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, ibctx->cmd_fd,
		       static_cast<off_t>(layout.mmap_offset));
	if (m == MAP_FAILED)
		return errno;
	*view = make_ring_view(m, layout);
	*map = m;
	*map_size = layout.mmap_size;
	return 0;
}

} /* namespace */

ibv_cq *create_cq(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		  int comp_vector) noexcept
{
	auto *c = static_cast<cq *>(std::calloc(1, sizeof(cq)));
	create_cq_cmd cmd{};
	create_cq_resp resp{};

	if (c == nullptr)
		return nullptr;
	scope_exit free_cq([c] { std::free(c); });

	cmd.drv.cqe_size = sizeof(sroce_cqe);
	int ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
				    &c->vcq.cq, cmd.buf(), create_cq_cmd::size,
				    resp.core_ptr(), create_cq_resp::size);
	if (ret != 0) {
		errno = ret;
		return nullptr;
	}
	scope_exit destroy([c] { ibv_cmd_destroy_cq(&c->vcq.cq); });

	ret = map_ring(ibctx, resp.drv.ring, &c->ring, &c->map, &c->map_size);
	if (ret != 0) {
		errno = ret;
		return nullptr;
	}
	ret = pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret != 0) {
		munmap(c->map, c->map_size);
		errno = ret;
		return nullptr;
	}
	destroy.release();
	free_cq.release();
	return &c->vcq.cq;
}

int destroy_cq(ibv_cq *ibcq) noexcept
{
	cq *c = to_cq(ibcq);
	const int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret != 0)
		return ret;
	if (c->map != nullptr)
		munmap(c->map, c->map_size);
	pthread_spin_destroy(&c->lock);
	std::free(c);
	return 0;
}

int poll_cq(ibv_cq *ibcq, int num_entries, ibv_wc *wc) noexcept
{
	cq *c = to_cq(ibcq);
	/* A negative count asks for nothing. */
	const std::span<ibv_wc> out(
		wc,
		num_entries > 0 ? static_cast<std::size_t>(num_entries) : 0);

	pthread_spin_lock(&c->lock);
	const int n = c->broken ? -1 : cq_ring_poll(c->ring, out);
	pthread_spin_unlock(&c->lock);
	return n;
}

int req_notify_cq(ibv_cq *ibcq, int solicited_only) noexcept
{
	cq *c = to_cq(ibcq);
	int ret = 0;

	pthread_spin_lock(&c->lock);
	if (c->broken)
		ret = EIO;
	else
		cq_ring_arm(c->ring, solicited_only != 0);
	pthread_spin_unlock(&c->lock);
	return ret;
}

/*
 * The kernel moves the pending CQEs to a new ring and answers with its
 * description; the old mapping is dead from then on.  A spinlock across a
 * system call is acceptable here: resizing is rare and pollers would have
 * to wait for the new ring anyway.
 */
int resize_cq(ibv_cq *ibcq, int cqe) noexcept
{
	cq *c = to_cq(ibcq);
	resize_cq_cmd cmd{};
	resize_cq_resp resp{};
	ring_view view{};
	void *map = nullptr;
	std::size_t map_size = 0;

	pthread_spin_lock(&c->lock);
	int ret = ibv_cmd_resize_cq(ibcq, cqe, cmd.buf(), resize_cq_cmd::size,
				    resp.core_ptr(), resize_cq_resp::size);
	if (ret == 0) {
		ret = map_ring(ibcq->context, resp.drv.ring, &view, &map,
			       &map_size);
		munmap(c->map, c->map_size);
		if (ret == 0) {
			c->ring = view;
			c->map = map;
			c->map_size = map_size;
			c->broken = false;
		} else {
			c->broken = true;
			c->map = nullptr;
		}
	}
	pthread_spin_unlock(&c->lock);
	return ret;
}

} /* namespace sroce */
