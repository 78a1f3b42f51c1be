#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared receive queues: ibv_srq_pingpong -c (16 RC QPs on one SRQ per
# side) between two sroce devices at several message sizes, the SRQ
# checks of userspace/tools/sroce-srqtest (limit event, several QPs on one
# SRQ, SRQ full, a QP in ERROR, bad input), then ibv_srq_pingpong between
# sroce and rdma_rxe in both directions.
#
# First part, sroce to sroce:
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.7.1/24      |----veth----|   v1 10.93.7.2/24      |
#   | clients, sroce-srqtest |            | servers                |
#   +------------------------+            +------------------------+
#
# Second part, with rdma_rxe: sroce0 is deleted (its UDP socket in
# init_net goes with it), rdma_rxe is loaded and binds UDP 4791 in
# init_net (Linux 6.1's rxe knows no other namespace), and rxe0 takes v0:
#
#   | rxe0 (rdma_rxe)        |----veth----| sroce1 (rdma link)     |
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-srq-$$
SRQTEST=$SROCE_REPO/build/userspace/tools/sroce-srqtest
IP0=10.93.7.1
IP1=10.93.7.2
PORT=18900

trap veth_cleanup EXIT

# pair SERVER_DEV SERVER_IN_NS(0|1) CLIENT_DEV SIZE ITERS [ARGS...]:
# ibv_srq_pingpong -c ARGS with its default 16 QPs, the server on
# SERVER_DEV (in $NS or in init_net), the client on CLIENT_DEV in the
# other namespace.  Both must finish with ITERS iterations and
# 2 * SIZE * ITERS bytes, and no data error.
pair() {
	local sdev=$1 sns=$2 cdev=$3 size=$4 iters=$5 sgid cgid saddr where=init
	shift 5
	if [ "$sns" = 1 ]; then
		where=ns saddr=$IP1
		sgid=$(gid_index "$sdev" "::ffff:$IP1")
		cgid=$(gid_index "$cdev" "::ffff:$IP0")
	else
		saddr=$IP0
		sgid=$(gid_index "$sdev" "::ffff:$IP0")
		cgid=$(gid_index "$cdev" "::ffff:$IP1")
	fi
	if [ -z "$sgid" ] || [ -z "$cgid" ]; then
		fail "no GID index ($sdev '$sgid', $cdev '$cgid')"
	fi
	PORT=$((PORT + 1))
	PAIR_TIMEOUT=120 run_pair "$where" "tcp:$PORT" \
		ibv_srq_pingpong -d "$sdev" -g "$sgid" -p "$PORT" -s "$size" -n "$iters" -c "$@" \
		-- ibv_srq_pingpong -d "$cdev" -g "$cgid" -p "$PORT" -s "$size" -n "$iters" -c "$@" "$saddr"
	pingpong_check "$size" "$iters"
}

test_setup() {
	[ -x "$SRQTEST" ] || fail "$SRQTEST is not built"
	sroce_pair "$IP0" "$IP1"
}

# Advertised only now that SRQs work; no resize.
test_caps() {
	local info
	info=$(ibv_devinfo -v -d sroce0)
	grep -E 'max_srq|SRQ' <<< "$info"
	grep -Eq 'max_srq:[[:space:]]+[1-9]' <<< "$info" || fail "max_srq is 0"
	grep -Eq 'max_srq_wr:[[:space:]]+[1-9]' <<< "$info" || fail "max_srq_wr is 0"
	grep -Eq 'max_srq_sge:[[:space:]]+[1-9]' <<< "$info" || fail "max_srq_sge is 0"
	! grep -q 'SRQ_RESIZE' <<< "$info" || fail "SRQ_RESIZE advertised"
}

test_pp() { pair sroce1 1 sroce0 "$@"; }

srqtest() {
	ktap_tool "$SRQTEST" sroce0 sroce1 "$1"
}

# Nothing of the test programs is left on either device.
test_no_leftovers() {
	no_user_objects 'sroce[01]' qp cq mr pd srq
	rdma resource show
}

test_rxe_server() {
	pair rxe0 0 sroce1 4096 160
	pair rxe0 0 sroce1 65536 32
}

test_sroce_server() {
	pair sroce1 1 rxe0 4096 160
	pair sroce1 1 rxe0 65536 32
}

test_unload() {
	rdma_links_delete sroce1 rxe0
	sroce_rmmod
}

cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "query_device advertises SRQs (no resize)" test_caps
	run_test "ibv_srq_pingpong -c, 16 QPs on one SRQ, 1 byte, 64 receives reposted (the ring wraps)" test_pp 1 320 -r 64
	run_test "ibv_srq_pingpong -c, 16 QPs on one SRQ, 4 KiB" test_pp 4096 160
	run_test "ibv_srq_pingpong -c, 16 QPs on one SRQ, 64 KiB (multi-packet)" test_pp 65536 32
	run_test "srqtest: limit event once when armed and crossed, then disarmed" srqtest limit
	run_test "srqtest: 3 QPs on one SRQ take WQEs in ring order, each in its order" srqtest shared
	run_test "srqtest: post_srq_recv ENOMEM exactly at max_wr; no RQ on the QPs" srqtest full
	run_test "srqtest: a QP in ERROR: LAST_WQE_REACHED, the SRQ's WQEs serve another QP" srqtest error
	run_test "srqtest: bad sizes, limit > max_wr, resize, destroy in use refused" srqtest bad-input
	run_test "no user objects left" test_no_leftovers
	run_setup "rdma_rxe in init_net in place of sroce0" rxe_replaces_sroce0 "$IP0"
	run_test "ibv_srq_pingpong, rdma_rxe server, sroce client" test_rxe_server
	run_test "ibv_srq_pingpong, sroce server, rdma_rxe client" test_sroce_server
	run_test "rmmod after SRQ traffic is clean" test_unload
}
ktap_run cases
