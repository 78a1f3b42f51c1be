// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// rings.cpp - sroce-procfuzz's mutations of its own mapped rings
// (rings.h).
#include "rings.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "cq.h"
#include "ktap.h"
#include "qp.h"
#include "srq.h"
#include "uverbs_raw.h"

namespace procfuzz {

using namespace verbs_util;

namespace {

constexpr int remote_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

qp_opts hostile_opts(ibv_qp_type t)
{
	qp_opts o;
	o.type = t;
	o.send_wr = 16;
	o.recv_wr = 16;
	o.send_sge = 4;
	o.recv_sge = 4;
	o.inline_data = 64;
	o.inline_optional = true;
	o.cqe = 32;
	o.sig_all = true;
	o.mr_access = remote_access;
	o.qp_access = remote_access;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	o.retry_cnt = 1;
	o.rnr_retry = 1;
	o.timeout = 10;
	o.qkey = ud_qkey;
	return o;
}

std::uint32_t load(const std::uint32_t *p)
{
	return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t *>(p))
		.load(std::memory_order_acquire);
}

void store(std::uint32_t *p, std::uint32_t v)
{
	std::atomic_ref<std::uint32_t>(*p).store(v, std::memory_order_release);
}

sroce::ring_view &sq_of(endpoint &e)
{
	return sroce::to_qp(e.qp.get())->sq.ring;
}

} // namespace

bool rings::make(device &a, device &b)
{
	rc_ = std::make_unique<pair>();
	srq_pair_ = std::make_unique<pair>();
	REQUIRE(make_qp_pair(rc_->a, rc_->b, a, b, hostile_opts(IBV_QPT_RC)));
	srq_pd_.reset(ibv_alloc_pd(b.ctx.get()));
	REQUIRE(srq_pd_ != nullptr);
	ibv_srq_init_attr sa{};
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 4;
	srq_.reset(ibv_create_srq(srq_pd_.get(), &sa));
	REQUIRE(srq_ != nullptr);
	qp_opts o = hostile_opts(IBV_QPT_RC);
	REQUIRE(make_endpoint(srq_pair_->a, a, o));
	o.srq = srq_.get();
	o.recv_wr = 0;
	borrowed bw;
	bw.pd = srq_pd_.get();
	REQUIRE(make_endpoint(srq_pair_->b, b, o, bw));
	REQUIRE(connect(srq_pair_->a, srq_pair_->b));
	REQUIRE(make_endpoint(ud_, a, hostile_opts(IBV_QPT_UD)) &&
		ud_ready(ud_));
	return true;
}

rings::pair &rings::any_pair()
{
	return below(2) ? *rc_ : *srq_pair_;
}

endpoint &rings::any_sender()
{
	switch (below(5)) {
	case 0:
		return rc_->a;
	case 1:
		return rc_->b;
	case 2:
		return srq_pair_->a;
	case 3:
		return srq_pair_->b;
	default:
		return ud_;
	}
}

// A producer index the ring cannot have: rewound, beyond capacity, random.
std::uint32_t rings::index_garbage(std::uint32_t prod, std::uint32_t cons,
				   std::uint32_t entries)
{
	switch (below(6)) {
	case 0:
		return prod - 1 - below(4); // rewound
	case 1:
		return cons - 1; // 2^32 - 1 entries
	case 2:
		return cons + entries + 1 +
		       below(entries); // more than it holds
	case 3:
		return prod + (1u << 31);
	case 4:
		return cons + entries; // full, with slots never written
	default:
		return static_cast<std::uint32_t>(rng_());
	}
}

std::uint32_t rings::some_key()
{
	switch (below(5)) {
	case 0:
		return rc_->a.mr->lkey;
	case 1:
		return rc_->b.mr->rkey; // another device's
	case 2:
		return rc_->a.mr->lkey ^ (1u + below(255)); // another variant
	case 3:
		return 0;
	default:
		return static_cast<std::uint32_t>(rng_());
	}
}

// SGEs over room bytes: own buffer, beyond it, wrapping, other keys.
void rings::random_sges(unsigned char *p, std::size_t room)
{
	for (std::size_t off = 0; off + sizeof(sroce_sge) <= room;
	     off += sizeof(sroce_sge)) {
		sroce_sge s{};
		std::uint64_t base = rc_->a.addr();
		switch (below(4)) {
		case 0:
			s.addr = base + below(4096);
			break;
		case 1:
			s.addr = base + rc_->a.buf.size() - below(16);
			break;
		case 2:
			s.addr = ~std::uint64_t{0} - below(4096);
			break;
		default:
			s.addr = rng_();
		}
		static const std::uint32_t lens[] = {
			0, 1, 8, 4096, 65536, 0x7fffffff, 0xffffffff};
		s.length = lens[below(std::size(lens))];
		s.lkey = some_key();
		std::memcpy(p + off, &s, sizeof(s));
	}
}

bool rings::sq_index(endpoint &e)
{
	auto &r = sq_of(e);
	std::uint32_t prod = load(r.producer), cons = load(r.consumer);
	store(r.producer, index_garbage(prod, cons, r.mask + 1));
	return doorbell(e, false);
}

bool rings::sq_wqe(endpoint &e)
{
	auto *q = sroce::to_qp(e.qp.get());
	auto &r = q->sq.ring;
	std::uint32_t prod = load(r.producer);
	auto slot = r.slot(prod);
	if (below(5) == 0) {
		for (auto &b : slot)
			b = static_cast<unsigned char>(rng_());
	} else {
		sroce_send_wqe w{};
		static const std::uint32_t ops[] = {
			IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM,
			IBV_WR_SEND,
			IBV_WR_SEND_WITH_IMM,
			IBV_WR_RDMA_READ,
			IBV_WR_ATOMIC_CMP_AND_SWP,
			IBV_WR_ATOMIC_FETCH_AND_ADD,
			IBV_WR_LOCAL_INV,
			IBV_WR_BIND_MW,
			IBV_WR_SEND_WITH_INV,
			SROCE_WR_REG_MR,
			11,
			0xff,
			0xffffffff,
		};
		static const std::uint32_t sges[] = {0, 1,   4,
						     5, 255, 0xffffffff};
		w.wr_id = n_;
		w.opcode = ops[below(std::size(ops))];
		w.send_flags = below(3) ? below(16)
					: static_cast<std::uint32_t>(rng_());
		w.num_sge = sges[below(std::size(sges))];
		w.inline_len = below(2)
				       ? 0
				       : (below(2) ? below(256)
						   : static_cast<std::uint32_t>(
							     rng_()));
		w.imm_data = some_key();
		w.xrc_srqn = below(4) ? 0 : 1;
		switch (below(4)) {
		case 0:
			w.op.rdma.remote_addr = rc_->b.addr(below(8192));
			w.op.rdma.rkey = some_key();
			break;
		case 1:
			w.op.atomic.remote_addr = rc_->b.addr(below(8192));
			w.op.atomic.rkey = some_key();
			w.op.atomic.compare_add = rng_();
			break;
		case 2:
			w.op.ud.ah =
				below(4) ? below(8)
					 : static_cast<std::uint32_t>(rng_());
			w.op.ud.remote_qpn = below(64);
			w.op.ud.remote_qkey =
				static_cast<std::uint32_t>(rng_());
			break;
		default:
			w.op.bind.addr = rc_->a.addr();
			w.op.bind.length = rng_() >> below(64);
			w.op.bind.mr_lkey = some_key();
			w.op.bind.rkey = some_key();
			w.op.bind.access = static_cast<std::uint32_t>(rng_());
		}
		std::memcpy(slot.data(), &w, sizeof(w));
		random_sges(slot.data() + sizeof(w), slot.size() - sizeof(w));
	}
	store(r.producer, prod + 1);
	q->sq.prod = prod + 1; // the provider posts after it
	return doorbell(e, false);
}

bool rings::rq_index(pair &p, bool srq)
{
	auto &r = srq ? sroce::to_srq(srq_.get())->rq.ring
		      : sroce::to_qp(p.b.qp.get())->rq.ring;
	std::uint32_t prod = load(r.producer), cons = load(r.consumer);
	store(r.producer, index_garbage(prod, cons, r.mask + 1));
	return post(srq ? *srq_pair_ : p);
}

bool rings::rq_wqe(pair &p, bool srq)
{
	auto &wq = srq ? sroce::to_srq(srq_.get())->rq
		       : sroce::to_qp(p.b.qp.get())->rq;
	auto &r = wq.ring;
	std::uint32_t prod = load(r.producer);
	auto slot = r.slot(prod);
	sroce_recv_wqe w{};
	static const std::uint32_t sges[] = {0, 1, 4, 5, 0xffffffff};
	w.wr_id = n_;
	w.num_sge = sges[below(std::size(sges))];
	w.reserved = below(4) ? 0 : static_cast<std::uint32_t>(rng_());
	std::memcpy(slot.data(), &w, sizeof(w));
	random_sges(slot.data() + sizeof(w), slot.size() - sizeof(w));
	store(r.producer, prod + 1);
	wq.prod = prod + 1;
	return post(srq ? *srq_pair_ : p);
}

bool rings::cq_index(endpoint &e)
{
	ibv_cq *cq = below(2) ? e.scq : e.rcq;
	auto &r = sroce::to_cq(cq)->ring;
	std::uint32_t prod = load(r.producer);
	if (below(3) == 0 && r.notify)
		store(r.notify, static_cast<std::uint32_t>(rng_()));
	else
		store(r.consumer, index_garbage(prod, prod, r.mask + 1));
	return post(any_pair());
}

// POST_SEND with no work request: the doorbell, or odd sizes of it.
bool rings::doorbell(endpoint &e, bool odd)
{
	struct {
		ib_uverbs_cmd_hdr hdr;
		std::uint64_t response;
		std::uint32_t qp_handle, wr_count, sge_count, wqe_size;
	} cmd{};
	std::uint32_t resp[2] = {};
	cmd.hdr = uverbs_hdr(IB_USER_VERBS_CMD_POST_SEND, sizeof(cmd),
			     sizeof(resp));
	cmd.response = uverbs_ptr(resp);
	cmd.qp_handle = e.qp->handle;
	cmd.wqe_size = sizeof(ib_uverbs_send_wr);
	if (odd) {
		static const std::uint32_t sizes[] = {0, 1, 8, 0xffff,
						      0xffffffff};
		cmd.wqe_size = sizes[below(std::size(sizes))];
		cmd.sge_count = below(2) ? 0 : below(1000);
		if (below(4) == 0)
			cmd.qp_handle = below(64);
	}
	int err = uverbs_write(e.qp->context, &cmd, sizeof(cmd));
	// Refusals are fine; a doorbell must never hang or crash.
	(void)err;
	return true;
}

// Legitimate work requests of p, both ways, and receives for them.
bool rings::post(pair &p)
{
	std::uint32_t n = n_;
	if (p.b.opts.srq) {
		ibv_sge sge{p.b.addr(8192), 4096, p.b.mr->lkey};
		ibv_recv_wr wr{};
		ibv_recv_wr *bad = nullptr;
		wr.wr_id = n;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		(void)ibv_post_srq_recv(srq_.get(), &wr, &bad);
	} else {
		(void)post_recv(p.b, n, 8192, 4096);
	}
	(void)post_recv(p.a, n, 8192, 4096);
	ibv_sge sge{p.a.addr(0), 1 + n % 2048, p.a.mr->lkey};
	switch (n % 4) {
	case 0:
		(void)post_send(p.a, n, 0, 1 + n % 2048);
		break;
	case 1:
		(void)post_rdma(p.a, p.b, n, IBV_WR_RDMA_WRITE, &sge, 1,
				n % 4096);
		break;
	case 2:
		(void)post_rdma(p.a, p.b, n, IBV_WR_RDMA_READ, &sge, 1,
				n % 4096);
		break;
	default:
		(void)post_send(p.b, n, 0, 1 + n % 512);
	}
	return true;
}

// Whatever the CQs hold; their contents may be garbage by now.
void rings::reap()
{
	ibv_wc wc[16];
	for (pair *p : {rc_.get(), srq_pair_.get()})
		for (endpoint *e : {&p->a, &p->b})
			for (ibv_cq *cq : {e->scq, e->rcq})
				(void)ibv_poll_cq(cq, 16, wc);
	(void)ibv_poll_cq(ud_.scq, 16, wc);
	(void)ibv_poll_cq(ud_.rcq, 16, wc);
}

bool rings::mutate()
{
	static const char *const kinds[] = {
		"sq-index", "sq-wqe", "rq-index",  "rq-wqe",  "cq-index",
		"doorbell", "post",   "srq-index", "srq-wqe", "reset",
	};
	// reset once in 40, the rest evenly
	std::uint32_t k = below(40) == 0 ? 9 : below(std::size(kinds) - 1);
	n_++;
	done_[kinds[k]]++;
	bool ok = true;
	switch (k) {
	case 0:
		ok = sq_index(any_sender());
		break;
	case 1:
		ok = sq_wqe(any_sender());
		break;
	case 2:
		ok = rq_index(*rc_, false);
		break;
	case 3:
		ok = rq_wqe(*rc_, false);
		break;
	case 4:
		ok = cq_index(any_sender());
		break;
	case 5:
		ok = doorbell(any_sender(), true);
		break;
	case 6:
		ok = post(any_pair());
		break;
	case 7:
		ok = rq_index(*srq_pair_, true);
		break;
	case 8:
		ok = rq_wqe(*srq_pair_, true);
		break;
	default:
		ok = reset_all();
	}
	reap();
	return ok;
}

void rings::start_scribbling()
{
	struct area {
		std::uint32_t *p;
		std::size_t words;
	};
	std::vector<area> areas;
	auto add = [&](const sroce::ring_view &r) {
		areas.push_back({reinterpret_cast<std::uint32_t *>(r.entries),
				 (std::size_t{r.mask} + 1) * r.entry_size / 4});
		areas.push_back({r.producer, 1});
		areas.push_back({r.consumer, 1});
	};
	for (pair *p : {rc_.get(), srq_pair_.get()})
		for (endpoint *e : {&p->a, &p->b}) {
			add(sroce::to_qp(e->qp.get())->sq.ring);
			add(sroce::to_cq(e->scq)->ring);
		}
	add(sroce::to_qp(rc_->b.qp.get())->rq.ring);
	add(sroce::to_srq(srq_.get())->rq.ring);
	add(sroce::to_qp(ud_.qp.get())->sq.ring);
	stop_ = false;
	scribbler_ = std::thread([this, areas, seed = rng_()] {
		std::mt19937_64 rng(seed);
		unsigned long n = 0;
		while (!stop_.load(std::memory_order_relaxed)) {
			const area &a = areas[rng() % areas.size()];
			std::uint32_t *w = a.p + rng() % a.words;
			std::atomic_ref<std::uint32_t>(*w).store(
				static_cast<std::uint32_t>(rng()),
				std::memory_order_relaxed);
			if (++n % 64 == 0)
				usleep(100);
		}
		scribbled_ = n;
	});
}

void rings::stop_scribbling()
{
	if (!scribbler_.joinable())
		return;
	stop_ = true;
	scribbler_.join();
}

bool rings::reset_all()
{
	// The CQs first: consumed up to what the kernel produced.
	for (pair *p : {rc_.get(), srq_pair_.get()})
		for (endpoint *e : {&p->a, &p->b})
			for (ibv_cq *cq : {e->scq, e->rcq}) {
				auto &r = sroce::to_cq(cq)->ring;
				store(r.consumer, load(r.producer));
				if (r.notify)
					store(r.notify, 0);
			}
	for (ibv_cq *cq : {ud_.scq, ud_.rcq}) {
		auto &r = sroce::to_cq(cq)->ring;
		store(r.consumer, load(r.producer));
	}
	if (!reconnect(rc_->a, rc_->b) ||
	    !reconnect(srq_pair_->a, srq_pair_->b) ||
	    to_state(ud_.qp.get(), IBV_QPS_RESET) != 0 || !ud_ready(ud_)) {
		ktap::fail("the hostile QPs cannot be reset and connected "
			   "again: %s",
			   std::strerror(errno));
		return false;
	}
	// The SRQ is not reset with its QP: its indices stay as they are.
	auto &sr = sroce::to_srq(srq_.get())->rq;
	std::uint32_t cons = load(sr.ring.consumer);
	store(sr.ring.producer, cons);
	sr.prod = cons;
	return true;
}

} // namespace procfuzz
