#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Raw packet QPs and flow steering: Ethernet frames sent by raw QPs,
# received through flows, on one device and across a veth.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0                 |            | sroce1                 |
#   |   v0 10.93.23.1/24     |----veth----|   v1 10.93.23.2/24     |
#   | raw QPs: both ends of  |            | a raw QP with a flow   |
#   | "loop", senders        |            |                        |
#   +------------------------+            +------------------------+
#
# sroce-rawtest loop (two raw QPs of sroce0: the flow's frame arrives
# whole, others do not, two flows of one QP give one copy), wire (a frame
# of sroce0 through a flow of sroce1), length (frames too short or too
# long for v0's MTU of 1500, and for the receive), flow-bad (flows refused,
# a QP with flows kept, a frame without a receive counted), unprivileged
# (as nobody: no CAP_NET_RAW, no raw QP), rss (frames of sroce0 spread
# over receive WQs by an RSS QP's Toeplitz hash, checked against the
# Microsoft RSS verification values; WQs in RESET and ERR), wq-overflow
# (a WQ's CQ overflow: CQ_ERR and WQ_FATAL, the WQ takes no WQE after the
# lost completion), rss-bad (WQs,
# indirection tables and RSS QPs refused; EBUSY while in use).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-raw-$$
IP0=10.93.23.1
IP1=10.93.23.2
RAWTEST=$SROCE_REPO/build/userspace/tools/sroce-rawtest

trap veth_cleanup EXIT

test_setup() {
	[ -x "$RAWTEST" ] || fail "$RAWTEST is not built"
	sroce_pair "$IP0" "$IP1"
	# The unprivileged process is nobody: the uverbs devices open to all,
	# as rdma-core's udev rules make them.
	chmod 0666 /dev/infiniband/uverbs*
}

test_loop() {
	ktap_tool "$RAWTEST" sroce0 sroce1 loop
}

test_wire() {
	ktap_tool "$RAWTEST" sroce0 sroce1 wire
}

test_length() {
	ktap_tool "$RAWTEST" sroce0 sroce1 length
}

test_flow_bad() {
	ktap_tool "$RAWTEST" sroce0 sroce1 flow-bad
}

test_unprivileged() {
	ktap_tool setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$RAWTEST" sroce0 sroce1 unprivileged
	grep -q '^ok 1 unprivileged$' <<< "$KTAP_OUT" || fail "the check did not pass"
}

test_rss() {
	ktap_tool "$RAWTEST" sroce0 sroce1 rss
}

test_wq_overflow() {
	ktap_tool "$RAWTEST" sroce0 sroce1 wq-overflow
}

test_rss_bad() {
	ktap_tool "$RAWTEST" sroce0 sroce1 rss-bad
}

test_unload() {
	sroce_pair_rmmod
}

cases() {
	run_setup "module, veth, two sroce devices" test_setup
	run_test "sroce-rawtest loop: raw QPs of one device through flows" test_loop
	run_test "sroce-rawtest wire: a frame of sroce0 through a flow of sroce1" test_wire
	run_test "sroce-rawtest length: frames too short or too long refused, the longest sent" test_length
	run_test "sroce-rawtest flow-bad: flows refused, a QP with flows kept, drops counted" test_flow_bad
	run_test "sroce-rawtest unprivileged: no raw QP without CAP_NET_RAW" test_unprivileged
	run_test "sroce-rawtest rss: frames to the WQ their Toeplitz hash selects, WQ states" test_rss
	run_test "sroce-rawtest wq-overflow: a WQ's CQ overflow is WQ_FATAL, no WQE consumed silently" test_wq_overflow
	run_test "sroce-rawtest rss-bad: WQs, tables and RSS QPs refused, EBUSY in use" test_rss_bad
	run_test "no object left, rmmod sroce" test_unload
}
ktap_run cases
