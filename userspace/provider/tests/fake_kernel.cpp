// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fake_kernel.cpp - see fake_kernel.h.  This file must not include the
 * provider's verbs_abi.h: it defines verbs_register_driver_34 itself.
 */
#include "fake_kernel.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

fake_kernel kernel;
const verbs_device_ops *ops_seen;
int ops_calls;

/* copy_to_user() into the caller's buffer: the fake shares its memory. */
void copy_to_user(std::uint64_t uaddr, const void *src, std::size_t len)
{
	if (len == 0)
		return;
	// NOLINTNEXTLINE(performance-no-int-to-ptr)
	std::memcpy(reinterpret_cast<void *>(uaddr), src, len);
}

template <typename T>
T read_at(const unsigned char *buf, std::size_t off)
{
	T v;
	std::memcpy(&v, buf + off, sizeof(v));
	return v;
}

ssize_t fail(int err)
{
	errno = err;
	return -1;
}

ssize_t extended_command(const unsigned char *buf, std::size_t count,
			 const ib_uverbs_cmd_hdr &hdr)
{
	if (count < sizeof(hdr) + sizeof(ib_uverbs_ex_cmd_hdr))
		return fail(EINVAL);
	const auto ex = read_at<ib_uverbs_ex_cmd_hdr>(buf, sizeof(hdr));
	const std::size_t out_len = (static_cast<std::size_t>(hdr.out_words) +
				     ex.provider_out_words) *
				    8;

	switch (hdr.command & IB_USER_VERBS_CMD_COMMAND_MASK) {
	case IB_USER_VERBS_EX_CMD_QUERY_DEVICE: {
		ib_uverbs_ex_query_device_resp r{};
		const std::size_t len = std::min(out_len, sizeof(r));

		r.base.fw_ver = kernel.fw_ver;
		r.base.phys_port_cnt = 1;
		r.response_length = static_cast<std::uint32_t>(len);
		copy_to_user(ex.response, &r, len);
		return static_cast<ssize_t>(count);
	}
	default:
		return fail(EOPNOTSUPP);
	}
}

ssize_t command(const unsigned char *buf, std::size_t count)
{
	if (count < sizeof(ib_uverbs_cmd_hdr))
		return fail(EINVAL);
	const auto hdr = read_at<ib_uverbs_cmd_hdr>(buf, 0);
	kernel.commands.emplace_back(buf, buf + count);

	if ((hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) != 0)
		return extended_command(buf, count, hdr);
	if (static_cast<std::size_t>(hdr.in_words) * 4 != count)
		return fail(EINVAL);
	/* Commands without a response (DEALLOC_MW: 4 bytes) have none. */
	const auto response = count >= sizeof(hdr) + sizeof(std::uint64_t)
				      ? read_at<std::uint64_t>(buf, sizeof(hdr))
				      : std::uint64_t{0};
	const std::size_t out_len = static_cast<std::size_t>(hdr.out_words) * 4;

	switch (hdr.command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		if (kernel.get_context_errno != 0)
			return fail(kernel.get_context_errno);
		ib_uverbs_get_context_resp core{};
		if (out_len < sizeof(core))
			return fail(ENOSPC);
		core.async_fd = static_cast<std::uint32_t>(kernel.async_fd);
		core.num_comp_vectors = 1;
		copy_to_user(response, &core, sizeof(core));
		/* ib_copy_to_udata(): what both sides know, no more. */
		copy_to_user(
			response + sizeof(core), &kernel.ucontext,
			std::min({out_len - sizeof(core), kernel.ucontext_len,
				  sizeof(kernel.ucontext)}));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		/* No driver data: exactly header and core, like the kernel. */
		if (count != sizeof(hdr) + sizeof(ib_uverbs_query_port))
			return fail(EINVAL);
		const auto cmd =
			read_at<ib_uverbs_query_port>(buf, sizeof(hdr));
		kernel.ports_queried.push_back(cmd.port_num);
		copy_to_user(response, &kernel.port,
			     std::min(out_len, sizeof(kernel.port)));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_MODIFY_QP:
		/* No driver data; no response. */
		if (count != sizeof(hdr) + sizeof(ib_uverbs_modify_qp))
			return fail(EINVAL);
		if (kernel.qp_errno != 0)
			return fail(kernel.qp_errno);
		return static_cast<ssize_t>(count);
	case IB_USER_VERBS_CMD_QUERY_QP: {
		ib_uverbs_query_qp_resp r{};
		if (count != sizeof(hdr) + sizeof(ib_uverbs_query_qp))
			return fail(EINVAL);
		if (kernel.qp_errno != 0)
			return fail(kernel.qp_errno);
		r.qp_state = kernel.query_qp.qp_state;
		r.cur_qp_state = kernel.query_qp.qp_state;
		r.max_send_wr = kernel.query_qp.max_send_wr;
		r.max_recv_sge = kernel.query_qp.max_recv_sge;
		r.dest_qp_num = kernel.query_qp.dest_qp_num;
		copy_to_user(response, &r, std::min(out_len, sizeof(r)));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_DESTROY_QP: {
		ib_uverbs_destroy_qp_resp r{};
		if (kernel.qp_errno != 0)
			return fail(kernel.qp_errno);
		copy_to_user(response, &r, std::min(out_len, sizeof(r)));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_POST_SEND: {
		/* Only the doorbell: no work requests after the core. */
		ib_uverbs_post_send_resp r{};
		if (count != sizeof(hdr) + sizeof(ib_uverbs_post_send))
			return fail(EINVAL);
		if (kernel.qp_errno != 0)
			return fail(kernel.qp_errno);
		copy_to_user(response, &r, std::min(out_len, sizeof(r)));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_ALLOC_MW: {
		/* No driver data either way. */
		ib_uverbs_alloc_mw_resp r{};
		if (count != sizeof(hdr) + sizeof(ib_uverbs_alloc_mw))
			return fail(EINVAL);
		if (kernel.mw_errno != 0)
			return fail(kernel.mw_errno);
		r.mw_handle = kernel.mw_handle;
		r.rkey = kernel.mw_rkey;
		copy_to_user(response, &r, std::min(out_len, sizeof(r)));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_DEALLOC_MW:
		/* No response. */
		if (count != sizeof(hdr) + sizeof(ib_uverbs_dealloc_mw))
			return fail(EINVAL);
		if (kernel.mw_errno != 0)
			return fail(kernel.mw_errno);
		return static_cast<ssize_t>(count);
	case IB_USER_VERBS_CMD_ATTACH_MCAST:
		if (count != sizeof(hdr) + sizeof(ib_uverbs_attach_mcast))
			return fail(EINVAL);
		if (kernel.mcast_errno != 0)
			return fail(kernel.mcast_errno);
		return static_cast<ssize_t>(count);
	case IB_USER_VERBS_CMD_DETACH_MCAST:
		if (count != sizeof(hdr) + sizeof(ib_uverbs_detach_mcast))
			return fail(EINVAL);
		if (kernel.mcast_errno != 0)
			return fail(kernel.mcast_errno);
		return static_cast<ssize_t>(count);
	case IB_USER_VERBS_CMD_REREG_MR: {
		ib_uverbs_rereg_mr_resp r{};
		if (count != sizeof(hdr) + sizeof(ib_uverbs_rereg_mr))
			return fail(EINVAL);
		if (kernel.rereg_errno != 0)
			return fail(kernel.rereg_errno);
		r.lkey = kernel.rereg_lkey;
		r.rkey = kernel.rereg_rkey;
		copy_to_user(response, &r, std::min(out_len, sizeof(r)));
		return static_cast<ssize_t>(count);
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE: {
		ib_uverbs_query_device_resp r{};
		r.fw_ver = kernel.fw_ver;
		r.phys_port_cnt = 1;
		copy_to_user(response, &r, std::min(out_len, sizeof(r)));
		return static_cast<ssize_t>(count);
	}
	default:
		return fail(EOPNOTSUPP);
	}
}

} /* namespace */

fake_kernel &the_fake_kernel()
{
	return kernel;
}

const verbs_device_ops *registered_ops()
{
	return ops_seen;
}

int register_calls()
{
	return ops_calls;
}

extern "C" {

/* Interposes libibverbs' registration (see fake_kernel.h). */
void verbs_register_driver_34(const verbs_device_ops *ops)
{
	ops_seen = ops;
	++ops_calls;
}

/* Interposes libc's write() for every caller in the process. */
ssize_t write(int fd, const void *buf, size_t count)
{
	if (kernel.fd < 0 || fd != kernel.fd)
		return syscall(SYS_write, fd, buf, count);
	return command(static_cast<const unsigned char *>(buf), count);
}

} /* extern "C" */
