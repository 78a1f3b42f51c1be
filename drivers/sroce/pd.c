// SPDX-License-Identifier: GPL-2.0
/*
 * pd.c - protection domains.
 *
 * A PD has no state of its own: it is the owner that QPs, MRs, MWs, AHs
 * and SRQs name.  The core allocates and frees its memory; the driver
 * only bounds how many exist (SROCE_MAX_PD, reported as max_pd).
 */
#include "sroce.h"

/**
 * sroce_pd_alloc() - ops.alloc_pd
 * @ibpd: zeroed by the core
 * @udata: user data; sroce defines none for PDs
 *
 * Return: 0, or -ENOMEM when the device already has SROCE_MAX_PD PDs.
 */
int sroce_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	if (!atomic_add_unless(&sdev->pd_count, 1, SROCE_MAX_PD))
		return -ENOMEM;
	return 0;
}

/**
 * sroce_pd_dealloc() - ops.dealloc_pd
 * @ibpd: a PD no object uses any more (the core checks)
 * @udata: user data, unused
 *
 * Return: 0.
 */
int sroce_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	atomic_dec(&sdev->pd_count);
	return 0;
}
