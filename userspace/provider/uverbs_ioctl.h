/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * uverbs_ioctl.h - the few uverbs methods the provider sends itself with
 * RDMA_VERBS_IOCTL (uverbs_ioctl.cpp), from the public uAPI headers alone:
 * libibverbs' own ioctl command buffers are private to rdma-core, and
 * ibv_cmd_query_context() cannot carry a driver attribute without them.
 */
#ifndef SROCE_PROVIDER_UVERBS_IOCTL_H
#define SROCE_PROVIDER_UVERBS_IOCTL_H

#include <cstddef>
#include <cstdint>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/sroce-abi.h>

namespace sroce {

/*
 * One ioctl command of up to max_attrs attributes for the device of
 * sroce's driver id.  Pointers given to it must outlive execute().
 */
class uverbs_ioctl {
public:
	static constexpr std::size_t max_attrs = 4;

	uverbs_ioctl(std::uint16_t object_id, std::uint16_t method_id) noexcept
	    : object_id_(object_id)
	    , method_id_(method_id)
	{
	}

	/* An output buffer; mandatory: the kernel must know the attribute. */
	void ptr_out(std::uint16_t attr_id, void *buf, std::size_t len,
		     bool mandatory) noexcept;
	/* An object of the file by its handle (UVERBS_ATTR_IDR, read). */
	void obj_in(std::uint16_t attr_id, std::uint32_t handle) noexcept;
	/* A constant input (UVERBS_ATTR_CONST_IN). */
	void const_in(std::uint16_t attr_id, std::uint64_t value) noexcept;

	/* 0, or the errno of the ioctl (EINVAL for too many attributes). */
	int execute(int cmd_fd) noexcept;

private:
	struct attr {
		std::uint16_t id;
		std::uint16_t len;
		std::uint16_t flags;
		std::uint64_t data;
	};
	std::uint16_t object_id_;
	std::uint16_t method_id_;
	std::uint16_t num_ = 0;
	bool overflow_ = false;
	attr attrs_[max_attrs] = {};

	void add(const attr &a) noexcept;
};

/*
 * Whether handle names an object of type object_id (UVERBS_OBJECT_PD ...)
 * of the uverbs file cmd_fd: 0, EINVAL when it does not, or the errno of
 * UVERBS_METHOD_INFO_HANDLES.
 */
int uverbs_has_handle(int cmd_fd, std::uint16_t object_id,
		      std::uint32_t handle) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_UVERBS_IOCTL_H */
