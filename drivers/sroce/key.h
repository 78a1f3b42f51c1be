/* SPDX-License-Identifier: GPL-2.0 */
/*
 * key.h - the key table of a device, shared by memory regions and memory
 * windows (key.c).
 */
#ifndef SROCE_KEY_H
#define SROCE_KEY_H

#include <linux/types.h>

struct ib_pd;
struct sroce_dev;
struct sroce_mr;
struct sroce_mw;

/* Tag of a memory window's entry in the key table (xa_tag_pointer()). */
#define SROCE_KEY_TAG_MW	1

void sroce_key_table_init(struct sroce_dev *sdev);
void sroce_key_table_destroy(struct sroce_dev *sdev);
int sroce_key_alloc(struct sroce_dev *sdev, u32 *key);
void sroce_key_publish(struct sroce_dev *sdev, u32 key, struct sroce_mr *mr,
		       struct sroce_mw *mw);
void sroce_key_erase(struct sroce_dev *sdev, u32 key);
struct sroce_mr *sroce_key_mr(struct sroce_dev *sdev, u32 key);
struct sroce_mw *sroce_key_mw(struct sroce_dev *sdev, u32 key);
struct sroce_mr *sroce_mr_lookup_local(struct sroce_dev *sdev, u32 lkey,
				       struct ib_pd *pd, int access, u64 va,
				       u64 len);
struct sroce_mr *sroce_mr_lookup_remote(struct sroce_dev *sdev, u32 rkey,
					struct ib_pd *pd, u32 qpn, int access,
					u64 va, u64 len);
int sroce_key_invalidate(struct sroce_dev *sdev, u32 key, struct ib_pd *pd,
			 u32 qpn);
int sroce_mr_remote_begin(struct sroce_dev *sdev, u32 rkey,
			  struct sroce_mr *mr, struct ib_pd *pd, u32 qpn,
			  int access, u64 va, u64 len)
	__acquires(&mr->inval_lock);
void sroce_mr_remote_end(struct sroce_mr *mr) __releases(&mr->inval_lock);

#endif /* SROCE_KEY_H */
