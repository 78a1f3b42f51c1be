# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A device's QPs (tests/nvme.sh, tests/scsi-rdma.sh, tests/nfs.sh, tests/rds.sh).
#
# Sourced by tests/lib.sh, like every file here.
#
# A kernel consumer's queues on the devices: listed by type, or counted
# against the count after set-up (the GSI QP) that qp_base records in
# $WORK/qp-base.

# rc_qps DEV_ERE: the RC QPs on the devices matching DEV_ERE.
rc_qps() {
	rdma resource show qp | grep -E "^link $1/" | grep ' type RC ' || true
}

# no_rc_qps DEV_ERE: no RC QP on a device matching DEV_ERE (the GSI QPs
# stay).
no_rc_qps() {
	[ -z "$(rc_qps "$1")" ]
}

# qp_count DEV: the QPs of DEV, kernel ones included (rdma resource
# show's summary).
qp_count() {
	rdma resource show "$1" | sed -nE 's/.* qp ([0-9]+) .*/\1/p'
}

# qp_base DEV: DEV's QP count now in $WORK/qp-base, the base of
# qps_settled and qps_above.
qp_base() {
	qp_count "$1" > "$WORK/qp-base"
	[ -n "$(< "$WORK/qp-base")" ] || fail "no QP count for $1"
}

# qps_settled DEV...: each DEV (if it exists) has no more QPs than it had
# after set-up (qp_base): no queue of a consumer left.
qps_settled() {
	local d
	for d in "$@"; do
		rdma_dev_exists "$d" || continue
		[ "$(qp_count "$d")" -le "$(< "$WORK/qp-base")" ] || return 1
	done
}

# qps_above DEV N: DEV has at least N QPs more than after set-up.
qps_above() {
	local n
	n=$(qp_count "$1")
	echo "$1: $n QPs ($(< "$WORK/qp-base") after set-up)"
	[ "$n" -ge $(($(< "$WORK/qp-base") + $2)) ] || fail "$1 has $n QPs, expected $2 more than $(< "$WORK/qp-base")"
}
