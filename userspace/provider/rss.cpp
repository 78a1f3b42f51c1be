// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rss.cpp - RSS raw packet QPs: ibv_create_qp_ex() with an indirection
 * table of receive WQs (wq.cpp) and a Toeplitz hash configuration.
 *
 * The QP is created with the extended CREATE_QP command (the legacy one
 * cannot name an indirection table); the hash goes to the kernel in the
 * driver tail, struct sroce_create_qp_rss_cmd.  The QP has no rings: it
 * only receives, into the WQs of its table, through its flows.  It is
 * destroyed as every QP (qp.cpp: its mappings are empty).
 */
#include <cstring>

#include "qp.h"
#include "uverbs_cmd.h"
#include "verbs_abi_wq.h"
#include "wq.h"

namespace sroce {

namespace {

using create_qp_ex_cmd = uverbs_cmd<sizeof(ib_uverbs_ex_cmd_hdr) +
					    sizeof(ib_uverbs_ex_create_qp),
				    sroce_create_qp_rss_cmd>;
using create_qp_ex_resp = uverbs_resp<ib_uverbs_ex_create_qp_resp>;

/* struct ibv_create_qp_ex of rdma-core's kern-abi.h, then the tail */
static_assert(create_qp_ex_cmd::tail_offset == 88);
static_assert(tail_is_contiguous<create_qp_ex_cmd>());
static_assert(sizeof(sroce_create_qp_rss_cmd) == 56);

constexpr std::uint64_t rss_comp_mask =
	IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
	IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;

constexpr std::uint64_t rss_fields =
	IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_IPV6 |
	IBV_RX_HASH_DST_IPV6 | IBV_RX_HASH_SRC_PORT_TCP |
	IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP |
	IBV_RX_HASH_DST_PORT_UDP;
/* The kernel takes libibverbs' bits as they are. */
static_assert(std::uint64_t{IBV_RX_HASH_SRC_IPV4} ==
		      std::uint64_t{SROCE_RX_HASH_SRC_IPV4} &&
	      std::uint64_t{IBV_RX_HASH_DST_PORT_UDP} ==
		      std::uint64_t{SROCE_RX_HASH_DST_PORT_UDP} &&
	      std::uint64_t{IBV_RX_HASH_FUNC_TOEPLITZ} ==
		      std::uint64_t{SROCE_RX_HASH_FUNC_TOEPLITZ});

int check_rss_attr(const ibv_qp_init_attr_ex &attr) noexcept
{
	if ((attr.comp_mask & ~rss_comp_mask) != 0 ||
	    attr.qp_type != IBV_QPT_RAW_PACKET)
		return EOPNOTSUPP;
	if ((attr.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) != 0 &&
	    attr.create_flags != 0)
		return EOPNOTSUPP;
	if ((attr.comp_mask & IBV_QP_INIT_ATTR_PD) == 0 || attr.pd == nullptr ||
	    (attr.comp_mask & IBV_QP_INIT_ATTR_RX_HASH) == 0 ||
	    attr.rwq_ind_tbl == nullptr)
		return EINVAL;
	const ibv_rx_hash_conf &h = attr.rx_hash_conf;
	if (h.rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ ||
	    (h.rx_hash_fields_mask & ~rss_fields) != 0)
		return EOPNOTSUPP;
	if (h.rx_hash_key_len != SROCE_RX_HASH_KEY_LEN ||
	    h.rx_hash_key == nullptr)
		return EINVAL;
	return 0;
}

} /* namespace */

ibv_qp *create_rss_qp(ibv_context *ibctx, ibv_qp_init_attr_ex *attr) noexcept
{
	int ret = check_rss_attr(*attr);

	if (ret != 0)
		return null_with_errno(ret);
	qp *q = qp_alloc(attr->pd);
	create_qp_ex_cmd cmd{};
	create_qp_ex_resp resp{};

	if (q == nullptr)
		return nullptr;
	scope_exit free_qp([q] { qp_free(q); });

	cmd.drv.rx_hash_fields_mask = attr->rx_hash_conf.rx_hash_fields_mask;
	cmd.drv.rx_hash_function = attr->rx_hash_conf.rx_hash_function;
	cmd.drv.rx_hash_key_len = attr->rx_hash_conf.rx_hash_key_len;
	std::memcpy(cmd.drv.rx_hash_key, attr->rx_hash_conf.rx_hash_key,
		    sizeof(cmd.drv.rx_hash_key));
	/* The hash is the driver tail's; the core knows no creation flags. */
	ibv_qp_init_attr_ex cmd_attr = *attr;
	cmd_attr.comp_mask &= ~std::uint32_t{IBV_QP_INIT_ATTR_RX_HASH |
					     IBV_QP_INIT_ATTR_CREATE_FLAGS};
	ret = ibv_cmd_create_qp_ex2(ibctx, &q->vqp, &cmd_attr, cmd.buf(),
				    create_qp_ex_cmd::size, resp.core_ptr(),
				    create_qp_ex_resp::size);
	if (ret != 0)
		return null_with_errno(ret);
	attr->cap = cmd_attr.cap;
	scope_exit destroy([q] { ibv_cmd_destroy_qp(&q->vqp.qp); });
	ret = qp_setup_locks(q);
	if (ret != 0)
		return null_with_errno(ret);
	destroy.release();
	free_qp.release();
	return &q->vqp.qp;
}

} /* namespace sroce */
