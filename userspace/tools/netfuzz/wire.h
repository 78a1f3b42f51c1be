// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wire.h - the sockets of sroce-netfuzz: UDP sockets that inject its
 * datagrams at the two devices, from each device's peer address and from
 * another address on the peer's side, and a packet socket on the netdev of
 * device A that captures the RoCEv2 traffic of both directions for the
 * corpus.
 *
 * Device A's netdev is in the tool's network namespace, device B's in
 * another one (ns_b): the datagrams to A leave from sockets made in ns_b,
 * those to B from sockets made here.  Each socket is bound to its source
 * address and sends with DF set and no connection, so that Linux writes
 * IPv4 ID 0 and the ICRC made over the headers the kernel will write
 * (mutate.h: icrc_of) holds; datagrams longer than the MTU go out of a
 * second socket without DF (their source port config::sport + 1).  The
 * capture sees every protocol (ETH_P_ALL: only such a socket sees the
 * packets the netdev sends) and keeps the IPv4 ones.
 */
#ifndef SROCE_TOOLS_NETFUZZ_WIRE_H
#define SROCE_TOOLS_NETFUZZ_WIRE_H

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "mutate.h"

namespace netfuzz {

class injector {
public:
	injector() = default;
	injector(const injector &) = delete;
	injector &operator=(const injector &) = delete;
	~injector();

	/* The sockets; false, reported, when one cannot be made. */
	bool open(const config &c, const std::string &ns_b);

	/*
	 * Sends g, again after ENOBUFS (dropped on its way out) or a
	 * pending ICMP error; false, reported, on another error.
	 */
	bool send(const datagram &g);

	/* Datagrams the kernel refused with ENOBUFS, and sent again. */
	unsigned long retries() const { return retries_; }

	/* sendto()s that failed with an earlier ICMP error, and were redone. */
	unsigned long icmp_errors() const { return icmp_errors_; }

private:
	/* fd_[side][source][frag] */
	int fd_[sides][2][2] = {{{-1, -1}, {-1, -1}}, {{-1, -1}, {-1, -1}}};
	std::uint32_t dst_[sides] = {};
	unsigned long retries_ = 0;
	unsigned long icmp_errors_ = 0;
};

class capture {
public:
	capture() = default;
	capture(const capture &) = delete;
	capture &operator=(const capture &) = delete;
	~capture();

	/* A packet socket on ifname; false, reported, when it fails. */
	bool open(const config &c, const std::string &ifname);

	/*
	 * Every RoCEv2 datagram captured since the last call, up to max, to
	 * fn(side, UDP payload): those to either device's address that the
	 * injector did not send.  Returns how many.
	 */
	unsigned
	poll(unsigned max,
	     const std::function<void(int, std::span<const std::uint8_t>)> &fn);

private:
	int fd_ = -1;
	std::uint32_t addr_[sides] = {};
	std::uint16_t sport_ = 0;
};

} /* namespace netfuzz */

#endif /* SROCE_TOOLS_NETFUZZ_WIRE_H */
