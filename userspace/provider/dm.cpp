// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * dm.cpp - device memory: the core's DM commands (libibverbs'
 * ibv_cmd_*_dm()), sroce's SROCE_METHOD_DM_QUERY for where to map it, and
 * copies to and from the mapping.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

#include "context.h"
#include "dm.h"
#include "uverbs_ioctl.h"

namespace sroce {

namespace {

dm *to_dm(ibv_dm *ibdm) noexcept
{
	return reinterpret_cast<dm *>(ibdm);
}

int memcpy_to_dm(ibv_dm *ibdm, std::uint64_t dm_offset, const void *host_addr,
		 std::size_t length) noexcept
{
	dm *d = to_dm(ibdm);
	const int ret = dm_check_copy(d->length, dm_offset, length);

	if (ret != 0)
		return ret;
	std::memcpy(static_cast<char *>(d->map) + dm_offset, host_addr, length);
	return 0;
}

int memcpy_from_dm(void *host_addr, ibv_dm *ibdm, std::uint64_t dm_offset,
		   std::size_t length) noexcept
{
	dm *d = to_dm(ibdm);
	const int ret = dm_check_copy(d->length, dm_offset, length);

	if (ret != 0)
		return ret;
	std::memcpy(host_addr, static_cast<const char *>(d->map) + dm_offset,
		    length);
	return 0;
}

/*
 * Ask the kernel where the DM of d->vdm.handle lies and map it: 0, EPROTO
 * for an answer that makes no sense (logged), the ioctl's or mmap()'s
 * errno.  Sets the copy functions on success.
 */
int map_dm(ibv_context *ibctx, dm *d) noexcept
{
	sroce_dm_query_resp resp{};
	uverbs_ioctl query(UVERBS_OBJECT_DM, SROCE_METHOD_DM_QUERY);

	query.obj_in(SROCE_ATTR_QUERY_DM_HANDLE, d->vdm.handle);
	query.ptr_out(SROCE_ATTR_QUERY_DM_RESP, &resp, sizeof(resp), true);
	int ret = query.execute(ibctx->cmd_fd);
	if (ret != 0)
		return ret;
	const std::uint64_t page = to_ctx(ibctx)->params.page_size;
	if (resp.mmap_size == 0 || resp.mmap_size % page != 0 ||
	    resp.mmap_offset % page != 0 || resp.length == 0 ||
	    resp.length > resp.mmap_size) {
		__verbs_log(&to_ctx(ibctx)->vctx, 1,
			    "sroce: DM %u: bad mapping (offset %#llx, %llu "
			    "bytes for %llu)\n",
			    d->vdm.handle,
			    static_cast<unsigned long long>(resp.mmap_offset),
			    static_cast<unsigned long long>(resp.mmap_size),
			    static_cast<unsigned long long>(resp.length));
		return EPROTO;
	}
	void *m = mmap(nullptr, resp.mmap_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, ibctx->cmd_fd,
		       static_cast<off_t>(resp.mmap_offset));
	if (m == MAP_FAILED)
		return errno;
	d->map = m;
	d->map_size = resp.mmap_size;
	d->length = resp.length;
	d->vdm.dm.memcpy_to_dm = memcpy_to_dm;
	d->vdm.dm.memcpy_from_dm = memcpy_from_dm;
	return 0;
}

} /* namespace */

int dm_check_copy(std::uint64_t dm_length, std::uint64_t offset,
		  std::size_t length) noexcept
{
	if (offset % dm_copy_align != 0 || length % dm_copy_align != 0 ||
	    offset > dm_length || length > dm_length - offset)
		return EINVAL;
	return 0;
}

ibv_dm *alloc_dm(ibv_context *ibctx, ibv_alloc_dm_attr *attr) noexcept
{
	/* No comp_mask bit is defined for the attributes. */
	if (attr->comp_mask != 0)
		return null_with_errno(EINVAL);
	auto *d = static_cast<dm *>(std::calloc(1, sizeof(dm)));
	if (d == nullptr)
		return nullptr;
	int ret = ibv_cmd_alloc_dm(ibctx, attr, &d->vdm, nullptr);
	if (ret != 0) {
		std::free(d);
		return null_with_errno(ret);
	}
	ret = map_dm(ibctx, d);
	if (ret != 0) {
		ibv_cmd_free_dm(&d->vdm);
		std::free(d);
		return null_with_errno(ret);
	}
	return &d->vdm.dm;
}

/* On failure (EBUSY: an MR uses it) the DM stays, mapped. */
int free_dm(ibv_dm *ibdm) noexcept
{
	dm *d = to_dm(ibdm);
	const int ret = ibv_cmd_free_dm(&d->vdm);

	if (ret != 0) {
		errno = ret;
		return ret;
	}
	munmap(d->map, d->map_size);
	std::free(d);
	return 0;
}

/*
 * A DM of the imported context's uverbs file by its handle: the kernel
 * refuses a handle that names no DM.  ibv_unimport_dm() unmaps it and
 * leaves the kernel's DM alone.
 */
ibv_dm *import_dm(ibv_context *ibctx, std::uint32_t handle) noexcept
{
	auto *d = static_cast<dm *>(std::calloc(1, sizeof(dm)));

	if (d == nullptr)
		return nullptr;
	d->vdm.handle = handle;
	d->vdm.dm.handle = handle;
	d->vdm.dm.comp_mask = IBV_DM_MASK_HANDLE;
	d->vdm.dm.context = ibctx;
	const int ret = map_dm(ibctx, d);
	if (ret != 0) {
		std::free(d);
		return null_with_errno(ret);
	}
	return &d->vdm.dm;
}

void unimport_dm(ibv_dm *ibdm) noexcept
{
	dm *d = to_dm(ibdm);

	munmap(d->map, d->map_size);
	std::free(d);
}

/*
 * A zero-based region over [dm_offset, dm_offset + length) of the DM; the
 * kernel checks the range and the access.  ibv_dereg_mr() frees it as any
 * region (dereg_mr()).
 */
ibv_mr *reg_dm_mr(ibv_pd *pd, ibv_dm *ibdm, std::uint64_t dm_offset,
		  std::size_t length, unsigned int access) noexcept
{
	auto *vmr = static_cast<verbs_mr *>(std::calloc(1, sizeof(verbs_mr)));

	if (vmr == nullptr)
		return nullptr;
	const int ret = ibv_cmd_reg_dm_mr(pd, &to_dm(ibdm)->vdm, dm_offset,
					  length, access, vmr, nullptr);
	if (ret != 0) {
		std::free(vmr);
		return null_with_errno(ret);
	}
	return &vmr->mr;
}

} /* namespace sroce */
