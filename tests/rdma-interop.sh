#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA WRITE, RDMA READ and atomics between sroce and rdma_rxe, in both
# directions: perftest's ib_write_bw, ib_write_lat, ib_read_bw,
# ib_read_lat, ib_atomic_bw (fetch-and-add) and ib_atomic_lat
# (compare-and-swap), from 2 B to 1 MiB less a page, polling and with
# events, path MTU 1024 and 4096, each once with the server on rdma_rxe
# and the client on sroce, and once the other way round; perftest's
# defaults throughout (no -o: the READ/atomic depth each side asks for).
# After each run sroce's hw counters must show its traffic; at the end they
# hold no receive error.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | rxe0 (rdma_rxe)        |            | sroce1 (rdma link)     |
#   |   v0 10.93.8.1/24      |----veth----|   v1 10.93.8.2/24      |
#   +------------------------+            +------------------------+
#
# rdma_rxe of Linux 6.1 binds UDP 4791 in the initial namespace only (as
# soon as it loads); sroce binds it per namespace, so sroce lives in $NS.
# Every program runs in the namespace of its device's netdev.
#
# The largest message is 1 MiB less a page, as in tests/rc-interop.sh: the
# rxe_mr_copy() bug of rdma_rxe 6.1 described there (one pointer read past
# the MR's map array when a copy ends with the last page of a full map).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-rdma-interop-$$
IP_RXE=10.93.8.1
IP_SROCE=10.93.8.2
PORT=19000
MTU=1024
BIG=$((1048576 - 4096))

trap veth_cleanup EXIT

# set_mtu PATH_MTU: the path MTU of this case's perftest runs (1024 unless
# it says otherwise), the veth's MTU set for it.
set_mtu() {
	path_mtu "$1" rxe0 sroce1
	MTU=$1 MTU_SET=$1
}
MTU_SET=

# On each side (rxe in init_net, sroce in $NS): the device, its address
# and IPv4 GID (looked up once per case: ibv_devinfo is slow under
# TCG), and the device for perftest_counters ("" for rdma_rxe: only
# sroce's counters are checked).
GID_RXE='' GID_SROCE=''
side() { # side rxe|sroce
	if [ "$1" = rxe ]; then
		[ -n "$GID_RXE" ] || GID_RXE=$(gid_index rxe0 "::ffff:$IP_RXE")
		DEV=rxe0 ADDR=$IP_RXE SROCE_DEV='' GID=$GID_RXE
	else
		[ -n "$GID_SROCE" ] || GID_SROCE=$(gid_index sroce1 "::ffff:$IP_SROCE")
		DEV=sroce1 ADDR=$IP_SROCE SROCE_DEV=sroce1
		GID=$GID_SROCE
	fi
}

# perftest SERVER PROG ITERS ARGS...: PROG -n ITERS ARGS as the server on
# SERVER's device (rxe or sroce), then as the client on the other one,
# over the IPv4 GIDs, with perftest's defaults: each QP gets the other
# device's max_qp_rd_atom as its READ/atomic depth (rdma_rxe's is 128), so
# sroce takes at least that many.  Both must exit 0 and print their
# results (perftest_check), and sroce's counters must show the traffic
# (perftest_counters).
perftest() {
	local server=$1 prog=$2 iters=$3 rc=0 snap t0=$SECONDS where=init
	local sdev saddr sgid ssroce cdev cgid csroce
	shift 3
	[ "$MTU_SET" = "$MTU" ] || set_mtu "$MTU"
	[ "$server" = rxe ] || where=ns
	side "$server"
	sdev=$DEV saddr=$ADDR sgid=$GID ssroce=$SROCE_DEV
	if [ "$server" = rxe ]; then side sroce; else side rxe; fi
	cdev=$DEV cgid=$GID csroce=$SROCE_DEV
	if [ -z "$sgid" ] || [ -z "$cgid" ]; then
		fail "no GID index ($sdev: '$sgid', $cdev: '$cgid')"
	fi
	PORT=$((PORT + 1))
	snap=$(hw_snapshot sroce1)
	run_pair "$where" "tcp:$PORT" "$prog" -d "$sdev" -x "$sgid" -p "$PORT" -F -n "$iters" "$@" \
		-- "$prog" -d "$cdev" -x "$cgid" -p "$PORT" -F -n "$iters" "$@" "$saddr" || rc=$?
	hw_moved "$snap"
	echo "$prog: $((SECONDS - t0)) s"
	[ "$rc" -eq 0 ] || fail "$prog failed"
	perftest_check "$prog" "$iters" "$MTU" "$PAIR_OUT" "$@"
	perftest_counters "$snap" "$prog" "$iters" "$MTU" "$csroce" "$ssroce" "$@"
}

test_setup() {
	rxe_sroce_pair "$IP_RXE" "$IP_SROCE"
	rdma link show
	wait_for 10 active_mtu_is rxe0 1024
	wait_for 10 active_mtu_is sroce1 1024
	ibv_devinfo -v -d rxe0 | grep -E 'GID|active_mtu'
	ibv_devinfo -v -d sroce1 | grep -E 'GID|active_mtu'
}

# Each run costs seconds under TCG: a few sizes per program, polling or
# with events (perftest 4.5 has no -e for RDMA WRITE).
test_write() {
	perftest "$1" ib_write_bw 200 -s 2
	perftest "$1" ib_write_bw 10 -s "$BIG"
	perftest "$1" ib_write_lat 50 -s 65536
}

test_read() {
	perftest "$1" ib_read_bw 50 -s 65536 -e
	perftest "$1" ib_read_bw 10 -s "$BIG"
	perftest "$1" ib_read_lat 200 -s 2
}

test_atomic() {
	perftest "$1" ib_atomic_bw 200 -A FETCH_AND_ADD
	perftest "$1" ib_atomic_lat 200 -A CMP_AND_SWAP -e
}

test_mtu4096() {
	set_mtu 4096
	perftest "$1" ib_write_bw 10 -s "$BIG"
	perftest "$1" ib_read_bw 10 -s "$BIG"
}

# Over everything rdma_rxe sent: every packet has one fate on sroce, none
# was malformed.
test_sroce_counters() {
	rdma statistic show link sroce1/1
	hw_no_rx_errors sroce1
	hw_fates_add_up sroce1
	rdma statistic show link rxe0/1 || true
}

cases() {
	run_setup "rdma_rxe in init_net, sroce in a namespace" test_setup
	run_test "RDMA WRITE (ib_write_bw, ib_write_lat), rdma_rxe server, sroce client" test_write rxe
	run_test "RDMA WRITE (ib_write_bw, ib_write_lat), sroce server, rdma_rxe client" test_write sroce
	run_test "RDMA READ (ib_read_bw, ib_read_lat), rdma_rxe server, sroce client" test_read rxe
	run_test "RDMA READ (ib_read_bw, ib_read_lat), sroce server, rdma_rxe client" test_read sroce
	run_test "atomics (ib_atomic_bw, ib_atomic_lat), rdma_rxe server, sroce client" test_atomic rxe
	run_test "atomics (ib_atomic_bw, ib_atomic_lat), sroce server, rdma_rxe client" test_atomic sroce
	run_test "WRITE and READ at path MTU 4096, rdma_rxe server, sroce client" test_mtu4096 rxe
	run_test "WRITE and READ at path MTU 4096, sroce server, rdma_rxe client" test_mtu4096 sroce
	run_test "sroce counted rdma_rxe's packets as valid" test_sroce_counters
	run_test "rmmod sroce and rdma_rxe" rxe_sroce_rmmod
}
ktap_run cases
