// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * case_setup.cpp - making what one case of sroce-prottest runs on
 * (case_state.h): B's target region and the key A uses (a memory window
 * in it, bound or not, where the case says), A's buffer and SGE, and what
 * both buffers must hold afterwards.
 */
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "case_state.h"
#include "completion.h"
#include "ktap.h"

namespace prottest {

using namespace verbs_util;

bool make_qp(endpoint &e, device &d, ibv_pd *pd, int access)
{
	qp_opts o;

	o.send_wr = 8;
	o.recv_wr = 4;
	o.send_sge = 1;
	o.recv_sge = 1;
	o.cqe = 16;
	o.buf_size = 0;
	o.qp_access = access;
	return make_endpoint(e, d, o, {pd});
}

/* Where va lands in a buffer of size bytes whose byte off is iova. */
std::optional<std::size_t> buffer_offset(const target_region &r,
					 std::uint64_t va, std::size_t size)
{
	const std::uint64_t d = va - (r.iova - r.off);

	if (d >= size)
		return std::nullopt;
	return static_cast<std::size_t>(d);
}

namespace {

/* Bind mw over [addr, addr + len) of mr from q; its new rkey into *rkey. */
bool bind_window(endpoint &q, ibv_mw *mw, ibv_mr *mr, std::uint64_t addr,
		 std::uint64_t len, int access, std::uint32_t *rkey)
{
	ibv_mw_bind_info info{};

	/*
	 * The MR even for length 0 (an unbind): rdma-core's rxe provider
	 * reads bind_info.mr->lkey whatever the length.
	 */
	info.mr = mr;
	info.addr = addr;
	info.length = len;
	info.mw_access_flags = static_cast<unsigned int>(access);
	if (mw->type == IBV_MW_TYPE_1) {
		ibv_mw_bind b{};

		b.wr_id = 100;
		b.send_flags = IBV_SEND_SIGNALED;
		b.bind_info = info;
		const int ret = ibv_bind_mw(q.qp.get(), mw, &b);
		if (ret != 0) {
			ktap::fail("ibv_bind_mw: %s", std::strerror(ret));
			return false;
		}
		*rkey = mw->rkey;
	} else {
		ibv_send_wr wr{};
		ibv_send_wr *bad = nullptr;

		wr.wr_id = 100;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info = info;
		const int ret = ibv_post_send(q.qp.get(), &wr, &bad);
		if (ret != 0) {
			ktap::fail("post_send of IBV_WR_BIND_MW: %s",
				   std::strerror(ret));
			return false;
		}
		*rkey = wr.bind_mw.rkey;
	}
	ktap::note("B: window bound over %" PRIu64 " bytes at %#" PRIx64
		   ", access %#x: rkey %#x",
		   len, addr, access, *rkey);
	return expect_wc("B's bind", q.scq, 100, IBV_WC_SUCCESS, IBV_WC_BIND_MW)
		.has_value();
}

bool invalidate(endpoint &q, std::uint32_t rkey)
{
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;

	wr.wr_id = 101;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	const int ret = ibv_post_send(q.qp.get(), &wr, &bad);
	if (ret != 0) {
		ktap::fail("post_send of IBV_WR_LOCAL_INV: %s",
			   std::strerror(ret));
		return false;
	}
	ktap::note("B: window rkey %#x invalidated", rkey);
	return expect_wc("B's LOCAL_INV", q.scq, 101, IBV_WC_SUCCESS,
			 IBV_WC_LOCAL_INV)
		.has_value();
}

/*
 * The window of case c over [addr, addr + window_len) of mr, made as c
 * says; false when the case cannot go on (failed, or skipped when the
 * device has no memory windows).
 */
bool make_window(window &w, const prot_case &c, ibv_pd *pd, ibv_mr *mr,
		 std::uint64_t addr, endpoint &a, endpoint &b)
{
	const auto type = c.mw_type == 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;

	w.mw.reset(ibv_alloc_mw(pd, type));
	if (!w.mw) {
		const int err = errno;

		if (err == EOPNOTSUPP || err == ENOSYS)
			ktap::skip("memory windows not supported by %s",
				   b.dev->name.c_str());
		else
			ktap::fail("alloc_mw of type %d: %s", c.mw_type,
				   std::strerror(err));
		return false;
	}
	ktap::note("B: type %d window allocated, rkey %#x", c.mw_type,
		   w.mw->rkey);
	w.rkey = w.mw->rkey;
	switch (c.mw) {
	case mw_kind::none:
	case mw_kind::unbound:
		return true;
	case mw_kind::bound:
		return bind_window(b, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey);
	case mw_kind::invalidated:
		return bind_window(b, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey) &&
		       invalidate(b, w.rkey);
	case mw_kind::emptied:
		return bind_window(b, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey) &&
		       bind_window(b, w.mw.get(), mr, addr, 0, c.mw_access,
				   &w.rkey);
	case mw_kind::other_qp:
		/* A second QP of B, in B's PD, connected to one of A's. */
		if (!make_qp(w.a2, *a.dev, a.qp->pd, acc_lw) ||
		    !make_qp(w.b2, *b.dev, pd, c.qp_access) ||
		    !connect(w.a2, w.b2))
			return false;
		ktap::note("B: binding through QP %#x, A uses QP %#x -> %#x",
			   w.b2.qp->qp_num, a.qp->qp_num, b.qp->qp_num);
		return bind_window(w.b2, w.mw.get(), mr, addr, window_len,
				   c.mw_access, &w.rkey);
	}
	return false;
}

/* A key equal to none of used. */
std::uint32_t unused_key(std::uint32_t seed,
			 const std::vector<std::uint32_t> &used)
{
	std::uint32_t k = 0x9e3779b9U ^ (seed * 0x01000193U);

	for (;;) {
		bool taken = k == 0;

		for (const std::uint32_t u : used)
			taken = taken || u == k;
		if (!taken)
			return k;
		k = k * 1103515245U + 12345U;
	}
}

/* The largest message a port takes, at most 2^31 bytes. */
std::uint32_t largest_message(const device &d)
{
	return std::min<std::uint32_t>(d.port.max_msg_sz, 1U << 31);
}

} /* namespace */

/* B's buffer, target region, and the key A will use. */
bool make_target(case_state &s)
{
	const prot_case &c = s.c;
	target_region &r = s.mr_region;

	if (!s.tbuf.anon(s.buf_size)) {
		ktap::fail("mmap: %s", std::strerror(errno));
		return false;
	}
	fill(s.tbuf.data(), s.buf_size, s.seed);
	r.off = c.zero_based ? page_size : page_size - region_before_page_end;
	r.len = c.mr_len;
	r.iova = c.zero_based ? 0 : s.tbuf.addr(r.off);
	const int access =
		c.mr_access | (c.mw_type != 0 ? IBV_ACCESS_MW_BIND : 0);
	unsigned char *p = s.tbuf.data() + r.off;
	std::uint32_t stale = 0;
	if (c.key == key_kind::deregistered) {
		const mr_ptr mr(
			ibv_reg_mr_iova(s.pdb.get(), p, r.len, r.iova, access));
		if (!mr) {
			ktap::fail("reg_mr: %s", std::strerror(errno));
			return false;
		}
		stale = mr->rkey;
	}
	s.tmr.reset(ibv_reg_mr_iova(s.pdb.get(), p, r.len, r.iova, access));
	s.cmr.reset(ibv_reg_mr(s.pdb.get(), p, r.len, acc_all));
	s.rmr.reset(
		ibv_reg_mr(s.pdb.get(), s.rbuf.data(), s.rbuf.size(), acc_lw));
	if (!s.tmr || !s.cmr || !s.rmr) {
		ktap::fail("reg_mr on B: %s", std::strerror(errno));
		return false;
	}
	ktap::note("B: target region of %u bytes at buffer offset %zu, iova "
		   "%#" PRIx64 ", access %#x: rkey %#x; QP %#x access %#x",
		   r.len, r.off, r.iova, access, s.tmr->rkey, s.b.qp->qp_num,
		   c.qp_access);

	s.rkey = s.tmr->rkey;
	switch (c.key) {
	case key_kind::region:
		break;
	case key_kind::zero:
		s.rkey = 0;
		break;
	case key_kind::deregistered:
		s.rkey = stale;
		if (stale == s.tmr->rkey || stale == s.cmr->rkey) {
			ktap::fail("the deregistered rkey %#x is live again",
				   stale);
			return false;
		}
		break;
	case key_kind::other_pd:
		s.pdb2.reset(ibv_alloc_pd(s.db.ctx.get()));
		if (s.pdb2)
			s.omr.reset(ibv_reg_mr_iova(s.pdb2.get(), p, r.len,
						    r.iova, access));
		if (!s.omr) {
			ktap::fail("reg_mr in a second PD of B: %s",
				   std::strerror(errno));
			return false;
		}
		s.rkey = s.omr->rkey;
		break;
	case key_kind::random:
		s.rkey = unused_key(s.seed,
				    {s.tmr->rkey, s.tmr->lkey, s.cmr->rkey,
				     s.cmr->lkey, s.rmr->lkey});
		break;
	}
	return true;
}

/* What A aims at (the region or a window in it): address and length. */
bool aim(case_state &s)
{
	const prot_case &c = s.c;

	s.region = s.mr_region;
	if (c.mw_type != 0) {
		s.region.off = s.mr_region.off + window_off;
		s.region.iova = s.tbuf.addr(s.region.off);
		s.region.len = window_len;
		if (!make_window(s.w, c, s.pdb.get(), s.tmr.get(),
				 s.region.iova, s.a, s.b))
			return false;
		s.rkey = s.w.rkey;
	}
	s.len = c.len;
	if (c.len == len_region)
		s.len = s.region.len;
	else if (c.len == len_largest)
		s.len = largest_message(s.da);
	std::uint64_t base = 0;
	switch (c.base) {
	case base_kind::start:
		base = s.region.iova;
		break;
	case base_kind::end:
		base = s.region.iova + s.region.len;
		break;
	case base_kind::user_va:
		base = s.tbuf.addr(s.region.off);
		break;
	case base_kind::zero:
	case base_kind::top:
		break;
	}
	s.va = base + static_cast<std::uint64_t>(c.delta);
	return true;
}

namespace {

/* A's region of the port's largest message: one chunk, mapped again and again. */
bool make_largest(case_state &s)
{
	const std::size_t chunk = std::min<std::size_t>(s.len, 1 << 20);
	const std::size_t size = (s.len + chunk - 1) / chunk * chunk;

	if (!s.big.alias(size, chunk)) {
		ktap::fail("mapping %zu bytes: %s", size, std::strerror(errno));
		return false;
	}
	fill(s.big.data(), chunk, s.seed + 3);
	s.big_canary.assign(s.big.data(), s.big.data() + chunk);
	s.bmr.reset(ibv_reg_mr(s.pda.get(), s.big.data(), size, acc_lw));
	if (!s.bmr) {
		ktap::fail("reg_mr of %zu bytes on A: %s", size,
			   std::strerror(errno));
		return false;
	}
	s.sge = {s.big.addr(), s.len, s.bmr->lkey};
	ktap::note(
		"A: %u bytes from a region of %zu bytes: %zu bytes of memory "
		"mapped again and again",
		s.len, size, chunk);
	return true;
}

} /* namespace */

/* A's buffer, its region, the SGE of the operation, the fenced WRITE's. */
bool make_local(case_state &s)
{
	const prot_case &c = s.c;

	if (!s.lbuf.anon(s.buf_size)) {
		ktap::fail("mmap: %s", std::strerror(errno));
		return false;
	}
	fill(s.lbuf.data(), s.buf_size, s.seed + 1);
	fill(s.spare.data(), s.spare.size(), s.seed + 2);
	const int access = c.local == local_kind::no_local_write ? 0 : acc_lw;
	s.lmr.reset(ibv_reg_mr(s.pda.get(), s.lbuf.data() + s.loff, region_len,
			       access));
	s.smr.reset(ibv_reg_mr(s.pda.get(), s.spare.data(), s.spare.size(),
			       acc_lw));
	if (!s.lmr || !s.smr) {
		ktap::fail("reg_mr on A: %s", std::strerror(errno));
		return false;
	}
	s.sge = {s.lbuf.addr(s.loff), s.len, s.lmr->lkey};
	switch (c.local) {
	case local_kind::good:
	case local_kind::no_local_write:
		break;
	case local_kind::deregistered: {
		const mr_ptr mr(ibv_reg_mr(s.pda.get(), s.lbuf.data() + s.loff,
					   region_len, acc_lw));
		if (!mr) {
			ktap::fail("reg_mr on A: %s", std::strerror(errno));
			return false;
		}
		/* Registered after A's others: distinct from theirs. */
		s.sge.lkey = mr->lkey;
		break;
	}
	case local_kind::other_pd:
		s.pda2.reset(ibv_alloc_pd(s.da.ctx.get()));
		if (s.pda2)
			s.xmr.reset(ibv_reg_mr(s.pda2.get(),
					       s.lbuf.data() + s.loff,
					       region_len, acc_lw));
		if (!s.xmr) {
			ktap::fail("reg_mr in a second PD of A: %s",
				   std::strerror(errno));
			return false;
		}
		s.sge.lkey = s.xmr->lkey;
		break;
	case local_kind::past_end:
		s.sge.addr = s.lbuf.addr(s.loff + region_len - s.len / 2);
		break;
	case local_kind::before_start:
		s.sge.addr = s.lbuf.addr(s.loff - 1);
		break;
	case local_kind::largest:
		return make_largest(s);
	}
	return true;
}

/*
 * The operands, and what both buffers must hold afterwards: for a
 * violation what they hold now, for an allowed case that and the effect.
 */
bool expect_memory(case_state &s)
{
	const prot_case &c = s.c;
	const std::optional<std::size_t> toff =
		buffer_offset(s.region, s.va, s.buf_size);
	unsigned char *t = s.tbuf.data();
	unsigned char *l = s.lbuf.data();

	/* The compare value matches: a wrongly executed CMP_SWP shows. */
	if (toff && *toff + 8 <= s.buf_size)
		s.compare = load64(t + *toff);
	s.swap = ~s.compare;
	/*
	 * A's bytes under its SGE are the complement of the target bytes
	 * the operation names: whatever it moves, rightly or wrongly,
	 * differs in every byte from what was there.
	 */
	const std::size_t lo = s.sge.addr - s.lbuf.addr();
	const bool in_buffers = c.local != local_kind::largest && toff &&
				*toff + s.len <= s.buf_size &&
				lo + s.len <= s.buf_size;
	if (in_buffers)
		for (std::size_t i = 0; i < s.len; ++i)
			l[lo + i] = static_cast<unsigned char>(~t[*toff + i]);

	s.want_t.assign(t, t + s.buf_size);
	s.want_l.assign(l, l + s.buf_size);
	if (!s.allowed())
		return true;
	if (!in_buffers) {
		ktap::fail("bad case: an allowed range outside the buffers");
		return false;
	}
	switch (c.op) {
	case op_kind::write:
	case op_kind::write_imm:
	case op_kind::atomic_write:
		std::memcpy(s.want_t.data() + *toff, l + lo, s.len);
		break;
	case op_kind::read:
		std::memcpy(s.want_l.data() + lo, t + *toff, s.len);
		break;
	case op_kind::cmp_swp:
		store64(s.want_t.data() + *toff, s.swap);
		store64(s.want_l.data() + lo, s.compare);
		break;
	case op_kind::fetch_add:
		store64(s.want_t.data() + *toff, s.compare + add_value);
		store64(s.want_l.data() + lo, s.compare);
		break;
	}
	return true;
}

} /* namespace prottest */
