#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loopback: QPs of one sroce device, and of two sroce devices of one
# network namespace, reach each other.  A packet of sroce0 to its own
# address is routed through the loopback device (lo), and sroce finds the
# device it is for by its destination address (socket.c).  Between the two
# devices the core resolves the path as it does for any RoCE peer: by the
# neighbour of the destination on the sending device's link, so the
# packets cross the veth, which works once the netdevs accept packets from
# an address of their own host (accept_local; the rp_filter off).
# Everything runs in init_net: the kernel's RDMA consumers that bind to it
# alone (NVMe, iSER, SRP) need exactly this.
#
#   init_net
#   +----------------------------------------------------------------+
#   | sroce0 (rdma link)                  sroce1 (rdma link)         |
#   |   v0 10.95.1.1/24  <----veth---->     v1 10.95.1.2/24          |
#   |      fd95:1::1/64                        fd95:1::2/64          |
#   |                                                                |
#   |   sroce0 to itself: through lo; sroce0 to sroce1: across the   |
#   |   veth (accept_local=1, rp_filter=0 on v0 and v1)               |
#   +----------------------------------------------------------------+
#
# Cases: ibv_rc_pingpong on one device (IPv4 and IPv6 GIDs) and between
# the two, ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong on one
# device, perftest SEND, WRITE, READ and atomics on one device, rping over
# the RDMA CM to the device's own address and to the other device's, the
# memory protection cases of sroce-prottest between two QPs of one device,
# sroce-torture's verified mix of every opcode on one device and between
# the two, the kernel verbs test module on one device, and the counters:
# every packet reached a QP, none went unclaimed.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

# veth_cleanup deletes $NS: no namespace here.
# shellcheck disable=SC2034
NS=unused-$$
WORK=$(mktemp -d)
IP0=10.95.1.1
IP1=10.95.1.2
IP6_0=fd95:1::1
IP6_1=fd95:1::2
PORT=18800
TOOLS=$SROCE_REPO/build/userspace/tools
KVERBS_KO=${SROCE_KO%/drivers/sroce/sroce.ko}/tests/kmod/sroce_kverbs_test.ko

cleanup() {
	rmmod sroce_kverbs_test 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

# local_pair DEV_S DEV_C GID_S GID_C TOOL ARGS...: TOOL as the server on
# DEV_S and as the client on DEV_C, both in init_net, the client
# connecting to 127.0.0.1 (the out-of-band exchange; the RDMA traffic goes
# to the GIDs' addresses).  The GID option is -g for ibv_*_pingpong, -x for
# perftest.
local_pair() {
	local ds=$1 dc=$2 gs=$3 gc=$4 tool=$5 gopt=-x
	shift 5
	case $tool in ibv_*) gopt=-g ;; esac
	PORT=$((PORT + 1))
	run_pair local "tcp:$PORT" "$tool" -d "$ds" "$gopt" "$gs" -p "$PORT" "$@" \
		-- "$tool" -d "$dc" "$gopt" "$gc" -p "$PORT" "$@" 127.0.0.1
}

# The GID indexes of the devices' addresses (each case runs in a subshell:
# nothing set by the set-up case survives it).
g0() { gid_index sroce0 "::ffff:$IP0"; }
g1() { gid_index sroce1 "::ffff:$IP1"; }
g0_6() { gid_index sroce0 "$IP6_0"; }

test_setup() {
	sroce_local_pair "$IP0" "$IP1" "$IP6_0" "$IP6_1"
	# sroce0's own address is local: its route is through lo.
	local route
	route=$(ip route get "$IP0" oif v0)
	echo "$route" >&2
	grep -q ' dev lo ' <<< "$route"
	hw_snapshot sroce0 sroce1 > "$WORK/snap"
	echo "sroce0 GID $(g0) (IPv6 $(g0_6)), sroce1 GID $(g1)"
}

test_rc_same_device() {
	local_pair sroce0 sroce0 "$(g0)" "$(g0)" ibv_rc_pingpong -s 4096 -n 200 -c
	pingpong_check 4096 200
}

test_rc_same_device_ipv6() {
	local_pair sroce0 sroce0 "$(g0_6)" "$(g0_6)" ibv_rc_pingpong -s 65536 -n 50 -c
	pingpong_check 65536 50
}

test_rc_two_devices() {
	local_pair sroce0 sroce1 "$(g0)" "$(g1)" ibv_rc_pingpong -s 1048576 -n 20 -c
	pingpong_check 1048576 20
}

test_uc() {
	local_pair sroce0 sroce0 "$(g0)" "$(g0)" ibv_uc_pingpong -s 4096 -n 200 -c
	pingpong_check 4096 200
}

test_ud() {
	local_pair sroce0 sroce0 "$(g0)" "$(g0)" ibv_ud_pingpong -s 1024 -n 200 -c
	pingpong_check 1024 200
}

# ibv_srq_pingpong ends loosely: a side that has its 100 messages exits and
# destroys its QPs while its peer may still be sending one of its own
# (seen under the debug kernel, whose teardown is slow: the 4 packets of
# one 4 KiB SEND arriving 0.5 ms after their QP was destroyed).  Such
# packets, to a QP that existed, are dropped and counted as any receiver
# must; test_counters leaves out the ones that came during this case.
test_srq() {
	local before
	before=$(hw_counter sroce0 rx_drop_no_qp)
	local_pair sroce0 sroce0 "$(g0)" "$(g0)" ibv_srq_pingpong -q 4 -s 4096 -n 100 -c
	echo $(($(hw_counter sroce0 rx_drop_no_qp) - before)) > "$WORK/srq_no_qp"
	echo "packets to QPs ibv_srq_pingpong had destroyed: $(< "$WORK/srq_no_qp")"
	pingpong_check 4096 100
}

# perf PROG ARGS...: one perftest run on sroce0 to itself, checked as
# tests/rdma.sh checks them (path MTU 1024).
perf() {
	local prog=$1
	shift
	# run_pair prints both sides' output, also when one fails.
	local_pair sroce0 sroce0 "$(g0)" "$(g0)" "$prog" -n 200 "$@"
	perftest_check "$prog" 200 1024 "$PAIR_OUT" "$@"
}

test_send_bw() { perf ib_send_bw -s 65536; }
test_write_bw() { perf ib_write_bw -s 65536; }
test_read_bw() { perf ib_read_bw -s 65536; }
test_atomic_bw() { perf ib_atomic_bw -A FETCH_AND_ADD; }
test_write_lat() { perf ib_write_lat -s 8; }

# rping_to ADDR: rping -V over the RDMA CM, server and client at ADDR.
rping_to() {
	PORT=$((PORT + 1))
	run_pair local cm rping -s -a "$1" -p "$PORT" -C 20 -V \
		-- rping -c -a "$1" -p "$PORT" -C 20 -V
}

test_rping_own_address() { rping_to "$IP0"; }
test_rping_other_device() { rping_to "$IP1"; }

# Every protection case between two QPs of sroce0, as subtests; none may
# be skipped (sroce has memory windows and atomics).
test_protection() {
	ktap_tool timeout $((300 * SROCE_TIMEOUT_SCALE)) "$TOOLS/sroce-prottest" \
		--dev-a sroce0 --dev-b sroce0
	if grep -E '^ok [0-9]+ .*# SKIP' <<< "$KTAP_OUT"; then
		fail "sroce lacks what the cases above need"
	fi
}

# torture DEV_A DEV_B IP_A IP_B: the verified mix of every opcode, both
# ways, as subtests.
torture() {
	ktap_tool timeout $((600 * SROCE_TIMEOUT_SCALE)) "$TOOLS/sroce-torture" \
		--dev-a "$1" --dev-b "$2" \
		--gid-a "$(gid_index "$1" "::ffff:$3")" \
		--gid-b "$(gid_index "$2" "::ffff:$4")" --bytes 8M \
		--timeout "$SROCE_QP_TIMEOUT"
}

test_torture_same_device() { torture sroce0 sroce0 "$IP0" "$IP0"; }
test_torture_two_devices() { torture sroce0 sroce1 "$IP0" "$IP1"; }

test_kverbs() {
	local deps
	[ -e "$KVERBS_KO" ] || fail "$KVERBS_KO is not built"
	deps=$(modinfo -F depends "$KVERBS_KO" | tr ',' ' ')
	# shellcheck disable=SC2086
	[ -z "$deps" ] || modprobe -a $deps
	dmesg -C
	insmod "$KVERBS_KO" dev_a=sroce0 dev_b=sroce0 gid_a="$(g0)" gid_b="$(g0)" ||
		{ dmesg | grep sroce_kverbs; fail "a case of the kernel verbs module failed"; }
	dmesg | grep -E 'sroce_kverbs: (ok|not ok|# totals)'
	rmmod sroce_kverbs_test
}

test_rmmod() {
	no_user_objects '[^ ]+' qp cq mr pd
	rdma_links_delete sroce0 sroce1
	sroce_rmmod
}

# Every packet of all the above reached a QP: none was dropped for want of
# a device or a QP (but those ibv_srq_pingpong sent to QPs it had
# destroyed: test_srq), none failed its checks.
test_counters() {
	local d c n snap srq=0
	snap=$(< "$WORK/snap")
	hw_moved "$snap"
	hw_at_least "$snap" sroce0 rx_qp 10000
	hw_at_least "$snap" sroce1 rx_qp 1000
	cat /proc/net/sroce
	grep -qx 'rx_no_dev 0' /proc/net/sroce || fail "datagrams went unclaimed"
	[ ! -e "$WORK/srq_no_qp" ] || srq=$(< "$WORK/srq_no_qp")
	for d in sroce0 sroce1; do
		for c in rx_drop_no_qp rx_drop_not_peer; do
			n=$(hw_counter "$d" "$c")
			if [ "$d $c" = "sroce0 rx_drop_no_qp" ] && [ "$srq" -gt 0 ]; then
				echo "sroce0 rx_drop_no_qp $n, $srq of them to QPs ibv_srq_pingpong had destroyed"
				n=$((n - srq))
			fi
			[ "$n" -eq 0 ] || fail "$d $c is $n"
		done
		for c in "$HW_SYSFS/$d"/ports/1/hw_counters/rx_err_*; do
			read -r n < "$c"
			[ "$n" -eq 0 ] || fail "$d ${c##*/} is $n"
		done
	done
}

cases() {
	run_setup "set-up: two devices of init_net, sroce0's own address through lo" test_setup
	run_test "ibv_rc_pingpong 4 KiB, sroce0 to itself (IPv4)" test_rc_same_device
	run_test "ibv_rc_pingpong 64 KiB, sroce0 to itself (IPv6)" test_rc_same_device_ipv6
	run_test "ibv_rc_pingpong 1 MiB, sroce0 to sroce1" test_rc_two_devices
	run_test "ibv_uc_pingpong, sroce0 to itself" test_uc
	run_test "ibv_ud_pingpong, sroce0 to itself" test_ud
	run_test "ibv_srq_pingpong (4 QPs), sroce0 to itself" test_srq
	run_test "ib_send_bw 64 KiB, sroce0 to itself" test_send_bw
	run_test "ib_write_bw 64 KiB, sroce0 to itself" test_write_bw
	run_test "ib_read_bw 64 KiB, sroce0 to itself" test_read_bw
	run_test "ib_atomic_bw fetch-and-add, sroce0 to itself" test_atomic_bw
	run_test "ib_write_lat 8 B, sroce0 to itself" test_write_lat
	run_test "rping -V over the RDMA CM to sroce0's own address" test_rping_own_address
	run_test "rping -V over the RDMA CM to sroce1's address" test_rping_other_device
	run_test "sroce-prottest: every protection case between two QPs of sroce0" test_protection
	run_test "sroce-torture 8 MiB verified mix, sroce0 to itself" test_torture_same_device
	run_test "sroce-torture 8 MiB verified mix, sroce0 to sroce1" test_torture_two_devices
	run_test "kernel verbs module, two QPs of sroce0" test_kverbs
	run_test "every packet reached a QP; none unclaimed or malformed" test_counters
	run_test "no object left; rdma link delete and rmmod are clean" test_rmmod
}
ktap_run cases
