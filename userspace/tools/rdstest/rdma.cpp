// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma.cpp - checks "rdma-write" and "rdma-read": RDS's RDMA operations,
 * which RDS/IB carries out with the verbs the kernel's storage consumers
 * use.  The passive side registers its buffer by sending the active side
 * a message with an RDS_CMSG_RDMA_MAP control message (a fast
 * registration, IB_WR_REG_MR on the connection's QP, of a zero-based
 * region whose cookie holds the rkey and the offset in the first page;
 * the cookie comes back through the map's cookie_addr and rides the
 * message to the peer, which reads it as RDS_CMSG_RDMA_DEST); the active
 * side sends a message with an RDS_CMSG_RDMA_ARGS control message (an
 * RDMA WRITE or READ to the cookie's region before the message's SEND),
 * asks for a notification (RDS_RDMA_NOTIFY_ME), and the region is freed
 * and its key invalidated (RDS_FREE_MR with RDS_RDMA_INVALIDATE).
 *
 * Not RDS_GET_MR (setsockopt): 6.1's RDS/IB registers only on a
 * connection's QP, and a setsockopt names no connection, so on every
 * FRWR device (its only kind) RDS_GET_MR fails with EOPNOTSUPP
 * (rds_ib_reg_frmr(): "TODO: Add FRWR support for RDS_GET_MR using proxy
 * qp"); the check reports what it answers, as a note.
 *
 * Each transfer uses a fresh region at another offset and length (page
 * aligned, an odd offset in the first page, many pages, 1 MiB); every
 * byte of the destination is checked, and the bytes around the region on
 * the passive side must be untouched.
 */
#include <cstdlib>
#include <cstring>
#include <linux/rds.h>
#include <memory>
#include <string>
#include <sys/socket.h>

#include "ktap.h"
#include "rdstest.h"

namespace rdstest {

namespace {

/* Where a transfer lands in the passive side's buffer. */
struct region {
	std::size_t offset;
	std::size_t len;
};

constexpr region regions[] = {
	{0, 4096}, {100, 5000}, {4000, 200000}, {0, 1u << 20}, {7, 65536},
};
constexpr std::size_t buf_size = (1u << 20) + 8192;
constexpr std::uint8_t guard = 0x5a;
constexpr int bufsize = 4 << 20;

struct free_deleter {
	void operator()(std::uint8_t *p) const { std::free(p); }
};
using page_buf = std::unique_ptr<std::uint8_t[], free_deleter>;

page_buf alloc_pages(std::size_t n)
{
	return page_buf(static_cast<std::uint8_t *>(
		std::aligned_alloc(4096, (n + 4095) & ~std::size_t{4095})));
}

/* A message each way, so that both ends of the connection are up and
 * RDS/IB knows the device of each bound address (a map needs the
 * connection's QP). */
bool handshake(rds_socket &a, const ends &e, rds_socket &b)
{
	std::uint8_t hello[16], got[16];
	received r;

	fill(hello, 0x4e11, 0);
	if (!send_to(a, e.b, hello) || !recv_from(b, got, r))
		return false;
	if (r.len != sizeof(hello) || mismatch(got, 0x4e11, 0) >= 0) {
		ktap::fail("handshake: %zu bytes, not the %zu sent", r.len,
			   sizeof(hello));
		return false;
	}
	fill(hello, 0x4e11, 1);
	if (!send_to(b, e.a, hello) || !recv_from(a, got, r))
		return false;
	if (r.len != sizeof(hello) || mismatch(got, 0x4e11, 1) >= 0) {
		ktap::fail("handshake back: %zu bytes", r.len);
		return false;
	}
	return true;
}

/*
 * What RDS_GET_MR (setsockopt) answers for [p, p + len) of s, for a note:
 * 6.1's RDS/IB cannot register without a connection (see above).  A
 * region it did register is freed again.
 */
std::string probe_get_mr(rds_socket &s, std::uint8_t *p, std::size_t len)
{
	rds_rdma_cookie_t cookie = 0;
	rds_get_mr_args args{};

	args.vec.addr = reinterpret_cast<std::uintptr_t>(p);
	args.vec.bytes = len;
	args.cookie_addr = reinterpret_cast<std::uintptr_t>(&cookie);
	args.flags = RDS_RDMA_READWRITE;
	if (setsockopt(s.fd(), SOL_RDS, RDS_GET_MR, &args, sizeof(args)) != 0)
		return std::strerror(errno);
	rds_free_mr_args fr{cookie, RDS_RDMA_INVALIDATE};
	setsockopt(s.fd(), SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr));
	return "registered";
}

/*
 * b registers [p, p + len) with an RDS_CMSG_RDMA_MAP on message seq to a;
 * a reads the cookie off the message (RDS_CMSG_RDMA_DEST), and it must
 * be the one b got.  The cookie, or 0 (failure recorded).
 */
rds_rdma_cookie_t map_mr(rds_socket &b, const sockaddr_in &to_a, rds_socket &a,
			 std::uint8_t *p, std::size_t len, std::uint32_t seq)
{
	rds_rdma_cookie_t cookie = 0;
	rds_get_mr_args args{};
	alignas(cmsghdr) std::uint8_t control[CMSG_SPACE(sizeof(args))] = {};
	auto *c = reinterpret_cast<cmsghdr *>(control);
	std::uint8_t msg[16], got[64];
	received r;
	msghdr h{};

	args.vec.addr = reinterpret_cast<std::uintptr_t>(p);
	args.vec.bytes = len;
	args.cookie_addr = reinterpret_cast<std::uintptr_t>(&cookie);
	args.flags = RDS_RDMA_READWRITE;
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_MAP;
	c->cmsg_len = CMSG_LEN(sizeof(args));
	std::memcpy(CMSG_DATA(c), &args, sizeof(args));
	fill(msg, 0xc00c, seq);
	if (!send_to(b, to_a, msg, control))
		return 0;
	if (cookie == 0) {
		ktap::fail("%s: RDS_CMSG_RDMA_MAP of %zu bytes gave no cookie",
			   b.name().c_str(), len);
		return 0;
	}
	if (!recv_from(a, got, r))
		return 0;
	if (r.len != sizeof(msg) ||
	    mismatch(std::span(got, sizeof(msg)), 0xc00c, seq) >= 0) {
		ktap::fail("%s: the message that mapped region %u is wrong "
			   "(%zu bytes)",
			   a.name().c_str(), seq, r.len);
		return 0;
	}
	h.msg_control = r.control.data();
	h.msg_controllen = r.control.size();
	for (cmsghdr *d = CMSG_FIRSTHDR(&h); d; d = CMSG_NXTHDR(&h, d)) {
		rds_rdma_cookie_t dest = 0;

		if (d->cmsg_level != SOL_RDS ||
		    d->cmsg_type != RDS_CMSG_RDMA_DEST ||
		    d->cmsg_len < CMSG_LEN(sizeof(dest)))
			continue;
		std::memcpy(&dest, CMSG_DATA(d), sizeof(dest));
		if (dest != cookie) {
			ktap::fail("%s: RDS_CMSG_RDMA_DEST cookie %#llx, but "
				   "%s mapped %#llx",
				   a.name().c_str(),
				   static_cast<unsigned long long>(dest),
				   b.name().c_str(),
				   static_cast<unsigned long long>(cookie));
			return 0;
		}
		return cookie;
	}
	ktap::fail("%s: the message that mapped region %u carried no "
		   "RDS_CMSG_RDMA_DEST",
		   a.name().c_str(), seq);
	return 0;
}

bool free_mr(rds_socket &s, rds_rdma_cookie_t cookie)
{
	rds_free_mr_args args{cookie, RDS_RDMA_INVALIDATE};

	if (setsockopt(s.fd(), SOL_RDS, RDS_FREE_MR, &args, sizeof(args)) !=
	    0) {
		ktap::fail("%s: RDS_FREE_MR: %s", s.name().c_str(),
			   std::strerror(errno));
		return false;
	}
	return true;
}

/* The RDMA of one transfer: local buffer, the peer's cookie, write or read. */
bool send_rdma(rds_socket &a, const sockaddr_in &to, std::uint8_t *local,
	       std::size_t len, rds_rdma_cookie_t cookie, bool write,
	       std::uint32_t seq)
{
	rds_iovec iov{reinterpret_cast<std::uintptr_t>(local), len};
	rds_rdma_args args{};
	alignas(cmsghdr) std::uint8_t control[CMSG_SPACE(sizeof(args))] = {};
	auto *c = reinterpret_cast<cmsghdr *>(control);
	std::uint8_t note[16];

	args.cookie = cookie;
	args.remote_vec.addr = 0; /* from the cookie's offset on */
	args.remote_vec.bytes = len;
	args.local_vec_addr = reinterpret_cast<std::uintptr_t>(&iov);
	args.nr_local = 1;
	args.flags = RDS_RDMA_NOTIFY_ME | (write ? RDS_RDMA_READWRITE : 0);
	args.user_token = seq;
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = RDS_CMSG_RDMA_ARGS;
	c->cmsg_len = CMSG_LEN(sizeof(args));
	std::memcpy(CMSG_DATA(c), &args, sizeof(args));
	fill(note, 0x7e57, seq);
	return send_to(a, to, note, control);
}

/* a's notification of transfer seq: RDS_CMSG_RDMA_STATUS, success. */
bool notified(rds_socket &a, std::uint32_t seq)
{
	std::uint8_t none[16];
	received r;
	msghdr msg{};

	if (!recv_from(a, none, r))
		return false;
	msg.msg_control = r.control.data();
	msg.msg_controllen = r.control.size();
	for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		rds_rdma_notify n{};

		if (c->cmsg_level != SOL_RDS ||
		    c->cmsg_type != RDS_CMSG_RDMA_STATUS ||
		    c->cmsg_len < CMSG_LEN(sizeof(n)))
			continue;
		std::memcpy(&n, CMSG_DATA(c), sizeof(n));
		if (n.user_token != seq || n.status != RDS_RDMA_SUCCESS) {
			ktap::fail(
				"%s: RDMA notification token %llu status %d, "
				"expected %u and success",
				a.name().c_str(),
				static_cast<unsigned long long>(n.user_token),
				n.status, seq);
			return false;
		}
		return true;
	}
	ktap::fail("%s: got %zu bytes and no RDS_CMSG_RDMA_STATUS where the "
		   "notification of transfer %u was due",
		   a.name().c_str(), r.len, seq);
	return false;
}

/* b's copy of the message that carried transfer seq. */
bool message_arrived(rds_socket &b, std::uint32_t seq)
{
	std::uint8_t got[64];
	received r;

	if (!recv_from(b, got, r))
		return false;
	if (r.len != 16 || mismatch(std::span(got, 16), 0x7e57, seq) >= 0) {
		ktap::fail(
			"%s: the message of transfer %u is wrong (%zu bytes)",
			b.name().c_str(), seq, r.len);
		return false;
	}
	return true;
}

/* Bytes of buf outside [r.offset, r.offset + r.len) still the guard. */
bool guards_intact(const std::uint8_t *buf, const region &r)
{
	for (std::size_t i = 0; i < buf_size; i++) {
		if (i >= r.offset && i < r.offset + r.len)
			continue;
		if (buf[i] != guard) {
			ktap::fail("byte %zu outside the region [%zu, %zu) "
				   "changed",
				   i, r.offset, r.offset + r.len);
			return false;
		}
	}
	return true;
}

/*
 * transfers transfers from a to b's regions (write) or from b's regions to
 * a (read), every byte checked.
 */
bool transfers(const ends &e, unsigned int count, bool write)
{
	rds_socket a, b;
	const page_buf remote = alloc_pages(buf_size);
	const page_buf local = alloc_pages(buf_size);
	unsigned long long bytes = 0;

	if (!remote || !local) {
		ktap::fail("out of memory");
		return false;
	}
	if (!a.open(e.a, bufsize) || !b.open(e.b, bufsize) ||
	    !handshake(a, e, b))
		return false;
	ktap::note("RDS_GET_MR (setsockopt) of %s: %s", b.name().c_str(),
		   probe_get_mr(b, remote.get(), 4096).c_str());
	for (unsigned int seq = 0; seq < count; seq++) {
		const region &r = regions[seq % std::size(regions)];
		const std::uint32_t tag = write ? 0x3417e : 0x3ead;
		std::uint8_t *at = remote.get() + r.offset;

		std::memset(remote.get(), guard, buf_size);
		std::memset(local.get(), guard, buf_size);
		if (write)
			fill(std::span(local.get(), r.len), tag, seq);
		else
			fill(std::span(at, r.len), tag, seq);
		const rds_rdma_cookie_t cookie =
			map_mr(b, e.a, a, at, r.len, seq);
		if (cookie == 0)
			return false;
		if (!send_rdma(a, e.b, local.get(), r.len, cookie, write,
			       seq) ||
		    !notified(a, seq) || !message_arrived(b, seq))
			return false;
		const std::uint8_t *dst = write ? at : local.get();
		const long wrong = mismatch(std::span(dst, r.len), tag, seq);
		if (wrong >= 0) {
			ktap::fail("transfer %u (%zu bytes at offset %zu): "
				   "byte %ld wrong",
				   seq, r.len, r.offset, wrong);
			return false;
		}
		/* Nothing written outside the region, nor past the
		 * transfer in the reading side's buffer. */
		if (!guards_intact(remote.get(), r) ||
		    (!write && !guards_intact(local.get(), region{0, r.len})) ||
		    !free_mr(b, cookie))
			return false;
		bytes += r.len;
	}
	ktap::note("%u RDMA %s of %llu bytes through RDS_CMSG_RDMA_MAP "
		   "regions, each "
		   "verified",
		   count, write ? "WRITEs" : "READs", bytes);
	return true;
}

} /* namespace */

bool check_rdma_write(const ends &e, unsigned int messages)
{
	return transfers(e, messages, true);
}

bool check_rdma_read(const ends &e, unsigned int messages)
{
	return transfers(e, messages, false);
}

} /* namespace rdstest */
