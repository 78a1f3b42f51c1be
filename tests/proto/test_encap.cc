// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// IPv4/IPv6 + UDP encapsulation.
#include <gtest/gtest.h>

#include "frames.hpp"

using namespace sroce::test;

static sroce_rx_reason net_parse(const Bytes &f, sroce_net *net = nullptr,
				 uint32_t *ulen = nullptr)
{
	sroce_net n;
	uint32_t u;
	return sroce_net_parse(f.data(), static_cast<uint32_t>(f.size()),
			       net ? net : &n, ulen ? ulen : &u);
}

TEST(Net, Ipv4Header)
{
	sroce_net net = test_net(false);
	Bytes f = build_frame(net, test_hdrs(SROCE_OP_RC_SEND_ONLY),
			      test_payload(16));
	EXPECT_EQ(f[0], 0x45);
	EXPECT_EQ(f[1], net.tos);
	EXPECT_EQ((f[2] << 8 | f[3]), static_cast<int>(f.size()));
	EXPECT_EQ(f[6], 0x40); // DF
	EXPECT_EQ(f[8], 64);
	EXPECT_EQ(f[9], 17);
	EXPECT_EQ(sroce_ipv4_csum(f.data()), 0); // checksum over a valid header
	EXPECT_EQ(f[20 + 2] << 8 | f[20 + 3], 4791);
	EXPECT_EQ(f[20 + 6], 0); // UDP checksum 0
	EXPECT_EQ(f[20 + 7], 0);
	sroce_net p;
	uint32_t ulen;
	ASSERT_EQ(net_parse(f, &p, &ulen), SROCE_RX_OK);
	EXPECT_EQ(ulen, f.size() - 28);
	EXPECT_EQ(p.ipv6, 0);
	EXPECT_EQ(p.tos, net.tos);
	EXPECT_EQ(p.ttl, net.ttl);
	EXPECT_EQ(p.ip_id, net.ip_id);
	EXPECT_EQ(0, memcmp(p.saddr, net.saddr, 16));
}

TEST(Net, Ipv6Header)
{
	sroce_net net = test_net(true);
	net.tos = 0xb8;
	Bytes f = build_frame(net, test_hdrs(SROCE_OP_RC_SEND_ONLY),
			      test_payload(16));
	EXPECT_EQ(f[0], 0x6b);
	EXPECT_EQ(f[1], 0x8a); // TC low nibble, flow label 0xabcde
	EXPECT_EQ(f[2], 0xbc);
	EXPECT_EQ(f[3], 0xde);
	EXPECT_EQ((f[4] << 8 | f[5]), static_cast<int>(f.size()) - 40);
	EXPECT_EQ(f[6], 17);
	sroce_net p;
	uint32_t ulen;
	ASSERT_EQ(net_parse(f, &p, &ulen), SROCE_RX_OK);
	EXPECT_EQ(p.ipv6, 1);
	EXPECT_EQ(p.tos, 0xb8);
	EXPECT_EQ(p.flow_label, 0xabcdeu);
	EXPECT_EQ(p.ttl, 64);
	EXPECT_EQ(0, memcmp(p.daddr, net.daddr, 16));
}

TEST(Net, TrailingBytesIgnored)
{
	// Ethernet pads short frames; bytes past the IP length are not packet
	for (bool v6 : {false, true}) {
		Bytes f = build_frame(test_net(v6), test_hdrs(SROCE_OP_RC_ACK),
				      {});
		Bytes g = f;
		g.resize(g.size() + 6, 0);
		sroce_net net;
		sroce_pkt pkt;
		EXPECT_EQ(sroce_frame_parse(g.data(),
					    static_cast<uint32_t>(g.size()),
					    0xffff, &net, &pkt),
			  SROCE_RX_OK);
		EXPECT_EQ(pkt.len, f.size() - sroce_net_hlen(&net));
	}
}

TEST(Net, Rejects)
{
	Bytes v4 = build_frame(test_net(false), test_hdrs(SROCE_OP_RC_ACK), {});
	Bytes v6 = build_frame(test_net(true), test_hdrs(SROCE_OP_RC_ACK), {});
	auto with = [](Bytes f, size_t i, uint8_t v) {
		f[i] = v;
		return f;
	};
	EXPECT_EQ(net_parse(with(v4, 0, 0x46)), SROCE_RX_BAD_IP_HDR); // options
	EXPECT_EQ(net_parse(with(v4, 6, 0x60)), SROCE_RX_BAD_IP_HDR); // DF|MF
	EXPECT_EQ(net_parse(with(v4, 7, 0x01)), SROCE_RX_BAD_IP_HDR); // offset
	EXPECT_EQ(net_parse(with(v4, 6, 0x00)), SROCE_RX_OK); // no DF
	EXPECT_EQ(net_parse(with(v4, 9, 6)), SROCE_RX_NOT_UDP);
	EXPECT_EQ(net_parse(with(v4, 0, 0x55)), SROCE_RX_BAD_IP_VERSION);
	EXPECT_EQ(net_parse(with(v4, 2, 0x10)),
		  SROCE_RX_BAD_IP_LEN); // > buffer
	EXPECT_EQ(net_parse(with(with(v4, 2, 0), 3, 27)), SROCE_RX_BAD_IP_LEN);
	EXPECT_EQ(net_parse(with(v4, 20 + 3, 0xb8)), SROCE_RX_BAD_UDP_PORT);
	EXPECT_EQ(net_parse(with(v4, 20 + 5, 0x08)), SROCE_RX_BAD_UDP_LEN);
	EXPECT_EQ(net_parse(with(v6, 6, 0)), SROCE_RX_NOT_UDP); // hop-by-hop
	EXPECT_EQ(net_parse(with(v6, 4, 0x10)), SROCE_RX_BAD_IP_LEN);
	EXPECT_EQ(net_parse(with(with(v6, 4, 0), 5, 7)), SROCE_RX_BAD_IP_LEN);
	EXPECT_EQ(net_parse(with(v6, 40 + 5, 0x08)), SROCE_RX_BAD_UDP_LEN);
	for (size_t n = 0; n < 48; n++) {
		Bytes t(v6.begin(), v6.begin() + static_cast<long>(n));
		EXPECT_EQ(net_parse(t), SROCE_RX_TRUNCATED) << n;
	}
	for (size_t n = 0; n < 28; n++) {
		Bytes t(v4.begin(), v4.begin() + static_cast<long>(n));
		EXPECT_EQ(net_parse(t), SROCE_RX_TRUNCATED) << n;
	}
}
