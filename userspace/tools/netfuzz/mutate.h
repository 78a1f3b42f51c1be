// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mutate.h - the datagrams of sroce-netfuzz: field-aware mutations of
 * captured RoCEv2 packets (and of packets made up from the opcode table),
 * and the fate each must meet at the receiving device.
 *
 * Pure: no sockets, no verbs; the host test (mutate_test.cpp) runs it
 * against the protocol core.
 *
 * Two classes of datagram:
 *
 *  - stateful: from the peer's own address, to a QP the tool owns (a
 *    "victim") or to the GSI QP, with a good ICRC as a rule: they reach
 *    the QP's state machine (PSNs near the expected one, RETH, AETH,
 *    AtomicETH, DETH of live keys and addresses, any opcode, lengths,
 *    pad).  Their fate at the device is not predicted.
 *  - must-drop: to any QP, the QPs of other processes (the verified
 *    traffic) included, but such that every correct receiver drops them
 *    before any QP state is touched: a bad ICRC, a malformed header
 *    (TVer, P_Key, opcode, lengths, pad, truncation), a QPN nobody holds
 *    or the multicast QPN to a unicast address, or a captured packet sent
 *    again, mutated in everything but its opcode and length, from an
 *    address that is not the QP's peer.  Each has a predicted fate: the
 *    hw counter it must land in (sroce_pkt_parse() of the protocol core
 *    decides the header reasons, the ICRC is computed over the addresses
 *    the kernel will write).
 */
#ifndef SROCE_TOOLS_NETFUZZ_MUTATE_H
#define SROCE_TOOLS_NETFUZZ_MUTATE_H

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace netfuzz {

/* The two receiving devices: A (sroce0) and B (sroce1). */
constexpr int sides = 2;

/* Where a datagram comes from, seen from the device it is sent to. */
enum class source {
	peer, /* the address of the other device: the QPs' peer */
	alt, /* another address on the peer's side: nobody's peer */
};

/*
 * The fate a datagram must meet: the hw counter (counters.c) it lands in,
 * or one of two buckets.
 */
enum class fate {
	unpredicted, /* stateful: anywhere */
	rx_err, /* rx_err_<reason>, reason below */
	no_qp, /* rx_drop_no_qp */
	mcast_drop, /* rx_drop_mcast */
	cnp, /* rx_cnp */
	qp_drop, /* rx_drop_not_peer, or rx_drop_no_qp if the QP went away */
	/*
	 * an extension opcode to a QPN that may have a QP or not (another
	 * process's): rx_err_opcode, or rx_drop_no_qp if it has none
	 */
	opcode_or_no_qp,
};

struct prediction {
	fate f = fate::unpredicted;
	int reason = 0; /* enum sroce_rx_reason, with fate::rx_err */
};

/* The hw counter name of rx_err reason r ("rx_err_icrc"). */
std::string rx_err_counter(int reason);

/* One datagram to send. */
struct datagram {
	int side = 0; /* the device it goes to */
	source src = source::peer;
	bool frag = false; /* longer than the MTU: sent without DF */
	bool stateful = false;
	prediction pred;
	std::vector<std::uint8_t> bytes; /* UDP payload: BTH to ICRC */
	const char *what = ""; /* the mutation that made it, for statistics */
};

/* IPv4 addresses as GIDs (::ffff:a.b.c.d), network order. */
using gid = std::array<std::uint8_t, 16>;

struct config {
	/* addr[s]: device s's address; alt[s]: another one on its side. */
	gid addr[sides]{};
	gid alt[sides]{};
	std::uint16_t sport = 4792; /* of every injecting socket */
	std::uint32_t pmtu = 1024; /* the victims' path MTU */
	std::uint32_t max_payload = 1400; /* fits the netdev MTU with DF */
	/* QPs the tool owns, per receiving device: stateful targets. */
	std::set<std::uint32_t> victims[sides];
	std::set<std::uint32_t> ud_victims[sides]; /* among them, UD */
	/*
	 * QPNs of QPs the tool created and destroyed, per device: none comes
	 * back before 2^24 QPs were created there (drivers/sroce/ident.c).
	 */
	std::vector<std::uint32_t> dead[sides];
	std::uint32_t ud_qkey = 0; /* of the UD victims */
	/* rkeys and addresses of the victims' regions */
	std::vector<std::uint32_t> rkeys;
	std::vector<std::uint64_t> vas;
	double stateful_share = 0.5;
};

constexpr std::uint32_t mcast_qpn = 0xffffff;
constexpr std::uint32_t gsi_qkey = 0x80010000;

/*
 * The ICRC a datagram needs when sent from src to side (sroce_net_build()
 * of the headers the kernel writes: DF, IPv4 ID 0, UDP ports), over the
 * len bytes of p but the last four.  len >= 16.
 */
std::uint32_t icrc_of(const config &c, int side, source src,
		      const std::uint8_t *p, std::size_t len);

/* Whether qpn is one of c.dead[side]: no QP of side's device has it. */
bool is_dead(const config &c, int side, std::uint32_t qpn);

/* The last four bytes of p hold the ICRC they need. */
bool icrc_good(const config &c, int side, source src,
	       std::span<const std::uint8_t> p);

/* The fate predicted for a finished datagram by the protocol core. */
prediction predict(const config &c, const datagram &g);

class generator {
public:
	generator(std::uint64_t seed, config c);

	/*
	 * A packet seen on the wire to device side (its UDP payload): kept
	 * in the corpus when the protocol core parses it, its QPN, PSN and
	 * keys learnt.
	 */
	void learn(int side, std::span<const std::uint8_t> payload);

	/* The next datagram. */
	datagram next();

	/* Packets in the corpus of side. */
	std::size_t corpus_size(int side) const { return corpus_[side].size(); }

	/* QPs seen in traffic to side that are not the tool's. */
	std::size_t foreign_qps(int side) const
	{
		return foreign_[side].size();
	}

	const config &cfg() const { return c_; }

	struct draft; /* a packet being made (mutate.cpp) */

private:
	std::uint32_t below(std::uint32_t n);
	bool chance(unsigned percent);
	std::uint32_t rkey();
	std::uint64_t va();
	std::uint32_t interesting_len(std::uint32_t max);
	std::uint32_t near_psn(int side, std::uint32_t qpn);
	std::uint32_t any_qpn(int side);
	std::uint32_t dead_qpn(int side); /* one of c_.dead[side], not empty */
	bool base_from_corpus(draft &d, bool victims_only, bool connected);
	void synthesize(draft &d, std::uint8_t opcode);
	void mutate_field(draft &d);
	void mutate_keep_shape(draft &d);
	datagram build(const draft &d);
	datagram stateful(int side);
	datagram must_drop(int side);
	datagram header_error(int side);
	datagram bad_icrc(int side);
	datagram not_peer(int side);
	bool is_victim(int side, std::uint32_t qpn) const;

	config c_;
	std::mt19937_64 rng_;
	std::deque<std::vector<std::uint8_t>> corpus_[sides];
	std::map<std::uint32_t, std::uint32_t> psn_[sides];
	std::set<std::uint32_t> foreign_[sides];
	std::vector<std::uint32_t> rkeys_;
	std::vector<std::uint64_t> vas_;
	std::vector<std::uint32_t> victim_list_[sides];
};

} /* namespace netfuzz */

#endif /* SROCE_TOOLS_NETFUZZ_MUTATE_H */
