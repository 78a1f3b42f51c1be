// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * forge.cpp - the forger of sroce-hostile and what its checks share.
 *
 * The socket is bound to the address of the device the packets pretend to
 * come from and sends with DF set and no connection, so that Linux uses
 * IPv4 ID 0 (as tools/sroce-pktgen.cpp): the ICRC covers the IP and UDP
 * headers, whose fields the kernel chooses freely are masked by it.
 */
#include "hostile.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "completion.h"
#include "ktap.h"

namespace hostile {

using namespace verbs_util;

forger::~forger()
{
	if (fd_ >= 0)
		close(fd_);
}

bool forger::open(const device &from, const device &to)
{
	if (!is_v4_mapped(from.gid) || !is_v4_mapped(to.gid)) {
		ktap::fail("the forger needs IPv4 GIDs");
		return false;
	}
	std::memcpy(sgid_, from.gid.raw, 16);
	std::memcpy(dgid_, to.gid.raw, 16);
	src_.sin_family = AF_INET;
	std::memcpy(&src_.sin_addr, from.gid.raw + 12, 4);
	dst_.sin_family = AF_INET;
	dst_.sin_port = htons(SROCE_UDP_PORT);
	std::memcpy(&dst_.sin_addr, to.gid.raw + 12, 4);

	fd_ = socket(AF_INET, SOCK_DGRAM, 0);
	REQUIRE(fd_ >= 0);
	const int pmtu = IP_PMTUDISC_DO;
	REQUIRE(setsockopt(fd_, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
			   sizeof(pmtu)) == 0);
	REQUIRE(bind(fd_, reinterpret_cast<sockaddr *>(&src_), sizeof(src_)) ==
		0);
	socklen_t sl = sizeof(src_);
	REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr *>(&src_), &sl) ==
		0);
	return true;
}

std::vector<std::uint8_t> forger::frame(sroce_hdrs h, const void *payload,
					std::uint32_t len) const
{
	sroce_net net{};
	std::vector<std::uint8_t> buf(SROCE_MAX_NET_HLEN + SROCE_MAX_HDR_LEN +
				      len + 8);

	net.ipv6 = 0;
	net.ip_id = 0;
	std::memcpy(net.saddr, sgid_, 16);
	std::memcpy(net.daddr, dgid_, 16);
	net.sport = ntohs(src_.sin_port);
	net.dport = SROCE_UDP_PORT;
	const u32 total = sroce_frame_build(
		buf.data(), static_cast<u32>(buf.size()), &net, &h,
		static_cast<const u8 *>(payload), len);
	if (total == 0) {
		ktap::fail("cannot build a frame of opcode 0x%02x",
			   h.bth.opcode);
		return {};
	}
	const u32 nhl = sroce_net_hlen(&net);
	return {buf.begin() + nhl, buf.begin() + total};
}

bool forger::send(const std::vector<std::uint8_t> &f) const
{
	if (f.empty())
		return false;
	if (sendto(fd_, f.data(), f.size(), 0,
		   reinterpret_cast<const sockaddr *>(&dst_),
		   sizeof(dst_)) < 0) {
		ktap::fail("sendto: %s", std::strerror(errno));
		return false;
	}
	return true;
}

bool forger::send_all(const std::vector<std::vector<std::uint8_t>> &fs) const
{
	for (const auto &f : fs)
		if (!send(f))
			return false;
	return true;
}

sroce_hdrs rc_hdrs(std::uint8_t op, std::uint32_t dqpn, std::uint32_t psn)
{
	sroce_hdrs h{};

	h.bth.opcode = op;
	h.bth.pkey = SROCE_DEFAULT_PKEY;
	h.bth.dqpn = dqpn & SROCE_QPN_MASK;
	h.bth.psn = psn & SROCE_PSN_MASK;
	h.bth.flags = SROCE_BTHF_ACKREQ;
	return h;
}

qp_opts rdma_opts(ibv_mtu mtu, std::size_t buf)
{
	constexpr int acc_all = acc_lw | acc_rw | acc_rr | acc_ra;
	qp_opts o;

	o.mtu = mtu;
	o.buf_size = buf;
	o.mr_access = acc_all | IBV_ACCESS_MW_BIND;
	o.qp_access = acc_all;
	return o;
}

bool silence(endpoint &e)
{
	REQUIRE(to_state(e.qp.get(), IBV_QPS_ERR) == 0);
	return true;
}

bool wait_bytes(const unsigned char *p, std::size_t len, unsigned char v,
		int ms)
{
	const auto until = deadline_in(ms);

	for (;;) {
		std::size_t i = 0;

		while (i < len && __atomic_load_n(p + i, __ATOMIC_RELAXED) == v)
			++i;
		if (i == len)
			return true;
		if (clock_type::now() > until)
			return false;
		usleep(1000);
	}
}

std::size_t nonzero(const unsigned char *p, std::size_t len)
{
	std::size_t n = 0;

	for (std::size_t i = 0; i < len; ++i)
		n += p[i] != 0;
	return n;
}

std::uint32_t mtu_bytes(ibv_mtu mtu)
{
	return 128U << static_cast<unsigned int>(mtu);
}

bool counter_moved_by(const device &d, const char *name, long long before,
		      long long n)
{
	long long now = hw_counter(d, name);

	for (int i = 0; i < 100 * scale && now >= 0 && now - before < n; ++i) {
		usleep(20000);
		now = hw_counter(d, name);
	}
	ktap::note("%s %s: %lld -> %lld (at least %lld more expected)",
		   d.name.c_str(), name, before, now, n);
	if (before < 0 || now < 0) {
		ktap::fail("%s has no counter %s", d.name.c_str(), name);
		return false;
	}
	if (now - before < n) {
		ktap::fail("%s %s moved by %lld, expected at least %lld",
			   d.name.c_str(), name, now - before, n);
		return false;
	}
	return true;
}

} /* namespace hostile */
