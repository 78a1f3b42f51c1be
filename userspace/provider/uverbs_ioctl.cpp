// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uverbs_ioctl.cpp - RDMA_VERBS_IOCTL commands built from the public uAPI:
 * struct ib_uverbs_ioctl_hdr followed by its struct ib_uverbs_attr array,
 * in one buffer.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/ioctl.h>

#include <rdma/rdma_user_ioctl.h>

#include "uverbs_ioctl.h"

namespace sroce {

namespace {

/* The header without its flexible array, for sizeof() in C++. */
constexpr std::size_t hdr_size = offsetof(ib_uverbs_ioctl_hdr, attrs);
static_assert(hdr_size == 24);
static_assert(sizeof(ib_uverbs_attr) == 16);

} /* namespace */

void uverbs_ioctl::add(const attr &a) noexcept
{
	if (num_ == max_attrs) {
		overflow_ = true;
		return;
	}
	attrs_[num_++] = a;
}

void uverbs_ioctl::ptr_out(std::uint16_t attr_id, void *buf, std::size_t len,
			   bool mandatory) noexcept
{
	add(attr{
		.id = attr_id,
		.len = static_cast<std::uint16_t>(len),
		.flags = static_cast<std::uint16_t>(
			mandatory ? UVERBS_ATTR_F_MANDATORY : 0),
		.data = reinterpret_cast<std::uintptr_t>(buf),
	});
	if (len > UINT16_MAX)
		overflow_ = true;
}

void uverbs_ioctl::obj_in(std::uint16_t attr_id, std::uint32_t handle) noexcept
{
	add(attr{.id = attr_id,
		 .len = 0,
		 .flags = UVERBS_ATTR_F_MANDATORY,
		 .data = handle});
}

void uverbs_ioctl::const_in(std::uint16_t attr_id, std::uint64_t value) noexcept
{
	add(attr{.id = attr_id,
		 .len = sizeof(value),
		 .flags = UVERBS_ATTR_F_MANDATORY,
		 .data = value});
}

int uverbs_ioctl::execute(int cmd_fd) noexcept
{
	if (overflow_)
		return EINVAL;
	alignas(8) unsigned char
		buf[hdr_size + max_attrs * sizeof(ib_uverbs_attr)] = {};
	const std::size_t len = hdr_size + num_ * sizeof(ib_uverbs_attr);
	ib_uverbs_ioctl_hdr hdr{};

	hdr.length = static_cast<std::uint16_t>(len);
	hdr.object_id = object_id_;
	hdr.method_id = method_id_;
	hdr.num_attrs = num_;
	hdr.driver_id = SROCE_DRIVER_ID;
	std::memcpy(buf, &hdr, hdr_size);
	for (std::uint16_t i = 0; i < num_; ++i) {
		ib_uverbs_attr a{};

		a.attr_id = attrs_[i].id;
		a.len = attrs_[i].len;
		a.flags = attrs_[i].flags;
		a.data = attrs_[i].data;
		std::memcpy(buf + hdr_size + i * sizeof(a), &a, sizeof(a));
	}
	if (ioctl(cmd_fd, RDMA_VERBS_IOCTL, buf) != 0)
		return errno;
	return 0;
}

/*
 * One call lists up to list_room handles (the attribute's length is 16
 * bits); a file with more objects of the type than that, none of them
 * handle, gets EOVERFLOW rather than a wrong answer.
 */
int uverbs_has_handle(int cmd_fd, std::uint16_t object_id,
		      std::uint32_t handle) noexcept
{
	constexpr std::size_t list_room = UINT16_MAX / sizeof(std::uint32_t);
	auto *handles = static_cast<std::uint32_t *>(
		std::calloc(list_room, sizeof(std::uint32_t)));
	std::uint32_t total = 0;

	if (handles == nullptr)
		return ENOMEM;
	uverbs_ioctl list(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	list.const_in(UVERBS_ATTR_INFO_OBJECT_ID, object_id);
	list.ptr_out(UVERBS_ATTR_INFO_TOTAL_HANDLES, &total, sizeof(total),
		     true);
	list.ptr_out(UVERBS_ATTR_INFO_HANDLES_LIST, handles,
		     list_room * sizeof(std::uint32_t), true);
	int ret = list.execute(cmd_fd);
	if (ret == 0) {
		ret = total < list_room ? EINVAL : EOVERFLOW;
		for (std::uint32_t i = 0; i < total && i < list_room; ++i) {
			if (handles[i] == handle) {
				ret = 0;
				break;
			}
		}
	}
	std::free(handles);
	return ret;
}

} /* namespace sroce */
