/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rc.h - reliable-transport arithmetic: AETH syndromes and credits, the
 * RNR NAK timer table, the local ACK timeout.
 */
#ifndef SROCE_PROTO_RC_H
#define SROCE_PROTO_RC_H

#include "compat.h"

/* AETH syndrome: bit 7 reserved, bits 6:5 type, bits 4:0 value */
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_VALUE_MASK	0x1f

enum sroce_aeth_type {
	SROCE_AETH_ACK		= 0x00,	/* value: credit count code */
	SROCE_AETH_RNR_NAK	= 0x20,	/* value: RNR timer code */
	SROCE_AETH_RESERVED	= 0x40,
	SROCE_AETH_NAK		= 0x60,	/* value: enum sroce_nak_code */
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REMOTE_ACCESS	= 2,
	SROCE_NAK_REMOTE_OP	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

/* Credit code 31: no end-to-end flow control (rxe always sends it) */
#define SROCE_AETH_CREDIT_INVALID	0x1f

static inline enum sroce_aeth_type sroce_aeth_type(u8 syndrome)
{
	return (enum sroce_aeth_type)(syndrome & SROCE_AETH_TYPE_MASK);
}

static inline u8 sroce_aeth_value(u8 syndrome)
{
	return syndrome & SROCE_AETH_VALUE_MASK;
}

static inline u8 sroce_aeth_syn_ack(u8 credit_code)
{
	return SROCE_AETH_ACK | (credit_code & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return SROCE_AETH_RNR_NAK | (timer_code & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return SROCE_AETH_NAK | (code & SROCE_AETH_VALUE_MASK);
}

/* Credits a credit code stands for; U32 max for code 31 (unlimited) */
u32 sroce_aeth_credits(u8 code);
/* Largest credit code whose credit count does not exceed n */
u8 sroce_aeth_credit_code(u32 n);

/* RNR NAK timer: code 0 is 655.36 ms, 1 is 0.01 ms ... 31 is 491.52 ms */
u32 sroce_rnr_timer_usec(u8 code);
/* Smallest code that waits at least usec (0, the longest, beyond 491.52 ms) */
u8 sroce_rnr_timer_code(u32 usec);

/* Local ACK timeout: 4.096 us * 2^timeout; timeout 0 disables it (0 ns). */
static inline u64 sroce_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return 4096ULL << (timeout > 31 ? 31 : timeout);
}

#endif /* SROCE_PROTO_RC_H */
