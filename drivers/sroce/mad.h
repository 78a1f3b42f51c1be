/* SPDX-License-Identifier: GPL-2.0 */
/* mad.h - ops.process_mad: the MADs a sroce device answers itself */
#ifndef SROCE_MAD_H
#define SROCE_MAD_H

#include <rdma/ib_verbs.h>

int sroce_process_mad(struct ib_device *ibdev, int flags, u32 port,
		      const struct ib_wc *wc, const struct ib_grh *grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_size, u16 *out_pkey_index);

#endif /* SROCE_MAD_H */
