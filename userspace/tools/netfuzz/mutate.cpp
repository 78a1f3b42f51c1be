// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
//
// mutate.cpp - the datagrams of sroce-netfuzz (mutate.h): packets of the
// corpus or made up from the opcode table, rebuilt field by field with the
// protocol core's builders, mutated, and their fate predicted by the
// protocol core's parser.
#include "mutate.h"

#include <algorithm>
#include <cstring>

extern "C" {
#include "sroce_proto.h"
}

namespace netfuzz {

namespace {

constexpr std::size_t corpus_max = 512;

// Valid opcodes of the table, and the ones it does not know.
struct opcode_lists {
	std::vector<std::uint8_t> valid, invalid;
	opcode_lists()
	{
		for (int op = 0; op < 256; op++)
			(sroce_opcode_valid(static_cast<u8>(op)) ? valid
								 : invalid)
				.push_back(static_cast<std::uint8_t>(op));
	}
};

const opcode_lists &opcodes()
{
	static const opcode_lists l;
	return l;
}

const sroce_opcode_info *info_of(std::uint8_t op)
{
	return sroce_opcode_lookup(op);
}

bool connected_opcode(std::uint8_t op)
{
	auto t = sroce_opcode_transport(op);
	return sroce_opcode_valid(op) &&
	       (t == SROCE_TRANSPORT_RC || t == SROCE_TRANSPORT_UC);
}

} // namespace

// A packet being made: its headers in host form, its payload, and what
// build() does to the bytes afterwards.
struct generator::draft {
	int side = 0;
	source src = source::peer;
	sroce_hdrs h{};
	std::vector<std::uint8_t> payload;
	bool stateful = false;
	const char *what = "";
};

std::string rx_err_counter(int reason)
{
	static const char *const names[] = {
		"",	   "truncated", "ip_version", "ip_hdr",	   "ip_len",
		"not_udp", "udp_port",	"udp_len",    "opcode",	   "tver",
		"pkey",	   "len",	"pad",	      "transport", "over_mtu",
		"seg_len", "icrc",	"sxh",	      "sxh_flags",
	};
	static_assert(sizeof(names) / sizeof(names[0]) == SROCE_RX_REASON_NR);
	if (reason <= 0 || reason >= SROCE_RX_REASON_NR)
		return "rx_err_?";
	return std::string("rx_err_") + names[reason];
}

std::uint32_t icrc_of(const config &c, int side, source src,
		      const std::uint8_t *p, std::size_t len)
{
	sroce_net net{};
	std::uint8_t hdr[SROCE_MAX_NET_HLEN];

	net.ipv6 = 0;
	net.ip_id = 0;
	std::memcpy(net.saddr,
		    (src == source::peer ? c.addr[1 - side] : c.alt[1 - side])
			    .data(),
		    16);
	std::memcpy(net.daddr, c.addr[side].data(), 16);
	net.sport = c.sport;
	net.dport = SROCE_UDP_PORT;
	sroce_net_build(hdr, &net, static_cast<u32>(len));
	return sroce_icrc_compute(hdr, false, hdr + SROCE_IPV4_HLEN, p,
				  static_cast<u32>(len - SROCE_ICRC_LEN));
}

bool is_dead(const config &c, int side, std::uint32_t qpn)
{
	const auto &d = c.dead[side];
	return std::find(d.begin(), d.end(), qpn) != d.end();
}

bool icrc_good(const config &c, int side, source src,
	       std::span<const std::uint8_t> p)
{
	if (p.size() < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return false;
	return sroce_icrc_get(p.data() + p.size() - SROCE_ICRC_LEN) ==
	       icrc_of(c, side, src, p.data(), p.size());
}

prediction predict(const config &c, const datagram &g)
{
	sroce_pkt pkt{};
	auto r = sroce_pkt_parse(&pkt, g.bytes.data(),
				 static_cast<u32>(g.bytes.size()),
				 SROCE_DEFAULT_PKEY);
	/*
	 * An extension opcode (sxh.h) to a QPN with no QP goes as to no QP;
	 * to a QP it is unknown, as no QP negotiates selective repeat
	 * (tests/netfuzz.sh: sroce.sr=0).  Whether another process's QPN
	 * still has a QP is not known.
	 */
	if (r == SROCE_RX_BAD_OPCODE &&
	    (sroce_opcode_lookup(g.bytes[0])->flags & SROCE_OPF_SXH)) {
		const std::uint32_t qpn =
			sroce_get_be32(g.bytes.data() + 4) & SROCE_QPN_MASK;

		if (is_dead(c, g.side, qpn))
			return {fate::no_qp, 0};
		if (!c.victims[g.side].count(qpn))
			return {fate::opcode_or_no_qp, 0};
	}
	if (r != SROCE_RX_OK)
		return {fate::rx_err, r};
	if (g.frag) // the kernel's IPv4 ID: the ICRC cannot be predicted
		return {};
	if (!icrc_good(c, g.side, g.src, g.bytes))
		return {fate::rx_err, SROCE_RX_BAD_ICRC};
	if (pkt.info->flags & SROCE_OPF_CNP)
		return {fate::cnp, 0};
	if (pkt.bth.dqpn == mcast_qpn) // to a unicast address
		return {fate::mcast_drop, 0};
	if (is_dead(c, g.side, pkt.bth.dqpn))
		return {fate::no_qp, 0};
	return {};
}

generator::generator(std::uint64_t seed, config c)
    : c_(std::move(c))
    , rng_(seed)
    , rkeys_(c_.rkeys)
    , vas_(c_.vas)
{
	for (int s = 0; s < sides; s++)
		victim_list_[s].assign(c_.victims[s].begin(),
				       c_.victims[s].end());
}

std::uint32_t generator::below(std::uint32_t n)
{
	return n ? static_cast<std::uint32_t>(rng_() % n) : 0;
}

bool generator::chance(unsigned percent)
{
	return below(100) < percent;
}

bool generator::is_victim(int side, std::uint32_t qpn) const
{
	return c_.victims[side].count(qpn) != 0;
}

void generator::learn(int side, std::span<const std::uint8_t> payload)
{
	sroce_pkt pkt{};
	sroce_hdrs h{};

	if (side < 0 || side >= sides ||
	    sroce_pkt_parse(&pkt, payload.data(),
			    static_cast<u32>(payload.size()),
			    SROCE_DEFAULT_PKEY) != SROCE_RX_OK)
		return;
	sroce_pkt_hdrs(&pkt, &h);
	auto &corpus = corpus_[side];
	if (corpus.size() < corpus_max)
		corpus.emplace_back(payload.begin(), payload.end());
	else
		corpus[below(corpus_max)].assign(payload.begin(),
						 payload.end());
	psn_[side][h.bth.dqpn] = (h.bth.psn + 1) & SROCE_PSN_MASK;
	if (!is_victim(side, h.bth.dqpn) && h.bth.dqpn != mcast_qpn)
		foreign_[side].insert(h.bth.dqpn);
	auto keep = [this](auto &v, auto x) {
		if (std::find(v.begin(), v.end(), x) != v.end())
			return;
		if (v.size() < 64)
			v.push_back(x);
		else
			v[below(64)] = x;
	};
	if (sroce_opcode_has(pkt.info, SROCE_HDR_RETH)) {
		keep(rkeys_, h.reth.rkey);
		keep(vas_, h.reth.va);
	}
	if (sroce_opcode_has(pkt.info, SROCE_HDR_ATMETH)) {
		keep(rkeys_, h.atmeth.rkey);
		keep(vas_, h.atmeth.va);
	}
	if (sroce_opcode_has(pkt.info, SROCE_HDR_IETH))
		keep(rkeys_, h.ieth_rkey);
}

std::uint32_t generator::rkey()
{
	if (!rkeys_.empty() && chance(80)) {
		std::uint32_t k = rkeys_[below(rkeys_.size())];
		if (chance(20)) // the same index, another key byte
			k = (k & ~0xffu) | below(256);
		return k;
	}
	return static_cast<std::uint32_t>(rng_());
}

std::uint64_t generator::va()
{
	if (!vas_.empty() && chance(80)) {
		std::uint64_t v = vas_[below(vas_.size())];
		switch (below(4)) {
		case 0:
			return v;
		case 1:
			return v + below(8192);
		case 2:
			return v - below(64);
		default:
			return v + (std::uint64_t{1} << below(40));
		}
	}
	static const std::uint64_t odd[] = {
		0, 1, 7, ~0ull, ~0ull - 7, 0x7fffffffffffull};
	if (chance(50))
		return odd[below(std::size(odd))];
	return rng_();
}

std::uint32_t generator::interesting_len(std::uint32_t max)
{
	static const std::uint32_t lens[] = {
		0, 1, 2, 3, 4, 7, 8, 63, 64, 255, 256, 1023, 1024, 1025,
	};
	if (chance(70)) {
		std::uint32_t l = lens[below(std::size(lens))];
		return std::min(l, max);
	}
	return below(max + 1);
}

std::uint32_t generator::near_psn(int side, std::uint32_t qpn)
{
	auto it = psn_[side].find(qpn);
	std::uint32_t e = it == psn_[side].end()
				  ? static_cast<std::uint32_t>(rng_())
				  : it->second;
	static const std::int32_t deltas[] = {
		0, 0, 0, 1, -1, 2, -2, 0x10, -0x10, 0x400000, -0x400000};
	std::int32_t d = chance(10) ? static_cast<std::int32_t>(rng_())
				    : deltas[below(std::size(deltas))];
	return (e + static_cast<std::uint32_t>(d)) & SROCE_PSN_MASK;
}

std::uint32_t generator::dead_qpn(int side)
{
	const auto &d = c_.dead[side];
	return d[below(static_cast<std::uint32_t>(d.size()))];
}

std::uint32_t generator::any_qpn(int side)
{
	const auto &f = foreign_[side];
	switch (below(4)) {
	case 0:
		if (!f.empty()) {
			auto it = f.begin();
			std::advance(it, below(f.size()));
			return *it;
		}
		[[fallthrough]];
	case 1:
		if (!victim_list_[side].empty())
			return victim_list_[side]
					   [below(victim_list_[side].size())];
		[[fallthrough]];
	case 2:
		if (!c_.dead[side].empty())
			return dead_qpn(side);
		[[fallthrough]];
	default:
		return below(64);
	}
}

// A corpus packet of d.side as d's headers and payload; to a victim with
// victims_only, to a connected QP (RC or UC opcode) with connected.
bool generator::base_from_corpus(draft &d, bool victims_only, bool connected)
{
	const auto &corpus = corpus_[d.side];
	for (int tries = 0; tries < 16 && !corpus.empty(); tries++) {
		const auto &p = corpus[below(corpus.size())];
		sroce_pkt pkt{};
		if (sroce_pkt_parse(&pkt, p.data(), static_cast<u32>(p.size()),
				    SROCE_DEFAULT_PKEY) != SROCE_RX_OK)
			continue;
		if (victims_only && !is_victim(d.side, pkt.bth.dqpn))
			continue;
		if (connected && !connected_opcode(pkt.bth.opcode))
			continue;
		d.h = sroce_hdrs{};
		sroce_pkt_hdrs(&pkt, &d.h);
		const auto *pl = sroce_pkt_payload(&pkt);
		d.payload.assign(pl, pl + pkt.paylen);
		return true;
	}
	return false;
}

// A packet of the opcode made up: headers from what was learnt.
void generator::synthesize(draft &d, std::uint8_t opcode)
{
	const auto *info = info_of(opcode);
	std::uint32_t qpn = d.h.bth.dqpn;

	d.h = sroce_hdrs{};
	d.h.bth.opcode = opcode;
	d.h.bth.pkey = SROCE_DEFAULT_PKEY;
	d.h.bth.dqpn = qpn;
	d.h.bth.psn = near_psn(d.side, qpn);
	d.h.bth.flags = chance(50) ? SROCE_BTHF_ACKREQ : 0;
	d.h.deth.qkey = chance(80) ? c_.ud_qkey : gsi_qkey;
	d.h.deth.sqpn = below(64);
	d.h.reth.va = va();
	d.h.reth.rkey = rkey();
	d.h.reth.len = interesting_len(1u << 16);
	d.h.atmeth.va = va() & (chance(80) ? ~7ull : ~0ull);
	d.h.atmeth.rkey = rkey();
	d.h.atmeth.swap_add = rng_();
	d.h.atmeth.compare = rng_();
	d.h.aeth.syndrome = static_cast<std::uint8_t>(rng_());
	d.h.aeth.msn = below(1u << 24);
	d.h.atmack = rng_();
	d.h.imm = static_cast<std::uint32_t>(rng_());
	d.h.ieth_rkey = rkey();
	d.payload.clear();
	if (info->flags & SROCE_OPF_PAYLOAD) {
		std::uint32_t max = std::min(c_.pmtu, c_.max_payload - 64);
		d.payload.resize(
			info->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE) &&
					!((info->flags & SROCE_OPF_ONLY) ==
					  SROCE_OPF_ONLY) &&
					chance(70)
				? c_.pmtu
				: interesting_len(max));
		for (auto &b : d.payload)
			b = static_cast<std::uint8_t>(rng_());
	}
}

// One field of d changed, with the rest of the packet kept.
void generator::mutate_field(draft &d)
{
	auto &h = d.h;
	const auto &valid = opcodes().valid;
	switch (below(12)) {
	case 0: { // opcode, often of the same transport
		std::uint8_t op = valid[below(valid.size())];
		if (chance(60)) {
			for (int t = 0; t < 8; t++) {
				op = valid[below(valid.size())];
				if (sroce_opcode_transport(op) ==
				    sroce_opcode_transport(h.bth.opcode))
					break;
			}
		}
		h.bth.opcode = op;
		d.what = "opcode";
		break;
	}
	case 1:
	case 2:
		h.bth.psn = near_psn(d.side, h.bth.dqpn);
		d.what = "psn";
		break;
	case 3:
		h.bth.flags =
			static_cast<std::uint8_t>(rng_()) &
			(SROCE_BTHF_SE | SROCE_BTHF_MIG | SROCE_BTHF_FECN |
			 SROCE_BTHF_BECN | SROCE_BTHF_ACKREQ);
		d.what = "flags";
		break;
	case 4: // payload length, up to beyond the path MTU
		d.payload.resize(interesting_len(c_.max_payload - 64));
		d.what = "length";
		break;
	case 5:
		h.reth.va = va();
		h.reth.rkey = rkey();
		h.reth.len = chance(50) ? interesting_len(1u << 16)
					: static_cast<std::uint32_t>(rng_());
		d.what = "reth";
		break;
	case 6: { // AETH: ACK, RNR NAK, NAK codes, reserved
		static const std::uint8_t syn[] = {0x00, 0x1f, 0x20, 0x3f,
						   0x60, 0x61, 0x62, 0x63,
						   0x64, 0x65, 0x40, 0xe0};
		h.aeth.syndrome = chance(70)
					  ? syn[below(std::size(syn))]
					  : static_cast<std::uint8_t>(rng_());
		h.aeth.msn = chance(50) ? below(16) : below(1u << 24);
		d.what = "aeth";
		break;
	}
	case 7:
		h.atmeth.va = va() & (chance(70) ? ~7ull : ~0ull);
		h.atmeth.rkey = rkey();
		h.atmeth.swap_add = rng_();
		h.atmeth.compare = rng_();
		d.what = "atomiceth";
		break;
	case 8:
		h.deth.qkey = chance(50) ? c_.ud_qkey
					 : static_cast<std::uint32_t>(rng_());
		h.deth.sqpn = below(1u << 24);
		d.what = "deth";
		break;
	case 9:
		h.ieth_rkey = rkey();
		h.imm = static_cast<std::uint32_t>(rng_());
		d.what = "ieth";
		break;
	case 10: // pad count: a pad the payload holds, or one it does not
		h.bth.pad = static_cast<std::uint8_t>(below(4));
		d.what = "pad";
		break;
	default:
		synthesize(d, valid[below(valid.size())]);
		d.what = "synthesized";
		break;
	}
}

// Fields changed that neither the parser nor the QP's checks look at:
// the packet keeps its opcode, length and pad.
void generator::mutate_keep_shape(draft &d)
{
	d.h.bth.psn = near_psn(d.side, d.h.bth.dqpn);
	d.h.reth.va = va();
	d.h.reth.rkey = rkey();
	d.h.atmeth.va = va();
	d.h.atmeth.rkey = rkey();
	d.h.aeth.syndrome = static_cast<std::uint8_t>(rng_());
	d.h.ieth_rkey = rkey();
	for (auto &b : d.payload)
		if (chance(10))
			b = static_cast<std::uint8_t>(rng_());
}

// The datagram of d: headers, payload, pad (d.h.bth.pad if set, else what
// the payload needs) and a good ICRC.
datagram generator::build(const draft &d)
{
	datagram g;
	sroce_hdrs h = d.h;
	std::uint8_t hdr[SROCE_MAX_HDR_LEN];

	g.side = d.side;
	g.src = d.src;
	g.stateful = d.stateful;
	g.what = d.what;
	if (!h.bth.pad)
		h.bth.pad = sroce_pad_len(static_cast<u32>(d.payload.size()));
	u32 hl = sroce_hdrs_build(hdr, sizeof(hdr), &h);
	g.bytes.assign(hdr, hdr + hl);
	g.bytes.insert(g.bytes.end(), d.payload.begin(), d.payload.end());
	g.bytes.resize(g.bytes.size() + h.bth.pad, 0);
	g.bytes.resize(g.bytes.size() + SROCE_ICRC_LEN);
	if (g.bytes.size() >= SROCE_BTH_LEN + SROCE_ICRC_LEN)
		sroce_icrc_put(g.bytes.data() + g.bytes.size() - SROCE_ICRC_LEN,
			       icrc_of(c_, g.side, g.src, g.bytes.data(),
				       g.bytes.size()));
	g.frag = g.bytes.size() > c_.max_payload;
	return g;
}

// To a victim, from the peer, good ICRC: into the QP's state machine.
// What the parser rejects after all is a must-drop with its reason.
datagram generator::stateful(int side)
{
	draft d;
	d.side = side;
	d.stateful = true;
	const auto &v = victim_list_[side];
	std::uint32_t qpn = v[below(v.size())];
	if (!base_from_corpus(d, true, false)) {
		d.h.bth.dqpn = qpn;
		const auto &valid = opcodes().valid;
		synthesize(d, valid[below(valid.size())]);
		d.what = "synthesized";
	}
	if (chance(30))
		d.h.bth.dqpn = qpn;
	for (unsigned n = 1 + below(3); n; n--)
		mutate_field(d);
	if (d.h.bth.pad) // keep a pad mutation only now and then
		d.h.bth.pad = chance(20) ? d.h.bth.pad : 0;
	datagram g = build(d);
	g.pred = predict(c_, g);
	if (g.pred.f != fate::unpredicted)
		g.stateful = false;
	return g;
}

// A header the parser rejects, to any QP.
datagram generator::header_error(int side)
{
	draft d;
	d.side = side;
	d.src = chance(80) ? source::peer : source::alt;
	d.h.bth.dqpn = any_qpn(side);
	if (!base_from_corpus(d, false, false)) {
		const auto &valid = opcodes().valid;
		synthesize(d, valid[below(valid.size())]);
	}
	datagram g = build(d);
	auto &b = g.bytes;
	switch (below(8)) {
	case 0:
		b[1] = static_cast<std::uint8_t>((b[1] & ~SROCE_BTH_TVER_MASK) |
						 (1 + below(15)));
		g.what = "tver";
		break;
	case 1: { // P_Key: limited, another partition, zero
		static const std::uint16_t keys[] = {0x7fff, 0x0000, 0x8000,
						     0x1234, 0x8001};
		std::uint16_t k = keys[below(std::size(keys))];
		b[2] = static_cast<std::uint8_t>(k >> 8);
		b[3] = static_cast<std::uint8_t>(k);
		g.what = "pkey";
		break;
	}
	case 2: {
		const auto &inv = opcodes().invalid;
		b[0] = inv[below(inv.size())];
		g.what = "bad-opcode";
		break;
	}
	case 3:
		b.resize(below(static_cast<std::uint32_t>(b.size())));
		g.what = "truncated";
		break;
	case 4:
		b.resize(b.size() + 1 + below(3));
		g.what = "unaligned";
		break;
	case 5: // pad beyond the payload
		b[1] = static_cast<std::uint8_t>(b[1] | SROCE_BTH_PAD_MASK);
		g.what = "pad";
		break;
	case 6: // payload on an opcode that has none, or oversized
		b.resize(b.size() + 4 * (1 + below(4)));
		g.what = "extra-payload";
		break;
	default: // beyond the largest path MTU: sent in IP fragments
		b.resize(b.size() + SROCE_MAX_PMTU + 4 * (1 + below(1024)));
		g.what = "oversized";
		break;
	}
	g.frag = b.size() > c_.max_payload;
	g.pred = predict(c_, g);
	if (g.pred.f == fate::unpredicted) { // the mutation did not break it
		if (g.frag)
			b.resize(SROCE_BTH_LEN - 1);
		else if (b.size() >= SROCE_BTH_LEN + SROCE_ICRC_LEN)
			b.back() ^= 0x80;
		else
			b.clear();
		g.frag = false;
		g.pred = predict(c_, g);
	}
	return g;
}

// A parseable packet to any QP, one bit flipped after its ICRC was made.
datagram generator::bad_icrc(int side)
{
	draft d;
	d.side = side;
	d.src = chance(80) ? source::peer : source::alt;
	d.h.bth.dqpn = any_qpn(side);
	if (!base_from_corpus(d, false, false) || chance(30)) {
		const auto &valid = opcodes().valid;
		synthesize(d, valid[below(valid.size())]);
	}
	d.what = "bad-icrc";
	datagram g = build(d);
	// Any byte the ICRC covers and the parser ignores: from the PSN on,
	// or the QPN, but not byte 4 (FECN, BECN, reserved: masked).
	std::size_t n = g.bytes.size();
	std::size_t pos =
		chance(50) ? n - 1 - below(4)
			   : 5 + below(static_cast<std::uint32_t>(n - 5));
	g.bytes[pos] ^= static_cast<std::uint8_t>(1u << below(8));
	g.pred = predict(c_, g);
	return g;
}

// A captured packet to a connected QP, from an address that is not its
// peer, changed in everything but its shape, with a good ICRC.
datagram generator::not_peer(int side)
{
	draft d;
	d.side = side;
	d.src = source::alt;
	if (!base_from_corpus(d, false, true))
		return bad_icrc(side);
	mutate_keep_shape(d);
	d.what = "not-peer";
	datagram g = build(d);
	g.pred = predict(c_, g);
	if (g.pred.f == fate::unpredicted)
		g.pred.f = fate::qp_drop;
	return g;
}

datagram generator::must_drop(int side)
{
	draft d;
	d.side = side;
	const auto &valid = opcodes().valid;
	switch (below(6)) {
	case 0:
		return header_error(side);
	case 1:
		return bad_icrc(side);
	case 2: // to a QP nobody holds
		if (c_.dead[side].empty())
			return not_peer(side);
		d.h.bth.dqpn = dead_qpn(side);
		if (!base_from_corpus(d, false, false))
			synthesize(d, valid[below(valid.size())]);
		d.h.bth.dqpn = dead_qpn(side);
		mutate_field(d);
		d.what = "no-qp";
		break;
	case 3: // a congestion notification, to any QP
		d.h.bth.dqpn = any_qpn(side);
		synthesize(d, SROCE_OP_CNP);
		d.what = "cnp";
		break;
	case 4: // the multicast QPN to a unicast address
		d.h.bth.dqpn = mcast_qpn;
		synthesize(d, chance(70) ? std::uint8_t{SROCE_OP_UD_SEND_ONLY}
					 : valid[below(valid.size())]);
		d.h.bth.dqpn = mcast_qpn;
		d.what = "mcast-qpn";
		break;
	default:
		return not_peer(side);
	}
	if (d.h.bth.opcode == SROCE_OP_CNP && is_dead(c_, side, d.h.bth.dqpn))
		d.what = "cnp";
	datagram g = build(d);
	g.pred = predict(c_, g);
	if (g.pred.f == fate::unpredicted) // mutated off the dead QPN
		g.bytes.back() ^= 1, g.pred = predict(c_, g);
	return g;
}

datagram generator::next()
{
	int side = static_cast<int>(below(sides));
	std::uniform_real_distribution<double> u(0.0, 1.0);
	if (!victim_list_[side].empty() && u(rng_) < c_.stateful_share)
		return stateful(side);
	return must_drop(side);
}

} // namespace netfuzz
