// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* srq_side.cpp - the two sides of sroce-srqtest's checks (srq_side.h). */
#include "srq_side.h"

#include <cinttypes>
#include <cstring>
#include <fcntl.h>
#include <poll.h>

#include "completion.h"
#include "ktap.h"

namespace srqtest {

using namespace verbs_util;

bool add_qp(side &s, ibv_srq *srq)
{
	qp_opts o;

	o.send_wr = 64;
	o.recv_wr = srq != nullptr ? 0 : 64;
	o.send_sge = 1;
	o.recv_sge = srq != nullptr ? 0 : 1;
	o.srq = srq;
	o.buf_size = 0;
	s.qps.push_back(std::make_unique<endpoint>());
	return make_endpoint(*s.qps.back(), *s.dev, o,
			     {s.pd.get(), s.scq.get(), s.rcq.get()});
}

bool make_side(side &s, device &d, int nqp, std::uint32_t srq_wr,
	       std::uint32_t buf_size)
{
	ibv_context *ctx = d.ctx.get();

	s.dev = &d;
	s.scq.reset(ibv_create_cq(ctx, 256, nullptr, nullptr, 0));
	s.rcq.reset(ibv_create_cq(ctx, 256, nullptr, nullptr, 0));
	s.pd.reset(ibv_alloc_pd(ctx));
	REQUIRE(s.scq != nullptr && s.rcq != nullptr && s.pd != nullptr);
	s.buf.assign(buf_size, 0);
	s.mr.reset(ibv_reg_mr(s.pd.get(), s.buf.data(), s.buf.size(), acc_lw));
	REQUIRE(s.mr != nullptr);
	if (srq_wr != 0) {
		ibv_srq_init_attr sia{};

		sia.attr.max_wr = srq_wr;
		sia.attr.max_sge = 1;
		s.srq.reset(ibv_create_srq(s.pd.get(), &sia));
		REQUIRE(s.srq != nullptr);
		ktap::note("SRQ of %u WQEs asked, %u x %u SGE granted", srq_wr,
			   sia.attr.max_wr, sia.attr.max_sge);
	}
	for (int i = 0; i < nqp; ++i)
		REQUIRE(add_qp(s, s.srq.get()));
	return true;
}

bool connect_all(side &a, side &b)
{
	REQUIRE(a.qps.size() == b.qps.size());
	for (std::size_t i = 0; i < a.qps.size(); ++i)
		REQUIRE(connect(*a.qps[i], *b.qps[i]));
	return true;
}

unsigned char msg_byte(std::uint32_t q, std::uint32_t n, std::size_t i)
{
	return static_cast<unsigned char>(q * 131 + n * 31 + i * 7 + 1);
}

int post_srq(side &b, std::uint64_t wr_id, ibv_recv_wr **bad)
{
	ibv_sge sge{b.addr(wr_id * msg_size), msg_size, b.mr->lkey};
	ibv_recv_wr wr{};
	ibv_recv_wr *bad_local = nullptr;

	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_srq_recv(b.srq.get(), &wr,
				 bad != nullptr ? bad : &bad_local);
}

int send_msg(side &a, std::uint32_t q, std::uint32_t n)
{
	unsigned char *p = a.buf.data() + std::size_t{q} * msg_size;

	for (std::size_t i = 0; i < msg_size; ++i)
		p[i] = msg_byte(q, n, i);
	ibv_sge sge{a.addr(std::size_t{q} * msg_size), msg_size, a.mr->lkey};

	return post_sges(*a.qps[q], (std::uint64_t{q} << 32) | n, &sge, 1);
}

bool sent_ok(side &a, std::uint32_t q, std::uint32_t n)
{
	const std::optional<ibv_wc> wc = wait_wc(a.scq.get());

	EXPECT(wc.has_value(), "no send completion of QP %u message %u", q, n);
	EXPECT(wc->status == IBV_WC_SUCCESS &&
		       wc->wr_id == ((std::uint64_t{q} << 32) | n),
	       "send completion wr_id %#" PRIx64 " status %s", wc->wr_id,
	       ibv_wc_status_str(wc->status));
	return true;
}

bool received(side &b, std::uint64_t *wr_id, int *qidx, std::uint32_t n)
{
	const std::optional<ibv_wc> wc = wait_wc(b.rcq.get());

	EXPECT(wc.has_value(), "no receive completion");
	EXPECT(wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_RECV &&
		       wc->byte_len == msg_size,
	       "receive wr_id %" PRIu64 " status %s opcode %d len %u",
	       wc->wr_id, ibv_wc_status_str(wc->status), wc->opcode,
	       wc->byte_len);
	int q = -1;
	for (std::size_t i = 0; i < b.qps.size(); ++i)
		if (b.qps[i]->qp->qp_num == wc->qp_num)
			q = static_cast<int>(i);
	EXPECT(q >= 0, "completion of unknown QP %#x", wc->qp_num);
	EXPECT(*qidx < 0 || *qidx == q, "completion on QP %d, expected %d", q,
	       *qidx);
	*qidx = q;
	*wr_id = wc->wr_id;
	const unsigned char *p = b.buf.data() + wc->wr_id * msg_size;
	for (std::size_t i = 0; i < msg_size; ++i)
		EXPECT(p[i] == msg_byte(static_cast<std::uint32_t>(q), n, i),
		       "WQE %" PRIu64 " byte %zu is %#x, not message %u of "
		       "QP %d",
		       wc->wr_id, i, p[i], n, q);
	return true;
}

bool one_message(side &a, side &b, std::uint32_t q, std::uint32_t n,
		 std::uint64_t expect_wr_id)
{
	std::uint64_t wr_id = 0;
	int qidx = static_cast<int>(q);

	EXPECT(send_msg(a, q, n) == 0, "post_send");
	if (!received(b, &wr_id, &qidx, n) || !sent_ok(a, q, n))
		return false;
	EXPECT(wr_id == expect_wr_id,
	       "WQE %" PRIu64 " taken, expected %" PRIu64, wr_id, expect_wr_id);
	return true;
}

bool async_nonblock(ibv_context *ctx)
{
	const int fl = fcntl(ctx->async_fd, F_GETFL);

	return fl >= 0 && fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

std::optional<ibv_async_event> wait_event(ibv_context *ctx, int ms)
{
	pollfd pfd{ctx->async_fd, POLLIN, 0};

	if (poll(&pfd, 1, ms * scale) != 1)
		return std::nullopt;
	ibv_async_event ev{};
	if (ibv_get_async_event(ctx, &ev) != 0)
		return std::nullopt;
	ibv_async_event copy = ev;
	ibv_ack_async_event(&ev);
	ktap::note("async event: %s", ibv_event_type_str(ev.event_type));
	return copy;
}

bool no_event(ibv_context *ctx, int ms, const char *what)
{
	const std::optional<ibv_async_event> ev = wait_event(ctx, ms);

	EXPECT(!ev.has_value(), "%s: unexpected event %s", what,
	       ibv_event_type_str(ev->event_type));
	ktap::note("ok: %s: no async event within %d ms", what, ms * scale);
	return true;
}

ibv_srq_attr query(ibv_srq *srq)
{
	ibv_srq_attr a{};

	if (ibv_query_srq(srq, &a) != 0)
		ktap::fail("query_srq: %s", std::strerror(errno));
	return a;
}

int arm(ibv_srq *srq, std::uint32_t limit)
{
	ibv_srq_attr a{};

	a.srq_limit = limit;
	return ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
}

} /* namespace srqtest */
