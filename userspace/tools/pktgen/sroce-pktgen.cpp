// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// sroce-pktgen: send crafted RoCEv2 datagrams over an ordinary UDP socket,
// for the receive-path selftests (tests/net.sh).
//
//   sroce-pktgen --src ADDR --dst ADDR --kind KIND [--count N] [--seed S]
//                [--qpn QPN] [--len BYTES] [--frag]
//
// ADDR is IPv4 or IPv6 (both the same family).  KIND:
//   valid      RC SEND_ONLY to QPN (default 0x123456), BYTES payload
//   icrc       the same with one ICRC bit flipped
//   truncated  only the first 8 bytes of the BTH
//   opcode     a valid packet whose opcode is one the table does not know
//   tver       a valid packet with transport version 1
//   garbage    random bytes, random length 0..BYTES (default 2000), sent
//              without DF: longer than the MTU, they arrive reassembled
//
// --frag lets the kernel fragment any kind (no DF).  Only over IPv6 does a
// valid packet stay valid then: the IPv4 ID of a fragmented packet is the
// kernel's choice and the ICRC covers it.
//
// The frames come from the protocol core (drivers/sroce/proto).  The ICRC
// covers the IP and UDP headers, which the kernel writes here: the socket is
// bound to ADDR so that the source address and port are known, and sends
// with DF set and no connection, so that Linux uses IPv4 ID 0; the fields
// the kernel chooses freely (TOS, TTL, IP/UDP checksums, flow label) are
// masked by the ICRC.  Prints the number of datagrams sent.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "sroce_proto.h"
}

namespace {

// Owns a file descriptor.
class Fd {
public:
	explicit Fd(int fd) noexcept
	    : fd_(fd)
	{
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd()
	{
		if (fd_ >= 0)
			close(fd_);
	}
	int get() const noexcept { return fd_; }

private:
	int fd_;
};

struct Addr {
	sockaddr_storage ss{};
	socklen_t len = 0;
	bool ipv6 = false;
	uint8_t gid[16]{}; // IPv4 as ::ffff:a.b.c.d

	bool parse(const char *s, uint16_t port)
	{
		auto *a4 = reinterpret_cast<sockaddr_in *>(&ss);
		auto *a6 = reinterpret_cast<sockaddr_in6 *>(&ss);

		if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
			a4->sin_family = AF_INET;
			a4->sin_port = htons(port);
			len = sizeof(*a4);
			gid[10] = gid[11] = 0xff;
			std::memcpy(gid + 12, &a4->sin_addr, 4);
			return true;
		}
		if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
			a6->sin6_family = AF_INET6;
			a6->sin6_port = htons(port);
			len = sizeof(*a6);
			ipv6 = true;
			std::memcpy(gid, &a6->sin6_addr, 16);
			return true;
		}
		return false;
	}

	uint16_t port() const
	{
		const void *p = &ss;

		if (ipv6)
			return ntohs(static_cast<const sockaddr_in6 *>(p)
					     ->sin6_port);
		return ntohs(static_cast<const sockaddr_in *>(p)->sin_port);
	}
};

[[noreturn]] void usage()
{
	std::fprintf(stderr,
		     "usage: sroce-pktgen --src ADDR --dst ADDR --kind "
		     "valid|icrc|truncated|opcode|tver|garbage\n"
		     "                    [--count N] [--seed S] [--qpn QPN] "
		     "[--len BYTES] [--frag]\n");
	std::exit(2);
}

int unknown_opcode()
{
	for (int op = 0; op < 256; op++)
		if (!sroce_opcode_valid(static_cast<u8>(op)))
			return op;
	return -1;
}

// The UDP payload (BTH to ICRC) of a valid RC SEND_ONLY packet.
std::vector<uint8_t> valid_frame(const Addr &src, const Addr &dst, uint32_t qpn,
				 uint32_t psn, uint32_t paylen)
{
	sroce_net net{};
	sroce_hdrs h{};
	std::vector<uint8_t> payload(paylen);
	std::vector<uint8_t> buf(SROCE_MAX_NET_HLEN + SROCE_MAX_HDR_LEN +
				 paylen + 8);

	for (uint32_t i = 0; i < paylen; i++)
		payload[i] = static_cast<uint8_t>(i);
	net.ipv6 = dst.ipv6;
	net.ip_id = 0;
	std::memcpy(net.saddr, src.gid, 16);
	std::memcpy(net.daddr, dst.gid, 16);
	net.sport = src.port();
	net.dport = SROCE_UDP_PORT;
	h.bth.opcode = SROCE_OP_RC_SEND_ONLY;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = qpn & SROCE_QPN_MASK;
	h.bth.psn = psn & SROCE_PSN_MASK;
	h.bth.flags = SROCE_BTHF_ACKREQ;
	u32 total = sroce_frame_build(buf.data(), static_cast<u32>(buf.size()),
				      &net, &h, payload.data(), paylen);
	if (!total) {
		std::fprintf(stderr, "sroce-pktgen: cannot build a frame\n");
		std::exit(1);
	}
	u32 nhl = sroce_net_hlen(&net);
	return {buf.begin() + nhl, buf.begin() + total};
}

} // namespace

int main(int argc, char **argv)
{
	const char *src_s = nullptr, *dst_s = nullptr, *kind = nullptr;
	unsigned long count = 1, seed = 1, qpn = 0x123456, len = 0;
	bool len_set = false, frag = false;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--frag") {
			frag = true;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (a == "--src")
			src_s = v;
		else if (a == "--dst")
			dst_s = v;
		else if (a == "--kind")
			kind = v;
		else if (a == "--count")
			count = std::strtoul(v, nullptr, 0);
		else if (a == "--seed")
			seed = std::strtoul(v, nullptr, 0);
		else if (a == "--qpn")
			qpn = std::strtoul(v, nullptr, 0);
		else if (a == "--len")
			len = std::strtoul(v, nullptr, 0), len_set = true;
		else
			usage();
	}
	if (!src_s || !dst_s || !kind)
		usage();

	Addr src, dst;
	if (!src.parse(src_s, 0) || !dst.parse(dst_s, SROCE_UDP_PORT) ||
	    src.ipv6 != dst.ipv6) {
		std::fprintf(stderr, "sroce-pktgen: bad addresses\n");
		return 2;
	}

	Fd fd(socket(dst.ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0));
	if (fd.get() < 0) {
		std::perror("socket");
		return 1;
	}
	std::string k = kind;
	// Garbage needs no ICRC and may exceed the MTU: let it fragment.
	int pmtu = k == "garbage" || frag
			   ? (dst.ipv6 ? IPV6_PMTUDISC_DONT : IP_PMTUDISC_DONT)
			   : (dst.ipv6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO);
	if (setsockopt(fd.get(), dst.ipv6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       dst.ipv6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &pmtu,
		       sizeof(pmtu))) {
		std::perror("setsockopt(MTU_DISCOVER)");
		return 1;
	}
	if (bind(fd.get(), reinterpret_cast<sockaddr *>(&src.ss), src.len)) {
		std::perror("bind");
		return 1;
	}
	socklen_t sl = src.len;
	if (getsockname(fd.get(), reinterpret_cast<sockaddr *>(&src.ss), &sl)) {
		std::perror("getsockname");
		return 1;
	}

	std::mt19937 rng(static_cast<uint32_t>(seed));
	if (!len_set)
		len = k == "garbage" ? 2000 : 64;
	unsigned long sent = 0;
	for (unsigned long n = 0; n < count; n++) {
		std::vector<uint8_t> f;
		if (k == "garbage") {
			f.resize(rng() % (len + 1));
			for (auto &b : f)
				b = static_cast<uint8_t>(rng());
		} else {
			f = valid_frame(src, dst, static_cast<uint32_t>(qpn),
					static_cast<uint32_t>(n),
					static_cast<uint32_t>(len));
			if (k == "valid") {
			} else if (k == "icrc") {
				f.back() ^= 0x01;
			} else if (k == "truncated") {
				f.resize(8);
			} else if (k == "opcode") {
				f[0] = static_cast<uint8_t>(unknown_opcode());
			} else if (k == "tver") {
				f[1] = static_cast<uint8_t>(
					(f[1] & ~SROCE_BTH_TVER_MASK) | 1);
			} else {
				usage();
			}
		}
		if (sendto(fd.get(), f.data(), f.size(), 0,
			   reinterpret_cast<sockaddr *>(&dst.ss),
			   dst.len) < 0) {
			std::fprintf(stderr, "sendto: %s\n",
				     std::strerror(errno));
			return 1;
		}
		sent++;
	}
	std::printf("%lu\n", sent);
	return 0;
}
