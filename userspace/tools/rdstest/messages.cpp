// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * messages.cpp - check "send": RDS messages over RDS/IB, each direction in
 * turn, every message received once, in order, from the right address,
 * with its size and every byte right.
 *
 * The sizes cycle through one byte, a few bytes, around a page, 64 KiB,
 * 256 KiB and 1 MiB (RDS's largest message), so that RDS/IB fragments
 * them (its fragments are 4 KiB, each a SEND into a posted receive) and
 * reassembles them.  A sender thread posts while the receiving socket is
 * read in this one: RDS congests a port whose receive buffer is full and
 * the sender waits for it to drain.
 */
#include <atomic>
#include <string>
#include <thread>

#include "ktap.h"
#include "rdstest.h"

namespace rdstest {

namespace {

constexpr std::size_t sizes[] = {1,    24,    1000,   4096,    4097,
				 8193, 65536, 262144, 1u << 20};
constexpr std::size_t max_size = 1u << 20;
/* Socket buffers: a 1 MiB message needs twice its size (RDS: sndbuf / 2). */
constexpr int bufsize = 8 << 20;

std::size_t size_of(unsigned int seq)
{
	return sizes[seq % std::size(sizes)];
}

/*
 * messages messages from `from` (bound to src) to `to` (bound to dst):
 * the sender in a thread, the receiver here; tag tells the directions
 * apart.
 */
bool one_way(rds_socket &from, const sockaddr_in &src, rds_socket &to,
	     const sockaddr_in &dst, std::uint32_t tag, unsigned int messages)
{
	std::atomic<bool> stop{false};
	std::string send_error;
	unsigned long long bytes = 0;
	std::vector<std::uint8_t> rx(max_size + 1);

	std::thread sender([&] {
		std::vector<std::uint8_t> tx(max_size);

		for (unsigned int seq = 0; seq < messages && !stop; seq++) {
			const std::span<std::uint8_t> m(tx.data(),
							size_of(seq));

			fill(m, tag, seq);
			send_error = send_msg(from, dst, m);
			if (!send_error.empty())
				return;
		}
	});

	bool ok = true;
	for (unsigned int seq = 0; seq < messages; seq++) {
		received r;

		if (!recv_from(to, rx, r)) {
			ok = false;
			break;
		}
		const long at = mismatch(std::span(rx.data(), r.len), tag, seq);
		if (r.len != size_of(seq) ||
		    r.from.sin_addr.s_addr != src.sin_addr.s_addr ||
		    r.from.sin_port != src.sin_port || at >= 0) {
			ktap::fail(
				"%s -> %s message %u: %zu bytes from %s "
				"(expected %zu from %s), first wrong byte %ld",
				from.name().c_str(), to.name().c_str(), seq,
				r.len, addr_str(r.from).c_str(), size_of(seq),
				addr_str(src).c_str(), at);
			ok = false;
			break;
		}
		bytes += r.len;
	}
	stop = true;
	sender.join();
	if (!send_error.empty()) {
		ktap::fail("%s -> %s: %s", from.name().c_str(),
			   to.name().c_str(), send_error.c_str());
		ok = false;
	}
	if (ok)
		ktap::note("%s -> %s: %u messages, %llu bytes, each verified",
			   from.name().c_str(), to.name().c_str(), messages,
			   bytes);
	return ok;
}

} /* namespace */

bool check_send(const ends &e, unsigned int messages)
{
	rds_socket a, b;

	if (!a.open(e.a, bufsize) || !b.open(e.b, bufsize))
		return false;
	return one_way(a, e.a, b, e.b, 1, messages) &&
	       one_way(b, e.b, a, e.a, 2, messages);
}

} /* namespace rdstest */
