#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC send/receive between sroce and rdma_rxe, in both directions:
# ibv_rc_pingpong (path MTU 1024 and 4096, IPv4 and IPv6 GIDs) and
# perftest's ib_send_bw/ib_send_lat, each once with the server on rdma_rxe
# and once with the server on sroce.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | rxe0 (rdma_rxe)        |            | sroce1 (rdma link)     |
#   |   v0 10.93.6.1/24      |----veth----|   v1 10.93.6.2/24      |
#   |      fd93:6::1/64      |            |      fd93:6::2/64      |
#   +------------------------+            +------------------------+
#
# rdma_rxe of Linux 6.1 binds UDP 4791 in the initial namespace only (as
# soon as it loads); sroce binds it per namespace, so sroce lives in $NS.
# Every program runs in the namespace of its device's netdev.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-interop-$$
IP_RXE=10.93.6.1
IP_SROCE=10.93.6.2
IP6_RXE=fd93:6::1
IP6_SROCE=fd93:6::2
PORT=18800

trap veth_cleanup EXIT

# On each side (rxe in init_net, sroce in $NS): the device, its address
# and its IPv4 and IPv6 GIDs.
side() { # side rxe|sroce
	if [ "$1" = rxe ]; then
		DEV=rxe0 ADDR=$IP_RXE
		G4=$(gid_index rxe0 "::ffff:$IP_RXE") G6=$(gid_index rxe0 "$IP6_RXE")
	else
		DEV=sroce1 ADDR=$IP_SROCE
		G4=$(gid_index sroce1 "::ffff:$IP_SROCE") G6=$(gid_index sroce1 "$IP6_SROCE")
	fi
}

# pair SERVER FAMILY TOOL ARGS...: TOOL ARGS as the server on SERVER's
# device (rxe or sroce), then as the client on the other one, connecting
# to the server's address, over the GIDs of FAMILY (ipv4 or ipv6)
# (run_pair).
pair() {
	local server=$1 fam=$2 tool=$3 gopt=-x where=init sdev saddr sgid cdev cgid
	shift 3
	case $tool in ibv_*) gopt=-g ;; esac
	[ "$server" = rxe ] || where=ns
	side "$server"
	sdev=$DEV saddr=$ADDR
	if [ "$fam" = ipv6 ]; then sgid=$G6; else sgid=$G4; fi
	if [ "$server" = rxe ]; then side sroce; else side rxe; fi
	cdev=$DEV
	if [ "$fam" = ipv6 ]; then cgid=$G6; else cgid=$G4; fi
	if [ -z "$sgid" ] || [ -z "$cgid" ]; then
		fail "no $fam GID index ($sdev: '$sgid', $cdev: '$cgid')"
	fi
	PORT=$((PORT + 1))
	run_pair "$where" "tcp:$PORT" "$tool" -d "$sdev" "$gopt" "$sgid" -p "$PORT" "$@" \
		-- "$tool" -d "$cdev" "$gopt" "$cgid" -p "$PORT" "$@" "$saddr"
}

test_setup() {
	rxe_sroce_pair "$IP_RXE" "$IP_SROCE" "$IP6_RXE" "$IP6_SROCE"
	rdma link show
	ibv_devinfo -v -d rxe0 | grep -E 'GID|active_mtu'
	ibv_devinfo -v -d sroce1 | grep -E 'GID|active_mtu'
}

# pingpong SERVER MTU SIZE ITERS [ipv6]: at path MTU MTU (the veth's MTU
# set for it).
pingpong() {
	local server=$1 mtu=$2 size=$3 iters=$4
	path_mtu "$mtu" rxe0 sroce1
	pair "$server" "${5:-ipv4}" ibv_rc_pingpong -m "$mtu" -s "$size" -n "$iters" -c
	pingpong_check "$size" "$iters"
}

# perftest SERVER PROGRAM SIZE ITERS ARGS...: at path MTU 1024, both sides
# print their result row for SIZE bytes and ITERS iterations.
perftest() {
	local server=$1 prog=$2 size=$3 iters=$4
	shift 4
	path_mtu 1024 rxe0 sroce1
	pair "$server" ipv4 "$prog" -F -s "$size" -n "$iters" "$@"
	perftest_rows "$size" "$iters"
}

# The largest message: 1 MiB less a page.  rdma_rxe of 6.1 reads one
# pointer past its MR's map array whenever a copy ends with the last page
# of a full map (256 pages: a 1 MiB ibv_rc_pingpong buffer), in
# rxe_mr_copy(), sending or receiving; KASAN reports it under the debug
# kernel (make check-debug).  A bug of rdma_rxe, not of sroce, gone with
# the MR rewrite of 6.2.
BIG=$((1048576 - 4096))

test_pp_1024() {
	local server=$1
	pingpong "$server" 1024 1 50
	pingpong "$server" 1024 4096 50
	pingpong "$server" 1024 "$BIG" 5
}

test_pp_4096() {
	local server=$1
	pingpong "$server" 4096 65536 20
	pingpong "$server" 4096 "$BIG" 5
}

test_pp_ipv6() {
	pingpong "$1" 1024 65536 20 ipv6
}

test_send_bw() {
	perftest "$1" ib_send_bw 65536 100
	perftest "$1" ib_send_bw 64 500 -e
}

test_send_lat() {
	perftest "$1" ib_send_lat 64 300
	perftest "$1" ib_send_lat 4096 200 -e
}

# A pingpong's traffic from rdma_rxe (10 messages of 4 KiB, 4 packets each
# at path MTU 1024) passed sroce's receive checks and reached its QPs;
# every packet of the whole run has one fate, none was malformed.
test_sroce_counters() {
	local snap
	snap=$(hw_snapshot sroce1)
	pingpong rxe 1024 4096 10
	rdma statistic show link sroce1/1
	hw_traffic_counted "$snap" sroce1 40 40960
	hw_fates_add_up sroce1
	hw_no_rx_errors sroce1
	rdma statistic show link rxe0/1 || true
}

# The one thing sroce adds on the wire towards an IBTA peer is its hello
# (Documentation/protocol.md, "Discovery"): a pingpong with the server on
# sroce, whose QP says hello at RTR, captured on rdma_rxe's veth.  Every
# packet is RC (opcodes 0x00-0x1f) to a QP other than 1, or a UD SEND ONLY
# to QP1: sroce's Get and the answer of rdma_rxe's MAD core, which knows no
# class 0x30 and says "unsupported"; sroce counts that as a refusal, not a
# timeout, agrees on nothing, and the data is verified as always.  With
# congestion control on (the default) every packet of sroce's is ECT(0),
# which rdma_rxe takes like any other.
test_ext_rxe() {
	local snap pcap=/tmp/ext-rxe.pcap pid rows op qp ecn src mads=0 rc_pkts=0 bad='' rc=0
	local not_ect=0
	path_mtu 1024 rxe0 sroce1
	tcpdump -i v0 -s 0 -U -w "$pcap" udp port 4791 2> /tmp/ext-tcpdump.err &
	pid=$!
	wait_for 10 grep -q listening /tmp/ext-tcpdump.err
	snap=$(hw_snapshot sroce1)
	(pingpong sroce 1024 4096 50) || rc=$?
	sleep 1
	kill -INT "$pid"
	wait "$pid" || true
	[ "$rc" = 0 ] || fail "the pingpong failed"
	hw_expect "$snap" sroce1 ext_hello_sent=1 ext_hello_refused=1 \
		ext_hello_accepted=0 ext_hello_timeouts=0 ext_hello_replied=0 \
		ext_agreements=0
	rows=$(tshark -r "$pcap" -T fields -e infiniband.bth.opcode \
		-e infiniband.bth.destqp -e ip.dsfield.ecn -e ip.src)
	while read -r op qp ecn src; do
		# Congestion control on (sroce's default): sroce's leave ECT(0).
		[ "$src" != "$IP_SROCE" ] || [ "$ecn" = 2 ] || not_ect=$((not_ect + 1))
		if [ "$op" = 100 ] && [ "$((qp))" = 1 ]; then
			mads=$((mads + 1))
		elif [ -n "$op" ] && [ "$op" -lt 32 ] && [ "$((qp))" != 1 ]; then
			rc_pkts=$((rc_pkts + 1))
		else
			bad="$bad $op/$qp"
		fi
	done <<< "$rows"
	echo "captured: $rc_pkts RC packets, $mads MADs to QP1, others:${bad:- none}"
	[ -z "$bad" ] || fail "packets neither RC nor MADs to QP1:$bad"
	[ "$not_ect" = 0 ] || fail "$not_ect of sroce's packets not ECT(0)"
	[ "$mads" -ge 2 ] || fail "expected sroce's hello and rdma_rxe's answer, saw $mads MADs"
	[ "$rc_pkts" -ge 200 ] || fail "expected the pingpong's 200 RC packets or more, saw $rc_pkts"
}

cases() {
	run_setup "rdma_rxe in init_net, sroce in a namespace" test_setup
	run_test "ibv_rc_pingpong MTU 1024, rdma_rxe server, sroce client" test_pp_1024 rxe
	run_test "ibv_rc_pingpong MTU 1024, sroce server, rdma_rxe client" test_pp_1024 sroce
	run_test "ibv_rc_pingpong MTU 4096, rdma_rxe server, sroce client" test_pp_4096 rxe
	run_test "ibv_rc_pingpong MTU 4096, sroce server, rdma_rxe client" test_pp_4096 sroce
	run_test "ibv_rc_pingpong IPv6, rdma_rxe server, sroce client" test_pp_ipv6 rxe
	run_test "ibv_rc_pingpong IPv6, sroce server, rdma_rxe client" test_pp_ipv6 sroce
	run_test "ib_send_bw, rdma_rxe server, sroce client" test_send_bw rxe
	run_test "ib_send_bw, sroce server, rdma_rxe client" test_send_bw sroce
	run_test "ib_send_lat, rdma_rxe server, sroce client" test_send_lat rxe
	run_test "ib_send_lat, sroce server, rdma_rxe client" test_send_lat sroce
	run_test "SroceHello towards rdma_rxe: refused by its MAD core, no agreement, the only non-RC packets are MADs to QP1" test_ext_rxe
	run_test "sroce counted rdma_rxe's packets as valid" test_sroce_counters
	run_test "rmmod sroce and rdma_rxe" rxe_sroce_rmmod
}
ktap_run cases
