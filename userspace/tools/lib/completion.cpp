// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* completion.cpp - waiting for and expecting completions (completion.h). */
#include "completion.h"

#include <arpa/inet.h>
#include <poll.h>
#include <cinttypes>
#include <unistd.h>

#include "ktap.h"
#include "verbs_util.h"

namespace verbs_util {

std::optional<ibv_wc> wait_wc(ibv_cq *cq, int ms)
{
	const auto deadline = deadline_in(ms);
	ibv_wc wc{};

	for (unsigned int spins = 0;; ++spins) {
		const int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0) {
			ktap::fail("poll_cq returned %d", n);
			return std::nullopt;
		}
		if (n == 1)
			return wc;
		if (clock_type::now() > deadline)
			return std::nullopt;
		if (spins > 100)
			usleep(100);
	}
}

void print_wc(const char *what, const ibv_wc &wc)
{
	ktap::note("%s: wr_id %#" PRIx64 " status %s (%d) opcode %d byte_len "
		   "%u wc_flags %#x imm %#x qp %#x src_qp %#x vendor_err %#x",
		   what, wc.wr_id, ibv_wc_status_str(wc.status), wc.status,
		   wc.opcode, wc.byte_len, wc.wc_flags, ntohl(wc.imm_data),
		   wc.qp_num, wc.src_qp, wc.vendor_err);
}

std::optional<ibv_wc> expect_wc(const char *what, ibv_cq *cq,
				std::uint64_t wr_id, ibv_wc_status status,
				ibv_wc_opcode opcode, bool verbose)
{
	constexpr int ms = 10000;
	const std::optional<ibv_wc> wc = wait_wc(cq, ms);

	if (!wc) {
		ktap::fail("%s: no completion within %d s, expected %s", what,
			   ms / 1000 * scale, ibv_wc_status_str(status));
		return std::nullopt;
	}
	const bool ok = wc->wr_id == wr_id && wc->status == status &&
			(status != IBV_WC_SUCCESS || wc->opcode == opcode);
	if (verbose || !ok)
		print_wc(what, *wc);
	if (wc->wr_id != wr_id) {
		ktap::fail("%s: completion of wr_id %" PRIu64
			   ", expected %" PRIu64,
			   what, wc->wr_id, wr_id);
		return std::nullopt;
	}
	if (wc->status != status) {
		ktap::fail("%s: %s, expected %s", what,
			   ibv_wc_status_str(wc->status),
			   ibv_wc_status_str(status));
		return std::nullopt;
	}
	if (!ok) {
		ktap::fail("%s: opcode %d, expected %d", what, wc->opcode,
			   opcode);
		return std::nullopt;
	}
	return wc;
}

bool no_wc(const char *what, ibv_cq *cq, int ms)
{
	const std::optional<ibv_wc> wc = wait_wc(cq, ms);

	if (wc) {
		print_wc(what, *wc);
		ktap::fail("%s: unexpected completion", what);
		return false;
	}
	ktap::note("ok: %s: no completion within %d ms", what, ms * scale);
	return true;
}

int next_async_event(ibv_context *ctx, int ms)
{
	pollfd p{ctx->async_fd, POLLIN, 0};

	if (poll(&p, 1, ms * scale) != 1)
		return -1;
	ibv_async_event ev{};
	if (ibv_get_async_event(ctx, &ev) != 0)
		return -1;
	const int type = ev.event_type;
	ibv_ack_async_event(&ev);
	ktap::note("async event: %s", ibv_event_type_str(ev.event_type));
	return type;
}

} /* namespace verbs_util */
