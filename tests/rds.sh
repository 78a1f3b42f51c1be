#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over RDMA (the kernel's rds and rds_rdma: the RDS/IB transport) over
# sroce, with sroce-rdstest (Debian 12 has no rds-tools: no rds-stress, no
# rds-ping).  RDS/IB of 6.1 is not namespace-aware (its RDMA CM IDs are
# created in init_net, and it refuses sockets of any other namespace), so
# everything runs in init_net, as in tests/loopback.sh: two devices on the
# two ends of a veth, and one device talking to a second address of its
# own netdev (through lo).
#
#   init_net
#   +---------------------------------------------------------------+
#   | sroce0 on v0 10.97.1.1/24, 10.97.1.11/24  <--veth-->          |
#   |                                 sroce1 on v1 10.97.1.2/24      |
#   | (accept_local=1, rp_filter=0: the veth carries packets between |
#   |  two addresses of this host)                                   |
#   +---------------------------------------------------------------+
#
# Each check of sroce-rdstest opens an RDS socket on each address, both on
# the RDS/IB transport (SO_RDS_TRANSPORT, read back after bind): "send"
# (messages of 1 B to 1 MiB each way, fragmented and reassembled by RDS/IB,
# every byte, the order and the sender checked), "rdma-write" and
# "rdma-read" (fast registrations through RDS_CMSG_RDMA_MAP, the cookie
# carried to the peer as RDS_CMSG_RDMA_DEST, RDMA WRITE and READ through
# RDS_CMSG_RDMA_ARGS with a notification, RDS_FREE_MR with invalidation;
# every byte and the guard bytes around each region checked).  Not
# RDS_GET_MR: 6.1's RDS/IB registers only on a connection's QP, and that
# setsockopt names none, so it fails with EOPNOTSUPP on every device
# (Documentation/ulp.md); the tool notes what it answers.  Then the
# counters show the traffic went through the sroce devices, RDS/IB's
# connections are torn down by `rmmod rds_rdma`, and `rdma link delete`
# and `rmmod sroce` are clean.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

# veth_cleanup deletes $NS: no namespace here.
# shellcheck disable=SC2034
NS=unused-$$
WORK=$(mktemp -d)
IP0=10.97.1.1
IP0B=10.97.1.11
IP1=10.97.1.2
TOOLS=$SROCE_REPO/build/userspace/tools
RDSTEST=$TOOLS/sroce-rdstest

cleanup() {
	modprobe -r rds_rdma 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

test_setup() {
	modprobe -a rds rds_rdma
	# The provider for ibv_devinfo (has_gid), not for RDS: the kernel's
	# own.
	sroce_local_pair "$IP0" "$IP1"
	ip addr add "$IP0B/24" dev v0
	wait_for 10 has_gid sroce0 "::ffff:$IP0B"
	hw_snapshot sroce0 sroce1 > "$WORK/snap"
}

# rdstest A B CHECK: one check of sroce-rdstest between addresses A and B,
# its KTAP the case's subtests; RDS/IB's connection between them carried
# it on RC QPs of the sroce devices.
rdstest() {
	ktap_tool timeout $((300 * SROCE_TIMEOUT_SCALE)) "$RDSTEST" "$1" "$2" "$3" 64
	rc_qps 'sroce[01]'
	[ -n "$(rc_qps 'sroce[01]')" ] || fail "no RC QP of RDS/IB on a sroce device"
}

test_two_devices() { rdstest "$IP0" "$IP1" all; }
test_one_device() { rdstest "$IP0" "$IP0B" all; }

test_counters() {
	local snap
	snap=$(< "$WORK/snap")
	hw_moved "$snap"
	# send: 64 messages each way, 1 MiB among every 9; rdma: 64 transfers
	# of 4 KiB to 1 MiB each way; across the veth and on sroce0 alone.
	hw_at_least "$snap" sroce1 rx_bytes $((8 << 20))
	hw_at_least "$snap" sroce0 rx_bytes $((16 << 20))
	hw_no_rx_errors sroce0 sroce1
	hw_fates_add_up sroce0 sroce1
	grep -qx 'rx_no_dev 0' /proc/net/sroce || fail "datagrams went unclaimed"
}

# rmmod rds_rdma closes RDS/IB's connections and frees its MR pools; then
# nothing of it is left on the devices, which go cleanly.
test_teardown() {
	modprobe -r rds_rdma
	! grep -q '^rds_rdma ' <<< "$(lsmod)" || fail "rds_rdma still loaded"
	wait_for 30 no_rc_qps 'sroce[01]' || { rc_qps 'sroce[01]'; fail "RC QPs left"; }
	no_user_objects 'sroce[01]' qp cq mr pd
	rdma_links_delete sroce1 sroce0
	sroce_rmmod
}

cases() {
	run_setup "set-up: rds_rdma; sroce0 and sroce1 on a veth in init_net" test_setup
	run_test "RDS/IB between sroce0 and sroce1: messages, RDMA WRITE and READ verified" test_two_devices
	run_test "RDS/IB between two addresses of sroce0 (loopback): messages, RDMA WRITE and READ verified" test_one_device
	run_test "the traffic crossed the sroce devices; no receive error, none unclaimed" test_counters
	run_test "rmmod rds_rdma closes its connections; rdma link delete and rmmod clean" test_teardown
}
ktap_run cases
