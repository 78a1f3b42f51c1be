// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* verbs_util.cpp - what every libibverbs test tool uses (verbs_util.h). */
#include "verbs_util.h"

#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

#include "ktap.h"

namespace verbs_util {

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
const char *kind(ibv_xrcd * /*unused*/)
{
	return "XRC domain";
}

void destroy_failed(const char *kind, int err)
{
	ktap::fail("destroying a %s: %s", kind, std::strerror(err));
}

int dealloc_mw(ibv_mw *mw)
{
	return ibv_dealloc_mw(mw);
}

int close_xrcd(ibv_xrcd *xrcd)
{
	return ibv_close_xrcd(xrcd);
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

bool open_device(device &d, const char *name)
{
	d.name = name;
	d.ctx.reset(open_context(name));
	if (!d.ctx) {
		ktap::fail("cannot open %s: %s", name, std::strerror(errno));
		return false;
	}
	if (ibv_query_device(d.ctx.get(), &d.attr) != 0 ||
	    ibv_query_port(d.ctx.get(), 1, &d.port) != 0) {
		ktap::fail("cannot query %s: %s", name, std::strerror(errno));
		return false;
	}
	return true;
}

int find_roce_gid(const device &d, bool ipv4, ibv_gid *gid)
{
	std::vector<ibv_gid_entry> gids(d.port.gid_tbl_len);
	const ssize_t count =
		ibv_query_gid_table(d.ctx.get(), gids.data(), gids.size(), 0);

	for (ssize_t i = 0; i < count; ++i) {
		const ibv_gid_entry &e = gids[static_cast<std::size_t>(i)];

		if (e.port_num == 1 && e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    is_v4_mapped(e.gid) == ipv4) {
			*gid = e.gid;
			return static_cast<int>(e.gid_index);
		}
	}
	return -1;
}

bool use_gid(device &d, int gid_index)
{
	if (gid_index >= 0) {
		if (ibv_query_gid(d.ctx.get(), 1, gid_index, &d.gid) != 0) {
			ktap::fail("%s has no GID %d", d.name.c_str(),
				   gid_index);
			return false;
		}
		d.gid_index = gid_index;
		return true;
	}
	d.gid_index = find_roce_gid(d, true, &d.gid);
	if (d.gid_index < 0) {
		ktap::fail("%s has no RoCE v2 IPv4 GID", d.name.c_str());
		return false;
	}
	return true;
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

const char *qp_state_str(ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return "RESET";
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	case IBV_QPS_SQD:
		return "SQD";
	case IBV_QPS_SQE:
		return "SQE";
	case IBV_QPS_ERR:
		return "ERR";
	default:
		return "unknown (query_qp failed)";
	}
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

	ktap::note("%s: %d (%s), state %d -> %d", what, ret,
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

/* ---- deadlines ------------------------------------------------------------- */

clock_type::time_point deadline_in(int ms)
{
	return clock_type::now() + std::chrono::milliseconds(ms * scale);
}

/* ---- data ------------------------------------------------------------------ */

long mismatch(const unsigned char *p, std::size_t len, std::uint32_t msg,
	      std::size_t from)
{
	for (std::size_t i = 0; i < len; ++i)
		if (p[i] != pattern(msg, from + i))
			return static_cast<long>(i);
	return -1;
}

byte_diff diff_bytes(const unsigned char *got, const unsigned char *want,
		     std::size_t len)
{
	byte_diff d;

	for (std::size_t i = 0; i < len; ++i) {
		if (got[i] == want[i])
			continue;
		if (d.count++ == 0)
			d.first = i;
		d.last = i;
	}
	return d;
}

/* ---- hw counters ----------------------------------------------------------- */

long long hw_counter(const device &d, const char *name)
{
	const std::string path = "/sys/class/infiniband/" + d.name +
				 "/ports/1/hw_counters/" + name;
	FILE *f = std::fopen(path.c_str(), "r");
	long long v = -1;

	if (f == nullptr)
		return -1;
	if (std::fscanf(f, "%lld", &v) != 1)
		v = -1;
	std::fclose(f);
	return v;
}

long long fresh_counter(const device &d, const char *name)
{
	usleep(20000);
	return hw_counter(d, name);
}

bool counter_moved(const device &d, const char *name, long long before,
		   bool required)
{
	if (before < 0 && !required) {
		ktap::note("(%s has no counter %s: not checked)",
			   d.name.c_str(), name);
		return true;
	}
	long long now = hw_counter(d, name);

	for (int i = 0; i < 100 * scale && now >= 0 && now <= before; ++i) {
		usleep(20000);
		now = hw_counter(d, name);
	}
	ktap::note("%s %s: %lld -> %lld", d.name.c_str(), name, before, now);
	if (before >= 0 && now > before)
		return true;
	ktap::fail("%s: %s did not move (%lld -> %lld)", d.name.c_str(), name,
		   before, now);
	return false;
}

} /* namespace verbs_util */
