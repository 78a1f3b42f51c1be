// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * srq.cpp - shared receive queues: one receive ring the kernel shares with
 * us, from which every QP created with the SRQ takes its receives.
 *
 * CREATE_SRQ returns the ring's struct sroce_ring_info; the ring is mapped
 * from the uverbs file at its offset.  Posting writes receive WQEs into it
 * (wqe.cpp, as a QP's receive queue) and publishes the producer index with
 * a release store: never a system call.  MODIFY_SRQ (the limit), QUERY_SRQ
 * and DESTROY_SRQ are the plain uverbs commands.
 */
#include <cstdlib>

#include "srq.h"
#include "uverbs_cmd.h"

namespace sroce {

int srq_setup(srq *s, ibv_context *ibctx, const ibv_srq_attr &attr,
	      const sroce_create_srq_resp &drv) noexcept
{
	const ring_need need{
		.what = "SRQ",
		.min_entry_size = rq_entry_min(attr.max_sge),
		.min_entries = attr.max_wr,
		.has_notify = false,
	};
	int ret = map_ring(ibctx, drv.rq, need, &s->rq.ring, &s->map);
	if (ret != 0)
		return ret;
	ret = pthread_spin_init(&s->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret != 0) {
		unmap_ring(&s->map);
		return ret;
	}
	s->rq.max_sge = attr.max_sge;
	s->rq.max_inline = 0;
	return 0;
}

/*
 * The granted max_wr and max_sge come back in attr->attr (libibverbs
 * writes them there); the ring must hold at least that.  On any failure
 * after the kernel created the SRQ, it is destroyed again.
 */
ibv_srq *create_srq(ibv_pd *pd, ibv_srq_init_attr *attr) noexcept
{
	obj_mem mem{};
	auto *s = static_cast<srq *>(
		obj_alloc(pd, sizeof(srq), resource::srq, &mem));
	create_srq_cmd cmd{};
	create_srq_resp resp{};

	if (s == nullptr)
		return nullptr;
	s->mem = mem;
	scope_exit free_srq([s] { obj_free(s, s->mem, resource::srq); });

	cmd.drv.recv_wqe_size = sizeof(sroce_recv_wqe);
	int ret = ibv_cmd_create_srq(pd, &s->vsrq.srq, attr, cmd.buf(),
				     create_srq_cmd::size, resp.core_ptr(),
				     create_srq_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit destroy([s] { ibv_cmd_destroy_srq(&s->vsrq.srq); });

	ret = srq_setup(s, pd->context, attr->attr, resp.drv);
	if (ret != 0)
		return null_with_errno(ret);
	destroy.release();
	free_srq.release();
	return &s->vsrq.srq;
}

/* The limit (IBV_SRQ_LIMIT); resizing (IBV_SRQ_MAX_WR) is refused. */
int modify_srq(ibv_srq *ibsrq, ibv_srq_attr *attr, int attr_mask) noexcept
{
	modify_srq_cmd cmd{};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, cmd.buf(),
				  modify_srq_cmd::size);
}

int query_srq(ibv_srq *ibsrq, ibv_srq_attr *attr) noexcept
{
	query_srq_cmd cmd{};

	return ibv_cmd_query_srq(ibsrq, attr, cmd.buf(), query_srq_cmd::size);
}

/* On failure (QPs still use it) the SRQ stays: the caller still owns it. */
int destroy_srq(ibv_srq *ibsrq) noexcept
{
	srq *s = to_srq(ibsrq);
	const int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret != 0)
		return ret;
	unmap_ring(&s->map);
	pthread_spin_destroy(&s->lock);
	obj_free(s, s->mem, resource::srq);
	return 0;
}

/* Never a system call: WQEs and a release store of the producer index. */
int post_srq_recv(ibv_srq *ibsrq, ibv_recv_wr *wr,
		  ibv_recv_wr **bad_wr) noexcept
{
	srq *s = to_srq(ibsrq);

	pthread_spin_lock(&s->lock);
	const int ret = wq_post_recv(s->rq, wr, bad_wr);
	pthread_spin_unlock(&s->lock);
	return ret;
}

} /* namespace sroce */
