#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA WRITE, RDMA READ and atomics between two sroce devices, through
# perftest: ib_write_bw, ib_write_lat, ib_read_bw, ib_read_lat at 2 B,
# 4 KiB, 64 KiB and 1 MiB, the reads also with completion events (-e) at
# two of them (perftest 4.5 has no -e for writes: a SKIP), ib_atomic_bw
# and ib_atomic_lat (FETCH_AND_ADD and CMP_AND_SWAP, polling and events),
# at path MTU 1024 and a few at 4096 (veth MTU 9000); after each run the
# hw counters must show its traffic.  Then the hw counters hold no receive
# error, and rmmod is clean.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.7.1/24      |----veth----|   v1 10.93.7.2/24      |
#   | perftest clients       |            | perftest servers       |
#   +------------------------+            +------------------------+
#
# The perftest servers run in $NS on sroce1, the clients in init_net on
# sroce0; their out-of-band TCP exchange crosses the veth too.
#
#   tests/rdma.sh          the cases above (make check)
#   tests/rdma.sh sweep    perftest -a (every power of two from 2 B to
#                          8 MiB) for ib_write_bw, ib_write_lat, ib_read_bw
#                          and ib_read_lat, the reads also with -e
#                          (tests/sweep/rdma-sweep.sh, make check-sweep)
#
# perftest checks no data.  It may exit 0 after a failed run, so each run
# must also print its result rows with positive figures (perftest_check in
# tests/lib.sh), and the counters must have moved (perftest_counters).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-rdma-$$
IP0=10.93.7.1
IP1=10.93.7.2
PORT=18900
# The path MTU of a case's perftest runs (set_mtu): 1024 unless it says
# otherwise.
MTU=1024
# Seconds one perftest program may take (times SROCE_TIMEOUT_SCALE).
PAIR_TIMEOUT=90

trap veth_cleanup EXIT

test_setup() {
	sroce_pair "$IP0" "$IP1"
	rdma link show
	wait_for 10 active_mtu_is sroce0 1024
	wait_for 10 active_mtu_is sroce1 1024
	ibv_devinfo -v -d sroce0 |
		grep -E 'GID|active_mtu|max_qp_rd_atom|max_qp_init_rd_atom|atomic_cap|max_mr_size'
}

# gids: GID0 and GID1, the IPv4 GID indexes of sroce0 and sroce1, looked up
# once per case (ibv_devinfo is slow under TCG).
GID0='' GID1=''
gids() {
	[ -n "$GID0" ] || GID0=$(gid_index sroce0 "::ffff:$IP0")
	[ -n "$GID1" ] || GID1=$(gid_index sroce1 "::ffff:$IP1")
	if [ -z "$GID0" ] || [ -z "$GID1" ]; then
		fail "no GID index"
	fi
}

# set_mtu PATH_MTU: the path MTU of this case's perftest runs, the veth's
# MTU set for it.
set_mtu() {
	path_mtu "$1" sroce0 sroce1
	MTU=$1 MTU_SET=$1
}

# perftest PROG ITERS ARGS...: PROG -n ITERS ARGS in $NS on sroce1 (the
# server), then in init_net on sroce0 (the client), over the IPv4 GIDs, on
# a port of their own, at path MTU $MTU.  Both must exit 0 and print their
# results (perftest_check), and the counters of both devices must show the
# traffic (perftest_counters).
MTU_SET=
perftest() {
	local prog=$1 iters=$2 rc=0 snap t0=$SECONDS
	shift 2
	[ "$MTU_SET" = "$MTU" ] || set_mtu "$MTU"
	gids
	PORT=$((PORT + 1))
	snap=$(hw_snapshot sroce0 sroce1)
	run_pair ns "tcp:$PORT" "$prog" -d sroce1 -x "$GID1" -p "$PORT" -F -n "$iters" "$@" \
		-- "$prog" -d sroce0 -x "$GID0" -p "$PORT" -F -n "$iters" "$@" "$IP1" || rc=$?
	hw_moved "$snap"
	echo "$prog: $((SECONDS - t0)) s"
	[ "$rc" -eq 0 ] || fail "$prog failed"
	perftest_check "$prog" "$iters" "$MTU" "$PAIR_OUT" "$@"
	perftest_counters "$snap" "$prog" "$iters" "$MTU" sroce0 sroce1 "$@"
}

# sizes PROG [ARGS...]: PROG at 2 B, 4 KiB, 64 KiB and 1 MiB, fewer
# iterations for larger messages.
sizes() {
	local prog=$1
	shift
	perftest "$prog" 200 -s 2 "$@"
	perftest "$prog" 100 -s 4096 "$@"
	perftest "$prog" 50 -s 65536 "$@"
	perftest "$prog" 10 -s 1048576 "$@"
}

# Each run costs seconds under TCG: the four sizes poll, two of them again
# with completion events.
test_read_bw_events() {
	perftest ib_read_bw 100 -s 4096 -e
	perftest ib_read_bw 10 -s 1048576 -e
}

test_read_lat_events() {
	perftest ib_read_lat 200 -s 2 -e
	perftest ib_read_lat 50 -s 65536 -e
}

# perftest 4.5 has no completion events for RDMA WRITE ("Events feature
# not available on WRITE verb"): skipped until a perftest has them.
test_write_events() {
	local prog help
	for prog in ib_write_bw ib_write_lat; do
		help=$("$prog" --help 2>&1 || true)
		grep -q -- '--events' <<< "$help" ||
			skip "$prog of this perftest ($(dpkg-query -W -f='${Version}' perftest 2>/dev/null)) has no -e"
	done
	perftest ib_write_bw 100 -s 4096 -e
	perftest ib_write_lat 100 -s 4096 -e
}

# ib_atomic_bw and ib_atomic_lat, each op polling in one and with events
# in the other.
test_atomics() {
	perftest ib_atomic_bw 200 -A FETCH_AND_ADD
	perftest ib_atomic_bw 200 -A CMP_AND_SWAP -e
	perftest ib_atomic_lat 200 -A CMP_AND_SWAP
	perftest ib_atomic_lat 200 -A FETCH_AND_ADD -e
}

test_mtu4096() {
	set_mtu 4096
	perftest ib_write_bw 10 -s 1048576
	perftest ib_write_lat 50 -s 65536
	perftest ib_read_bw 10 -s 1048576 -e
	perftest ib_read_lat 50 -s 65536
}

# perftest -a: every power of two from 2 B to 8 MiB.
test_sweep() {
	perftest "$1" 20 -a "${@:2}"
}

# Over everything run so far: every received packet has one fate, none
# was malformed.
test_counters() {
	rdma statistic show link sroce0/1
	rdma statistic show link sroce1/1
	hw_fates_add_up sroce0 sroce1
	hw_no_rx_errors sroce0 sroce1
}

# Nothing of the test programs is left, then the module goes cleanly.
test_rmmod() {
	sroce_pair_rmmod
}

sweep_cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "ib_write_bw -a" test_sweep ib_write_bw
	run_test "ib_write_lat -a" test_sweep ib_write_lat
	run_test "ib_read_bw -a" test_sweep ib_read_bw
	run_test "ib_read_bw -a, events" test_sweep ib_read_bw -e
	run_test "ib_read_lat -a" test_sweep ib_read_lat
	run_test "ib_read_lat -a, events" test_sweep ib_read_lat -e
	run_test "hw counters: no receive errors, every packet counted once" test_counters
	run_test "rmmod after traffic is clean" test_rmmod
}

cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "ib_write_bw 2 B, 4 KiB, 64 KiB, 1 MiB" sizes ib_write_bw
	run_test "ib_write_lat 2 B, 4 KiB, 64 KiB, 1 MiB" sizes ib_write_lat
	run_test "ib_write_bw and ib_write_lat with events" test_write_events
	run_test "ib_read_bw 2 B, 4 KiB, 64 KiB, 1 MiB" sizes ib_read_bw
	run_test "ib_read_bw 4 KiB and 1 MiB, events" test_read_bw_events
	run_test "ib_read_lat 2 B, 4 KiB, 64 KiB, 1 MiB" sizes ib_read_lat
	run_test "ib_read_lat 2 B and 64 KiB, events" test_read_lat_events
	run_test "ib_atomic_bw and ib_atomic_lat, fetch-and-add and compare-and-swap, polling and events" test_atomics
	run_test "write and read at path MTU 4096 (veth MTU 9000), 64 KiB and 1 MiB" test_mtu4096
	run_test "hw counters: no receive errors, every packet counted once" test_counters
	run_test "rmmod after traffic is clean" test_rmmod
}

if [ "${1:-}" = sweep ]; then
	# Large messages take a while under TCG.
	export PAIR_TIMEOUT=1200
	ktap_run sweep_cases
else
	ktap_run cases
fi
