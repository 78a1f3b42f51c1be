// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp.cpp - queue pairs whose send and receive queues are rings the kernel
 * shares with us.
 *
 * CREATE_QP returns a struct sroce_ring_info for each queue; both are
 * mapped from the uverbs file at their offsets.  Posting writes WQEs into
 * the rings (wqe.cpp) and publishes the producer index: a receive never
 * makes a system call, a send makes one only when the kernel's requester
 * is idle (the SQ notification word has SROCE_SQ_NOTIFY_DOORBELL): a
 * POST_SEND without work requests, the doorbell.  MODIFY_QP, QUERY_QP and
 * DESTROY_QP are the plain uverbs commands; entering RESET also resets the
 * provider's copies of the producer indices, as the kernel resets the
 * rings'.
 */
#include <algorithm>
#include <cstdlib>
#include <unistd.h>

#include "context.h"
#include "cq.h"
#include "qp.h"
#include "uverbs_cmd.h"

namespace sroce {

/* The doorbell: POST_SEND without work requests (sroce-abi.h). */
int qp_ring_doorbell(ibv_qp *ibqp) noexcept
{
	ib_uverbs_post_send_resp resp{};
	post_send_cmd cmd = make_doorbell_cmd(ibqp->handle, &resp);
	/* The whole object: header and core, nothing after them. */
	const ssize_t n =
		write(ibqp->context->cmd_fd, &cmd, post_send_cmd::size);

	if (n < 0)
		return errno;
	return n == static_cast<ssize_t>(post_send_cmd::size) ? 0 : EIO;
}

int qp_setup(qp *q, ibv_context *ibctx, const ibv_qp_cap &cap, bool has_srq,
	     const sroce_create_qp_resp &drv) noexcept
{
	/*
	 * An SQ entry holds the header and the gather list or the inline
	 * data, whichever is larger; each ring holds at least the granted
	 * depth.
	 */
	const std::uint32_t max_inline = drv.max_inline_data;
	const ring_need sq_need{
		.what = "QP SQ",
		.min_entry_size =
			sq_entry_min(cap.max_send_sge,
				     std::max(max_inline, cap.max_inline_data)),
		.min_entries = cap.max_send_wr,
		.has_notify = true,
	};
	int ret = map_ring(ibctx, drv.sq, sq_need, &q->sq.ring, &q->sq_map);
	if (ret != 0)
		return ret;
	scope_exit unmap_sq([q] { unmap_ring(&q->sq_map); });

	/* With an SRQ (srq.cpp) the QP has no receive queue to map. */
	if (!has_srq) {
		const ring_need rq_need{
			.what = "QP RQ",
			.min_entry_size = rq_entry_min(cap.max_recv_sge),
			.min_entries = cap.max_recv_wr,
			.has_notify = false,
		};
		/* In the SQ's mapping when the kernel put it there. */
		ret = map_ring(ibctx, drv.rq, rq_need, &q->rq.ring, &q->rq_map,
			       &q->sq_map);
		if (ret != 0)
			return ret;
	}
	scope_exit unmap_rq([q] { unmap_ring(&q->rq_map); });

	ret = qp_setup_locks(q);
	if (ret != 0)
		return ret;
	q->sq.max_sge = cap.max_send_sge;
	q->sq.max_inline = max_inline;
	q->sq.atomic_write = (to_ctx(ibctx)->params.features &
			      SROCE_UCTX_F_ATOMIC_WRITE) != 0;
	q->rq.max_sge = cap.max_recv_sge;
	q->rq.max_inline = 0;
	unmap_rq.release();
	unmap_sq.release();
	return 0;
}

int qp_setup_locks(qp *q) noexcept
{
	int ret = pthread_spin_init(&q->sq_lock, PTHREAD_PROCESS_PRIVATE);

	if (ret != 0)
		return ret;
	ret = pthread_spin_init(&q->rq_lock, PTHREAD_PROCESS_PRIVATE);
	if (ret != 0)
		pthread_spin_destroy(&q->sq_lock);
	return ret;
}

qp *qp_alloc(ibv_pd *pd) noexcept
{
	obj_mem mem{};
	auto *q = static_cast<qp *>(
		obj_alloc(pd, sizeof(qp), resource::qp, &mem));

	if (q == nullptr)
		return nullptr;
	q->mem = mem;
	q->single_thread = pd_single_threaded(pd);
	return q;
}

/* The ibv_wr_*() buffers too, if any. */
void qp_free(qp *q) noexcept
{
	wrb_free(q->wrb);
	obj_free(q, q->mem, resource::qp);
}

void qp_teardown(qp *q) noexcept
{
	unmap_ring(&q->sq_map);
	unmap_ring(&q->rq_map);
	pthread_spin_destroy(&q->sq_lock);
	pthread_spin_destroy(&q->rq_lock);
}

/*
 * The QP type, SRQ and capabilities go to the kernel as they are: it
 * refuses what it does not support.  On any failure after the kernel
 * created the QP, the QP is destroyed again.
 */
ibv_qp *create_qp(ibv_pd *pd, ibv_qp_init_attr *attr) noexcept
{
	qp *q = qp_alloc(pd);
	create_qp_cmd cmd{};
	create_qp_resp resp{};

	if (q == nullptr)
		return nullptr;
	scope_exit free_qp([q] { qp_free(q); });

	cmd.drv.send_wqe_size = sizeof(sroce_send_wqe);
	cmd.drv.recv_wqe_size = sizeof(sroce_recv_wqe);
	int ret = ibv_cmd_create_qp(pd, &q->vqp.qp, attr, cmd.buf(),
				    create_qp_cmd::size, resp.core_ptr(),
				    create_qp_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit destroy([q] { ibv_cmd_destroy_qp(&q->vqp.qp); });

	/* What the kernel granted, as libibverbs wrote it back. */
	/* An XRC INI QP has no receive ring (XRC TGT QPs: create_qp_ex). */
	ret = qp_setup(q, pd->context, attr->cap,
		       attr->srq != nullptr ||
			       attr->qp_type == IBV_QPT_XRC_SEND,
		       resp.drv);
	if (ret != 0)
		return null_with_errno(ret);
	destroy.release();
	free_qp.release();
	return &q->vqp.qp;
}

namespace {

/*
 * A QP entering RESET leaves no completion to poll (ibv_modify_qp(3): its
 * work requests are gone, and so are their completions, flushes
 * included): the CQEs of the QP still in its CQs are dropped.
 */
void purge_cqes(ibv_qp *ibqp) noexcept
{
	ibv_cq *cqs[2] = {ibqp->send_cq, ibqp->recv_cq};

	for (std::size_t i = 0; i < 2; ++i) {
		if (cqs[i] == nullptr || (i == 1 && cqs[1] == cqs[0]))
			continue;
		cq *c = to_cq(cqs[i]);

		pthread_spin_lock(&c->lock);
		if (!c->broken)
			cq_ring_purge(c->ring, ibqp->qp_num);
		pthread_spin_unlock(&c->lock);
	}
}

} /* namespace */

/*
 * No driver data.  libibverbs stores the new state in ibqp->state after
 * this returns 0.  Entering RESET: the kernel has zeroed both rings'
 * indices, so the provider's copies start over too, and the QP's
 * completions not polled yet are dropped.
 */
int modify_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int attr_mask) noexcept
{
	qp *q = to_qp(ibqp);
	modify_qp_cmd cmd{};
	const int ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, cmd.buf(),
					  modify_qp_cmd::size);

	if (ret != 0)
		return ret;
	if ((attr_mask & IBV_QP_STATE) != 0 &&
	    attr->qp_state == IBV_QPS_RESET) {
		qp_lock(q, &q->sq_lock);
		wq_reset(q->sq);
		qp_unlock(q, &q->sq_lock);
		qp_lock(q, &q->rq_lock);
		wq_reset(q->rq);
		qp_unlock(q, &q->rq_lock);
		purge_cqes(ibqp);
	}
	return 0;
}

int query_qp(ibv_qp *ibqp, ibv_qp_attr *attr, int attr_mask,
	     ibv_qp_init_attr *init_attr) noexcept
{
	query_qp_cmd cmd{};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, cmd.buf(),
				query_qp_cmd::size);
}

/* On failure the QP stays: the caller still owns it. */
int destroy_qp(ibv_qp *ibqp) noexcept
{
	qp *q = to_qp(ibqp);
	const int ret = ibv_cmd_destroy_qp(ibqp);

	if (ret != 0)
		return ret;
	qp_teardown(q);
	qp_free(q);
	return 0;
}

/*
 * Multicast (UD QPs): the kernel keeps the groups and does every check
 * (QP type, multicast GID, limits); nothing of the QP's rings changes.
 * The core answers a second attach of the same group with success and a
 * detach of a group not attached with EINVAL.
 */
int attach_mcast(ibv_qp *ibqp, const ibv_gid *gid, std::uint16_t lid) noexcept
{
	return ibv_cmd_attach_mcast(ibqp, gid, lid);
}

int detach_mcast(ibv_qp *ibqp, const ibv_gid *gid, std::uint16_t lid) noexcept
{
	return ibv_cmd_detach_mcast(ibqp, gid, lid);
}

/*
 * Posts in RTS, SQD, SQE and ERROR (the kernel flushes what is posted in
 * ERROR).  The doorbell check follows the publication of the producer
 * index and needs no lock: each poster looks at the word after its own
 * store (and rings anyway every sq_doorbell_every posts, wqe.h).  If the
 * doorbell itself fails (the uverbs file refuses the command: the device
 * is gone), the WQEs are in the ring but the kernel was not woken; the
 * error is returned with *bad_wr at the first request.
 */
int post_send(ibv_qp *ibqp, ibv_send_wr *wr, ibv_send_wr **bad_wr) noexcept
{
	qp *q = to_qp(ibqp);
	std::uint32_t posted = 0;

	/* An XRC TGT QP has no send queue. */
	if (!sq_state_can_post(ibqp->state) ||
	    ibqp->qp_type == IBV_QPT_XRC_RECV) {
		*bad_wr = wr;
		return EINVAL;
	}
	qp_lock(q, &q->sq_lock);
	int ret = wq_post_send(q->sq, ibqp->qp_type, wr, bad_wr, &posted);
	const std::uint32_t prod = q->sq.prod;
	qp_unlock(q, &q->sq_lock);

	if (sq_doorbell_after_post(q->sq.ring, prod, posted)) {
		const int db = qp_ring_doorbell(ibqp);

		if (db != 0 && ret == 0) {
			*bad_wr = wr;
			ret = db;
		}
	}
	return ret;
}

/*
 * Every state but RESET; never a system call.  A QP with an SRQ has no
 * receive queue: its receives are posted to the SRQ; nor have XRC QPs
 * (an XRC TGT QP's receives are in the XRC SRQs).
 */
int post_recv(ibv_qp *ibqp, ibv_recv_wr *wr, ibv_recv_wr **bad_wr) noexcept
{
	qp *q = to_qp(ibqp);

	if (!rq_state_can_post(ibqp->state) || ibqp->srq != nullptr ||
	    ibqp->qp_type == IBV_QPT_XRC_SEND ||
	    ibqp->qp_type == IBV_QPT_XRC_RECV) {
		*bad_wr = wr;
		return EINVAL;
	}
	qp_lock(q, &q->rq_lock);
	const int ret = wq_post_recv(q->rq, wr, bad_wr);
	qp_unlock(q, &q->rq_lock);
	return ret;
}

} /* namespace sroce */
