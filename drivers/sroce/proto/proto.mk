# SPDX-License-Identifier: GPL-2.0
# Objects of the protocol core, included by drivers/sroce/Kbuild.
# crc32_host.c is host-only (tests, fuzzers) and is not listed.
SROCE_PROTO_OBJS := proto/opcode.o proto/pkt.o proto/encap.o proto/icrc.o \
		    proto/rc.o proto/seg.o proto/wr.o \
		    proto/sack.o proto/sxh.o proto/replay.o
