// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * flow.cpp - flow steering for raw packet QPs: ibv_create_flow() and
 * ibv_destroy_flow() are the plain uverbs commands (CREATE_FLOW and
 * DESTROY_FLOW, no driver data); the kernel parses the specs and refuses
 * what it does not support (drivers/sroce/flow.c).
 */
#include <cerrno>
#include <cstdlib>

#include "qp.h"

namespace sroce {

ibv_flow *create_flow(ibv_qp *ibqp, ibv_flow_attr *attr) noexcept
{
	/* malloc, not new: the provider needs no C++ runtime (ELF test). */
	auto *flow = static_cast<ibv_flow *>(std::calloc(1, sizeof(ibv_flow)));

	if (flow == nullptr)
		return null_with_errno(ENOMEM);
	/* Sets flow->context and flow->handle. */
	const int ret = ibv_cmd_create_flow(ibqp, flow, attr, nullptr, 0);
	if (ret != 0) {
		std::free(flow);
		return null_with_errno(ret);
	}
	return flow;
}

int destroy_flow(ibv_flow *flow) noexcept
{
	const int ret = ibv_cmd_destroy_flow(flow);

	if (ret == 0)
		std::free(flow);
	return ret;
}

} /* namespace sroce */
