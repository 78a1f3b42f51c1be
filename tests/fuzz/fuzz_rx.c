// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libFuzzer target over the receive side of the protocol core.
 *
 * Each input is tried as a whole IP packet and as a bare UDP payload
 * (BTH first), each with extensions not agreed and agreed: not agreed, an
 * extension opcode is always unknown; agreed, whatever parsed before
 * parses the same.  A packet whose headers are valid (extensions agreed)
 * gets its ICRC repaired so that the paths behind the ICRC check are
 * reached too, and then has to satisfy the core's invariants: it parses,
 * the QP checks and header accessors stay inside it, rebuilding it from
 * the parsed fields gives a packet that parses to the same fields, and a
 * SACK it carries leaves a sender's scoreboard consistent.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sroce_proto.h"

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", \
				#cond, __FILE__, __LINE__);		\
			abort();					\
		}							\
	} while (0)

static volatile u32 sroce_fuzz_sink;

/* The SXH flags an agreed QP accepts: all this version knows */
#define SROCE_FUZZ_EXT	SROCE_SXH_KNOWN

/*
 * A SACK given to a scoreboard of a sender that sent some PSNs: refused
 * whole, or una moves forward within what was sent, and every lost PSN
 * is one sent and not acknowledged.
 */
static void sroce_fuzz_sack(const struct sroce_pkt *pkt,
			    const struct sroce_sack *sack)
{
	struct sroce_sb sb, before;
	u32 n = pkt->bth.dqpn % (SROCE_SB_MAX_FLIGHT + 1), psn, i;

	sroce_sb_init(&sb, pkt->bth.psn);
	for (i = 0; i < n; i++)
		CHECK(sroce_sb_send(&sb, &psn));
	before = sb;
	if (sroce_sb_apply(&sb, sack) != SROCE_SB_APPLIED) {
		CHECK(memcmp(&sb, &before, sizeof(sb)) == 0);
		return;
	}
	CHECK(sb.next == before.next && sb.una == sack->epsn);
	CHECK(sroce_sb_in_flight(&sb) <= sroce_sb_in_flight(&before));
	psn = sb.una;
	while (sroce_sb_next_lost(&sb, psn, &psn)) {
		CHECK(sroce_psn_in_range(psn, sb.una, sroce_sb_in_flight(&sb)));
		CHECK(!sroce_sb_acked(&sb, psn));
		psn = sroce_psn_add(psn, 1);
	}
}

/* Touch every byte the parser says belongs to the packet. */
static void sroce_fuzz_use(const struct sroce_pkt *pkt)
{
	static const enum sroce_transport qpts[] = {
		SROCE_TRANSPORT_RC, SROCE_TRANSPORT_UC, SROCE_TRANSPORT_UD,
	};
	struct sroce_hdrs h;
	const u8 *p;
	u32 i, sum = 0;
	int h_i;

	memset(&h, 0, sizeof(h));
	sroce_pkt_hdrs(pkt, &h);
	for (h_i = 0; h_i < SROCE_HDR_NR; h_i++) {
		p = sroce_pkt_ext(pkt, (enum sroce_hdr)h_i);
		if (p)
			sum += p[sroce_hdr_len((enum sroce_hdr)h_i) - 1];
	}
	for (i = 0; i < 3; i++)
		for (u32 mtu = 256; mtu <= 4096; mtu <<= 1)
			sum += sroce_pkt_check_qp(pkt, qpts[i], mtu);
	if (sroce_opcode_has(pkt->info, SROCE_HDR_SXH) &&
	    (h.sxh.flags & SROCE_SXH_SACK))
		sroce_fuzz_sack(pkt, &h.sxh.sack);
	p = sroce_pkt_payload(pkt);
	CHECK(p + pkt->paylen + pkt->bth.pad + SROCE_ICRC_LEN ==
	      pkt->hdr + pkt->len);
	for (i = 0; i < pkt->paylen + pkt->bth.pad + SROCE_ICRC_LEN; i++)
		sum += p[i];
	sroce_fuzz_sink = sum + h.bth.psn;
}

static void sroce_fuzz_rebuild(const struct sroce_net *net,
			       const struct sroce_pkt *pkt)
{
	static u8 out[SROCE_MAX_NET_HLEN + SROCE_MAX_EXT_HDR_LEN + 65536];
	struct sroce_hdrs h, h2;
	struct sroce_net net2;
	struct sroce_pkt pkt2;
	u32 n;

	memset(&h, 0, sizeof(h));
	sroce_pkt_hdrs(pkt, &h);
	n = sroce_frame_build(out, sizeof(out), net, &h,
			      sroce_pkt_payload(pkt), pkt->paylen);
	CHECK(n == sroce_net_hlen(net) + pkt->len);
	CHECK(sroce_frame_parse_ext(out, n, SROCE_DEFAULT_PKEY, SROCE_FUZZ_EXT,
				    &net2, &pkt2) == SROCE_RX_OK);
	memset(&h2, 0, sizeof(h2));
	sroce_pkt_hdrs(&pkt2, &h2);
	CHECK(h.bth.opcode == h2.bth.opcode && h.bth.flags == h2.bth.flags &&
	      h.bth.pad == h2.bth.pad && h.bth.pkey == h2.bth.pkey &&
	      h.bth.dqpn == h2.bth.dqpn && h.bth.psn == h2.bth.psn &&
	      h.bth.pad == pkt->bth.pad);
	CHECK(pkt2.info == pkt->info && pkt2.paylen == pkt->paylen &&
	      pkt2.hdr_len == pkt->hdr_len);
	CHECK(memcmp(&h.sxh, &h2.sxh, sizeof(h.sxh)) == 0);
	CHECK(memcmp(sroce_pkt_payload(&pkt2), sroce_pkt_payload(pkt),
		     pkt->paylen) == 0);
	CHECK(net2.ipv6 == net->ipv6 && net2.sport == net->sport &&
	      memcmp(net2.saddr, net->saddr, 16) == 0 &&
	      memcmp(net2.daddr, net->daddr, 16) == 0);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/*
 * The input as a bare UDP payload, extensions agreed or not, with the
 * P_Key from its first byte.
 */
static void sroce_fuzz_bare(const u8 *data, u32 len)
{
	u16 pkey = (u16)(len ? data[0] << 8 : 0);
	enum sroce_rx_reason r0, rx;
	struct sroce_pkt pkt0, pkt;

	r0 = sroce_pkt_parse(&pkt0, data, len, pkey);
	rx = sroce_pkt_parse_ext(&pkt, data, len, pkey, SROCE_FUZZ_EXT);
	if (len >= SROCE_BTH_LEN + SROCE_ICRC_LEN &&
	    (sroce_opcode_lookup(data[0])->flags & SROCE_OPF_SXH))
		CHECK(r0 == SROCE_RX_BAD_OPCODE);
	if (r0 == SROCE_RX_OK)
		CHECK(rx == SROCE_RX_OK && pkt.info == pkt0.info &&
		      pkt.hdr_len == pkt0.hdr_len && pkt.paylen == pkt0.paylen);
	if (rx == SROCE_RX_OK) {
		CHECK(pkt.len == len);
		sroce_fuzz_use(&pkt);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_net net;
	struct sroce_pkt pkt;
	enum sroce_rx_reason r;
	u32 len = size > 0x20000 ? 0x20000 : (u32)size;
	u32 udp_paylen, nhl;
	u8 *copy;

	/* the packet as it came, ICRC and all, extensions not agreed */
	r = sroce_frame_parse(data, len, SROCE_DEFAULT_PKEY, &net, &pkt);
	CHECK(r < SROCE_RX_REASON_NR);
	if (r == SROCE_RX_OK) {
		CHECK(!(pkt.info->flags & SROCE_OPF_SXH));
		sroce_fuzz_use(&pkt);
	}
	sroce_fuzz_bare(data, len);

	/* valid headers: repair the ICRC, then everything must hold */
	if (sroce_net_parse(data, len, &net, &udp_paylen) != SROCE_RX_OK)
		return 0;
	nhl = sroce_net_hlen(&net);
	if (sroce_pkt_parse_ext(&pkt, data + nhl, udp_paylen,
				SROCE_DEFAULT_PKEY, SROCE_FUZZ_EXT) !=
	    SROCE_RX_OK)
		return 0;
	copy = malloc(len);
	if (!copy)
		return 0;
	memcpy(copy, data, len);
	sroce_icrc_put(copy + nhl + sroce_pkt_icrc_off(&pkt),
		       sroce_icrc_compute(copy, net.ipv6, copy + nhl - 8,
					  copy + nhl, sroce_pkt_icrc_off(&pkt)));
	CHECK(sroce_frame_parse_ext(copy, len, SROCE_DEFAULT_PKEY,
				    SROCE_FUZZ_EXT, &net, &pkt) == SROCE_RX_OK);
	sroce_fuzz_use(&pkt);
	sroce_fuzz_rebuild(&net, &pkt);
	free(copy);
	return 0;
}
