// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* uverbs_raw.cpp - uverbs commands written by hand (uverbs_raw.h). */
#include "uverbs_raw.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "ktap.h"

namespace verbs_util {

ib_uverbs_cmd_hdr uverbs_hdr(std::uint32_t command, std::size_t in_bytes,
			     std::size_t out_bytes)
{
	ib_uverbs_cmd_hdr h{};

	h.command = command;
	h.in_words = static_cast<std::uint16_t>(in_bytes / 4);
	h.out_words = static_cast<std::uint16_t>(out_bytes / 4);
	return h;
}

int uverbs_write(ibv_context *ctx, const void *cmd, std::size_t in_bytes)
{
	if (write(ctx->cmd_fd, cmd, in_bytes) == static_cast<ssize_t>(in_bytes))
		return 0;
	return errno;
}

bool raw_result(int err, int expected, const char *what)
{
	ktap::note("%s: %s", what, err != 0 ? std::strerror(err) : "accepted");
	return err == expected;
}

} /* namespace verbs_util */
