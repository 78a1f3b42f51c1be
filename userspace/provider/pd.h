/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * pd.h - protection domains, parent domains and thread domains (pd.cpp),
 * and the memory of the objects created on them.
 *
 * A parent domain (ibv_alloc_parent_domain(3)) is an ibv_pd standing for
 * a PD (its handle is the PD's: the kernel never sees the parent domain)
 * with, optionally, a thread domain and the application's allocator.
 * The provider allocates its QP, CQ and SRQ objects (their state, locks
 * and the ibv_wr_*() scratch buffers) with that allocator; the rings
 * themselves are kernel memory mapped into the process (ring_map.h),
 * which no allocator of the application can provide.  A QP created on a
 * parent domain with a thread domain takes no lock on its work queues
 * (ibv_alloc_td(3): the application serialises its use of the QP).
 */
#ifndef SROCE_PROVIDER_PD_H
#define SROCE_PROVIDER_PD_H

#include <type_traits>

#include "sroce.h"

namespace sroce {

/* A thread domain; users counts the parent domains holding it. */
struct td {
	ibv_td ibtd; /* first: libibverbs' part */
	std::uint32_t users; /* atomic_ref */
};
static_assert(std::is_standard_layout_v<td>);

using alloc_fn = void *(*)(ibv_pd *pd, void *pd_context, std::size_t size,
			   std::size_t alignment, std::uint64_t resource_type);
using free_fn = void (*)(ibv_pd *pd, void *pd_context, void *ptr,
			 std::uint64_t resource_type);

/*
 * A PD (protection == nullptr) or a parent domain.  users counts, for a
 * PD, the parent domains standing for it; for a parent domain, the
 * objects created on it.  Neither is deallocated while used (EBUSY).
 */
struct pd {
	ibv_pd ibpd; /* first: libibverbs' part */
	pd *protection; /* a parent domain's PD */
	td *thread; /* a parent domain's thread domain, or nullptr */
	alloc_fn alloc; /* a parent domain's allocator, or nullptr */
	free_fn free;
	void *pd_context;
	std::uint32_t users; /* atomic_ref */
};
static_assert(std::is_standard_layout_v<pd>);
static_assert(std::is_trivially_default_constructible_v<pd>);

inline pd *to_pd(ibv_pd *ibpd) noexcept
{
	return reinterpret_cast<pd *>(ibpd);
}

/*
 * The resource_type the allocator receives: sroce's driver id in the
 * upper 32 bits (ibv_alloc_parent_domain(3)), what is allocated in the
 * lower.
 */
enum class resource : std::uint64_t {
	qp = (std::uint64_t{SROCE_DRIVER_ID} << 32) | 1, /* struct qp */
	cq = (std::uint64_t{SROCE_DRIVER_ID} << 32) | 2, /* struct cq */
	srq = (std::uint64_t{SROCE_DRIVER_ID} << 32) | 3, /* struct srq */
	wr_buf = (std::uint64_t{SROCE_DRIVER_ID} << 32) | 4, /* ibv_wr_*() */
};

/*
 * Where an object's memory came from, kept in the object: the parent
 * domain it was created on (nullptr for a PD or none), and whether its
 * allocator gave the memory (else calloc() did).
 */
struct obj_mem {
	pd *domain;
	bool custom;
};

/*
 * size zeroed bytes aligned to obj_align for an object of type type
 * created on ibpd (nullptr: none): from the parent domain's allocator
 * when it has one and does not answer IBV_ALLOCATOR_USE_DEFAULT, else
 * from calloc().  An object on a parent domain holds it until
 * obj_free().  NULL with errno ENOMEM on failure.
 */
constexpr std::size_t obj_align = 64;
void *obj_alloc(ibv_pd *ibpd, std::size_t size, resource type,
		obj_mem *mem) noexcept;
/* Frees what obj_alloc() gave (p may be nullptr); mem is a copy. */
void obj_free(void *p, obj_mem mem, resource type) noexcept;

/* An object created on ibpd takes no locks (a parent domain with a TD). */
bool pd_single_threaded(const ibv_pd *ibpd) noexcept;

/* Whether ibpd is a parent domain. */
bool is_parent_domain(const ibv_pd *ibpd) noexcept;

ibv_pd *alloc_pd(ibv_context *ibctx) noexcept;
/* A PD or a parent domain; EBUSY while used. */
int dealloc_pd(ibv_pd *ibpd) noexcept;
ibv_pd *alloc_parent_domain(ibv_context *ibctx,
			    ibv_parent_domain_init_attr *attr) noexcept;
ibv_td *alloc_td(ibv_context *ibctx, ibv_td_init_attr *attr) noexcept;
int dealloc_td(ibv_td *ibtd) noexcept;

/*
 * ibv_import_pd(): a PD of the imported context's uverbs file by its
 * handle, which the kernel knows already; ibv_unimport_pd() frees the
 * provider's object and leaves the kernel's PD alone.
 */
ibv_pd *import_pd(ibv_context *ibctx, std::uint32_t handle) noexcept;
void unimport_pd(ibv_pd *ibpd) noexcept;

} /* namespace sroce */

#endif /* SROCE_PROVIDER_PD_H */
