// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * pd.cpp - protection domains (plain uverbs commands without driver data),
 * parent domains and thread domains (the provider's alone: the kernel
 * knows neither), the memory of objects created on them, and PDs
 * imported from a shared uverbs file.
 */
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "pd.h"
#include "uverbs_cmd.h"
#include "uverbs_ioctl.h"

namespace sroce {

namespace {

std::atomic_ref<std::uint32_t> users(std::uint32_t &n) noexcept
{
	return std::atomic_ref<std::uint32_t>(n);
}

} /* namespace */

bool is_parent_domain(const ibv_pd *ibpd) noexcept
{
	return reinterpret_cast<const pd *>(ibpd)->protection != nullptr;
}

bool pd_single_threaded(const ibv_pd *ibpd) noexcept
{
	return ibpd != nullptr &&
	       reinterpret_cast<const pd *>(ibpd)->thread != nullptr;
}

void *obj_alloc(ibv_pd *ibpd, std::size_t size, resource type,
		obj_mem *mem) noexcept
{
	pd *domain = ibpd != nullptr && is_parent_domain(ibpd) ? to_pd(ibpd)
							       : nullptr;
	void *p = nullptr;
	bool custom = false;

	if (domain != nullptr && domain->alloc != nullptr) {
		p = domain->alloc(ibpd, domain->pd_context, size, obj_align,
				  static_cast<std::uint64_t>(type));
		if (p == nullptr)
			return null_with_errno(ENOMEM);
		custom = p != IBV_ALLOCATOR_USE_DEFAULT;
		if (custom)
			std::memset(p, 0, size);
	}
	if (!custom) {
		/* Rounded up: aligned_alloc() wants a multiple. */
		const std::size_t n = (size + obj_align - 1) & ~(obj_align - 1);

		p = std::aligned_alloc(obj_align, n);
		if (p == nullptr)
			return null_with_errno(ENOMEM);
		std::memset(p, 0, n);
	}
	if (domain != nullptr)
		users(domain->users).fetch_add(1);
	*mem = obj_mem{.domain = domain, .custom = custom};
	return p;
}

void obj_free(void *p, obj_mem mem, resource type) noexcept
{
	if (p == nullptr)
		return;
	if (mem.custom)
		mem.domain->free(&mem.domain->ibpd, mem.domain->pd_context, p,
				 static_cast<std::uint64_t>(type));
	else
		std::free(p);
	if (mem.domain != nullptr)
		users(mem.domain->users).fetch_sub(1);
}

ibv_pd *alloc_pd(ibv_context *ibctx) noexcept
{
	auto *p = static_cast<pd *>(std::calloc(1, sizeof(pd)));
	alloc_pd_cmd cmd{};
	ib_uverbs_alloc_pd_resp resp{};

	if (p == nullptr)
		return nullptr; /* errno ENOMEM */
	const int ret =
		ibv_cmd_alloc_pd(ibctx, &p->ibpd, cmd.buf(), alloc_pd_cmd::size,
				 &resp, sizeof(resp));
	if (ret != 0) {
		std::free(p);
		return null_with_errno(ret);
	}
	return &p->ibpd;
}

/*
 * A parent domain goes without a command.  A PD (imported or not) goes
 * with DEALLOC_PD: the kernel refuses it while objects use it, the
 * provider while parent domains stand for it.
 */
int dealloc_pd(ibv_pd *ibpd) noexcept
{
	pd *p = to_pd(ibpd);

	if (users(p->users).load() != 0)
		return EBUSY;
	if (p->protection != nullptr) {
		users(p->protection->users).fetch_sub(1);
		if (p->thread != nullptr)
			users(p->thread->users).fetch_sub(1);
		std::free(p);
		return 0;
	}
	const int ret = ibv_cmd_dealloc_pd(ibpd);

	if (ret != 0)
		return ret;
	std::free(p);
	return 0;
}

/*
 * attr->pd must be a PD of this context (not a parent domain), attr->td
 * a thread domain of it or NULL; comp_mask may name the allocators (both
 * or neither) and pd_context.
 */
ibv_pd *alloc_parent_domain(ibv_context *ibctx,
			    ibv_parent_domain_init_attr *attr) noexcept
{
	constexpr std::uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;

	if (attr->pd == nullptr || attr->pd->context != ibctx ||
	    is_parent_domain(attr->pd) ||
	    (attr->td != nullptr && attr->td->context != ibctx))
		return null_with_errno(EINVAL);
	if ((attr->comp_mask & ~known) != 0)
		return null_with_errno(EOPNOTSUPP);
	const bool with_alloc =
		(attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) != 0;
	if (with_alloc && (attr->alloc == nullptr) != (attr->free == nullptr))
		return null_with_errno(EINVAL);

	auto *p = static_cast<pd *>(std::calloc(1, sizeof(pd)));
	if (p == nullptr)
		return nullptr;
	/* Stands for its PD: the same context and kernel handle. */
	p->ibpd.context = ibctx;
	p->ibpd.handle = attr->pd->handle;
	p->protection = to_pd(attr->pd);
	users(p->protection->users).fetch_add(1);
	if (attr->td != nullptr) {
		p->thread = reinterpret_cast<td *>(attr->td);
		users(p->thread->users).fetch_add(1);
	}
	if (with_alloc) {
		p->alloc = attr->alloc;
		p->free = attr->free;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT) != 0)
		p->pd_context = attr->pd_context;
	return &p->ibpd;
}

ibv_td *alloc_td(ibv_context *ibctx, ibv_td_init_attr *attr) noexcept
{
	if (attr->comp_mask != 0)
		return null_with_errno(EOPNOTSUPP);
	auto *t = static_cast<td *>(std::calloc(1, sizeof(td)));
	if (t == nullptr)
		return nullptr;
	t->ibtd.context = ibctx;
	return &t->ibtd;
}

int dealloc_td(ibv_td *ibtd) noexcept
{
	auto *t = reinterpret_cast<td *>(ibtd);

	if (users(t->users).load() != 0)
		return EBUSY;
	std::free(t);
	return 0;
}

/*
 * The handle must name a PD of the uverbs file (INFO_HANDLES lists
 * them): a wrong one fails here, not at the first object created on it.
 */
ibv_pd *import_pd(ibv_context *ibctx, std::uint32_t handle) noexcept
{
	const int ret =
		uverbs_has_handle(ibctx->cmd_fd, UVERBS_OBJECT_PD, handle);

	if (ret != 0)
		return null_with_errno(ret);
	auto *p = static_cast<pd *>(std::calloc(1, sizeof(pd)));
	if (p == nullptr)
		return nullptr;
	p->ibpd.context = ibctx;
	p->ibpd.handle = handle;
	return &p->ibpd;
}

void unimport_pd(ibv_pd *ibpd) noexcept
{
	std::free(to_pd(ibpd));
}

} /* namespace sroce */
