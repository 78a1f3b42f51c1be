// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wq.cpp - receive work queues (ibv_create_wq(3)) and receive WQ
 * indirection tables (ibv_create_rwq_ind_table(3)), for RSS QPs.
 *
 * A WQ is an SRQ's ring (srq.cpp) with a CQ of its own: CREATE_WQ returns
 * the ring's struct sroce_ring_info, the ring is mapped from the uverbs
 * file, and ibv_post_wq_recv() writes receive WQEs into it (wqe.cpp) and
 * publishes the producer index with a release store: no system call.
 * The kernel flushes what a WQ holds when it enters ERR; a post to a WQ
 * in ERR asks it to flush again (MODIFY_WQ from ERR to ERR), so that its
 * WQEs complete with IBV_WC_WR_FLUSH_ERR as a QP's do.  MODIFY_WQ,
 * DESTROY_WQ and the indirection tables are the plain uverbs commands.
 */
#include <cstdlib>

#include "uverbs_cmd.h"
#include "verbs_abi_wq.h"
#include "wq.h"

namespace sroce {

namespace {

using create_wq_cmd = uverbs_cmd<sizeof(ib_uverbs_ex_cmd_hdr) +
					 sizeof(ib_uverbs_ex_create_wq),
				 sroce_create_wq_cmd>;
using create_wq_resp =
	uverbs_resp<ib_uverbs_ex_create_wq_resp, sroce_create_wq_resp>;
using modify_wq_cmd = uverbs_cmd<sizeof(ib_uverbs_ex_cmd_hdr) +
				 sizeof(ib_uverbs_ex_modify_wq)>;

/* struct ibv_create_wq and struct ibv_modify_wq of rdma-core's kern-abi.h */
static_assert(create_wq_cmd::tail_offset == 64);
static_assert(tail_is_contiguous<create_wq_cmd>());
static_assert(tail_is_contiguous<create_wq_resp>());
static_assert(create_wq_resp::tail_offset == 24);
static_assert(modify_wq_cmd::size == 48);

/* The kernel flushes the WQEs a WQ in ERR holds (ERR to ERR). */
int flush_wq(ibv_wq *ibwq) noexcept
{
	modify_wq_cmd cmd{};
	ibv_wq_attr attr{};

	attr.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE;
	attr.wq_state = IBV_WQS_ERR;
	attr.curr_wq_state = IBV_WQS_ERR;
	return ibv_cmd_modify_wq(ibwq, &attr, cmd.buf(), modify_wq_cmd::size);
}

/* Never a system call, but in ERR: WQEs and a release store. */
int post_wq_recv(ibv_wq *ibwq, ibv_recv_wr *wr, ibv_recv_wr **bad_wr) noexcept
{
	wq *w = to_wq(ibwq);

	pthread_spin_lock(&w->lock);
	const int ret = wq_post_recv(w->rq, wr, bad_wr);
	pthread_spin_unlock(&w->lock);
	if (ibwq->state == IBV_WQS_ERR)
		(void)flush_wq(ibwq);
	return ret;
}

} /* namespace */

/*
 * The granted max_wr and max_sge come back in attr (libibverbs writes them
 * there); the ring must hold at least that.  On any failure after the
 * kernel created the WQ, it is destroyed again.
 */
ibv_wq *create_wq(ibv_context *ibctx, ibv_wq_init_attr *attr) noexcept
{
	auto *w = static_cast<wq *>(std::calloc(1, sizeof(wq)));
	create_wq_cmd cmd{};
	create_wq_resp resp{};

	if (w == nullptr)
		return null_with_errno(ENOMEM);
	scope_exit free_wq([w] { std::free(w); });

	cmd.drv.recv_wqe_size = sizeof(sroce_recv_wqe);
	int ret = ibv_cmd_create_wq(ibctx, attr, &w->ibwq, cmd.buf(),
				    create_wq_cmd::size, resp.core_ptr(),
				    create_wq_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit destroy([w] { ibv_cmd_destroy_wq(&w->ibwq); });

	const ring_need need{
		.what = "WQ",
		.min_entry_size = rq_entry_min(attr->max_sge),
		.min_entries = attr->max_wr,
		.has_notify = false,
	};
	ret = map_ring(ibctx, resp.drv.rq, need, &w->rq.ring, &w->map);
	if (ret != 0)
		return null_with_errno(ret);
	ret = pthread_spin_init(&w->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret != 0) {
		unmap_ring(&w->map);
		return null_with_errno(ret);
	}
	w->rq.max_sge = attr->max_sge;
	w->rq.max_inline = 0;
	w->ibwq.wq_context = attr->wq_context;
	w->ibwq.state = IBV_WQS_RESET;
	w->ibwq.post_recv = post_wq_recv;
	destroy.release();
	free_wq.release();
	return &w->ibwq;
}

/* The kernel checks the transition and the current state. */
int modify_wq(ibv_wq *ibwq, ibv_wq_attr *attr) noexcept
{
	modify_wq_cmd cmd{};

	return ibv_cmd_modify_wq(ibwq, attr, cmd.buf(), modify_wq_cmd::size);
}

/* On failure (an indirection table uses it) the WQ stays the caller's. */
int destroy_wq(ibv_wq *ibwq) noexcept
{
	wq *w = to_wq(ibwq);
	const int ret = ibv_cmd_destroy_wq(ibwq);

	if (ret != 0)
		return ret;
	unmap_ring(&w->map);
	pthread_spin_destroy(&w->lock);
	std::free(w);
	return 0;
}

ibv_rwq_ind_table *
create_rwq_ind_table(ibv_context *ibctx,
		     ibv_rwq_ind_table_init_attr *attr) noexcept
{
	auto *tbl = static_cast<ibv_rwq_ind_table *>(
		std::calloc(1, sizeof(ibv_rwq_ind_table)));
	ib_uverbs_ex_create_rwq_ind_table_resp resp{};

	if (tbl == nullptr)
		return null_with_errno(ENOMEM);
	const int ret = ibv_cmd_create_rwq_ind_table(ibctx, attr, tbl, &resp,
						     sizeof(resp));
	if (ret != 0) {
		std::free(tbl);
		return null_with_errno(ret);
	}
	return tbl;
}

/* On failure (a QP uses it) the table stays the caller's. */
int destroy_rwq_ind_table(ibv_rwq_ind_table *tbl) noexcept
{
	const int ret = ibv_cmd_destroy_rwq_ind_table(tbl);

	if (ret != 0)
		return ret;
	std::free(tbl);
	return 0;
}

} /* namespace sroce */
