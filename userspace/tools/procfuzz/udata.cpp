// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// udata.cpp - sroce-procfuzz's uverbs commands with driver tails of its
// own making (udata.h).
#include "udata.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "ktap.h"
#include "qp_pair.h"
#include "uverbs_raw.h"

namespace procfuzz {

using namespace verbs_util;

namespace {

template <typename T>
std::vector<std::uint8_t> bytes_of(const T &t)
{
	const auto *p = reinterpret_cast<const std::uint8_t *>(&t);
	return {p, p + sizeof(t)};
}

// What a response holds: the core part, then the driver's.
struct response {
	alignas(8) std::uint8_t b[512];
	template <typename T>
	T core() const
	{
		T t;
		std::memcpy(&t, b, sizeof(t));
		return t;
	}
};

} // namespace

bool udata::make(device &d)
{
	dev_ = &d;
	pd_.reset(ibv_alloc_pd(d.ctx.get()));
	cq_.reset(ibv_create_cq(d.ctx.get(), 16, nullptr, nullptr, 0));
	REQUIRE(pd_ != nullptr && cq_ != nullptr);
	qp_opts o;
	qp_.reset(create_qp(pd_.get(), cq_.get(), cq_.get(), o));
	REQUIRE(qp_ != nullptr);
	buf_.assign(65536, 0);
	return true;
}

// A driver tail: the right one (right_len bytes of valid) mutated, cut,
// grown, or random bytes; its length a multiple of 4.
std::vector<std::uint8_t> udata::tail(std::size_t right_len)
{
	std::vector<std::uint8_t> t;
	switch (below(6)) {
	case 0: // none at all
		break;
	case 1: // random bytes
		t.resize(4 * below(32));
		for (auto &b : t)
			b = static_cast<std::uint8_t>(rng_());
		break;
	case 2: // the right length, one word random
		t.assign(right_len, 0);
		if (right_len >= 4) {
			std::uint32_t w = static_cast<std::uint32_t>(rng_());
			std::memcpy(t.data() + 4 * below(right_len / 4), &w, 4);
		}
		break;
	case 3: // too short
		t.assign(right_len >= 4 ? right_len - 4 : 0, 0);
		break;
	case 4: // longer, the excess not zero
		t.assign(right_len + 4 * (1 + below(8)), 0);
		t.back() = 1;
		break;
	default: // longer, the excess zero
		t.assign(right_len + 4 * below(8), 0);
	}
	return t;
}

int udata::send(std::uint32_t cmd, const void *core, std::size_t core_len,
		const std::vector<std::uint8_t> &t, void * /*resp*/,
		std::size_t resp_len, int fd)
{
	std::vector<std::uint8_t> b(sizeof(ib_uverbs_cmd_hdr));
	const auto *c = static_cast<const std::uint8_t *>(core);
	b.insert(b.end(), c, c + core_len);
	b.insert(b.end(), t.begin(), t.end());
	ib_uverbs_cmd_hdr h = uverbs_hdr(cmd, b.size(), resp_len);
	std::memcpy(b.data(), &h, sizeof(h));
	if (fd < 0)
		return uverbs_write(dev_->ctx.get(), b.data(), b.size());
	if (write(fd, b.data(), b.size()) == static_cast<ssize_t>(b.size()))
		return 0;
	return errno;
}

void udata::destroy(std::uint32_t cmd, std::uint32_t handle)
{
	struct {
		std::uint64_t response;
		std::uint32_t handle, reserved;
	} with_resp{};
	std::uint32_t resp[4] = {};
	int err;
	with_resp.response = uverbs_ptr(resp);
	with_resp.handle = handle;
	switch (cmd) {
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_DESTROY_QP:
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		err = send(cmd, &with_resp, sizeof(with_resp), {}, resp,
			   sizeof(resp));
		break;
	default: // DEALLOC_PD, DEREG_MR, DESTROY_AH: the handle alone
		err = send(cmd, &handle, sizeof(handle), {}, nullptr, 0);
	}
	if (err)
		ktap::fail("destroying handle %u (command %u): %s", handle, cmd,
			   std::strerror(err));
}

bool udata::command()
{
	static const char *const names[] = {
		"GET_CONTEXT", "ALLOC_PD",  "REG_MR",
		"CREATE_CQ",   "RESIZE_CQ", "CREATE_SRQ",
		"CREATE_QP",   "MODIFY_QP", "CREATE_AH",
	};
	std::uint32_t k = below(std::size(names));
	response r{};
	// A response of the right length as a rule, else shorter or longer.
	auto resp_len = [&](std::size_t right) {
		switch (below(8)) {
		case 0:
			return 4 * static_cast<std::size_t>(
					   below(static_cast<std::uint32_t>(
						   right / 4 + 1)));
		case 1:
			return 4 * static_cast<std::size_t>(
					   below(sizeof(r.b) / 4 + 1));
		default:
			return right;
		}
	};
	int err = 0;
	sent_[names[k]]++;
	switch (k) {
	case 0: { // a second context on the device, a tail of our own
		std::string path = std::string("/dev/infiniband/") +
				   dev_->ctx->device->dev_name;
		int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			ktap::fail("open %s: %s", path.c_str(),
				   std::strerror(errno));
			return false;
		}
		ib_uverbs_get_context c{};
		c.response = uverbs_ptr(r.b);
		auto t = tail(sizeof(sroce_alloc_ucontext_cmd));
		if (t.size() >= 4 && below(2)) {
			std::uint32_t abi = SROCE_UVERBS_ABI_VERSION;
			std::memcpy(t.data(), &abi, 4);
		}
		std::size_t rl = resp_len(sizeof(ib_uverbs_get_context_resp) +
					  sizeof(sroce_alloc_ucontext_resp));
		err = send(IB_USER_VERBS_CMD_GET_CONTEXT, &c, sizeof(c), t, r.b,
			   rl, fd);
		if (!err && rl >= sizeof(ib_uverbs_get_context_resp))
			close(static_cast<int>(
				r.core<ib_uverbs_get_context_resp>().async_fd));
		close(fd); // the context and all in it go with the file
		break;
	}
	case 1: {
		ib_uverbs_alloc_pd c{};
		c.response = uverbs_ptr(r.b);
		std::size_t rl = resp_len(sizeof(ib_uverbs_alloc_pd_resp));
		err = send(IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c), tail(0),
			   r.b, rl);
		if (!err && rl >= sizeof(ib_uverbs_alloc_pd_resp))
			destroy(IB_USER_VERBS_CMD_DEALLOC_PD,
				r.core<ib_uverbs_alloc_pd_resp>().pd_handle);
		break;
	}
	case 2: {
		ib_uverbs_reg_mr c{};
		c.response = uverbs_ptr(r.b);
		c.start = uverbs_ptr(buf_.data());
		c.length = 1 + below(static_cast<std::uint32_t>(buf_.size()));
		c.hca_va = below(2) ? c.start : rng_();
		c.pd_handle = pd_->handle;
		c.access_flags = below(2)
					 ? std::uint32_t{IBV_ACCESS_LOCAL_WRITE}
					 : below(16);
		std::size_t rl = resp_len(sizeof(ib_uverbs_reg_mr_resp));
		err = send(IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c), tail(0),
			   r.b, rl);
		if (!err && rl >= sizeof(ib_uverbs_reg_mr_resp))
			destroy(IB_USER_VERBS_CMD_DEREG_MR,
				r.core<ib_uverbs_reg_mr_resp>().mr_handle);
		break;
	}
	case 3: {
		ib_uverbs_create_cq c{};
		c.response = uverbs_ptr(r.b);
		c.cqe = 1 + below(256);
		c.comp_channel = -1;
		sroce_create_cq_cmd d{};
		d.cqe_size = sizeof(sroce_cqe);
		auto t = below(2) ? bytes_of(d) : tail(sizeof(d));
		std::size_t rl = resp_len(sizeof(ib_uverbs_create_cq_resp) +
					  sizeof(sroce_create_cq_resp));
		err = send(IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), t, r.b,
			   rl);
		if (!err && rl >= sizeof(ib_uverbs_create_cq_resp))
			destroy(IB_USER_VERBS_CMD_DESTROY_CQ,
				r.core<ib_uverbs_create_cq_resp>().cq_handle);
		break;
	}
	case 4: { // a CQ of ours the provider never polls
		ib_uverbs_resize_cq c{};
		c.response = uverbs_ptr(r.b);
		c.cq_handle = cq_->handle;
		c.cqe = below(4) ? 1 + below(512)
				 : static_cast<std::uint32_t>(rng_());
		std::size_t rl = resp_len(sizeof(ib_uverbs_resize_cq_resp) +
					  sizeof(sroce_resize_cq_resp));
		err = send(IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), tail(0),
			   r.b, rl);
		break;
	}
	case 5: {
		ib_uverbs_create_srq c{};
		c.response = uverbs_ptr(r.b);
		c.pd_handle = pd_->handle;
		c.max_wr = 1 + below(64);
		c.max_sge = 1 + below(8);
		sroce_create_srq_cmd d{};
		d.recv_wqe_size = sizeof(sroce_recv_wqe);
		auto t = below(2) ? bytes_of(d) : tail(sizeof(d));
		std::size_t rl = resp_len(sizeof(ib_uverbs_create_srq_resp) +
					  sizeof(sroce_create_srq_resp));
		err = send(IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), t, r.b,
			   rl);
		if (!err && rl >= sizeof(ib_uverbs_create_srq_resp))
			destroy(IB_USER_VERBS_CMD_DESTROY_SRQ,
				r.core<ib_uverbs_create_srq_resp>().srq_handle);
		break;
	}
	case 6: {
		ib_uverbs_create_qp c{};
		static const std::uint8_t types[] = {IBV_QPT_RC, IBV_QPT_UC,
						     IBV_QPT_UD};
		c.response = uverbs_ptr(r.b);
		c.pd_handle = pd_->handle;
		c.send_cq_handle = c.recv_cq_handle = cq_->handle;
		c.max_send_wr = 1 + below(64);
		c.max_recv_wr = 1 + below(64);
		c.max_send_sge = 1 + below(8);
		c.max_recv_sge = 1 + below(8);
		c.max_inline_data = below(2) ? 0 : below(512);
		c.qp_type = types[below(std::size(types))];
		sroce_create_qp_cmd d{};
		d.send_wqe_size = sizeof(sroce_send_wqe);
		d.recv_wqe_size = sizeof(sroce_recv_wqe);
		auto t = below(2) ? bytes_of(d) : tail(sizeof(d));
		if (t.size() >= 8 && below(2)) { // sizes near the right ones
			std::uint32_t s = d.send_wqe_size + below(9) - 4;
			std::memcpy(t.data() + 4 * below(2), &s, 4);
		}
		std::size_t rl = resp_len(sizeof(ib_uverbs_create_qp_resp) +
					  sizeof(sroce_create_qp_resp));
		err = send(IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), t, r.b,
			   rl);
		if (!err && rl >= sizeof(ib_uverbs_create_qp_resp))
			destroy(IB_USER_VERBS_CMD_DESTROY_QP,
				r.core<ib_uverbs_create_qp_resp>().qp_handle);
		break;
	}
	case 7: { // RESET -> INIT with a driver tail, and back
		ib_uverbs_modify_qp c{};
		c.qp_handle = qp_->handle;
		c.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			      IBV_QP_ACCESS_FLAGS;
		c.qp_state = IBV_QPS_INIT;
		c.port_num = 1;
		c.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		err = send(IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c), tail(0),
			   nullptr, 0);
		(void)to_state(qp_.get(), IBV_QPS_RESET);
		break;
	}
	default: {
		ib_uverbs_create_ah c{};
		c.response = uverbs_ptr(r.b);
		c.pd_handle = pd_->handle;
		c.attr.is_global = 1;
		c.attr.port_num = 1;
		c.attr.grh.hop_limit = 64;
		c.attr.grh.sgid_index = static_cast<std::uint8_t>(
			below(4) ? dev_->gid_index : below(256));
		std::memcpy(c.attr.grh.dgid, dev_->gid.raw, 16);
		std::size_t rl = resp_len(sizeof(ib_uverbs_create_ah_resp) +
					  sizeof(sroce_create_ah_resp));
		err = send(IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c), tail(0),
			   r.b, rl);
		if (!err && rl >= sizeof(ib_uverbs_create_ah_resp))
			destroy(IB_USER_VERBS_CMD_DESTROY_AH,
				r.core<ib_uverbs_create_ah_resp>().ah_handle);
	}
	}
	if (!err)
		accepted_[names[k]]++;
	return true;
}

} // namespace procfuzz
