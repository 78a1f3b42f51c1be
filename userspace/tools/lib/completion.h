// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * completion.h - waiting for completions, and the completion a test
 * expects: one helper for every tool.  What does not come as expected is a
 * failure of the running case (ktap.h), in words that name what was
 * expected (tests/protection.sh matches some of them).
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#ifndef SROCE_TOOLS_COMPLETION_H
#define SROCE_TOOLS_COMPLETION_H

#include <cstdint>
#include <optional>

#include <infiniband/verbs.h>

namespace verbs_util {

/*
 * The next completion of cq within ms (scaled), polling; nothing when
 * none came (or poll_cq failed, which is a failure).
 */
std::optional<ibv_wc> wait_wc(ibv_cq *cq, int ms = 10000);

/* A completion, every field of it, as a diagnostic. */
void print_wc(const char *what, const ibv_wc &wc);

/*
 * The next completion of cq within 10 s (scaled) is wr_id with status
 * (and, for a success, opcode); it is printed when verbose or when it is
 * not as expected, which fails as
 *   "WHAT: no completion within N s, expected STATUS"
 *   "WHAT: completion of wr_id N, expected M"
 *   "WHAT: STATUS, expected STATUS"
 *   "WHAT: opcode N, expected M".
 */
std::optional<ibv_wc> expect_wc(const char *what, ibv_cq *cq,
				std::uint64_t wr_id, ibv_wc_status status,
				ibv_wc_opcode opcode, bool verbose = true);

/* Nothing completes on cq within ms (scaled); a completion fails. */
bool no_wc(const char *what, ibv_cq *cq, int ms);

/* The next asynchronous event of ctx within ms (scaled), noted; or -1. */
int next_async_event(ibv_context *ctx, int ms);

} /* namespace verbs_util */

#endif /* SROCE_TOOLS_COMPLETION_H */
