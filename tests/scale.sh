#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scale: many RC QPs and many RDMA CM connections on sroce, bounded in
# time, and the kernel memory of an idle RC QP, sroce against rdma_rxe
# (issue #16).  All in init_net: two devices on the ends of a veth, their
# netdevs accepting packets from an address of their own host
# (accept_local, as tests/loopback.sh), so that one process holds both
# ends of every QP pair and of every RDMA CM connection.
#
#   init_net
#   +----------------------------------------------------------------+
#   | sroce0 (rdma link)                  sroce1 (rdma link)         |
#   |   v0 10.96.1.1/24  <----veth---->     v1 10.96.1.2/24          |
#   |   (later rxe0 on v0, for its memory figure)                    |
#   +----------------------------------------------------------------+
#
# Cases: the device limits and the process's limits; sroce-scaletest qps:
# SROCE_SCALE_QPS RC QPs (default 10000: 5000 on each device), created,
# connected in pairs, one verified message each way on every pair,
# destroyed, each step timed; sroce-scaletest cm: SROCE_SCALE_CM RDMA CM
# connections (default 1000) from sroce0's address to a listener on
# sroce1's, 16 at a time, each with one verified message; no object left;
# sroce-scaletest idle-mem: the kernel memory per idle connected RC QP
# (1000 QPs on sroce0), then the same on rdma_rxe over the same netdev;
# the ratio of the two is printed (informational: the time figures and
# the ratio are not asserted; the goal is at most one half).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

# veth_cleanup deletes $NS: no namespace here.
# shellcheck disable=SC2034
NS=unused-$$
WORK=$(mktemp -d)
IP0=10.96.1.1
IP1=10.96.1.2
SCALETEST=$SROCE_REPO/build/userspace/tools/sroce-scaletest
QPS=${SROCE_SCALE_QPS:-10000}
CMS=${SROCE_SCALE_CM:-1000}
MEM_QPS=1000

cleanup() {
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

# scaletest LIMIT ARGS...: sroce-scaletest ARGS, its KTAP the case's
# subtests, killed after LIMIT seconds (scaled).
scaletest() {
	local limit=$(($1 * SROCE_TIMEOUT_SCALE))
	shift
	ktap_tool timeout "$limit" "$SCALETEST" "$@"
}

# result NAME: the figure NAME of the last tool run ("# result: NAME V U").
result() {
	sed -n "s/^# result: $1 \([0-9.]*\) .*/\1/p" <<< "$KTAP_OUT" | sed -n 1p
}

test_setup() {
	[ -x "$SCALETEST" ] || fail "$SCALETEST is not built"
	sroce_local_pair "$IP0" "$IP1"
}

# The limits a user meets first: the device's (ibv_devinfo -v) and the
# process's (locked memory for MRs, open files, memory mappings: each QP
# maps its two rings).
test_limits() {
	local max_qp max_cq
	ibv_devinfo -v -d sroce0 | grep -E 'max_(qp|cq|mr|pd|qp_wr|cqe):'
	echo "ulimit -l $(ulimit -l), ulimit -n $(ulimit -n)," \
		"vm.max_map_count $(sysctl -n vm.max_map_count)"
	max_qp=$(ibv_devinfo -v -d sroce0 | awk '$1 == "max_qp:" { print $2 }')
	max_cq=$(ibv_devinfo -v -d sroce0 | awk '$1 == "max_cq:" { print $2 }')
	[ "$max_qp" -ge "$QPS" ] || fail "max_qp $max_qp is below $QPS"
	[ "$max_cq" -ge 65536 ] || fail "max_cq $max_cq is below 65536"
	[ "$(sysctl -n vm.max_map_count)" -gt $((QPS * 2 + 1000)) ] ||
		fail "vm.max_map_count is too low for $QPS QPs' rings"
}

test_qps() {
	scaletest 900 qps sroce0 sroce1 "$QPS"
}

test_cm() {
	scaletest 900 cm "$IP0" "$IP1" "$CMS" 16
}

test_no_objects() {
	no_user_objects 'sroce[01]' qp cq mr pd
	! grep -q 'comm sroce-scaletest' <<< "$(rdma resource show cm_id)" ||
		fail "RDMA CM IDs of sroce-scaletest left"
}

test_mem_sroce() {
	scaletest 300 idle-mem sroce0 "$MEM_QPS"
	result qp_mem_bytes > "$WORK/mem-sroce"
	[ -s "$WORK/mem-sroce" ] || fail "no figure"
}

test_sroce_rmmod() {
	rdma_links_delete sroce1 sroce0
	sroce_rmmod
}

# The same on rdma_rxe, over the same netdev (v0), then the two figures
# side by side (informational).
test_mem_rxe() {
	local s x
	wait_for 10 udp4791_free
	rxe_load
	rxe_add rxe0 v0 "$IP0"
	scaletest 300 idle-mem rxe0 "$MEM_QPS"
	x=$(result qp_mem_bytes)
	s=$(< "$WORK/mem-sroce")
	[ -n "$x" ] || fail "no figure"
	echo "kernel memory per idle RC QP: sroce $s bytes, rdma_rxe $x bytes:" \
		"sroce/rdma_rxe $(awk -v s="$s" -v x="$x" 'BEGIN { printf "%.2f", s / x }')" \
		"(goal: at most 0.50)"
	rdma_links_delete rxe0
	rxe_rmmod
}

cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "device and process limits allow $QPS QPs" test_limits
	run_test "$QPS RC QPs: create, connect, one message each way, destroy" test_qps
	run_test "$CMS RDMA CM connections, 16 at a time" test_cm
	run_test "no object of the tool left" test_no_objects
	run_test "kernel memory per idle RC QP on sroce ($MEM_QPS QPs)" test_mem_sroce
	run_test "sroce unloads" test_sroce_rmmod
	run_test "kernel memory per idle RC QP on rdma_rxe ($MEM_QPS QPs), against sroce" test_mem_rxe
}
ktap_run cases
