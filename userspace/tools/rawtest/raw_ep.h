// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * raw_ep.h - what sroce-rawtest's checks share (raw.cpp, rss.cpp): a raw
 * packet QP with its buffer, flow steering rules and their builder, and
 * the frames' addresses.
 */
#ifndef SROCE_TOOLS_RAW_EP_H
#define SROCE_TOOLS_RAW_EP_H

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ktap.h"
#include "verbs_util.h"

namespace rawtest {

using verbs_util::device;

constexpr std::size_t slot = 2048; /* bytes per receive */
constexpr std::size_t nslots = 6; /* receives in a buffer */
constexpr std::size_t send_off = nslots * slot; /* the frame to send */
constexpr std::size_t buf_len = send_off + 4096;

using mac = std::array<unsigned char, 6>;
constexpr mac dst_mac = {0x01, 0x50, 0x56, 0x19, 0x20, 0xa7};
constexpr mac other_mac = {0x01, 0x50, 0x56, 0x19, 0x20, 0xa8};
constexpr mac src_mac = {0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8};
constexpr std::uint16_t sport = 1234;
constexpr std::uint16_t dport = 5678;

/* A raw packet QP in RTS with its PD, CQ and registered buffer. */
struct raw_ep {
	verbs_util::pd_ptr pd;
	verbs_util::cq_ptr cq;
	std::vector<unsigned char> buf = std::vector<unsigned char>(buf_len);
	verbs_util::mr_ptr mr;
	verbs_util::qp_ptr qp;
};

/* A flow steering rule, destroyed with it. */
struct flow_ref {
	ibv_flow *flow = nullptr;

	flow_ref() = default;
	flow_ref(const flow_ref &) = delete;
	flow_ref &operator=(const flow_ref &) = delete;
	~flow_ref() { reset(); }
	void reset()
	{
		if (flow != nullptr && ibv_destroy_flow(flow) != 0)
			ktap::fail("ibv_destroy_flow failed");
		flow = nullptr;
	}
};

/* An ibv_flow_attr and its specs, as ibv_create_flow() reads them. */
struct flow_builder {
	std::vector<unsigned char> bytes =
		std::vector<unsigned char>(sizeof(ibv_flow_attr));

	explicit flow_builder(ibv_flow_attr_type type = IBV_FLOW_ATTR_NORMAL)
	{
		ibv_flow_attr a{};
		a.type = type;
		a.size = sizeof(a);
		a.port = 1;
		std::memcpy(bytes.data(), &a, sizeof(a));
	}
	ibv_flow_attr *attr()
	{
		return reinterpret_cast<ibv_flow_attr *>(bytes.data());
	}
	template <typename Spec>
	void add(const Spec &s)
	{
		const std::size_t at = bytes.size();

		bytes.resize(at + sizeof(s));
		std::memcpy(bytes.data() + at, &s, sizeof(s));
		attr()->num_of_specs++;
		attr()->size += sizeof(s);
	}
	void eth(const mac &dmac, std::uint16_t ether_type)
	{
		ibv_flow_spec_eth s{};
		s.type = IBV_FLOW_SPEC_ETH;
		s.size = sizeof(s);
		std::memcpy(s.val.dst_mac, dmac.data(), 6);
		std::memset(s.mask.dst_mac, 0xff, 6);
		s.val.ether_type = htons(ether_type);
		s.mask.ether_type = ether_type != 0 ? 0xffff : 0;
		add(s);
	}
	void ipv4_dst(const char *dst)
	{
		ibv_flow_spec_ipv4 s{};
		s.type = IBV_FLOW_SPEC_IPV4;
		s.size = sizeof(s);
		inet_pton(AF_INET, dst, &s.val.dst_ip);
		s.mask.dst_ip = 0xffffffff;
		add(s);
	}
	void ipv6_dst(const char *dst)
	{
		ibv_flow_spec_ipv6 s{};
		s.type = IBV_FLOW_SPEC_IPV6;
		s.size = sizeof(s);
		inet_pton(AF_INET6, dst, s.val.dst_ip);
		std::memset(s.mask.dst_ip, 0xff, 16);
		add(s);
	}
	void udp_dport(std::uint16_t port)
	{
		ibv_flow_spec_tcp_udp s{};
		s.type = IBV_FLOW_SPEC_UDP;
		s.size = sizeof(s);
		s.val.dst_port = htons(port);
		s.mask.dst_port = 0xffff;
		add(s);
	}
};

/* A raw packet QP of d in RTS, its CQ taking both queues' completions. */
bool make_raw(device &d, raw_ep &e);
/* Send frame f as wr_id; its completion has status. */
bool send_frame(raw_ep &e, const std::vector<unsigned char> &f,
		std::uint64_t wr_id, ibv_wc_status status = IBV_WC_SUCCESS);
bool create_flow(ibv_qp *qp, flow_builder &b, flow_ref &out);

} /* namespace rawtest */

#endif /* SROCE_TOOLS_RAW_EP_H */
