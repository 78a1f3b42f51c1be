// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// Loops of the protocol core's hot paths, measured by bench-proto.sh under
// callgrind (--toggle-collect on the bench_* functions).
//   sroce_proto_bench parse|transport|build|icrc PAYLOAD ITERATIONS
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "frames.hpp"

using namespace sroce::test;

volatile uint32_t bench_sink;

// Receive: IP/UDP + transport parse and all validation but the ICRC.
extern "C" __attribute__((noinline)) void bench_parse(const uint8_t *buf,
						      uint32_t len)
{
	sroce_net net;
	sroce_pkt pkt;
	uint32_t udp_paylen;
	if (sroce_net_parse(buf, len, &net, &udp_paylen) != SROCE_RX_OK ||
	    sroce_pkt_parse(&pkt, buf + sroce_net_hlen(&net), udp_paylen,
			    SROCE_DEFAULT_PKEY) != SROCE_RX_OK ||
	    sroce_pkt_check_qp(&pkt, SROCE_TRANSPORT_RC, 4096) != SROCE_RX_OK)
		abort();
	bench_sink = pkt.bth.psn + pkt.paylen;
}

// Receive, transport part only (the kernel's UDP stack did IP/UDP).
extern "C" __attribute__((noinline)) void bench_transport(const uint8_t *bth,
							  uint32_t len)
{
	sroce_pkt pkt;
	if (sroce_pkt_parse(&pkt, bth, len, SROCE_DEFAULT_PKEY) !=
		    SROCE_RX_OK ||
	    sroce_pkt_check_qp(&pkt, SROCE_TRANSPORT_RC, 4096) != SROCE_RX_OK)
		abort();
	bench_sink = pkt.bth.psn + pkt.paylen;
}

// Send: IP/UDP and transport headers (payload copy and ICRC excluded).
extern "C" __attribute__((noinline)) void bench_build(uint8_t *buf,
						      const sroce_net *net,
						      const sroce_hdrs *h,
						      uint32_t udp_paylen)
{
	sroce_net_build(buf, net, udp_paylen);
	bench_sink = sroce_hdrs_build(buf + sroce_net_hlen(net),
				      SROCE_MAX_HDR_LEN, h);
}

// ICRC of a whole packet.
extern "C" __attribute__((noinline)) void bench_icrc(const uint8_t *buf,
						     uint32_t nhl, uint32_t len)
{
	bench_sink = sroce_icrc_compute(buf, false, buf + nhl - 8, buf + nhl,
					len - nhl - 4);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr,
			"usage: %s parse|transport|build|icrc PAYLOAD "
			"ITERATIONS\n",
			argv[0]);
		return 2;
	}
	std::string mode = argv[1];
	uint32_t paylen = static_cast<uint32_t>(atoi(argv[2]));
	long iters = atol(argv[3]);
	sroce_net net = test_net(false);
	sroce_hdrs h = test_hdrs(SROCE_OP_RC_SEND_ONLY);
	Bytes f = build_frame(net, h, test_payload(paylen));
	uint32_t nhl = sroce_net_hlen(&net);
	uint32_t len = static_cast<uint32_t>(f.size());
	uint8_t out[128];
	for (long i = 0; i < iters; i++) {
		if (mode == "parse")
			bench_parse(f.data(), len);
		else if (mode == "transport")
			bench_transport(f.data() + nhl, len - nhl);
		else if (mode == "build")
			bench_build(out, &net, &h, len - nhl);
		else if (mode == "icrc")
			bench_icrc(f.data(), nhl, len);
		else
			return 2;
	}
	printf("%s payload %u packet %u bytes x %ld\n", mode.c_str(), paylen,
	       len, iters);
	return 0;
}
