// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// victims.cpp - the QPs of sroce-netfuzz and their own traffic (victims.h).
#include "victims.h"

#include <cerrno>
#include <cstring>

#include "ktap.h"

namespace netfuzz {

using namespace verbs_util;

namespace {

constexpr int depth = 16; // send and receive queues
constexpr int in_flight = 8; // sends outstanding per QP at most
constexpr std::uint32_t msg = 4096; // largest message, 4 packets
constexpr int remote_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

qp_opts victim_opts(ibv_qp_type t)
{
	qp_opts o;
	o.type = t;
	o.send_wr = depth;
	o.recv_wr = depth;
	o.cqe = 4 * depth;
	o.sig_all = true;
	o.mr_access = remote_access;
	o.qp_access = remote_access;
	o.max_rd_atomic = 4;
	o.max_dest_rd_atomic = 4;
	// A victim gives up soon: the pair is mended instead.
	o.retry_cnt = 2;
	o.rnr_retry = 2;
	o.timeout = 12;
	o.qkey = ud_qkey;
	return o;
}

// One operation of a's, number n, towards b.
int post_op(endpoint &a, endpoint &b, std::uint32_t n, bool rc)
{
	std::size_t off = (n % 8) * msg;
	std::uint32_t len = 1 + (n * 977) % msg;
	ibv_sge sge{a.addr(off), len, a.mr->lkey};
	switch (n % (rc ? 5 : 3)) {
	case 0:
		return post_send(a, n, off, len);
	case 1:
		return post_rdma(a, b, n, IBV_WR_RDMA_WRITE, &sge, 1,
				 (n * 13) % (8 * msg));
	case 2:
		return post_rdma(a, b, n, IBV_WR_RDMA_WRITE_WITH_IMM, &sge, 1,
				 (n * 29) % (8 * msg), 0, 0, n);
	case 3:
		return post_rdma(a, b, n, IBV_WR_RDMA_READ, &sge, 1,
				 (n * 7) % (8 * msg));
	default:
		sge.length = 8;
		sge.addr &= ~std::uint64_t{7};
		return post_rdma(a, b, n, IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 1,
				 (n * 8) % (8 * msg), 1);
	}
}

} // namespace

bool victims::make(device &a, device &b)
{
	rc_ = std::make_unique<pair>();
	uc_ = std::make_unique<pair>();
	ud_ = std::make_unique<pair>();
	qp_opts ud = victim_opts(IBV_QPT_UD);
	if (!make_qp_pair(rc_->a, rc_->b, a, b, victim_opts(IBV_QPT_RC)) ||
	    !make_qp_pair(uc_->a, uc_->b, a, b, victim_opts(IBV_QPT_UC)) ||
	    !make_endpoint(ud_->a, a, ud) || !ud_ready(ud_->a) ||
	    !make_endpoint(ud_->b, b, ud) || !ud_ready(ud_->b))
		return false;
	ah_ab_.reset(make_ah(ud_->a.pd, ud_->a, b.gid));
	ah_ba_.reset(make_ah(ud_->b.pd, ud_->b, a.gid));
	if (!ah_ab_ || !ah_ba_) {
		ktap::fail("create_ah: %s", std::strerror(errno));
		return false;
	}
	return bury(rc_->a, dead_[0]) && bury(rc_->b, dead_[1]);
}

bool victims::bury(const endpoint &e, std::vector<std::uint32_t> &qpns)
{
	for (int i = 0; i < 16; i++) {
		qp_ptr qp(create_qp(e.pd, e.scq, e.rcq, e.opts));
		if (!qp) {
			ktap::fail("create_qp: %s", std::strerror(errno));
			return false;
		}
		qpns.push_back(qp->qp_num);
	}
	return true;
}

void victims::describe(config &c) const
{
	for (const pair *p : {rc_.get(), uc_.get(), ud_.get()}) {
		c.victims[0].insert(p->a.qp->qp_num);
		c.victims[1].insert(p->b.qp->qp_num);
		for (const endpoint *e : {&p->a, &p->b}) {
			c.rkeys.push_back(e->mr->rkey);
			c.vas.push_back(reinterpret_cast<std::uintptr_t>(
				e->buf.data()));
		}
	}
	c.ud_victims[0].insert(ud_->a.qp->qp_num);
	c.ud_victims[1].insert(ud_->b.qp->qp_num);
	c.ud_qkey = ud_qkey;
	for (int s = 0; s < sides; s++)
		c.dead[s] = dead_[s];
}

bool victims::top_up(endpoint &e, int &posted)
{
	bool ud = e.opts.type == IBV_QPT_UD;
	while (posted < depth - 2) {
		int ret = ud ? post_recv(e, 0, 0, grh_len + 1024)
			     : post_recv(e, 0, 8 * msg, msg);
		if (ret)
			return ret == ENOMEM; // full after all: later
		posted++;
	}
	return true;
}

// Completions of p's four CQs: counts, and a pair with an error is broken.
bool victims::reap(pair &p)
{
	struct cq_of {
		ibv_cq *cq;
		int *count;
	} cqs[] = {{p.a.scq, &p.out_a},
		   {p.b.scq, &p.out_b},
		   {p.a.rcq, &p.rq_a},
		   {p.b.rcq, &p.rq_b}};
	for (auto &c : cqs) {
		ibv_wc wc[16];
		int n;
		while ((n = ibv_poll_cq(c.cq, 16, wc)) > 0) {
			for (int i = 0; i < n; i++) {
				if (wc[i].status == IBV_WC_SUCCESS) {
					ok_++;
				} else {
					errors_++;
					p.broken = true;
				}
				if (*c.count > 0)
					--*c.count;
			}
		}
		if (n < 0) {
			ktap::fail("poll_cq: %d", n);
			return false;
		}
	}
	return true;
}

// Both QPs of a broken pair reset and connected again, their queues empty.
bool victims::mend(pair &p)
{
	if (!reap(p))
		return false;
	if (p.a.opts.type == IBV_QPT_UD) {
		for (endpoint *e : {&p.a, &p.b})
			if (to_state(e->qp.get(), IBV_QPS_RESET) ||
			    !ud_ready(*e))
				return false;
	} else if (!reconnect(p.a, p.b)) {
		return false;
	}
	if (!reap(p)) // what was in flight when they went down
		return false;
	p.out_a = p.out_b = p.rq_a = p.rq_b = 0;
	p.broken = false;
	reconnects_++;
	return true;
}

bool victims::pump_connected(pair &p)
{
	bool rc = p.a.opts.type == IBV_QPT_RC;
	if (!top_up(p.a, p.rq_a) || !top_up(p.b, p.rq_b))
		return false;
	for (int k = 0; k < 2; k++) {
		endpoint &from = k ? p.b : p.a;
		endpoint &to = k ? p.a : p.b;
		int &out = k ? p.out_b : p.out_a;
		if (out >= in_flight)
			continue;
		int ret = post_op(from, to, p.n++, rc);
		if (ret == 0)
			out++;
		else if (ret != ENOMEM && ret != EINVAL)
			p.broken = true; // a QP in error refuses posts
	}
	return true;
}

bool victims::pump_ud()
{
	pair &p = *ud_;
	if (!top_up(p.a, p.rq_a) || !top_up(p.b, p.rq_b))
		return false;
	struct dir {
		endpoint &from, &to;
		ibv_ah *ah;
		int &out;
	} dirs[] = {{p.a, p.b, ah_ab_.get(), p.out_a},
		    {p.b, p.a, ah_ba_.get(), p.out_b}};
	for (auto &d : dirs) {
		if (d.out >= in_flight)
			continue;
		std::uint32_t len = 1 + (p.n * 331) % 1024;
		if (post_ud(d.from, p.n++, d.ah, d.to.qp->qp_num, ud_qkey, 0,
			    len) == 0)
			d.out++;
	}
	return true;
}

bool victims::pump()
{
	for (pair *p : {rc_.get(), uc_.get(), ud_.get()}) {
		if (!reap(*p))
			return false;
		if (p->broken && !mend(*p))
			return false;
	}
	return pump_connected(*rc_) && pump_connected(*uc_) && pump_ud();
}

} // namespace netfuzz
