#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD and UC QPs, address handles, the GSI QP and the RDMA CM over it:
# sroce to sroce across a veth, then with rdma_rxe on the other end, both
# ways.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (later: rxe0)   |            | sroce1                 |
#   |   v0 10.93.20.1/24     |----veth----|   v1 10.93.20.2/24     |
#   | clients (or servers)   |            | servers (or clients)   |
#   +------------------------+            +------------------------+
#
# sroce to sroce: the UD corner cases of sroce-udtest (GRH, source QP,
# immediate data, Q_Key checks and drops, receive too small, AH of another
# PD, message above the MTU, an AH to an unreachable GID refused),
# ibv_ud_pingpong -c, ib_send_bw/ib_send_lat -c UD; UC: sroce-udtest uc
# and uc-loss (20% of the packets lost from sroce0 to sroce1: messages
# arrive whole or not at all), ibv_uc_pingpong
# -c; over the RDMA CM (ib_cm on the GSI QP): rping -V, ucmatose,
# udaddy, ib_write_bw -R, ib_send_lat -R, qperf -cm1 rc_bw and rc_lat.
# Then sroce0 goes, rdma_rxe takes v0 (it holds UDP 4791 of init_net, so
# both cannot be there at once) and the programs rxe supports run between
# rxe0 and sroce1, each side once as the server.
#
# qperf 0.4.11 has no GID option and no RDMA CM for its UD tests
# ("-cm1 set but not used"): its ud_bw cannot address a RoCE peer on any
# device (sroce and rdma_rxe alike refuse its AH without GRH), so it is
# not run.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-ud-$$
IP0=10.93.20.1
IP1=10.93.20.2
UDTEST=$SROCE_REPO/build/userspace/tools/sroce-udtest
PORT=18900
QPERF_PID=
# The device on v0: sroce0, then rxe0.
DEV0=sroce0

cleanup() {
	[ -z "$QPERF_PID" ] || kill "$QPERF_PID" 2>/dev/null
	veth_cleanup
}
trap cleanup EXIT

# The GID indexes of the IPv4 addresses: G0 of $DEV0, G1 of sroce1.
gids() {
	G0=$(gid_index "$DEV0" "::ffff:$IP0")
	G1=$(gid_index sroce1 "::ffff:$IP1")
	if [ -z "$G0" ] || [ -z "$G1" ]; then
		fail "no IPv4 GID ($DEV0: '$G0', sroce1: '$G1')"
	fi
}

# Which device a side uses: the server's and the client's for WHERE.
sides() {
	if [ "$1" = ns ]; then
		SDEV=sroce1 SG=$G1 SIP=$IP1 CDEV=$DEV0 CG=$G0
	else
		SDEV=$DEV0 SG=$G0 SIP=$IP0 CDEV=sroce1 CG=$G1
	fi
}

# pingpong TOOL WHERE SIZE: TOOL (ibv_ud_pingpong, ibv_uc_pingpong) -c,
# 50 iterations of SIZE bytes, the server on the side WHERE.
pingpong() {
	local tool=$1 n=50
	gids
	sides "$2"
	PORT=$((PORT + 1))
	run_pair "$2" "tcp:$PORT" "$tool" -d "$SDEV" -g "$SG" -p "$PORT" -s "$3" -n "$n" -c \
		-- "$tool" -d "$CDEV" -g "$CG" -p "$PORT" -s "$3" -n "$n" -c "$SIP"
	pingpong_check "$3" "$n"
	! grep -qi 'error' <<< "$PAIR_OUT" || fail "an error was reported"
}

ud_pingpong() { pingpong ibv_ud_pingpong "$@"; }
uc_pingpong() { pingpong ibv_uc_pingpong "$@"; }

# ud_perftest WHERE PROG SIZE ITERS ARGS...: a perftest over UD (-c UD).
ud_perftest() {
	local where=$1 prog=$2 size=$3 iters=$4
	shift 4
	gids
	sides "$where"
	PORT=$((PORT + 1))
	run_pair "$where" "tcp:$PORT" "$prog" -d "$SDEV" -x "$SG" -p "$PORT" -F -c UD -s "$size" -n "$iters" "$@" \
		-- "$prog" -d "$CDEV" -x "$CG" -p "$PORT" -F -c UD -s "$size" -n "$iters" "$@" "$SIP"
	perftest_check "$prog" "$iters" 1024 "$PAIR_OUT" -s "$size" "$@"
}

# cm_perftest PROG SIZE ITERS: a perftest connected by the RDMA CM (-R).
cm_perftest() {
	local prog=$1 size=$2 iters=$3
	PORT=$((PORT + 1))
	run_pair ns cm "$prog" -d sroce1 -p "$PORT" -F -R -s "$size" -n "$iters" \
		-- "$prog" -d sroce0 -p "$PORT" -F -R -s "$size" -n "$iters" "$IP1"
	grep -q 'rdma_cm QPs[[:space:]]*: ON' <<< "$PAIR_OUT" || fail "$prog did not use the RDMA CM"
	perftest_check "$prog" "$iters" 1024 "$PAIR_OUT" -s "$size"
}

# rping WHERE: 10 pings with their data verified (-V), over the RDMA CM.
rping_pair() {
	sides "$1"
	run_pair "$1" cm rping -s -a "$SIP" -C 10 -v -V -- rping -c -a "$SIP" -C 10 -v -V
	[ "$(grep -c '^ping data: rdma-ping-' <<< "${PAIR_OUT#*--- client}")" -eq 10 ] ||
		fail "the client must show 10 pings"
}

# cmatose WHERE PROG: ucmatose or udaddy, which check their own transfers.
cmatose() {
	sides "$1"
	run_pair "$1" cm "$2" -- "$2" -s "$SIP"
	[ "$(grep -c '^return status 0' <<< "$PAIR_OUT")" -eq 2 ] ||
		fail "both sides must end with status 0"
}

test_setup() {
	[ -x "$UDTEST" ] || fail "$UDTEST is not built"
	sroce_pair "$IP0" "$IP1"
	# The MAD layer made QP1 on each port, and the port offers CM.
	rdma resource show qp | grep -E 'lqpn 1 type GSI'
	[ "$(rdma resource show qp | grep -c 'lqpn 1 type GSI state RTS')" -eq 2 ] ||
		fail "no GSI QP in RTS on both devices"
	ibv_devinfo -v -d sroce0 | grep -E 'max_ah|port_cap_flags|CM'
}

test_udtest_ud() {
	ktap_tool "$UDTEST" sroce0 sroce1 ud
}

test_ud_pingpong() {
	ud_pingpong ns 1
	ud_pingpong ns 1024	# the path MTU: the GRH is not on the wire
}

test_udtest_uc() {
	ktap_tool "$UDTEST" sroce0 sroce1 uc
}

test_udtest_uc_loss() {
	local rc=0
	modprobe sch_netem
	tc qdisc add dev v0 root netem loss 20%
	ktap_tool "$UDTEST" sroce0 sroce1 uc-loss || rc=$?
	tc qdisc del dev v0 root
	hw_counter sroce1 uc_drops
	return "$rc"
}

test_uc_pingpong() {
	uc_pingpong ns 1
	uc_pingpong ns 65536
}

test_send_bw_ud() { ud_perftest ns ib_send_bw 1024 500; }
test_send_lat_ud() { ud_perftest ns ib_send_lat 64 200; }
test_rping() { rping_pair ns; }
test_ucmatose() { cmatose ns ucmatose; }
test_udaddy() { cmatose ns udaddy; }
test_write_bw_cm() { cm_perftest ib_write_bw 65536 200; }
test_send_lat_cm() { cm_perftest ib_send_lat 64 200; }

# qperf's server stays up for both tests; its client connects the QPs
# with the RDMA CM (-cm1).
test_qperf() {
	local out
	ip netns exec "$NS" timeout $((120 * SROCE_TIMEOUT_SCALE)) qperf -lp 19765 > /dev/null 2>&1 &
	QPERF_PID=$!
	wait_for 20 pid_listening "$QPERF_PID" 19765
	out=$(timeout $((60 * SROCE_TIMEOUT_SCALE)) qperf -lp 19765 -cm1 -t 2 "$IP1" rc_bw rc_lat)
	echo "$out"
	kill "$QPERF_PID" 2>/dev/null || true
	wait "$QPERF_PID" 2>/dev/null || true
	QPERF_PID=
	grep -Eq '^ *bw *= *[0-9.]+ [KMG]B/sec' <<< "$out" || fail "no rc_bw figure"
	grep -Eq '^ *latency *= *[0-9.]+ (us|ms)' <<< "$out" || fail "no rc_lat figure"
}

# The GSI QP and every AH go with the device.
test_sroce0_gone() {
	rdma_links_delete sroce0
	! rdma resource show qp | grep -E '^(link )?sroce0/' || fail "sroce0's QPs are still listed"
}

test_rxe_ud_pingpong() {
	DEV0=rxe0
	ud_pingpong ns 512
	ud_pingpong init 512
}

test_rxe_uc_pingpong() {
	DEV0=rxe0
	uc_pingpong ns 4096
	uc_pingpong init 4096
}

test_rxe_send_bw_ud() {
	DEV0=rxe0
	ud_perftest ns ib_send_bw 1024 200
	ud_perftest init ib_send_bw 1024 200
}

test_rxe_rping() {
	DEV0=rxe0
	rping_pair ns
	rping_pair init
}

test_rxe_ucmatose() {
	DEV0=rxe0
	cmatose ns ucmatose
	cmatose init ucmatose
}

test_rxe_udaddy() {
	DEV0=rxe0
	cmatose ns udaddy
	cmatose init udaddy
}

test_unload() {
	no_user_objects '[^ ]+' qp cm_id
	rxe_sroce_rmmod
}

cases() {
	run_setup "module, veth, two sroce devices, a GSI QP on each" test_setup
	run_test "sroce-udtest ud: GRH, source QP, immediate, Q_Key, drops, local errors, unreachable AH" test_udtest_ud
	run_test "ibv_ud_pingpong -c, 1 and 1024 bytes" test_ud_pingpong
	run_test "sroce-udtest uc: SEND, WRITE_WITH_IMM, no receive, READ refused" test_udtest_uc
	run_test "sroce-udtest uc-loss: 20% loss, messages whole or not at all" test_udtest_uc_loss
	run_test "ibv_uc_pingpong -c, 1 byte and 64 KiB" test_uc_pingpong
	run_test "ib_send_bw -c UD, 1024 bytes" test_send_bw_ud
	run_test "ib_send_lat -c UD, 64 bytes" test_send_lat_ud
	run_test "rping -V over the RDMA CM" test_rping
	run_test "ucmatose" test_ucmatose
	run_test "udaddy" test_udaddy
	run_test "ib_write_bw -R, 64 KiB" test_write_bw_cm
	run_test "ib_send_lat -R, 64 bytes" test_send_lat_cm
	run_test "qperf -cm1 rc_bw and rc_lat" test_qperf
	run_test "sroce0 deleted with its GSI QP" test_sroce0_gone
	run_setup "rdma_rxe on v0 (init_net), sroce1 in the namespace" rxe_replaces_sroce0 "$IP0"
	run_test "rxe<->sroce: ibv_ud_pingpong -c, each side the server" test_rxe_ud_pingpong
	run_test "rxe<->sroce: ibv_uc_pingpong -c, each side the server" test_rxe_uc_pingpong
	run_test "rxe<->sroce: ib_send_bw -c UD, each side the server" test_rxe_send_bw_ud
	run_test "rxe<->sroce: rping -V, each side the server" test_rxe_rping
	run_test "rxe<->sroce: ucmatose, each side the server" test_rxe_ucmatose
	run_test "rxe<->sroce: udaddy, each side the server" test_rxe_udaddy
	run_test "no object left, rmmod sroce and rdma_rxe" test_unload
}
ktap_run cases
