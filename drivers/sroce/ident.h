/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ident.h - the identifiers a peer names on the wire (QP numbers, the
 * index of memory keys, XRC SRQ numbers), drawn so that nobody can guess
 * one from the others (ident.c).
 */
#ifndef SROCE_IDENT_H
#define SROCE_IDENT_H

#include <linux/atomic.h>
#include <linux/siphash.h>
#include <linux/xarray.h>

/* Every identifier is 24 bits wide, as BTH's QPN and XRCETH's SRQN. */
#define SROCE_IDENT_MAX		0xffffff

/**
 * struct sroce_ident - the source of one kind of identifier of a device
 * @key: the secret of its permutation, random per device and kind; never
 *	leaves the kernel
 * @next: how many identifiers were drawn, the permutation's input; atomic
 * @min: the lowest identifier handed out (those below are reserved)
 */
struct sroce_ident {
	siphash_key_t key;
	atomic_t next;
	u32 min;
};

void sroce_ident_init(struct sroce_ident *id, u32 min);
int sroce_ident_alloc(struct sroce_ident *id, struct xarray *xa, u32 *out);

#endif /* SROCE_IDENT_H */
