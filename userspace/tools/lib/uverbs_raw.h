// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uverbs_raw.h - uverbs commands written by hand, past libibverbs, to show
 * that the kernel refuses malformed ones (sroce-objtest, sroce-srqtest):
 * the command header, the write() and what came of it.
 */
#ifndef SROCE_TOOLS_UVERBS_RAW_H
#define SROCE_TOOLS_UVERBS_RAW_H

#include <cstddef>
#include <cstdint>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

namespace verbs_util {

/* The header of command, in_bytes long, with out_bytes of response. */
ib_uverbs_cmd_hdr uverbs_hdr(std::uint32_t command, std::size_t in_bytes,
			     std::size_t out_bytes);

/* The address of a response buffer, as a command carries it. */
inline std::uint64_t uverbs_ptr(const void *p)
{
	return reinterpret_cast<std::uintptr_t>(p);
}

/*
 * write() of the in_bytes of cmd to ctx's command file: 0 when the kernel
 * took all of it, else the errno.
 */
int uverbs_write(ibv_context *ctx, const void *cmd, std::size_t in_bytes);

/* err is expected (0: accepted); noted as "what: accepted|strerror". */
bool raw_result(int err, int expected, const char *what);

} /* namespace verbs_util */

#endif /* SROCE_TOOLS_UVERBS_RAW_H */
