// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* socket.cpp - RDS sockets and messages for the checks (rdstest.h). */
#include "rdstest.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <linux/rds.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "ktap.h"

namespace rdstest {

rds_socket::~rds_socket()
{
	if (fd_ >= 0)
		close(fd_);
}

bool rds_socket::open(const sockaddr_in &at, int bufsize)
{
	int trans = RDS_TRANS_IB;
	socklen_t len = sizeof(trans);

	name_ = addr_str(at);
	fd_ = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd_ < 0) {
		ktap::fail("socket(AF_RDS): %s (is rds loaded?)",
			   std::strerror(errno));
		return false;
	}
	if (setsockopt(fd_, SOL_RDS, SO_RDS_TRANSPORT, &trans, len) != 0) {
		ktap::fail("%s: SO_RDS_TRANSPORT RDS_TRANS_IB: %s",
			   name_.c_str(), std::strerror(errno));
		return false;
	}
	for (int opt : {SO_SNDBUFFORCE, SO_RCVBUFFORCE}) {
		if (setsockopt(fd_, SOL_SOCKET, opt, &bufsize,
			       sizeof(bufsize)) != 0) {
			ktap::fail("%s: socket buffer of %d bytes: %s",
				   name_.c_str(), bufsize,
				   std::strerror(errno));
			return false;
		}
	}
	if (bind(fd_, reinterpret_cast<const sockaddr *>(&at), sizeof(at)) !=
	    0) {
		ktap::fail("bind %s on RDS/IB: %s (rds_rdma loaded? the "
			   "address on an RDMA device of init_net?)",
			   name_.c_str(), std::strerror(errno));
		return false;
	}
	trans = -1;
	if (getsockopt(fd_, SOL_RDS, SO_RDS_TRANSPORT, &trans, &len) != 0 ||
	    trans != RDS_TRANS_IB) {
		ktap::fail("%s: transport %d after bind, not RDS_TRANS_IB (%s)",
			   name_.c_str(), trans, std::strerror(errno));
		return false;
	}
	return true;
}

std::string addr_str(const sockaddr_in &sa)
{
	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	return std::string(ip) + ":" + std::to_string(ntohs(sa.sin_port));
}

int wait_ms()
{
	const char *s = std::getenv("SROCE_TIMEOUT_SCALE");
	const int scale = s != nullptr && std::atoi(s) > 0 ? std::atoi(s) : 1;

	return 30000 * scale;
}

namespace {

/* The header fill() puts at the start of a message (when it fits). */
struct header {
	std::uint32_t tag;
	std::uint32_t seq;
	std::uint64_t size;
};

std::uint8_t pattern(std::size_t i, std::uint32_t tag, std::uint32_t seq)
{
	std::uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL ^
			  (std::uint64_t{tag} << 32 | seq);

	x ^= x >> 29;
	return static_cast<std::uint8_t>(x ^ (x >> 8));
}

/* The expected byte i of message (tag, seq) of size bytes. */
std::uint8_t expected(std::size_t i, std::size_t size, std::uint32_t tag,
		      std::uint32_t seq)
{
	if (size >= sizeof(header) && i < sizeof(header)) {
		const header h{tag, seq, size};
		std::uint8_t b[sizeof(header)];

		std::memcpy(b, &h, sizeof(h));
		return b[i];
	}
	return pattern(i, tag, seq);
}

} /* namespace */

void fill(std::span<std::uint8_t> buf, std::uint32_t tag, std::uint32_t seq)
{
	for (std::size_t i = 0; i < buf.size(); i++)
		buf[i] = expected(i, buf.size(), tag, seq);
}

long mismatch(std::span<const std::uint8_t> buf, std::uint32_t tag,
	      std::uint32_t seq)
{
	for (std::size_t i = 0; i < buf.size(); i++)
		if (buf[i] != expected(i, buf.size(), tag, seq))
			return static_cast<long>(i);
	return -1;
}

std::string send_msg(rds_socket &s, const sockaddr_in &dest,
		     std::span<const std::uint8_t> buf,
		     std::span<const std::uint8_t> cmsg)
{
	sockaddr_in to = dest;
	iovec iov{const_cast<std::uint8_t *>(buf.data()), buf.size()};
	msghdr msg{};
	const auto deadline = std::chrono::steady_clock::now() +
			      std::chrono::milliseconds(wait_ms());

	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (!cmsg.empty()) {
		msg.msg_control = const_cast<std::uint8_t *>(cmsg.data());
		msg.msg_controllen = cmsg.size();
	}
	for (;;) {
		const ssize_t n = sendmsg(s.fd(), &msg, MSG_DONTWAIT);

		if (n == static_cast<ssize_t>(buf.size()))
			return {};
		if (n >= 0)
			return ktap::format(
				"%s: sendmsg of %zu bytes to %s sent %zd",
				s.name().c_str(), buf.size(),
				addr_str(dest).c_str(), n);
		/* The send queue full (EAGAIN), the peer's port congested
		 * (ENOBUFS): the receiver drains them. */
		if ((errno != EAGAIN && errno != ENOBUFS) ||
		    std::chrono::steady_clock::now() > deadline)
			return ktap::format(
				"%s: sendmsg of %zu bytes to %s: %s",
				s.name().c_str(), buf.size(),
				addr_str(dest).c_str(), std::strerror(errno));
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
}

bool send_to(rds_socket &s, const sockaddr_in &dest,
	     std::span<const std::uint8_t> buf,
	     std::span<const std::uint8_t> cmsg)
{
	const std::string error = send_msg(s, dest, buf, cmsg);

	if (!error.empty())
		ktap::fail("%s", error.c_str());
	return error.empty();
}

bool recv_from(rds_socket &s, std::span<std::uint8_t> buf, received &r)
{
	const auto deadline = std::chrono::steady_clock::now() +
			      std::chrono::milliseconds(wait_ms());

	for (;;) {
		pollfd p{s.fd(), POLLIN, 0};
		iovec iov{buf.data(), buf.size()};
		msghdr msg{};
		const auto left =
			std::chrono::duration_cast<std::chrono::milliseconds>(
				deadline - std::chrono::steady_clock::now());

		r = received{};
		r.control.resize(1024);
		const int ready =
			left.count() > 0
				? poll(&p, 1, static_cast<int>(left.count()))
				: 0;
		if (ready != 1) {
			ktap::fail("%s: nothing received within %d ms (%s)",
				   s.name().c_str(), wait_ms(),
				   ready < 0 ? std::strerror(errno)
					     : "timeout");
			return false;
		}
		msg.msg_name = &r.from;
		msg.msg_namelen = sizeof(r.from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = r.control.data();
		msg.msg_controllen = r.control.size();
		const ssize_t n = recvmsg(s.fd(), &msg, MSG_DONTWAIT);
		/*
		 * RDS's poll() also says POLLIN, once per socket, whenever
		 * any congestion map of the host changed since the socket
		 * last looked ("for historical reasons", af_rds.c), with
		 * nothing to receive: recvmsg() then says EAGAIN, and the
		 * message is still to come.
		 */
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n < 0) {
			ktap::fail("%s: recvmsg: %s", s.name().c_str(),
				   std::strerror(errno));
			return false;
		}
		r.len = static_cast<std::size_t>(n);
		r.flags = msg.msg_flags;
		r.control.resize(msg.msg_controllen);
		return true;
	}
}

} /* namespace rdstest */
