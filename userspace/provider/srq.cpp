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
#include <cinttypes>
#include <cstdlib>
#include <sys/mman.h>

#include "srq.h"
#include "uverbs_cmd.h"

namespace sroce {

namespace {

/* CREATE_SRQ: driver tail both ways; MODIFY_SRQ, QUERY_SRQ: none. */
using create_srq_cmd =
	uverbs_cmd<sizeof(ib_uverbs_create_srq), sroce_create_srq_cmd>;
using create_srq_resp =
	uverbs_resp<ib_uverbs_create_srq_resp, sroce_create_srq_resp>;
using modify_srq_cmd = uverbs_cmd<sizeof(ib_uverbs_modify_srq)>;
using query_srq_cmd = uverbs_cmd<sizeof(ib_uverbs_query_srq)>;

static_assert(create_srq_cmd::tail_offset == 40);
static_assert(create_srq_resp::tail_offset == 16);
static_assert(tail_is_contiguous<create_srq_cmd>());
static_assert(tail_is_contiguous<create_srq_resp>());
static_assert(create_srq_cmd::size % 4 == 0 && create_srq_resp::size % 4 == 0);
static_assert(modify_srq_cmd::size == 24);
static_assert(query_srq_cmd::size == 24);
static_assert(sizeof(sroce_create_srq_cmd) == 8);
static_assert(sizeof(sroce_create_srq_resp) == 80);

} /* namespace */

/*
 * The granted max_wr and max_sge come back in attr->attr (libibverbs
 * writes them there); the ring must hold at least that.  On any failure
 * after the kernel created the SRQ, it is destroyed again.
 */
ibv_srq *create_srq(ibv_pd *pd, ibv_srq_init_attr *attr) noexcept
{
	auto *s = static_cast<srq *>(std::calloc(1, sizeof(srq)));
	create_srq_cmd cmd{};
	create_srq_resp resp{};

	if (s == nullptr)
		return nullptr;
	scope_exit free_srq([s] { std::free(s); });

	cmd.drv.recv_wqe_size = sizeof(sroce_recv_wqe);
	int ret = ibv_cmd_create_srq(pd, &s->ibsrq, attr, cmd.buf(),
				     create_srq_cmd::size, resp.core_ptr(),
				     create_srq_resp::size);
	if (ret != 0) {
		errno = ret;
		return nullptr;
	}
	scope_exit destroy([s] { ibv_cmd_destroy_srq(&s->ibsrq); });

	const sroce_ring_info &info = resp.drv.rq;
	ring_layout layout{};
	ret = parse_ring_info(info, rq_entry_min(attr->attr.max_sge), false,
			      to_ctx(pd->context)->params.page_size, &layout);
	if (ret == 0 && layout.num_entries < attr->attr.max_wr)
		ret = EPROTO;
	if (ret != 0) {
		__verbs_log(&to_ctx(pd->context)->vctx, VERBS_LOG_ERR,
			    "sroce: SRQ ring description refused: offset "
			    "%#" PRIx64 " size %" PRIu32 " entries %" PRIu32
			    " entry size %" PRIu32 " (max_wr %" PRIu32
			    " max_sge %" PRIu32 ")\n",
			    static_cast<std::uint64_t>(info.mmap_offset),
			    info.mmap_size, info.num_entries, info.entry_size,
			    attr->attr.max_wr, attr->attr.max_sge);
		errno = ret;
		return nullptr;
	}
	void *m = mmap(nullptr, layout.mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, pd->context->cmd_fd,
		       static_cast<off_t>(layout.mmap_offset));
	if (m == MAP_FAILED)
		return nullptr; /* errno set by mmap */
	scope_exit unmap([m, &layout] { munmap(m, layout.mmap_size); });

	ret = pthread_spin_init(&s->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret != 0) {
		errno = ret;
		return nullptr;
	}
	s->rq.ring = make_ring_view(m, layout);
	s->rq.prod = 0;
	s->rq.max_sge = attr->attr.max_sge;
	s->rq.max_inline = 0;
	s->map = m;
	s->map_size = layout.mmap_size;

	unmap.release();
	destroy.release();
	free_srq.release();
	return &s->ibsrq;
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
	munmap(s->map, s->map_size);
	pthread_spin_destroy(&s->lock);
	std::free(s);
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
