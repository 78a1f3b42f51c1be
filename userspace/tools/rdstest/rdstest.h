// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdstest.h - what the checks of sroce-rdstest share: RDS sockets bound to
 * the RDS/IB transport (rds_rdma), messages with a checkable payload, and
 * waits bounded by SROCE_TIMEOUT_SCALE.
 */
#ifndef SROCE_TOOLS_RDSTEST_H
#define SROCE_TOOLS_RDSTEST_H

#include <cstddef>
#include <cstdint>
#include <netinet/in.h>
#include <span>
#include <string>
#include <vector>

namespace rdstest {

/* The two ends of every check: an address and a port each. */
struct ends {
	sockaddr_in a;
	sockaddr_in b;
};

/* An RDS socket (AF_RDS, SOCK_SEQPACKET), closed when it goes. */
class rds_socket {
public:
	rds_socket() = default;
	rds_socket(const rds_socket &) = delete;
	rds_socket &operator=(const rds_socket &) = delete;
	~rds_socket();

	/*
	 * A socket on the RDS/IB transport (SO_RDS_TRANSPORT RDS_TRANS_IB,
	 * confirmed by reading it back), with send and receive buffers of
	 * bufsize bytes, bound to at; false (with the failure recorded) when
	 * any step fails.
	 */
	bool open(const sockaddr_in &at, int bufsize);
	int fd() const { return fd_; }
	const std::string &name() const { return name_; }

private:
	int fd_ = -1;
	std::string name_;
};

/* "10.0.0.1:18000" */
std::string addr_str(const sockaddr_in &sa);

/* Milliseconds to wait for something that should come at once, scaled. */
int wait_ms();

/*
 * The bytes of message seq of a stream named by tag: a header (tag, seq,
 * size) then a pattern from all three, so that a message in the wrong
 * place, of the wrong size or with a wrong byte is told apart.
 */
void fill(std::span<std::uint8_t> buf, std::uint32_t tag, std::uint32_t seq);

/* The first byte of buf that differs from fill(buf, tag, seq), or -1. */
long mismatch(std::span<const std::uint8_t> buf, std::uint32_t tag,
	      std::uint32_t seq);

/*
 * Send buf from s to dest, with the control messages cmsg (empty: none);
 * retries while the send queue is full (EAGAIN) or the peer's port
 * congested (ENOBUFS), for up to wait_ms().  What went wrong, or empty.
 * For any thread.
 */
std::string send_msg(rds_socket &s, const sockaddr_in &dest,
		     std::span<const std::uint8_t> buf,
		     std::span<const std::uint8_t> cmsg = {});

/* send_msg() with its failure recorded (the checks' thread); false then. */
bool send_to(rds_socket &s, const sockaddr_in &dest,
	     std::span<const std::uint8_t> buf,
	     std::span<const std::uint8_t> cmsg = {});

/* What recv_from() got. */
struct received {
	std::size_t len = 0; /* payload bytes */
	sockaddr_in from{};
	std::vector<std::uint8_t> control; /* the control messages */
	int flags = 0; /* msg_flags */
};

/*
 * One message (or notification) for s within wait_ms() into buf.  False
 * with the failure recorded on a timeout or an error.
 */
bool recv_from(rds_socket &s, std::span<std::uint8_t> buf, received &r);

/* Checks, each a KTAP case; false when the check gave up. */
bool check_send(const ends &e, unsigned int messages);
bool check_rdma_write(const ends &e, unsigned int messages);
bool check_rdma_read(const ends &e, unsigned int messages);

} /* namespace rdstest */

#endif /* SROCE_TOOLS_RDSTEST_H */
