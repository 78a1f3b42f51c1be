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
#include <cstdlib>
#include <span>

#include "cq.h"
#include "uverbs_cmd.h"

namespace sroce {

namespace {

/* A CQ ring: CQEs, a notification word (the arm bits), no depth check. */
constexpr ring_need cq_ring_need{
	.what = "CQ",
	.min_entry_size = sizeof(sroce_cqe),
	.min_entries = 0,
	.has_notify = true,
};

} /* namespace */

ibv_cq *create_cq(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		  int comp_vector) noexcept
{
	return create_cq_on(ibctx, cqe, channel, comp_vector, nullptr, 0);
}

ibv_cq *create_cq_on(ibv_context *ibctx, int cqe, ibv_comp_channel *channel,
		     int comp_vector, ibv_pd *parent_domain,
		     std::uint32_t stamp) noexcept
{
	obj_mem mem{};
	auto *c = static_cast<cq *>(
		obj_alloc(parent_domain, sizeof(cq), resource::cq, &mem));
	create_cq_cmd cmd{};
	create_cq_resp resp{};

	if (c == nullptr)
		return nullptr;
	c->mem = mem;
	scope_exit free_cq([c] { obj_free(c, c->mem, resource::cq); });

	cmd.drv.cqe_size = sizeof(sroce_cqe);
	cmd.drv.flags = stamp;
	int ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector,
				    &c->vcq.cq, cmd.buf(), create_cq_cmd::size,
				    resp.core_ptr(), create_cq_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit destroy([c] { ibv_cmd_destroy_cq(&c->vcq.cq); });

	ret = map_ring(ibctx, resp.drv.ring, cq_ring_need, &c->ring, &c->map);
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit unmap([c] { unmap_ring(&c->map); });

	ret = pthread_spin_init(&c->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret != 0)
		return null_with_errno(ret);
	unmap.release();
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
	unmap_ring(&c->map);
	pthread_spin_destroy(&c->lock);
	obj_free(c, c->mem, resource::cq);
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
	ring_mapping map{};

	pthread_spin_lock(&c->lock);
	int ret = ibv_cmd_resize_cq(ibcq, cqe, cmd.buf(), resize_cq_cmd::size,
				    resp.core_ptr(), resize_cq_resp::size);
	if (ret == 0) {
		ret = map_ring(ibcq->context, resp.drv.ring, cq_ring_need,
			       &view, &map);
		unmap_ring(&c->map);
		c->broken = ret != 0;
		if (ret == 0) {
			c->ring = view;
			c->map = map;
		}
	}
	pthread_spin_unlock(&c->lock);
	return ret;
}

} /* namespace sroce */
