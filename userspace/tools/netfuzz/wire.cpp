// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// wire.cpp - the injecting UDP sockets and the capturing packet socket of
// sroce-netfuzz (wire.h).
#include "wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "ktap.h"

namespace netfuzz {

namespace {

std::uint32_t v4_of(const gid &g)
{
	std::uint32_t a;
	std::memcpy(&a, g.data() + 12, 4);
	return a; // network order
}

// A UDP socket bound to addr:port, DF set unless frag.
int udp_socket(std::uint32_t addr, std::uint16_t port, bool frag)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ktap::fail("socket: %s", std::strerror(errno));
		return -1;
	}
	int pmtu = frag ? IP_PMTUDISC_DONT : IP_PMTUDISC_DO;
	sockaddr_in sa{};
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = addr;
	sa.sin_port = htons(port);
	// IP_RECVERR: without it a datagram the stack drops on its way out
	// (the receive backlog behind the veth full) is reported as sent,
	// and its predicted fate never comes; with it sendto() says ENOBUFS
	// and send() sends it again.
	int on = 1;
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on)) ||
	    bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa))) {
		char s[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &sa.sin_addr, s, sizeof(s));
		ktap::fail("bind %s:%u: %s", s, port, std::strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

// Empties fd's error queue (ICMP errors IP_RECVERR queues); how many.
int drain_errors(int fd)
{
	char buf[256];
	int n = 0;
	for (;;) {
		iovec iov{buf, sizeof(buf)};
		msghdr m{};
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return n;
		n++;
	}
}

// The errors an ICMP message leaves pending on a socket (the stack's
// icmp_err_convert, and a reassembly timeout's EHOSTUNREACH): with
// IP_RECVERR the next sendto() returns it, and sends nothing.
bool pending_icmp_error(int err)
{
	return err == ECONNREFUSED || err == EHOSTUNREACH ||
	       err == ENETUNREACH || err == EPROTO || err == EMSGSIZE ||
	       err == EACCES;
}

// Runs fn in the network namespace /run/netns/name, then returns here.
bool in_netns(const std::string &name, const std::function<bool()> &fn)
{
	int self = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	std::string path = "/run/netns/" + name;
	int ns = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (self < 0 || ns < 0) {
		ktap::fail("open %s: %s", path.c_str(), std::strerror(errno));
		if (self >= 0)
			close(self);
		if (ns >= 0)
			close(ns);
		return false;
	}
	bool ok = setns(ns, CLONE_NEWNET) == 0;
	if (!ok)
		ktap::fail("setns %s: %s", path.c_str(), std::strerror(errno));
	else
		ok = fn();
	if (setns(self, CLONE_NEWNET)) {
		ktap::fail("setns back: %s", std::strerror(errno));
		ok = false;
	}
	close(ns);
	close(self);
	return ok;
}

} // namespace

injector::~injector()
{
	for (auto &side : fd_)
		for (auto &src : side)
			for (int fd : src)
				if (fd >= 0)
					close(fd);
}

bool injector::open(const config &c, const std::string &ns_b)
{
	// To side s from side 1 - s: the sockets live where that side is.
	auto make = [&](int s) {
		const gid *from[2] = {&c.addr[1 - s], &c.alt[1 - s]};
		for (int src = 0; src < 2; src++)
			for (int frag = 0; frag < 2; frag++) {
				fd_[s][src][frag] =
					udp_socket(v4_of(*from[src]),
						   static_cast<std::uint16_t>(
							   c.sport + frag),
						   frag);
				if (fd_[s][src][frag] < 0)
					return false;
			}
		dst_[s] = v4_of(c.addr[s]);
		return true;
	};
	return make(1) && in_netns(ns_b, [&] { return make(0); });
}

bool injector::send(const datagram &g)
{
	int fd = fd_[g.side][g.src == source::alt][g.frag];
	sockaddr_in sa{};
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = dst_[g.side];
	sa.sin_port = htons(4791);
	// A pending ICMP error fails one sendto() that sent nothing; the same
	// error twice in a row is this datagram's own.
	int last = 0;
	for (;;) {
		if (sendto(fd, g.bytes.data(), g.bytes.size(), 0,
			   reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) >= 0)
			return true;
		const int err = errno;
		if (err == ENOBUFS || err == EAGAIN) {
			retries_++;
			usleep(1000);
			continue;
		}
		drain_errors(fd);
		if (!pending_icmp_error(err) || err == last) {
			ktap::fail("sendto (%s, %zu bytes): %s", g.what,
				   g.bytes.size(), std::strerror(err));
			return false;
		}
		icmp_errors_++;
		last = err;
	}
}

capture::~capture()
{
	if (fd_ >= 0)
		close(fd_);
}

bool capture::open(const config &c, const std::string &ifname)
{
	fd_ = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		     htons(ETH_P_ALL));
	if (fd_ < 0) {
		ktap::fail("packet socket: %s", std::strerror(errno));
		return false;
	}
	sockaddr_ll ll{};
	ll.sll_family = AF_PACKET;
	ll.sll_protocol = htons(ETH_P_ALL); // both directions
	ll.sll_ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
	int rcvbuf = 4 << 20;
	setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (!ll.sll_ifindex ||
	    bind(fd_, reinterpret_cast<sockaddr *>(&ll), sizeof(ll))) {
		ktap::fail("capture on %s: %s", ifname.c_str(),
			   std::strerror(errno));
		return false;
	}
	for (int s = 0; s < sides; s++)
		addr_[s] = v4_of(c.addr[s]);
	sport_ = c.sport;
	return true;
}

unsigned
capture::poll(unsigned max,
	      const std::function<void(int, std::span<const std::uint8_t>)> &fn)
{
	static std::vector<std::uint8_t> buf(65536);
	unsigned n = 0;
	while (n < max) {
		ssize_t len = recv(fd_, buf.data(), buf.size(), 0);
		if (len < 0)
			break;
		const std::uint8_t *ip = buf.data();
		if (len < 28 || ip[0] != 0x45 || ip[9] != IPPROTO_UDP)
			continue;
		if ((ip[6] & 0x3f) || ip[7]) // a fragment
			continue;
		std::uint32_t daddr;
		std::memcpy(&daddr, ip + 16, 4);
		const std::uint8_t *udp = ip + 20;
		std::uint16_t sport =
			static_cast<std::uint16_t>(udp[0] << 8 | udp[1]);
		std::uint16_t dport =
			static_cast<std::uint16_t>(udp[2] << 8 | udp[3]);
		std::size_t ulen =
			static_cast<std::size_t>(udp[4] << 8 | udp[5]);
		if (dport != 4791 || sport == sport_ || sport == sport_ + 1 ||
		    ulen < 8 || ulen > static_cast<std::size_t>(len) - 20)
			continue;
		int side = daddr == addr_[0] ? 0 : daddr == addr_[1] ? 1 : -1;
		if (side < 0)
			continue;
		fn(side, {udp + 8, ulen - 8});
		n++;
	}
	return n;
}

} // namespace netfuzz
