// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-netfuzz - a stateful network fuzzer of two sroce devices: mutated
 * RoCEv2 datagrams at UDP 4791 while other traffic runs (tests/netfuzz.sh).
 *
 *   sroce-netfuzz --dev-a DEV --dev-b DEV --addr-a IP --addr-b IP
 *                 --alt-a IP --alt-b IP --ns-b NETNS --capture IFNAME
 *                 [--packets N] [--seed S] [--stateful PERCENT]
 *                 [--backlog N]
 *
 * DEV_A's netdev (IFNAME, where the capture runs) is in this network
 * namespace with the address ADDR_A, DEV_B's in NETNS with ADDR_B; ALT_A
 * is another address of this namespace, ALT_B of NETNS: the sources of
 * datagrams from nobody's peer.  The tool owns an RC, a UC and a UD pair
 * between the devices (victims.h) with traffic of their own, learns QPNs,
 * PSNs, rkeys and addresses from what it captures (its pairs' and any
 * other process's), and sends N datagrams (default 100000, seed S, default
 * 1) made by the generator (mutate.h): PERCENT of them (default 50) to its
 * own QPs with a good ICRC, into their state machines; the rest to any QP,
 * the other processes' included, each such that every correct receiver
 * drops it before it touches a QP, with a predicted fate.  With --backlog
 * the kernel's net.core.netdev_max_backlog is N while the datagrams go
 * out (and what it was again afterwards): a tiny backlog makes the stack
 * drop some of them on their way, which the injector must notice
 * (ENOBUFS) and send again.
 *
 * KTAP cases:
 *   setup        devices, victims, sockets, a corpus of both directions
 *   inject       the N datagrams, the victims' traffic going on
 *   counters     every predicted fate in the devices' hw counters: the
 *                header reasons, the ICRC, CNPs and the multicast QPN
 *                exactly, drops at the QP at least; every datagram
 *                received
 *   still-works  a new RC pair carries a SEND, a WRITE and a READ, every
 *                byte checked
 */
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <arpa/inet.h>

#include "completion.h"
#include "ktap.h"
#include "mutate.h"
#include "pair_traffic.h"
#include "qp_pair.h"
#include "verbs_util.h"
#include "victims.h"
#include "wire.h"

namespace {

using namespace verbs_util;
using namespace netfuzz;

struct options {
	std::string dev[sides], addr[sides], alt[sides], ns_b, ifname;
	unsigned long packets = 100000;
	unsigned long seed = 1;
	unsigned stateful = 50;
	long backlog = -1; // net.core.netdev_max_backlog while injecting
};

[[noreturn]] void usage()
{
	std::fprintf(stderr,
		     "usage: sroce-netfuzz --dev-a DEV --dev-b DEV --addr-a IP "
		     "--addr-b IP --alt-a IP --alt-b IP\n"
		     "                     --ns-b NETNS --capture IFNAME "
		     "[--packets N] [--seed S] [--stateful PERCENT]\n"
		     "                     [--backlog N]\n");
	std::exit(2);
}

options parse(int argc, char **argv)
{
	options o;
	for (int i = 1; i + 1 < argc; i += 2) {
		std::string k = argv[i], v = argv[i + 1];
		if (k == "--dev-a")
			o.dev[0] = v;
		else if (k == "--dev-b")
			o.dev[1] = v;
		else if (k == "--addr-a")
			o.addr[0] = v;
		else if (k == "--addr-b")
			o.addr[1] = v;
		else if (k == "--alt-a")
			o.alt[0] = v;
		else if (k == "--alt-b")
			o.alt[1] = v;
		else if (k == "--ns-b")
			o.ns_b = v;
		else if (k == "--capture")
			o.ifname = v;
		else if (k == "--packets")
			o.packets = std::strtoul(v.c_str(), nullptr, 0);
		else if (k == "--seed")
			o.seed = std::strtoul(v.c_str(), nullptr, 0);
		else if (k == "--backlog")
			o.backlog = std::strtol(v.c_str(), nullptr, 0);
		else if (k == "--stateful")
			o.stateful = static_cast<unsigned>(
				std::strtoul(v.c_str(), nullptr, 0));
		else
			usage();
	}
	if (argc % 2 == 0 || o.ns_b.empty() || o.ifname.empty() ||
	    o.stateful > 100)
		usage();
	for (int s = 0; s < sides; s++)
		if (o.dev[s].empty() || o.addr[s].empty() || o.alt[s].empty())
			usage();
	return o;
}

bool to_gid(const std::string &s, gid &g)
{
	g = {};
	g[10] = g[11] = 0xff;
	if (inet_pton(AF_INET, s.c_str(), g.data() + 12) != 1) {
		ktap::fail("not an IPv4 address: %s", s.c_str());
		return false;
	}
	return true;
}

// The index of d's RoCE v2 GID g; -1 if it has none.
int gid_of(const device &d, const gid &g)
{
	std::vector<ibv_gid_entry> gids(d.port.gid_tbl_len);
	const ssize_t n =
		ibv_query_gid_table(d.ctx.get(), gids.data(), gids.size(), 0);
	for (ssize_t i = 0; i < n; i++) {
		const auto &e = gids[static_cast<std::size_t>(i)];
		if (e.port_num == 1 && e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    std::memcmp(e.gid.raw, g.data(), 16) == 0)
			return static_cast<int>(e.gid_index);
	}
	ktap::fail("%s has no RoCE v2 GID of the address", d.name.c_str());
	return -1;
}

// The fates the run predicted, per receiving device.
struct tally {
	std::map<std::string, long long> exact[sides];
	long long at_qp[sides] = {}; // rx_drop_not_peer or rx_drop_no_qp
	long long no_qp[sides] = {};
	long long opcode_or_no_qp[sides] = {};
	long long sent[sides] = {};
	long long stateful = 0;
	std::map<std::string, long long> what;
};

// The counters the checks read, as "before" or "after".
const char *const counter_names[] = {
	"rx_packets",	    "rx_qp",	       "rx_drop_no_qp",
	"rx_drop_not_peer", "rx_drop_mcast",   "rx_cnp",
	"rx_err_truncated", "rx_err_opcode",   "rx_err_tver",
	"rx_err_pkey",	    "rx_err_len",      "rx_err_pad",
	"rx_err_icrc",	    "rx_err_over_mtu", "rx_err_transport",
	"rx_err_seg_len",
};

using counters = std::map<std::string, long long>;

counters read_counters(const device &d)
{
	counters c;
	usleep(20000); // past the core's cache of hw counters
	for (const char *n : counter_names)
		c[n] = hw_counter(d, n);
	return c;
}

struct run {
	options o;
	config cfg;
	device dev[sides];
	netfuzz::victims v;
	injector inj;
	capture cap;
	std::unique_ptr<generator> gen;
	tally t;
	counters before[sides], after[sides];
};

void learn_some(run &r, unsigned max)
{
	r.cap.poll(max, [&](int side, std::span<const std::uint8_t> p) {
		r.gen->learn(side, p);
	});
}

bool setup(run &r)
{
	for (int s = 0; s < sides; s++) {
		REQUIRE(open_device(r.dev[s], r.o.dev[s].c_str()));
		REQUIRE(to_gid(r.o.addr[s], r.cfg.addr[s]));
		REQUIRE(to_gid(r.o.alt[s], r.cfg.alt[s]));
		// The victims' peers are the devices' own addresses.
		REQUIRE(use_gid(r.dev[s], gid_of(r.dev[s], r.cfg.addr[s])));
	}
	REQUIRE(r.v.make(r.dev[0], r.dev[1]));
	r.v.describe(r.cfg);
	r.cfg.stateful_share = r.o.stateful / 100.0;
	REQUIRE(r.inj.open(r.cfg, r.o.ns_b));
	REQUIRE(r.cap.open(r.cfg, r.o.ifname));
	r.gen = std::make_unique<generator>(r.o.seed, r.cfg);
	auto end = deadline_in(3000);
	while (clock_type::now() < end &&
	       (r.gen->corpus_size(0) < 64 || r.gen->corpus_size(1) < 64)) {
		REQUIRE(r.v.pump());
		learn_some(r, 256);
		usleep(1000);
	}
	for (int s = 0; s < sides; s++)
		ktap::note("%s: QPs %u %u %u, corpus %zu packets, %zu QPs of "
			   "others seen",
			   r.o.dev[s].c_str(), *r.cfg.victims[s].begin(),
			   *std::next(r.cfg.victims[s].begin()),
			   *r.cfg.victims[s].rbegin(), r.gen->corpus_size(s),
			   r.gen->foreign_qps(s));
	CHECK(r.gen->corpus_size(0) > 0 && r.gen->corpus_size(1) > 0);
	return true;
}

void count(tally &t, const datagram &g)
{
	t.sent[g.side]++;
	t.what[g.what]++;
	switch (g.pred.f) {
	case fate::unpredicted:
		t.stateful++;
		break;
	case fate::rx_err:
		t.exact[g.side][rx_err_counter(g.pred.reason)]++;
		break;
	case fate::no_qp:
		t.no_qp[g.side]++;
		break;
	case fate::mcast_drop:
		t.exact[g.side]["rx_drop_mcast"]++;
		break;
	case fate::cnp:
		t.exact[g.side]["rx_cnp"]++;
		break;
	case fate::qp_drop:
		t.at_qp[g.side]++;
		break;
	case fate::opcode_or_no_qp:
		t.opcode_or_no_qp[g.side]++;
		break;
	}
}

constexpr const char *backlog_sysctl = "/proc/sys/net/core/netdev_max_backlog";

bool read_long(const char *path, long &v)
{
	FILE *f = std::fopen(path, "r");
	bool ok = f != nullptr && std::fscanf(f, "%ld", &v) == 1;
	if (f != nullptr)
		std::fclose(f);
	if (!ok)
		ktap::fail("read %s: %s", path, std::strerror(errno));
	return ok;
}

bool write_long(const char *path, long v)
{
	FILE *f = std::fopen(path, "w");
	bool ok = f != nullptr && std::fprintf(f, "%ld\n", v) > 0;
	if (f != nullptr && std::fclose(f) != 0)
		ok = false;
	if (!ok)
		ktap::fail("write %ld to %s: %s", v, path,
			   std::strerror(errno));
	return ok;
}

// net.core.netdev_max_backlog set for a while, then what it was.
class backlog_setting {
public:
	explicit backlog_setting(long n)
	{
		if (n >= 0 && read_long(backlog_sysctl, old_) &&
		    write_long(backlog_sysctl, n))
			set_ = true;
		ok_ = n < 0 || set_;
	}
	backlog_setting(const backlog_setting &) = delete;
	backlog_setting &operator=(const backlog_setting &) = delete;
	~backlog_setting() { restore(); }
	bool ok() const { return ok_; }
	bool restore()
	{
		if (!set_)
			return true;
		set_ = false;
		return write_long(backlog_sysctl, old_);
	}

private:
	long old_ = 0;
	bool set_ = false;
	bool ok_ = false;
};

bool inject(run &r)
{
	for (int s = 0; s < sides; s++)
		r.before[s] = read_counters(r.dev[s]);
	backlog_setting backlog(r.o.backlog);
	REQUIRE(backlog.ok());
	auto start = clock_type::now();
	unsigned long step = std::max(1ul, r.o.packets / 10);
	for (unsigned long i = 0; i < r.o.packets; i++) {
		if (i % 64 == 0) {
			REQUIRE(r.v.pump());
			learn_some(r, 512);
		}
		datagram g = r.gen->next();
		REQUIRE(r.inj.send(g));
		count(r.t, g);
		if ((i + 1) % step == 0)
			ktap::note("%lu datagrams sent, %.0f s", i + 1,
				   std::chrono::duration<double>(
					   clock_type::now() - start)
					   .count());
	}
	double secs = std::chrono::duration<double>(clock_type::now() - start)
			      .count();
	REQUIRE(backlog.restore());
	// The victims' last requests and their answers settle.
	auto end = deadline_in(1000);
	while (clock_type::now() < end) {
		REQUIRE(r.v.pump());
		learn_some(r, 512);
		usleep(10000);
	}
	for (int s = 0; s < sides; s++)
		r.after[s] = read_counters(r.dev[s]);
	ktap::note("%lu datagrams in %.1f s (%.0f/s), %lld stateful, %lu "
		   "resent after ENOBUFS, %lu after an ICMP error",
		   r.o.packets, secs, static_cast<double>(r.o.packets) / secs,
		   r.t.stateful, r.inj.retries(), r.inj.icmp_errors());
	for (const auto &[w, n] : r.t.what)
		ktap::note("  %-14s %lld", w.c_str(), n);
	for (int s = 0; s < sides; s++)
		ktap::note("%s: corpus %zu packets, %zu QPs of others seen",
			   r.o.dev[s].c_str(), r.gen->corpus_size(s),
			   r.gen->foreign_qps(s));
	ktap::note("victims: %lu completions, %lu in error, %lu pairs "
		   "mended",
		   r.v.completed(), r.v.errors(), r.v.reconnects());
	return true;
}

bool check_counters(run &r)
{
	static const char *const exact[] = {
		"rx_err_truncated", "rx_err_opcode", "rx_err_tver",
		"rx_err_pkey",	    "rx_err_len",    "rx_err_pad",
		"rx_err_icrc",	    "rx_cnp",	     "rx_drop_mcast",
	};
	for (int s = 0; s < sides; s++) {
		const char *dev = r.o.dev[s].c_str();
		auto d = [&](const char *n) {
			return r.after[s][n] - r.before[s][n];
		};
		for (const auto &[n, v] : r.after[s])
			ktap::note("%s %s +%lld", dev, n.c_str(),
				   v - r.before[s][n]);
		// An extension opcode to another process's QPN: unknown
		// opcode, or no QP once the QP is gone.
		const long long maybe = r.t.opcode_or_no_qp[s];
		for (const char *n : exact) {
			long long want = r.t.exact[s][n];
			long long extra = std::string_view(n) == "rx_err_opcode"
						  ? maybe
						  : 0;
			if (d(n) < want || d(n) > want + extra)
				ktap::fail("%s %s moved by %lld, %lld "
					   "datagrams predicted there (and up "
					   "to %lld more)",
					   dev, n, d(n), want, extra);
		}
		long long over = r.t.exact[s]["rx_err_over_mtu"];
		if (d("rx_err_over_mtu") < over)
			ktap::fail("%s rx_err_over_mtu moved by %lld, at least "
				   "%lld predicted",
				   dev, d("rx_err_over_mtu"), over);
		// From nobody's peer: dropped at the QP, or when it is
		// gone, as no QP; only these come from a non-peer.
		long long qp = d("rx_drop_not_peer") + d("rx_drop_no_qp");
		const long long gone = maybe - (d("rx_err_opcode") -
						r.t.exact[s]["rx_err_opcode"]);
		if (d("rx_drop_not_peer") > r.t.at_qp[s] ||
		    qp < r.t.at_qp[s] + r.t.no_qp[s] + gone)
			ktap::fail("%s rx_drop_not_peer +%lld, rx_drop_no_qp "
				   "+%lld: %lld from non-peers and %lld to "
				   "no QP predicted",
				   dev, d("rx_drop_not_peer"),
				   d("rx_drop_no_qp"), r.t.at_qp[s],
				   r.t.no_qp[s]);
		if (d("rx_packets") < r.t.sent[s])
			ktap::fail("%s rx_packets moved by %lld, %lld "
				   "datagrams sent to it",
				   dev, d("rx_packets"), r.t.sent[s]);
		ktap::note("%s: %lld datagrams sent, their fates as "
			   "predicted",
			   dev, r.t.sent[s]);
	}
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	run r;
	r.o = parse(argc, argv);
	ktap::header(4);
	ktap::note("sroce-netfuzz: %lu datagrams, seed %lu, %u%% stateful",
		   r.o.packets, r.o.seed, r.o.stateful);
	ktap::begin();
	const bool set_up = ktap::end("setup", setup(r));
	ktap::begin();
	if (!set_up)
		ktap::fail("no setup");
	const bool injected = ktap::end("inject", set_up && inject(r));
	ktap::begin();
	if (!injected)
		ktap::fail("nothing injected");
	ktap::end("counters", injected && check_counters(r));
	ktap::begin();
	if (!set_up)
		ktap::fail("no setup");
	ktap::end("still-works",
		  set_up && new_rc_pair_works(r.dev[0], r.dev[1]));
	return ktap::exit_status();
}
