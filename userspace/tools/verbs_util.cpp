// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* verbs_util.cpp - what the libibverbs test tools share (verbs_util.h). */
#include "verbs_util.h"

#include <arpa/inet.h>
#include <cstdarg>
#include <cstdlib>
#include <unistd.h>
#include <vector>

namespace verbs_util {

int failures;

namespace {

void count_failure(const char *what)
{
	std::printf("FAILED: %s\n", what);
	++failures;
}

__attribute__((format(printf, 1, 2))) void report(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	std::vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	report_failure(buf);
}

} /* namespace */

void (*report_failure)(const char *what) = count_failure;

int timeout_scale()
{
	const char *s = std::getenv("SROCE_TIMEOUT_SCALE");
	const int v = s != nullptr ? std::atoi(s) : 1;

	return v > 0 ? v : 1;
}

const int scale = timeout_scale();

/* ---- RAII over libibverbs handles -------------------------------------- */

const char *kind(ibv_context * /*unused*/)
{
	return "device context";
}
const char *kind(ibv_comp_channel * /*unused*/)
{
	return "completion channel";
}
const char *kind(ibv_cq * /*unused*/)
{
	return "CQ";
}
const char *kind(ibv_pd * /*unused*/)
{
	return "PD";
}
const char *kind(ibv_mr * /*unused*/)
{
	return "MR";
}
const char *kind(ibv_mw * /*unused*/)
{
	return "MW";
}
const char *kind(ibv_qp * /*unused*/)
{
	return "QP";
}
const char *kind(ibv_ah * /*unused*/)
{
	return "AH";
}
const char *kind(ibv_srq * /*unused*/)
{
	return "SRQ";
}

void destroy_failed(const char *kind, int err)
{
	report("destroying a %s: %s", kind, std::strerror(err));
}

int dealloc_mw(ibv_mw *mw)
{
	return ibv_dealloc_mw(mw);
}

/* ---- devices ------------------------------------------------------------- */

ibv_context *open_context(const char *name)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;
	int err = ENODEV;

	for (int i = 0; list != nullptr && i < n; ++i) {
		if (std::strcmp(ibv_get_device_name(list[i]), name) == 0) {
			ctx = ibv_open_device(list[i]);
			err = errno;
		}
	}
	if (list != nullptr)
		ibv_free_device_list(list);
	errno = err;
	return ctx;
}

bool is_v4_mapped(const ibv_gid &gid)
{
	static constexpr unsigned char prefix[12] = {0, 0, 0, 0, 0,    0,
						     0, 0, 0, 0, 0xff, 0xff};

	return std::memcmp(gid.raw, prefix, sizeof(prefix)) == 0;
}

std::string gid_str(const ibv_gid &gid)
{
	char s[INET6_ADDRSTRLEN] = {};

	inet_ntop(AF_INET6, gid.raw, s, sizeof(s));
	return s;
}

bool open_device(device &d, const char *name, int gid_index)
{
	d.name = name;
	d.ctx.reset(open_context(name));
	if (!d.ctx) {
		report("cannot open %s: %s", name, std::strerror(errno));
		return false;
	}
	if (ibv_query_device(d.ctx.get(), &d.attr) != 0 ||
	    ibv_query_port(d.ctx.get(), 1, &d.port) != 0) {
		report("cannot query %s: %s", name, std::strerror(errno));
		return false;
	}
	if (gid_index >= 0) {
		if (ibv_query_gid(d.ctx.get(), 1, gid_index, &d.gid) != 0) {
			report("%s has no GID %d", name, gid_index);
			return false;
		}
		d.gid_index = gid_index;
		return true;
	}
	std::vector<ibv_gid_entry> gids(d.port.gid_tbl_len);
	const ssize_t count =
		ibv_query_gid_table(d.ctx.get(), gids.data(), gids.size(), 0);
	for (ssize_t i = 0; i < count; ++i) {
		const ibv_gid_entry &e = gids[static_cast<std::size_t>(i)];

		if (e.port_num == 1 && e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    is_v4_mapped(e.gid)) {
			d.gid_index = static_cast<int>(e.gid_index);
			d.gid = e.gid;
			return true;
		}
	}
	report("%s has no RoCE v2 IPv4 GID (%zd GIDs)", name, count);
	return false;
}

/* ---- QPs ------------------------------------------------------------------- */

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr ia{};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) != 0)
		return static_cast<ibv_qp_state>(-1);
	return a.qp_state;
}

int to_state(ibv_qp *qp, ibv_qp_state s)
{
	ibv_qp_attr a{};

	a.qp_state = s;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

bool modify_refused(ibv_qp *qp, ibv_qp_attr attr, int mask, const char *what,
		    int want)
{
	const ibv_qp_state before = qp_state(qp);
	const int ret = ibv_modify_qp(qp, &attr, mask);
	const ibv_qp_state after = qp_state(qp);

	std::printf("  %s: %d (%s), state %d -> %d\n", what, ret,
		    ret != 0 ? std::strerror(ret) : "accepted", before, after);
	return ret == want && before == after;
}

int to_init(ibv_qp *qp, int access)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = static_cast<unsigned int>(access);
	return ibv_modify_qp(qp, &a, init_mask);
}

ibv_ah_attr roce_av(const device &from, const device &to)
{
	ibv_ah_attr av{};

	av.is_global = 1;
	av.grh.dgid = to.gid;
	av.grh.sgid_index = static_cast<std::uint8_t>(from.gid_index);
	av.grh.hop_limit = 64;
	av.port_num = 1;
	return av;
}

/* ---- completions ----------------------------------------------------------- */

clock_type::time_point deadline_in(int ms)
{
	return clock_type::now() + std::chrono::milliseconds(ms * scale);
}

std::optional<ibv_wc> wait_wc(ibv_cq *cq, int ms)
{
	const auto deadline = deadline_in(ms);
	ibv_wc wc{};

	for (unsigned int spins = 0;; ++spins) {
		const int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0) {
			report("poll_cq returned %d", n);
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

/* ---- named checks between two devices ------------------------------------- */

namespace {

bool run(const check &c, device &a, device &b)
{
	const int before = failures;
	const bool finished = c.fn(a, b);
	const bool ok = finished && failures == before;

	if (!finished && failures == before)
		++failures;
	std::printf("%s: %.*s\n", ok ? "PASS" : "FAIL",
		    static_cast<int>(c.name.size()), c.name.data());
	return ok;
}

} /* namespace */

int check_main(int argc, char **argv, std::span<const check> checks,
	       void (*describe)(const device &))
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: %s DEV_A DEV_B CHECK\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	const std::string_view what = argv[3];
	const check *one = nullptr;
	for (const check &c : checks)
		if (c.name == what)
			one = &c;
	if (one == nullptr && what != "all") {
		std::fprintf(stderr, "unknown check %s\n", argv[3]);
		return 2;
	}

	{
		device a, b;
		const auto open = [describe](device &d, const char *name) {
			if (!open_device(d, name))
				return false;
			describe(d);
			return true;
		};

		/* A failure to open is reported and counted. */
		if (open(a, argv[1]) && open(b, argv[2])) {
			if (one != nullptr) {
				run(*one, a, b);
			} else {
				for (const check &c : checks)
					run(c, a, b);
			}
		}
	}
	std::printf("%d failure(s)\n", failures);
	return failures != 0 ? 1 : 0;
}

} /* namespace verbs_util */
