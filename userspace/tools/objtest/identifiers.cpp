// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * identifiers.cpp - sroce-objtest's check that the identifiers a peer
 * names on the wire cannot be guessed from the ones before them:
 *
 *   identifiers  memory keys of 10,000 registrations of one buffer in a
 *                row (each deregistered before the next), QP numbers of
 *                2,000 RC QPs created and destroyed in a row and of 200
 *                alive at once, and XRC SRQ numbers of 500 SRQs created
 *                and destroyed in a row: no identifier repeats, each of
 *                its bits is set in 0.5 +- 3 / sqrt(n) of the n samples,
 *                consecutive samples differ in at least 40% of their bits
 *                on average, and no step between two samples is the step
 *                before it more than 1% of the time
 *
 * A cyclic allocator fails every bound but the first: its upper bits stay
 * 0, its samples differ in a few low bits, its step is 1.  Samples of a
 * uniform draw stay far inside them: a bit's share is 0.5 with a standard
 * deviation of 0.5 / sqrt(n), so the bound is 6 of them (a chance of 2e-9
 * per bit to fall outside), and the mean difference of 24-bit samples is
 * 12 bits, with a deviation of 0.17 at n = 200.
 */
#include <cmath>
#include <cstdint>
#include <fcntl.h>
#include <unordered_set>
#include <vector>

#include <infiniband/verbs.h>

#include "ktap.h"
#include "objtest.h"
#include "qp_pair.h"

namespace objtest {

using namespace verbs_util;

namespace {

/* Whether samples of a bits-bit identifier look drawn at random. */
bool unguessable(const char *what, const std::vector<std::uint32_t> &s,
		 unsigned int bits)
{
	std::unordered_set<std::uint32_t> seen;
	std::vector<std::size_t> ones(bits);
	std::size_t repeats = 0;
	std::size_t same_step = 0;
	std::uint64_t flips = 0;

	for (std::size_t i = 0; i < s.size(); ++i) {
		repeats += seen.insert(s[i]).second ? 0 : 1;
		for (unsigned int b = 0; b < bits; ++b)
			ones[b] += (s[i] >> b) & 1U;
		if (i == 0)
			continue;
		flips += static_cast<unsigned int>(
			__builtin_popcount(s[i] ^ s[i - 1]));
		if (i >= 2 && s[i] - s[i - 1] == s[i - 1] - s[i - 2])
			++same_step;
	}
	const double n = static_cast<double>(s.size());
	const double mean_flips = static_cast<double>(flips) / (n - 1);
	const double tolerance = 3 / std::sqrt(n);
	unsigned int skewed = 0;
	double lo = 1;
	double hi = 0;
	for (unsigned int b = 0; b < bits; ++b) {
		const double share = static_cast<double>(ones[b]) / n;

		lo = share < lo ? share : lo;
		hi = share > hi ? share : hi;
		skewed += share < 0.5 - tolerance || share > 0.5 + tolerance
				  ? 1
				  : 0;
	}
	ktap::note("%s: %zu samples, first %#x %#x %#x, %zu repeated, bit "
		   "shares %.3f-%.3f (%u outside 0.5 +- %.3f), %.2f of %u bits "
		   "differ between neighbours, %zu repeated steps",
		   what, s.size(), s[0], s[1], s[2], repeats, lo, hi, skewed,
		   tolerance, mean_flips, bits, same_step);
	return repeats == 0 && skewed == 0 && mean_flips >= 0.4 * bits &&
	       static_cast<double>(same_step) <= n / 100;
}

bool keys(device &d)
{
	pd_ptr pd(ibv_alloc_pd(d.ctx.get()));
	void *buf = alloc_buf();
	std::vector<std::uint32_t> s;

	REQUIRE(pd != nullptr && buf != nullptr);
	for (int i = 0; i < 10000; ++i) {
		mr_ptr mr(ibv_reg_mr(pd.get(), buf, buf_len, acc_lw | acc_rw));

		EXPECT(mr != nullptr, "registration %d", i);
		EXPECT(mr->lkey == mr->rkey, "lkey %#x", mr->lkey);
		s.push_back(mr->rkey);
	}
	return unguessable("memory keys", s, 32);
}

bool qpns(device &d)
{
	pd_ptr pd(ibv_alloc_pd(d.ctx.get()));
	cq_ptr cq(ibv_create_cq(d.ctx.get(), 16, nullptr, nullptr, 0));
	qp_opts o;
	std::vector<std::uint32_t> s;
	std::vector<qp_ptr> alive;
	std::vector<std::uint32_t> alive_s;

	REQUIRE(pd != nullptr && cq != nullptr);
	o.send_wr = o.recv_wr = 1;
	o.send_sge = o.recv_sge = 1;
	for (int i = 0; i < 2000; ++i) {
		qp_ptr qp(create_qp(pd.get(), cq.get(), cq.get(), o));

		EXPECT(qp != nullptr, "QP %d", i);
		s.push_back(qp->qp_num);
	}
	for (int i = 0; i < 200; ++i) {
		alive.emplace_back(create_qp(pd.get(), cq.get(), cq.get(), o));
		EXPECT(alive.back() != nullptr, "QP %d alive", i);
		alive_s.push_back(alive.back()->qp_num);
	}
	const bool one = unguessable("QPNs, one at a time", s, 24);
	return unguessable("QPNs, 200 at once", alive_s, 24) && one;
}

bool srqns(device &d)
{
	pd_ptr pd(ibv_alloc_pd(d.ctx.get()));
	cq_ptr cq(ibv_create_cq(d.ctx.get(), 16, nullptr, nullptr, 0));
	ibv_xrcd_init_attr xa{};
	std::vector<std::uint32_t> s;

	xa.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xa.fd = -1;
	xa.oflags = O_CREAT;
	xrcd_ptr xrcd(ibv_open_xrcd(d.ctx.get(), &xa));
	REQUIRE(pd != nullptr && cq != nullptr && xrcd != nullptr);
	for (int i = 0; i < 500; ++i) {
		ibv_srq_init_attr_ex a{};
		std::uint32_t num = 0;

		a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			      IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		a.srq_type = IBV_SRQT_XRC;
		a.pd = pd.get();
		a.xrcd = xrcd.get();
		a.cq = cq.get();
		a.attr.max_wr = 1;
		a.attr.max_sge = 1;
		srq_ptr srq(ibv_create_srq_ex(d.ctx.get(), &a));
		EXPECT(srq != nullptr, "SRQ %d", i);
		EXPECT(ibv_get_srq_num(srq.get(), &num) == 0, "SRQ %d", i);
		s.push_back(num);
	}
	return unguessable("XRC SRQ numbers", s, 24);
}

} /* namespace */

bool check_identifiers(device &d, const char * /*arg*/)
{
	const bool k = keys(d);
	const bool q = qpns(d);
	const bool x = srqns(d);

	if (!(k && q && x))
		ktap::fail("an identifier follows a pattern (notes above)");
	return true;
}

} /* namespace objtest */
