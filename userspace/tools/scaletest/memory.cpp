// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * memory.cpp - sroce-scaletest idle-mem DEV COUNT: the kernel memory of
 * an idle RC QP.  With a PD and two CQs of DEV made first (and not
 * counted), the kernel's memory is read (after dropping the page cache and
 * reclaimable slabs, and a pause); COUNT RC QPs are created with rc_opts()
 * and connected in pairs on DEV (QP 2i to QP 2i+1, RTS, no traffic); the
 * memory is read again the same way.  The difference over COUNT is the
 * memory per idle QP: /proc/meminfo's Slab + VmallocUsed + Percpu (also
 * PageTables apart: the process's page tables of the mapped rings), every
 * slab cache that grew (/proc/slabinfo: active objects times object size)
 * and every vmalloc caller that grew (/proc/vmallocinfo pages), each per
 * QP.  The QPs are destroyed and the memory read a third time.  Cases:
 * the QPs made, measured (result: qp_mem_bytes), destroyed.  Needs root
 * (slabinfo, drop_caches, vmallocinfo's callers).
 */
#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ktap.h"
#include "scaletest.h"

namespace scaletest {

namespace {

using namespace verbs_util;

/* What one reading of the kernel's memory holds, in bytes. */
struct reading {
	std::map<std::string, long long> meminfo; /* the fields below */
	std::map<std::string, long long> slab; /* cache: active bytes */
	std::map<std::string, long long> vmalloc; /* caller: bytes */
};

constexpr const char *meminfo_fields[] = {"Slab", "SUnreclaim", "VmallocUsed",
					  "Percpu", "PageTables"};

void read_meminfo(reading &r)
{
	std::ifstream f("/proc/meminfo");
	std::string key;
	long long kb = 0;
	std::string unit;

	while (f >> key >> kb) {
		std::getline(f, unit);
		key.pop_back(); /* the ':' */
		for (const char *want : meminfo_fields)
			if (key == want)
				r.meminfo[key] = kb * 1024;
	}
}

/* slabinfo 2.1: name active_objs num_objs objsize ... */
void read_slabinfo(reading &r)
{
	std::ifstream f("/proc/slabinfo");
	std::string line;

	while (std::getline(f, line)) {
		if (line.empty() || line[0] == '#' ||
		    line.starts_with("slabinfo"))
			continue;
		std::istringstream in(line);
		std::string name;
		long long active = 0;
		long long num = 0;
		long long size = 0;
		if (in >> name >> active >> num >> size)
			r.slab[name] += active * size;
	}
}

/*
 * vmallocinfo: "START-END SIZE CALLER ... pages=N ...": pages by caller
 * (the function, without its offset); areas without pages (ioremap,
 * vmap) are left out.
 */
void read_vmallocinfo(reading &r)
{
	std::ifstream f("/proc/vmallocinfo");
	std::string line;

	while (std::getline(f, line)) {
		std::istringstream in(line);
		std::string range;
		std::string size;
		std::string caller;
		std::string word;
		long long pages = 0;

		in >> range >> size >> caller;
		while (in >> word)
			if (word.starts_with("pages="))
				pages = std::stoll(word.substr(6));
		if (pages == 0)
			continue;
		caller = caller.substr(0, caller.find('+'));
		r.vmalloc[caller] += pages * 4096;
	}
}

/* The page cache and reclaimable slabs dropped, a pause, then a reading. */
reading take_reading()
{
	reading r;

	std::ofstream("/proc/sys/vm/drop_caches") << "3\n";
	std::this_thread::sleep_for(std::chrono::seconds(2));
	read_meminfo(r);
	read_slabinfo(r);
	read_vmallocinfo(r);
	return r;
}

/* The entries of after that grew since before, biggest first, per QP. */
void print_growth(const char *what, const std::map<std::string, long long> &b,
		  const std::map<std::string, long long> &a, unsigned int count)
{
	std::vector<std::pair<long long, std::string>> grown;

	for (const auto &[name, bytes] : a) {
		const auto it = b.find(name);
		const long long d = bytes - (it != b.end() ? it->second : 0);

		if (d / static_cast<long long>(count) >= 8)
			grown.emplace_back(d, name);
	}
	std::sort(grown.rbegin(), grown.rend());
	for (const auto &[d, name] : grown)
		ktap::note("  %s %s: %lld bytes per QP", what, name.c_str(),
			   d / static_cast<long long>(count));
}

long long total(const reading &r)
{
	return r.meminfo.at("Slab") + r.meminfo.at("VmallocUsed") +
	       r.meminfo.at("Percpu");
}

bool check_fields(const reading &r)
{
	for (const char *want : meminfo_fields)
		EXPECT(r.meminfo.contains(want), "/proc/meminfo has no %s",
		       want);
	EXPECT(!r.slab.empty(), "/proc/slabinfo unreadable (not root?)");
	return true;
}

} /* namespace */

int run_idle_mem(const char *dev, unsigned int count)
{
	const qp_opts o = rc_opts();
	device d;
	pd_ptr pd;
	cq_ptr scq;
	cq_ptr rcq;
	std::deque<endpoint> eps;
	reading before;
	reading idle;
	bool ok = false;

	ktap::header(3);
	ktap::begin();
	ktap::note("%u idle RC QPs on %s, connected in pairs on it: %u/%u WRs, "
		   "%u/%u SGEs, no inline data, max_rd_atomic %u, "
		   "max_dest_rd_atomic %u, on one PD and two CQs",
		   count, dev, o.send_wr, o.recv_wr, o.send_sge, o.recv_sge,
		   o.max_rd_atomic, o.max_dest_rd_atomic);
	[&] {
		REQUIRE(open_device(d, dev) && use_gid(d));
		pd.reset(ibv_alloc_pd(d.ctx.get()));
		scq.reset(ibv_create_cq(d.ctx.get(), 64, nullptr, nullptr, 0));
		rcq.reset(ibv_create_cq(d.ctx.get(), 64, nullptr, nullptr, 0));
		REQUIRE(pd && scq && rcq);
		before = take_reading();
		REQUIRE(check_fields(before));
		for (unsigned int i = 0; i < count; ++i) {
			endpoint &e = eps.emplace_back();

			e.dev = &d;
			e.opts = o;
			e.pd = pd.get();
			e.scq = scq.get();
			e.rcq = rcq.get();
			e.qp.reset(create_qp(e.pd, e.scq, e.rcq, o));
			EXPECT(e.qp != nullptr, "create_qp %u: %s", i,
			       std::strerror(errno));
		}
		for (unsigned int i = 0; i < count; i += 2)
			if (!connect(eps[i], eps[i + 1]))
				return false;
		ok = true;
		return true;
	}();
	ktap::end("idle RC QPs created and connected", ok);

	ktap::begin();
	if (ok) {
		idle = take_reading();
		const auto n = static_cast<long long>(count);
		for (const char *f : meminfo_fields)
			ktap::note("%s: %+lld bytes per QP", f,
				   (idle.meminfo.at(f) - before.meminfo.at(f)) /
					   n);
		print_growth("slab", before.slab, idle.slab, count);
		print_growth("vmalloc", before.vmalloc, idle.vmalloc, count);
		const long long per = (total(idle) - total(before)) / n;
		ktap::note("%s: %lld bytes of kernel memory per idle RC QP "
			   "(Slab + VmallocUsed + Percpu)",
			   dev, per);
		result("qp_mem_bytes", static_cast<double>(per), "B");
		if (per <= 0)
			ktap::fail("no memory measured (%lld bytes per QP)",
				   per);
	} else {
		ktap::fail("not run: the QPs were not made");
	}
	ktap::end("kernel memory per idle RC QP measured");

	ktap::begin();
	eps.clear();
	if (ok) {
		const reading after = take_reading();
		ktap::note("after destroying them: %+lld bytes per QP left "
			   "(VmallocUsed %+lld)",
			   (total(after) - total(before)) /
				   static_cast<long long>(count),
			   (after.meminfo.at("VmallocUsed") -
			    before.meminfo.at("VmallocUsed")) /
				   static_cast<long long>(count));
	}
	ktap::end("QPs destroyed");
	return ktap::exit_status();
}

} /* namespace scaletest */
