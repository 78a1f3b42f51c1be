/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RoCEv2 protocol core of sroce, in one include: wire format, opcode
 * table, packet parse/validate/build, IP/UDP encapsulation, ICRC, PSN and
 * reliable-transport arithmetic.  Pure C over byte buffers and plain
 * structs: no allocation, no locking, no skb.  See compat.h for how the
 * same sources build into the module and into host tests.
 */
#ifndef SROCE_PROTO_H
#define SROCE_PROTO_H

#include "wire.h"
#include "opcode.h"
#include "pkt.h"
#include "encap.h"
#include "icrc.h"
#include "psn.h"
#include "rc.h"
#include "seg.h"
#include "wr.h"
#include "sack.h"
#include "sxh.h"
#include "replay.h"

#endif /* SROCE_PROTO_H */
