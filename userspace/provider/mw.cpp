// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mw.cpp - memory windows.  ALLOC_MW and DEALLOC_MW are plain uverbs
 * commands without driver data.  A bind is a BIND_MW send WQE (encoded by
 * wqe.cpp): the application posts it itself for a type 2 window, with the
 * rkey it chose; ibv_bind_mw() on a type 1 window comes here, and the
 * provider posts it with the window's next rkey.
 */
#include <cstdlib>

#include "mw.h"
#include "qp.h"
#include "uverbs_cmd.h"

namespace sroce {

ibv_mw *alloc_mw(ibv_pd *pd, ibv_mw_type type) noexcept
{
	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)
		return null_with_errno(EINVAL);

	auto *mw = static_cast<ibv_mw *>(std::calloc(1, sizeof(ibv_mw)));
	alloc_mw_cmd cmd{};
	ib_uverbs_alloc_mw_resp resp{};

	if (mw == nullptr)
		return nullptr; /* errno ENOMEM */
	/* Fills context, pd, rkey, handle and type. */
	const int ret =
		ibv_cmd_alloc_mw(pd, type, mw, cmd.buf(), alloc_mw_cmd::size,
				 &resp, sizeof(resp));
	if (ret != 0) {
		std::free(mw);
		return null_with_errno(ret);
	}
	return mw;
}

/* On failure the window stays: the caller still owns it. */
int dealloc_mw(ibv_mw *mw) noexcept
{
	const int ret = ibv_cmd_dealloc_mw(mw);

	if (ret != 0)
		return ret;
	std::free(mw);
	return 0;
}

/*
 * ibv_bind_mw(): type 1 windows only (type 2 windows are bound with
 * IBV_WR_BIND_MW through ibv_post_send()).  The window, the QP and the
 * region must share a context; a length of 0 unbinds, and then the region
 * may be NULL (but the address must be 0, as libibverbs demands).  The
 * WQE goes through post_send() like any other, and the window takes its
 * new rkey only once it is posted: with any error the caller's mw is as it
 * was (a failed doorbell too: the device is gone, the WQE will never
 * run).  As ibv_bind_mw(3) says, a bind that completes in error leaves
 * mw->rkey ahead of the kernel's key; the caller restores it.
 */
int bind_mw(ibv_qp *ibqp, ibv_mw *mw, ibv_mw_bind *mw_bind) noexcept
{
	const ibv_mw_bind_info &info = mw_bind->bind_info;

	if (mw->type != IBV_MW_TYPE_1 || mw->context != ibqp->context)
		return EINVAL;
	if (info.mr == nullptr && (info.addr != 0 || info.length != 0))
		return EINVAL;
	if (info.mr != nullptr && info.mr->context != mw->context)
		return EINVAL;

	ibv_send_wr wr{};
	ibv_send_wr *bad_wr = nullptr;

	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = info;
	const int ret = post_send(ibqp, &wr, &bad_wr);
	if (ret != 0)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

} /* namespace sroce */
