// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xrc.cpp - XRC: domains (ibv_open_xrcd), XRC SRQs (ibv_create_srq_ex,
 * ibv_get_srq_num) and the opening of an XRC TGT QP another process
 * created (ibv_open_qp).
 *
 * A domain is the kernel's (shared between processes through the file it
 * was opened with); the provider keeps only libibverbs' verbs_xrcd.  An
 * XRC SRQ is an SRQ (srq.cpp) with its domain, its CQ and its number,
 * which XRC INI QPs' work requests name (wqe.cpp).  An XRC TGT QP has no
 * rings at all: the kernel's responder takes its receives from the XRC
 * SRQ each request names.  XRC INI and TGT QPs are created by
 * create_qp_ex (qp_ex.cpp).
 */
#include <cstdlib>

#include "qp.h"
#include "srq.h"
#include "uverbs_cmd.h"

namespace sroce {

ibv_xrcd *open_xrcd(ibv_context *ibctx, ibv_xrcd_init_attr *attr) noexcept
{
	auto *x = static_cast<verbs_xrcd *>(std::calloc(1, sizeof(verbs_xrcd)));
	open_xrcd_cmd cmd{};
	ib_uverbs_open_xrcd_resp resp{};

	if (x == nullptr)
		return nullptr;
	const int ret =
		ibv_cmd_open_xrcd(ibctx, x, sizeof(*x), attr, cmd.buf(),
				  open_xrcd_cmd::size, &resp, sizeof(resp));
	if (ret != 0) {
		std::free(x);
		return null_with_errno(ret);
	}
	return &x->xrcd;
}

/* On failure (SRQs or TGT QPs still use it) the domain stays. */
int close_xrcd(ibv_xrcd *ibxrcd) noexcept
{
	auto *x = reinterpret_cast<verbs_xrcd *>(ibxrcd);
	const int ret = ibv_cmd_close_xrcd(x);

	if (ret != 0)
		return ret;
	std::free(x);
	return 0;
}

/*
 * Basic and XRC SRQs (a tag-matching SRQ is refused by the kernel); the
 * SRQ and its ring as create_srq() makes them.  On any failure after the
 * kernel created the SRQ, it is destroyed again.
 */
ibv_srq *create_srq_ex(ibv_context *ibctx, ibv_srq_init_attr_ex *attr) noexcept
{
	auto *s = static_cast<srq *>(std::calloc(1, sizeof(srq)));
	create_xsrq_cmd cmd{};
	create_srq_resp resp{};

	if (s == nullptr)
		return nullptr;
	scope_exit free_srq([s] { std::free(s); });

	cmd.drv.recv_wqe_size = sizeof(sroce_recv_wqe);
	int ret = ibv_cmd_create_srq_ex(ibctx, &s->vsrq, attr, cmd.buf(),
					create_xsrq_cmd::size, resp.core_ptr(),
					create_srq_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit destroy([s] { ibv_cmd_destroy_srq(&s->vsrq.srq); });

	ret = srq_setup(s, ibctx, attr->attr, resp.drv);
	if (ret != 0)
		return null_with_errno(ret);
	destroy.release();
	free_srq.release();
	return &s->vsrq.srq;
}

/* The number XRC INI QPs' work requests name; only an XRC SRQ has one. */
int get_srq_num(ibv_srq *ibsrq, std::uint32_t *srq_num) noexcept
{
	const srq *s = to_srq(ibsrq);

	if (s->vsrq.srq_type != IBV_SRQT_XRC)
		return EOPNOTSUPP;
	*srq_num = s->vsrq.srq_num;
	return 0;
}

/*
 * Another handle of an existing XRC TGT QP of the domain: no rings, like
 * the QP create_qp_ex() made.  destroy_qp() closes the handle; the QP
 * itself goes with its last handle (the core's rule).
 */
ibv_qp *open_qp(ibv_context *ibctx, ibv_qp_open_attr *attr) noexcept
{
	qp *q = qp_alloc(nullptr);
	open_qp_cmd cmd{};
	ib_uverbs_create_qp_resp resp{};

	if (q == nullptr)
		return nullptr;
	scope_exit free_qp([q] { qp_free(q); });

	if ((attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) != 0 &&
	    attr->qp_type != IBV_QPT_XRC_RECV)
		return null_with_errno(EINVAL);
	int ret =
		ibv_cmd_open_qp(ibctx, &q->vqp, sizeof(q->vqp), attr, cmd.buf(),
				open_qp_cmd::size, &resp, sizeof(resp));
	if (ret != 0)
		return null_with_errno(ret);
	scope_exit destroy([q] { ibv_cmd_destroy_qp(&q->vqp.qp); });

	ret = qp_setup_locks(q);
	if (ret != 0)
		return null_with_errno(ret);
	destroy.release();
	free_qp.release();
	return &q->vqp.qp;
}

} /* namespace sroce */
