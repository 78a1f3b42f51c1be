// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * seg.c - path MTUs and the segmentation of messages (see seg.h).
 */
#include "seg.h"

enum sroce_mtu sroce_mtu_from_netdev(u32 ndev_mtu)
{
	enum sroce_mtu mtu;
	u32 room;

	if (ndev_mtu < SROCE_MAX_WIRE_OVERHEAD + 256)
		return 0;
	room = ndev_mtu - SROCE_MAX_WIRE_OVERHEAD;
	for (mtu = SROCE_MTU_4096; mtu > SROCE_MTU_256; mtu--)
		if (sroce_mtu_bytes(mtu) <= room)
			break;
	return mtu;
}

int sroce_seg_at(enum sroce_transport t, enum sroce_msg_op op, u32 msg_len,
		 u32 pmtu, u32 offset, struct sroce_seg *seg)
{
	enum sroce_seg_pos pos;
	u32 left;
	int opcode;

	if (!pmtu || offset % pmtu || (offset && offset >= msg_len))
		return -1;
	left = msg_len - offset;
	if (left <= pmtu)
		pos = offset ? SROCE_SEG_LAST : SROCE_SEG_ONLY;
	else
		pos = offset ? SROCE_SEG_MIDDLE : SROCE_SEG_FIRST;
	opcode = sroce_msg_opcode(t, op, pos);
	if (opcode < 0)
		return -1;
	seg->opcode = (u8)opcode;
	seg->paylen = left < pmtu ? left : pmtu;
	seg->pad = sroce_pad_len(seg->paylen);
	seg->last = pos == SROCE_SEG_LAST || pos == SROCE_SEG_ONLY;
	return 0;
}
