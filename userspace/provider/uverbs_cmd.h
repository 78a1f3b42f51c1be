/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * uverbs_cmd.h - command and response buffers as libibverbs' ibv_cmd_*()
 * functions take them.
 *
 * A command buffer is the 8-byte ib_uverbs_cmd_hdr, the kernel's core
 * structure for the command (filled by libibverbs) and, immediately after it
 * with no gap, the driver's own tail from <rdma/sroce-abi.h>.  A response
 * buffer is the kernel's core response followed immediately by the driver's
 * response tail.  libibverbs sends the bytes past the core structure as the
 * driver's udata, so the whole buffer must be one contiguous object; these
 * templates make that a property of the type, checked at compile time.
 *
 * The kernel core structures end in a flexible array member (driver_data[]),
 * which C++ does not allow in the middle of another structure, so the core
 * part is kept as raw bytes of exactly sizeof(core struct) and handed to
 * libibverbs by pointer.  The provider never reads or writes core fields
 * itself.
 */
#ifndef SROCE_PROVIDER_UVERBS_CMD_H
#define SROCE_PROVIDER_UVERBS_CMD_H

#include <cstddef>
#include <type_traits>

#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

namespace sroce {

/* The tail of a command or response that has no driver data. */
struct no_tail {};

template <typename Tail>
concept driver_tail = std::is_standard_layout_v<Tail> &&
		      std::is_trivially_copyable_v<Tail> && alignof(Tail) <= 8;

/*
 * { ib_uverbs_cmd_hdr; CoreSize bytes of core struct; Tail }.  CoreSize is
 * sizeof() of the kernel's ib_uverbs_<cmd> structure.
 */
template <std::size_t CoreSize, typename Tail = no_tail>
struct uverbs_cmd {
	static_assert(driver_tail<Tail>);
	static_assert(CoreSize % 8 == 0, "core structs are __u64 aligned");

	ib_uverbs_cmd_hdr hdr;
	alignas(8) unsigned char core[CoreSize];
	[[no_unique_address]] Tail drv;

	/* Where the driver tail starts: right after the core struct. */
	static constexpr std::size_t tail_offset =
		sizeof(ib_uverbs_cmd_hdr) + CoreSize;
	/* Bytes libibverbs sends: header, core, tail (nothing if empty). */
	static constexpr std::size_t size =
		tail_offset + (std::is_empty_v<Tail> ? 0 : sizeof(Tail));

	ib_uverbs_cmd_hdr *buf() noexcept { return &hdr; }
};

/* { CoreResp; Tail }.  CoreResp is the kernel's ib_uverbs_<cmd>_resp. */
template <typename CoreResp, typename Tail = no_tail>
struct uverbs_resp {
	static_assert(driver_tail<Tail>);
	static_assert(sizeof(CoreResp) % 8 == 0,
		      "core structs are __u64 aligned");

	alignas(8) unsigned char core[sizeof(CoreResp)];
	[[no_unique_address]] Tail drv;

	static constexpr std::size_t tail_offset = sizeof(CoreResp);
	static constexpr std::size_t size =
		tail_offset + (std::is_empty_v<Tail> ? 0 : sizeof(Tail));

	/* For libibverbs, which fills it; C++20 creates the object implicitly
	 * in the byte array (the core structs are implicit-lifetime types). */
	CoreResp *core_ptr() noexcept
	{
		return reinterpret_cast<CoreResp *>(core);
	}
};

/* True when Buf's driver tail starts exactly where the core struct ends. */
template <typename Buf>
constexpr bool tail_is_contiguous()
{
	if constexpr (std::is_empty_v<decltype(Buf::drv)>)
		return Buf::size == Buf::tail_offset;
	else
		return offsetof(Buf, drv) == Buf::tail_offset &&
		       Buf::size == sizeof(Buf);
}

/* GET_CONTEXT (ibv_open_device): driver tail both ways. */
using get_context_cmd =
	uverbs_cmd<sizeof(ib_uverbs_get_context), sroce_alloc_ucontext_cmd>;
using get_context_resp =
	uverbs_resp<ib_uverbs_get_context_resp, sroce_alloc_ucontext_resp>;

/* QUERY_PORT: no driver data. */
using query_port_cmd = uverbs_cmd<sizeof(ib_uverbs_query_port)>;

/* ALLOC_PD, REG_MR, REREG_MR, ALLOC_MW: no driver data (responses are
 * the bare core structs, whose sizes are not all multiples of 8). */
using alloc_pd_cmd = uverbs_cmd<sizeof(ib_uverbs_alloc_pd)>;
using reg_mr_cmd = uverbs_cmd<sizeof(ib_uverbs_reg_mr)>;
using rereg_mr_cmd = uverbs_cmd<sizeof(ib_uverbs_rereg_mr)>;
using alloc_mw_cmd = uverbs_cmd<sizeof(ib_uverbs_alloc_mw)>;

/* CREATE_CQ: driver tail both ways; RESIZE_CQ: in the response only. */
using create_cq_cmd =
	uverbs_cmd<sizeof(ib_uverbs_create_cq), sroce_create_cq_cmd>;
using create_cq_resp =
	uverbs_resp<ib_uverbs_create_cq_resp, sroce_create_cq_resp>;
using resize_cq_cmd = uverbs_cmd<sizeof(ib_uverbs_resize_cq)>;
using resize_cq_resp =
	uverbs_resp<ib_uverbs_resize_cq_resp, sroce_resize_cq_resp>;

/*
 * CREATE_QP: driver tail both ways.  MODIFY_QP and QUERY_QP: no driver
 * data.  POST_SEND: the provider's doorbell, written by the provider
 * itself: { hdr; ib_uverbs_post_send } with no work requests after it.
 */
using create_qp_cmd =
	uverbs_cmd<sizeof(ib_uverbs_create_qp), sroce_create_qp_cmd>;
using create_qp_resp =
	uverbs_resp<ib_uverbs_create_qp_resp, sroce_create_qp_resp>;
using modify_qp_cmd = uverbs_cmd<sizeof(ib_uverbs_modify_qp)>;
using query_qp_cmd = uverbs_cmd<sizeof(ib_uverbs_query_qp)>;
using post_send_cmd = uverbs_cmd<sizeof(ib_uverbs_post_send)>;

static_assert(create_qp_cmd::tail_offset == 64);
static_assert(create_qp_resp::tail_offset == 32);
static_assert(tail_is_contiguous<create_qp_cmd>());
static_assert(tail_is_contiguous<create_qp_resp>());
static_assert(create_qp_cmd::size % 4 == 0 && create_qp_resp::size % 4 == 0);
static_assert(modify_qp_cmd::size == 120);
static_assert(query_qp_cmd::size == 24);
static_assert(post_send_cmd::size == 32);
static_assert(sizeof(post_send_cmd) == post_send_cmd::size);
static_assert(sizeof(ib_uverbs_post_send_resp) == 4);

static_assert(alloc_pd_cmd::size == 16);
static_assert(reg_mr_cmd::size == 48);
static_assert(sizeof(ib_uverbs_reg_mr_resp) == 12);
static_assert(rereg_mr_cmd::size == 56);
static_assert(sizeof(ib_uverbs_rereg_mr_resp) == 8);
static_assert(alloc_mw_cmd::size == 24);
static_assert(sizeof(ib_uverbs_alloc_mw_resp) == 8);
static_assert(create_cq_cmd::tail_offset == 40);
static_assert(create_cq_resp::tail_offset == 8);
static_assert(resize_cq_cmd::size == 24);
static_assert(resize_cq_resp::tail_offset == 8);
static_assert(tail_is_contiguous<create_cq_cmd>());
static_assert(tail_is_contiguous<create_cq_resp>());
static_assert(tail_is_contiguous<resize_cq_resp>());
static_assert(create_cq_cmd::size % 4 == 0 && create_cq_resp::size % 4 == 0 &&
	      resize_cq_resp::size % 4 == 0);

/* CREATE_SRQ: driver tail both ways.  MODIFY_SRQ, QUERY_SRQ: none. */
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

/* XRC: domains, SRQs of any type, opening a TGT QP (verbs_abi.h). */
using open_xrcd_cmd = uverbs_cmd<sizeof(ib_uverbs_open_xrcd)>;
using create_xsrq_cmd =
	uverbs_cmd<sizeof(ib_uverbs_create_xsrq), sroce_create_srq_cmd>;
using open_qp_cmd = uverbs_cmd<sizeof(ib_uverbs_open_qp)>;

static_assert(open_xrcd_cmd::size == 24);
static_assert(sizeof(ib_uverbs_open_xrcd_resp) == 4);
static_assert(create_xsrq_cmd::tail_offset == 56);
static_assert(tail_is_contiguous<create_xsrq_cmd>());
static_assert(create_xsrq_cmd::size % 4 == 0);
static_assert(open_qp_cmd::size == 40);
static_assert(sizeof(sroce_create_srq_resp) == 80);

/*
 * CREATE_AH: no command tail; the core response is 4 bytes (no multiple of
 * 8, so not a uverbs_resp) and the driver's tail follows it directly.
 */
struct create_ah_resp {
	alignas(4) unsigned char core[sizeof(ib_uverbs_create_ah_resp)];
	sroce_create_ah_resp drv;

	ib_uverbs_create_ah_resp *core_ptr() noexcept
	{
		return reinterpret_cast<ib_uverbs_create_ah_resp *>(core);
	}
};
static_assert(sizeof(ib_uverbs_create_ah_resp) == 4);
static_assert(offsetof(create_ah_resp, drv) == 4 &&
	      sizeof(create_ah_resp) == 4 + sizeof(sroce_create_ah_resp));

/* Core sizes (header included for commands) as libibverbs 44 expects. */
static_assert(get_context_cmd::tail_offset == 16);
static_assert(get_context_resp::tail_offset == 8);
static_assert(query_port_cmd::size == 24);
static_assert(tail_is_contiguous<get_context_cmd>());
static_assert(tail_is_contiguous<get_context_resp>());
static_assert(tail_is_contiguous<query_port_cmd>());
static_assert(get_context_cmd::size == 16 + sizeof(sroce_alloc_ucontext_cmd));
static_assert(get_context_resp::size == 8 + sizeof(sroce_alloc_ucontext_resp));
/* libibverbs passes sizes to the kernel in 4-byte words. */
static_assert(get_context_cmd::size % 4 == 0 &&
	      get_context_resp::size % 4 == 0);

} /* namespace sroce */

#endif /* SROCE_PROVIDER_UVERBS_CMD_H */
