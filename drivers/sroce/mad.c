// SPDX-License-Identifier: GPL-2.0
/*
 * mad.c - ops.process_mad: the MADs a sroce device answers itself.
 *
 * The MAD core offers every MAD received on QP1 here before any agent
 * sees it, and so does the core's sysfs, which asks the device's
 * performance manager agent (PMA) for the port counters of
 * ports/N/counters/ (get_perf_mad() in drivers/infiniband/core/sysfs.c)
 * of every device that has a process_mad.  Two kinds are answered here:
 * - the negotiation's class (ext.c, sroce_ext_process_mad());
 * - the PMA's ClassPortInfo, PortCounters and PortCountersExt, from the
 *   device's own counters (counters.c), for the kernel's sysfs only: a
 *   PMA query from the wire (wc set) goes on to the MAD core, which
 *   answers "unsupported" as for any class nobody registered.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "sroce.h"
#include "counters.h"
#include "ext.h"
#include "mad.h"

/* IBTA's 16- and 32-bit counters stop at their largest value, not wrap. */
static u64 sroce_pma_sat(u64 v, unsigned int bits)
{
	return min(v, (1ULL << bits) - 1);
}

/*
 * The counters of an IB link that a software device over Ethernet has no
 * events for (symbol errors, link recovery, VL15, constraint errors, ...)
 * read 0.  Data counters are in units of 4 octets of UDP payload, as the
 * PMA counts 4-octet words; receive errors are every datagram some check
 * refused (the rx_err_* counters).
 */
static void sroce_pma_counters(const u64 *sum, __be16 attr, u8 *data)
{
	u64 rx_errors = 0;
	int i;

	for (i = SROCE_CNT_RX_ERR; i < SROCE_CNT_TX_PACKETS; i++)
		rx_errors += sum[i];
	if (attr == IB_PMA_PORT_COUNTERS) {
		struct ib_pma_portcounters *pc = (void *)data;

		pc->port_rcv_errors = cpu_to_be16(sroce_pma_sat(rx_errors, 16));
		pc->port_xmit_data =
			cpu_to_be32(sroce_pma_sat(sum[SROCE_CNT_TX_BYTES] / 4, 32));
		pc->port_rcv_data =
			cpu_to_be32(sroce_pma_sat(sum[SROCE_CNT_RX_BYTES] / 4, 32));
		pc->port_xmit_packets =
			cpu_to_be32(sroce_pma_sat(sum[SROCE_CNT_TX_PACKETS], 32));
		pc->port_rcv_packets =
			cpu_to_be32(sroce_pma_sat(sum[SROCE_CNT_RX_PACKETS], 32));
	} else {
		struct ib_pma_portcounters_ext *pc = (void *)data;

		pc->port_xmit_data = cpu_to_be64(sum[SROCE_CNT_TX_BYTES] / 4);
		pc->port_rcv_data = cpu_to_be64(sum[SROCE_CNT_RX_BYTES] / 4);
		pc->port_xmit_packets = cpu_to_be64(sum[SROCE_CNT_TX_PACKETS]);
		pc->port_rcv_packets = cpu_to_be64(sum[SROCE_CNT_RX_PACKETS]);
	}
}

/*
 * A PMA Get from the kernel itself.  ClassPortInfo says "extended
 * counters, without the IETF unicast/multicast ones" (sroce does not
 * count multicast sends), which gives sysfs its table of 64-bit data and
 * packet counters.  Return: IB_MAD_RESULT_* flags.
 */
static int sroce_pma_get(struct sroce_dev *sdev, const struct ib_mad *in,
			 struct ib_mad *out, size_t *out_size)
{
	__be16 attr = in->mad_hdr.attr_id;
	u64 *sum;

	if (in->mad_hdr.method != IB_MGMT_METHOD_GET ||
	    *out_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;
	memset(out, 0, sizeof(*out));
	out->mad_hdr = in->mad_hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	if (attr == IB_PMA_CLASS_PORT_INFO) {
		struct ib_class_port_info *cpi = (void *)(out->data + 40);

		cpi->base_version = 1;
		cpi->class_version = 1;
		cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF;
	} else if (attr == IB_PMA_PORT_COUNTERS ||
		   attr == IB_PMA_PORT_COUNTERS_EXT) {
		sum = kcalloc(SROCE_CNT_NR, sizeof(*sum), GFP_KERNEL);
		if (!sum)
			return IB_MAD_RESULT_FAILURE;
		sroce_counters_sum(sdev, sum);
		/* The port the query selected: sroce has one. */
		out->data[41] = in->data[41];
		sroce_pma_counters(sum, attr, out->data + 40);
		kfree(sum);
	} else {
		return IB_MAD_RESULT_FAILURE;
	}
	*out_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/**
 * sroce_process_mad() - ops.process_mad
 *
 * Return: IB_MAD_RESULT_* flags; IB_MAD_RESULT_SUCCESS alone lets the MAD
 * core go on with a MAD as if there were no process_mad.
 */
int sroce_process_mad(struct ib_device *ibdev, int flags, u32 port,
		      const struct ib_wc *wc, const struct ib_grh *grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_size, u16 *out_pkey_index)
{
	if (!in || !out || !out_size)
		return IB_MAD_RESULT_SUCCESS;
	if (in->mad_hdr.mgmt_class == IB_MGMT_CLASS_PERF_MGMT) {
		if (wc)
			return IB_MAD_RESULT_SUCCESS;
		return sroce_pma_get(to_sdev(ibdev), in, out, out_size);
	}
	return sroce_ext_process_mad(ibdev, flags, port, wc, grh, in, out,
				     out_size, out_pkey_index);
}
