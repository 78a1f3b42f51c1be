// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * cm.cpp - sroce-scaletest cm SRC_IP DST_IP COUNT [BATCH [PORT]]: COUNT
 * RDMA CM connections in one process, both ends on one event channel: a
 * listener on DST_IP:PORT, and clients from SRC_IP, at most BATCH of them
 * under way at once.  Each connection: the client resolves the address
 * and the route, creates its RC QP (rdma_create_qp, rc_opts()'s
 * capabilities) and connects with its number as private data; the server
 * side creates its QP, posts a receive and accepts; once established the
 * client sends one message of msg_len bytes, and when that completed it
 * disconnects; the server checks the message (its length and every byte)
 * and both sides destroy QP and ID once disconnected.  A connection is
 * done when both sides are destroyed and the message verified.  Every
 * error event, failed completion or call fails the case; so does not
 * finishing within COUNT x 0.5 s + 60 s (scaled).  Results: the wall time
 * per connection (COUNT over the whole run, BATCH at a time) and the mean
 * and longest time of one connection.
 */
#include <algorithm>
#include <arpa/inet.h>
#include <cinttypes>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <poll.h>
#include <vector>

#include <rdma/rdma_cma.h>

#include "ktap.h"
#include "scaletest.h"

namespace scaletest {

namespace {

using namespace verbs_util;

/* The side of a work request (wr_id: connection number << 1 | side). */
constexpr std::uint64_t wr_server = 1;

/* What one device context needs: PD, one CQ, a buffer of slots. */
struct dev_res {
	pd_ptr pd;
	cq_ptr cq;
	std::vector<unsigned char> buf;
	mr_ptr mr;
};

struct conn {
	unsigned int n = 0;
	rdma_cm_id *client = nullptr;
	rdma_cm_id *server = nullptr;
	bool client_done = false;
	bool server_done = false;
	bool verified = false;
	clock_type::time_point start;
};

struct cm_run {
	unsigned int count = 0;
	sockaddr_in src{};
	sockaddr_in dst{};
	rdma_event_channel *ch = nullptr;
	rdma_cm_id *listener = nullptr;
	std::map<ibv_context *, dev_res> res;
	std::vector<conn> conns;
	unsigned int started = 0;
	unsigned int done = 0;
	unsigned int inflight = 0;
	double lat_sum = 0;
	double lat_max = 0;

	/*
	 * Connection n's slot in r's buffer: the client's message, or the
	 * server's receive (apart: both may be on one device).
	 */
	static unsigned char *slot(dev_res &r, unsigned int n, bool server)
	{
		return r.buf.data() +
		       (std::size_t{n} * 2 + (server ? 1 : 0)) * msg_len;
	}
};

dev_res *resources(cm_run &run, ibv_context *ctx)
{
	dev_res &r = run.res[ctx];

	if (r.pd)
		return &r;
	r.pd.reset(ibv_alloc_pd(ctx));
	/* Room for a completion of every connection. */
	r.cq.reset(ibv_create_cq(ctx, static_cast<int>(2 * run.count + 16),
				 nullptr, nullptr, 0));
	if (!r.pd || !r.cq) {
		ktap::fail("PD or CQ on %s: %s",
			   ibv_get_device_name(ctx->device),
			   std::strerror(errno));
		return nullptr;
	}
	r.buf.assign(std::size_t{run.count} * 2 * msg_len, 0);
	r.mr.reset(ibv_reg_mr(r.pd.get(), r.buf.data(), r.buf.size(), acc_lw));
	if (!r.mr) {
		ktap::fail("reg_mr: %s", std::strerror(errno));
		return nullptr;
	}
	return &r;
}

bool make_qp(cm_run &run, rdma_cm_id *id, dev_res **out)
{
	const qp_opts o = rc_opts();
	dev_res *r = resources(run, id->verbs);
	ibv_qp_init_attr ia{};

	EXPECT(r != nullptr, "no resources");
	ia.send_cq = r->cq.get();
	ia.recv_cq = r->cq.get();
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = o.send_wr;
	ia.cap.max_recv_wr = o.recv_wr;
	ia.cap.max_send_sge = o.send_sge;
	ia.cap.max_recv_sge = o.recv_sge;
	EXPECT(rdma_create_qp(id, r->pd.get(), &ia) == 0, "rdma_create_qp: %s",
	       std::strerror(errno));
	*out = r;
	return true;
}

/* The parameters of rdma_connect() and rdma_accept(). */
rdma_conn_param conn_param(const void *priv, std::uint8_t len)
{
	rdma_conn_param p{};

	p.private_data = priv;
	p.private_data_len = len;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return p;
}

bool start_one(cm_run &run)
{
	conn &c = run.conns[run.started];

	c.n = run.started;
	c.start = clock_type::now();
	EXPECT(rdma_create_id(run.ch, &c.client, &c, RDMA_PS_TCP) == 0,
	       "rdma_create_id %u: %s", c.n, std::strerror(errno));
	EXPECT(rdma_resolve_addr(
		       c.client, reinterpret_cast<sockaddr *>(&run.src),
		       reinterpret_cast<sockaddr *>(&run.dst), 5000) == 0,
	       "rdma_resolve_addr %u: %s", c.n, std::strerror(errno));
	++run.started;
	++run.inflight;
	return true;
}

void finish_if_done(cm_run &run, conn &c)
{
	if (!c.client_done || !c.server_done || !c.verified)
		return;
	const double s = seconds_since(c.start);

	++run.done;
	--run.inflight;
	run.lat_sum += s;
	run.lat_max = std::max(run.lat_max, s);
}

/* One side of c gone: its QP and ID destroyed. */
bool side_gone(cm_run &run, conn &c, rdma_cm_id *&id, bool &done)
{
	rdma_destroy_qp(id);
	const int ret = rdma_destroy_id(id);

	id = nullptr;
	done = true;
	EXPECT(ret == 0, "rdma_destroy_id of connection %u: %s", c.n,
	       std::strerror(errno));
	finish_if_done(run, c);
	return true;
}

bool connect_request(cm_run &run, rdma_cm_id *id, std::uint32_t n)
{
	EXPECT(n < run.started && run.conns[n].server == nullptr,
	       "connect request of connection %u: unknown or twice", n);
	conn &c = run.conns[n];
	dev_res *r = nullptr;

	c.server = id;
	id->context = &c;
	if (!make_qp(run, id, &r))
		return false;
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(run.slot(*r, n, true)),
		    msg_len, r->mr->lkey};
	ibv_recv_wr wr{};
	ibv_recv_wr *bad = nullptr;
	wr.wr_id = std::uint64_t{n} << 1U | wr_server;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	std::memset(run.slot(*r, n, true), 0, msg_len);
	EXPECT(ibv_post_recv(id->qp, &wr, &bad) == 0,
	       "post_recv of connection %u", n);
	rdma_conn_param p = conn_param(nullptr, 0);
	EXPECT(rdma_accept(id, &p) == 0, "rdma_accept %u: %s", n,
	       std::strerror(errno));
	return true;
}

bool client_send(cm_run &run, conn &c)
{
	dev_res *r = resources(run, c.client->verbs);

	EXPECT(r != nullptr, "no resources");
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(run.slot(*r, c.n, false)),
		    msg_len, r->mr->lkey};
	ibv_send_wr wr{};
	ibv_send_wr *bad = nullptr;
	fill(run.slot(*r, c.n, false), msg_len, c.n);
	wr.wr_id = std::uint64_t{c.n} << 1U;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	EXPECT(ibv_post_send(c.client->qp, &wr, &bad) == 0,
	       "post_send of connection %u", c.n);
	return true;
}

/* One CM event, acknowledged already: what it said. */
struct event {
	rdma_cm_event_type type;
	int status;
	rdma_cm_id *id;
	std::uint32_t priv; /* CONNECT_REQUEST: the connection's number */
};

bool handle(cm_run &run, const event &e)
{
	conn *c = static_cast<conn *>(e.id->context);

	if (e.type == RDMA_CM_EVENT_CONNECT_REQUEST)
		return connect_request(run, e.id, e.priv);
	EXPECT(c != nullptr, "%s on an ID of no connection",
	       rdma_event_str(e.type));
	const bool client = e.id == c->client;
	switch (e.type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		EXPECT(rdma_resolve_route(e.id, 5000) == 0,
		       "rdma_resolve_route %u: %s", c->n, std::strerror(errno));
		return true;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: {
		dev_res *r = nullptr;
		rdma_conn_param p = conn_param(&c->n, sizeof(c->n));

		if (!make_qp(run, e.id, &r))
			return false;
		EXPECT(rdma_connect(e.id, &p) == 0, "rdma_connect %u: %s", c->n,
		       std::strerror(errno));
		return true;
	}
	case RDMA_CM_EVENT_ESTABLISHED:
		return !client || client_send(run, *c);
	case RDMA_CM_EVENT_DISCONNECTED:
		return client ? side_gone(run, *c, c->client, c->client_done)
			      : side_gone(run, *c, c->server, c->server_done);
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return true;
	default:
		ktap::fail("connection %u (%s side): %s, status %d", c->n,
			   client ? "client" : "server", rdma_event_str(e.type),
			   e.status);
		return false;
	}
}

/* Every CM event waiting, acknowledged, then handled. */
bool events(cm_run &run)
{
	rdma_cm_event *ev = nullptr;

	while (rdma_get_cm_event(run.ch, &ev) == 0) {
		event e{ev->event, ev->status, ev->id, 0};

		if (e.type == RDMA_CM_EVENT_CONNECT_REQUEST &&
		    ev->param.conn.private_data_len >= sizeof(e.priv))
			std::memcpy(&e.priv, ev->param.conn.private_data,
				    sizeof(e.priv));
		else if (e.type == RDMA_CM_EVENT_CONNECT_REQUEST)
			e.priv = ~0U;
		rdma_ack_cm_event(ev);
		if (!handle(run, e))
			return false;
	}
	EXPECT(errno == EAGAIN, "rdma_get_cm_event: %s", std::strerror(errno));
	return true;
}

/* Every completion waiting: a client's send, a server's receive. */
bool completions(cm_run &run)
{
	ibv_wc wc[32];

	for (auto &[ctx, r] : run.res) {
		int k = 0;

		while ((k = ibv_poll_cq(r.cq.get(), 32, wc)) > 0) {
			for (int j = 0; j < k; ++j) {
				const auto n = static_cast<unsigned int>(
					wc[j].wr_id >> 1U);
				const bool server =
					(wc[j].wr_id & wr_server) != 0;

				EXPECT(n < run.started &&
					       wc[j].status == IBV_WC_SUCCESS,
				       "connection %u (%s): %s", n,
				       server ? "receive" : "send",
				       ibv_wc_status_str(wc[j].status));
				conn &c = run.conns[n];
				if (!server) {
					EXPECT(rdma_disconnect(c.client) == 0,
					       "rdma_disconnect %u: %s", n,
					       std::strerror(errno));
					continue;
				}
				EXPECT(wc[j].byte_len == msg_len,
				       "connection %u: %u bytes", n,
				       wc[j].byte_len);
				const long bad = mismatch(run.slot(r, n, true),
							  msg_len, n);
				EXPECT(bad < 0, "connection %u: byte %ld wrong",
				       n, bad);
				c.verified = true;
				finish_if_done(run, c);
			}
		}
		EXPECT(k == 0, "poll_cq: %d", k);
	}
	return true;
}

bool listen(cm_run &run, unsigned int port)
{
	run.ch = rdma_create_event_channel();
	REQUIRE(run.ch != nullptr);
	const int fl = fcntl(run.ch->fd, F_GETFL);
	REQUIRE(fl >= 0 && fcntl(run.ch->fd, F_SETFL, fl | O_NONBLOCK) == 0);
	REQUIRE(rdma_create_id(run.ch, &run.listener, nullptr, RDMA_PS_TCP) ==
		0);
	run.dst.sin_port = htons(static_cast<std::uint16_t>(port));
	REQUIRE(rdma_bind_addr(run.listener,
			       reinterpret_cast<sockaddr *>(&run.dst)) == 0);
	REQUIRE(rdma_listen(run.listener, 1024) == 0);
	return true;
}

bool connections(cm_run &run, unsigned int batch)
{
	const double limit = (run.count * 0.5 + 60) * scale;
	const auto start = clock_type::now();

	while (run.done < run.count) {
		while (run.inflight < batch && run.started < run.count)
			if (!start_one(run))
				return false;
		pollfd p{run.ch->fd, POLLIN, 0};
		poll(&p, 1, 1);
		if (!events(run) || !completions(run))
			return false;
		EXPECT(seconds_since(start) < limit,
		       "%u of %u connections done within %.0f s (%u started)",
		       run.done, run.count, limit, run.started);
	}
	return true;
}

/* What is left of a failed run, destroyed. */
void cleanup(cm_run &run)
{
	for (conn &c : run.conns) {
		for (rdma_cm_id *id : {c.client, c.server}) {
			if (id == nullptr)
				continue;
			if (id->qp != nullptr)
				rdma_destroy_qp(id);
			rdma_destroy_id(id);
		}
	}
	if (run.listener != nullptr)
		rdma_destroy_id(run.listener);
	run.res.clear();
	if (run.ch != nullptr)
		rdma_destroy_event_channel(run.ch);
}

} /* namespace */

int run_cm(const char *src, const char *dst, unsigned int count,
	   unsigned int batch, unsigned int port)
{
	cm_run run;
	bool ok = false;

	run.count = count;
	run.conns.resize(count);
	run.src.sin_family = AF_INET;
	run.dst.sin_family = AF_INET;
	ktap::header(2);
	ktap::begin();
	if (inet_pton(AF_INET, src, &run.src.sin_addr) != 1 ||
	    inet_pton(AF_INET, dst, &run.dst.sin_addr) != 1)
		ktap::fail("bad IPv4 address %s or %s", src, dst);
	else
		ok = listen(run, port);
	ktap::note("listening on %s:%u; %u connections from %s, %u at a time, "
		   "RC QPs of %u/%u WRs",
		   dst, port, count, src, batch, rc_opts().send_wr,
		   rc_opts().recv_wr);
	ktap::end("RDMA CM listener", ok);

	ktap::begin();
	if (ok) {
		const auto start = clock_type::now();
		ok = connections(run, batch);
		const double s = seconds_since(start);
		ktap::note("%u of %u connections in %.2f s: %.2f ms each, "
			   "%u at a time",
			   run.done, count, s, s * 1e3 / count, batch);
		if (ok) {
			result("cm_conn", s * 1e3 / count, "ms");
			result("cm_conn_latency_mean",
			       run.lat_sum * 1e3 / count, "ms");
			result("cm_conn_latency_max", run.lat_max * 1e3, "ms");
		}
	} else {
		ktap::fail("not run: no listener");
	}
	ktap::end("RDMA CM connections: connect, accept, one message, "
		  "disconnect",
		  ok);
	cleanup(run);
	return ktap::exit_status();
}

} /* namespace scaletest */
