#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC between two sroce devices: ibv_rc_pingpong (IPv4 and IPv6 GIDs, path
# MTU 1024 and 4096), perftest's ib_send_bw/ib_send_lat (polling and
# events), the corner cases of userspace/tools/sroce-rctest
# (send/receive, and RDMA WRITE/READ/atomics and the IBTA 1.5 atomic write
# checked byte by byte, also on a wire that duplicates every packet), the
# hw counters, and a clean rmmod afterwards.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.5.1/24      |----veth----|   v1 10.93.5.2/24      |
#   |      fd93:5::1/64      |            |      fd93:5::2/64      |
#   | clients, sroce-rctest  |            | servers                |
#   +------------------------+            +------------------------+
#
# The servers of ibv_rc_pingpong and perftest run in $NS on sroce1, the
# clients in init_net on sroce0; their out-of-band TCP exchange crosses the
# veth too.  sroce-rctest opens both devices from init_net (rdma's shared
# namespace mode shows every device everywhere) and connects a QP on sroce0
# to one on sroce1 itself.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-rc-$$
RCTEST=$SROCE_REPO/build/userspace/tools/sroce-rctest
IP0=10.93.5.1
IP1=10.93.5.2
IP6_0=fd93:5::1
IP6_1=fd93:5::2
PORT=18700

trap veth_cleanup EXIT

# pair TOOL SERVER_GID CLIENT_GID PEER ARGS...: TOOL ARGS in $NS on
# sroce1 (the server, GID index SERVER_GID), then TOOL ARGS PEER in
# init_net on sroce0 (GID index CLIENT_GID), on a port of their own
# (run_pair).  The GID option is -g for ibv_*_pingpong, -x for perftest.
pair() {
	local tool=$1 gs=$2 gc=$3 peer=$4 gopt=-x before rc=0
	shift 4
	case $tool in ibv_*) gopt=-g ;; esac
	PORT=$((PORT + 1))
	before=$(hw_snapshot sroce0 sroce1)
	run_pair ns "tcp:$PORT" "$tool" -d sroce1 "$gopt" "$gs" -p "$PORT" "$@" \
		-- "$tool" -d sroce0 "$gopt" "$gc" -p "$PORT" "$@" "$peer" || rc=$?
	hw_moved "$before"
	return "$rc"
}

test_setup() {
	[ -x "$RCTEST" ] || fail "$RCTEST is not built"
	sroce_pair "$IP0" "$IP1" "$IP6_0" "$IP6_1"
	rdma system show
	rdma link show
	# Both devices are seen from both namespaces (shared mode).
	grep -q sroce1 <<< "$(ibv_devices)"
	grep -q sroce0 <<< "$(ip netns exec "$NS" ibv_devices)"
	ibv_devinfo -v -d sroce0 | grep -E 'GID|active_mtu|max_qp_wr|max_sge'
	ibv_devinfo -v -d sroce1 | grep -E 'GID|active_mtu'
}

# pingpong MTU SIZE ITERS [ipv6]: at path MTU MTU (the veth's MTU set for
# it).
pingpong() {
	local mtu=$1 size=$2 iters=$3 g0 g1
	path_mtu "$mtu" sroce0 sroce1
	if [ "${4:-}" = ipv6 ]; then
		g0=$(gid_index sroce0 "$IP6_0")
		g1=$(gid_index sroce1 "$IP6_1")
	else
		g0=$(gid_index sroce0 "::ffff:$IP0")
		g1=$(gid_index sroce1 "::ffff:$IP1")
	fi
	if [ -z "$g0" ] || [ -z "$g1" ]; then
		fail "no GID index"
	fi
	# -c: the receiver checks the data; a mismatch is only printed.
	pair ibv_rc_pingpong "$g1" "$g0" "$IP1" -m "$mtu" -s "$size" -n "$iters" -c
	pingpong_check "$size" "$iters"
}

# perftest PROGRAM SIZE ITERS ARGS...: a run over the IPv4 GIDs at path
# MTU 1024; both sides print their result row for SIZE bytes and ITERS
# iterations.  perftest gives devices it does not know (rdma_rxe and sroce
# alike) no inline data whatever -I says ("Device not recognized to
# implement inline feature"), so no case here claims inline sends:
# sroce-rctest inline covers them.
perftest() {
	local prog=$1 size=$2 iters=$3 g0 g1
	shift 3
	path_mtu 1024 sroce0 sroce1
	g0=$(gid_index sroce0 "::ffff:$IP0")
	g1=$(gid_index sroce1 "::ffff:$IP1")
	pair "$prog" "$g1" "$g0" "$IP1" -F -s "$size" -n "$iters" "$@"
	perftest_rows "$size" "$iters"
}

# rctest CASE: sroce-rctest CASE between sroce0 and sroce1, at path MTU
# 1024.
rctest() {
	local before rc=0
	path_mtu 1024 sroce0 sroce1
	before=$(hw_snapshot sroce0 sroce1)
	ktap_tool "$RCTEST" sroce0 sroce1 "$1" || rc=$?
	hw_moved "$before"
	return "$rc"
}

test_rnr() {
	local sent recvd
	sent=$(hw_counter sroce1 rnr_naks_sent)
	recvd=$(hw_counter sroce0 rnr_naks_rcvd)
	rctest rnr
	echo "rnr_naks_sent of sroce1: $sent -> $(hw_counter sroce1 rnr_naks_sent)"
	echo "rnr_naks_rcvd of sroce0: $recvd -> $(hw_counter sroce0 rnr_naks_rcvd)"
	[ "$(hw_counter sroce1 rnr_naks_sent)" -gt "$sent" ]
	[ "$(hw_counter sroce0 rnr_naks_rcvd)" -gt "$recvd" ]
}

# rctest rd-limit, whose first READs are 4 MiB (4096 response packets at
# path MTU 1024) at max_rd_atomic 1: each asks in pieces of at most the
# congestion window (128 PSNs), so 31 pieces or more but the last, and
# the responder, granting one resource, refuses none of them.
test_rd_limit() {
	local before
	before=$(hw_counter sroce0 read_pieces)
	rctest rd-limit
	echo "read_pieces of sroce0: $before -> $(hw_counter sroce0 read_pieces)"
	[ "$(hw_counter sroce0 read_pieces)" -ge $((before + 4 * 31)) ]
}

# rctest CASE under a wire that duplicates every packet both ways: the
# responder answers duplicate READs, atomics and atomic writes from its
# resources (an atomic executed twice would show in the counter rdma
# checks) and the requester drops duplicate responses.
test_dup() {
	local before
	modprobe sch_netem
	tc qdisc add dev v0 root netem duplicate 100%
	ip netns exec "$NS" tc qdisc add dev v1 root netem duplicate 100%
	before=$(hw_counter sroce1 duplicate_requests)
	rctest "$1" || { tc qdisc del dev v0 root; ip netns exec "$NS" tc qdisc del dev v1 root; return 1; }
	tc qdisc del dev v0 root
	ip netns exec "$NS" tc qdisc del dev v1 root
	echo "duplicate_requests of sroce1: $before -> $(hw_counter sroce1 duplicate_requests)"
	[ "$(hw_counter sroce1 duplicate_requests)" -gt "$before" ]
}

# The hw counters count a pingpong's traffic (10 messages of 4 KiB each
# way, 4 packets each at path MTU 1024), every received packet has one
# fate, and over everything run so far no malformed packet arrived.
test_counters() {
	local snap dev
	snap=$(hw_snapshot sroce0 sroce1)
	pingpong 1024 4096 10
	for dev in sroce0 sroce1; do
		rdma statistic show link "$dev/1"
		hw_traffic_counted "$snap" "$dev" 40 40960
	done
	hw_fates_add_up sroce0 sroce1
	hw_no_rx_errors sroce0 sroce1
}

# The port's PMA counters, which the kernel's sysfs shows for a device
# with a process_mad (sroce's: mad.c): every file reads a number, and the
# data and packet counters are the hw counters (data in 4-octet units).
# Read between two equal hw snapshots, so that no MAD retry of the
# pingpong before moved a counter in between.
pma_read() {
	local f v dir=$HW_SYSFS/$1/ports/1/counters
	for f in "$dir"/*; do
		read -r v < "$f" || fail "reading $f failed"
		[[ $v =~ ^[0-9]+$ ]] || fail "$f reads '$v'"
		echo "${f##*/}=$v"
	done
}

pma_expected() {
	local d=$1 e=0 c
	for c in "$HW_SYSFS/$d/ports/1/hw_counters"/rx_err_*; do
		e=$((e + $(cat "$c")))
	done
	[ "$e" -le 65535 ] || e=65535
	echo "port_rcv_errors=$e"
	echo "port_xmit_packets=$(hw_counter "$d" tx_packets)"
	echo "port_rcv_packets=$(hw_counter "$d" rx_packets)"
	echo "port_xmit_data=$(($(hw_counter "$d" tx_bytes) / 4))"
	echo "port_rcv_data=$(($(hw_counter "$d" rx_bytes) / 4))"
	echo "symbol_error=0"
	echo "VL15_dropped=0"
}

test_pma() {
	local d before after pma line
	for d in sroce0 sroce1; do
		for _ in 1 2 3 4 5; do
			before=$(pma_expected "$d")
			pma=$(pma_read "$d")
			after=$(pma_expected "$d")
			[ "$before" != "$after" ] || break
			sleep 1
		done
		[ "$before" = "$after" ] || fail "$d's counters never stood still"
		echo "$d: $(wc -l <<< "$pma") PMA counters"
		[ "$(wc -l <<< "$pma")" -ge 17 ] || fail "$d shows fewer PMA counters than the kernel's table"
		while read -r line; do
			grep -qx "$line" <<< "$pma" ||
				fail "$d: expected $line, the PMA says $(grep "^${line%%=*}=" <<< "$pma")"
		done <<< "$after"
		[ "$(hw_counter "$d" tx_bytes)" -gt 0 ] || fail "$d: tx_bytes is 0 after traffic"
	done
}

# The negotiation between sroce peers (SroceHello on QP1,
# Documentation/protocol.md): after an ibv_rc_pingpong each side's QP
# had its hello answered, answered the peer's, and agreed (on version 1
# and no feature: none is offered yet).  The server (sroce1) enters RTR
# first: its hello usually reaches the client's QP before that is RTR
# and is dropped there; the client's own hello then makes the server
# send its hello again at once (ext.c, sroce_ext_recv_get()), not on the
# MAD layer's retry 200 ms later, which a pingpong of 1000 round trips
# (0.19 s on a quiet host) did not live to see.  Hence 1 or 2 hellos sent
# at each end (the client sends again too when the server's new Get
# overtakes the server's answer to the client's) and answered, exactly
# one answer taken at each end, none timed out; a second lets a cancelled retry settle before the
# counters are read.
test_ext_agree() {
	local snap d
	snap=$(hw_snapshot sroce0 sroce1)
	pingpong 1024 4096 1000
	sleep 1
	hw_expect "$snap" sroce0 ext_hello_sent=1-2
	hw_expect "$snap" sroce1 ext_hello_sent=1-2
	for d in sroce0 sroce1; do
		hw_expect "$snap" "$d" ext_hello_accepted=1 \
			ext_hello_replied=1-2 ext_agreements=1 ext_hello_refused=0 \
			ext_hello_timeouts=0
	done
}

# The same over the RDMA CM: rping (300 pings, data verified).  The
# passive side (the server, on sroce1) enters RTR on accepting, before it
# sends the REP: its hello reaches the client's QP while it is still
# INIT, and is dropped there; the client's hello, once the REP moved its
# QP to RTR, makes the server send its hello again, which is answered,
# and both ends agree.
test_ext_cm() {
	local snap d
	path_mtu 1024 sroce0 sroce1
	snap=$(hw_snapshot sroce0 sroce1)
	PORT=$((PORT + 1))
	run_pair ns cm rping -s -a "$IP1" -p "$PORT" -C 300 -V \
		-- rping -c -a "$IP1" -p "$PORT" -C 300 -V
	sleep 1
	hw_moved "$snap"
	hw_at_least "$snap" sroce0 ext_hello_dropped 1
	hw_expect "$snap" sroce0 ext_hello_sent=1-2
	hw_expect "$snap" sroce1 ext_hello_sent=1-2
	for d in sroce0 sroce1; do
		hw_expect "$snap" "$d" ext_hello_accepted=1 \
			ext_agreements=1 ext_hello_refused=0 ext_hello_timeouts=0
	done
}

# remake_sroce1 EXT: sroce1 deleted and added again with sroce.ext=EXT
# (the parameter is read when a device is added), the parameter back on.
remake_sroce1() {
	rdma_links_delete sroce1
	echo "$1" > /sys/module/sroce/parameters/ext
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1 ||
		{ echo 1 > /sys/module/sroce/parameters/ext; return 1; }
	echo 1 > /sys/module/sroce/parameters/ext
	wait_for 10 has_gid sroce1 "::ffff:$IP1"
	wait_for 10 has_gid sroce1 "$IP6_1"
}

# sroce.ext=0 at one end: sroce1, added so, has no MAD agent of the class,
# so the MAD core answers sroce0's hello "unsupported" as on an IBTA port
# and sroce1 says no hello; nobody agrees, and the data is verified as
# always.  sroce1 is then made again with extensions on.
test_ext_off() {
	local snap rc=0
	remake_sroce1 0
	snap=$(hw_snapshot sroce0 sroce1)
	pingpong 1024 4096 50 || rc=$?
	sleep 1
	hw_expect "$snap" sroce0 ext_hello_sent=1 ext_hello_refused=1 \
		ext_hello_accepted=0 ext_hello_timeouts=0 ext_agreements=0 || rc=1
	hw_expect "$snap" sroce1 ext_hello_sent=0 ext_hello_replied=0 \
		ext_hello_dropped=0 ext_agreements=0 || rc=1
	remake_sroce1 1
	return "$rc"
}

# Nothing of the test programs is left, then the module goes cleanly.
test_rmmod() {
	rdma resource show
	sroce_pair_rmmod
}

cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "ibv_rc_pingpong, MTU 1024, 1 byte" pingpong 1024 1 50
	run_test "ibv_rc_pingpong, MTU 1024, 4 KiB" pingpong 1024 4096 50
	run_test "ibv_rc_pingpong, MTU 1024, 64 KiB" pingpong 1024 65536 20
	run_test "ibv_rc_pingpong, MTU 1024, 1 MiB" pingpong 1024 1048576 5
	run_test "ibv_rc_pingpong, MTU 4096 (veth MTU 9000), 1 byte" pingpong 4096 1 50
	run_test "ibv_rc_pingpong, MTU 4096, 4 KiB" pingpong 4096 4096 50
	run_test "ibv_rc_pingpong, MTU 4096, 64 KiB" pingpong 4096 65536 20
	run_test "ibv_rc_pingpong, MTU 4096, 1 MiB" pingpong 4096 1048576 5
	run_test "ibv_rc_pingpong over IPv6 GIDs, 64 KiB" pingpong 1024 65536 20 ipv6
	run_test "SroceHello: a pingpong's QPs agree at both ends (counters)" test_ext_agree
	run_test "SroceHello over the RDMA CM: rping's QPs agree despite the passive side's early hello" test_ext_cm
	run_test "SroceHello: sroce.ext=0 at one end: refused as by IBTA, no agreement, data verified" test_ext_off
	run_test "ib_send_bw 64 KiB" perftest ib_send_bw 65536 100
	run_test "ib_send_bw 64 B" perftest ib_send_bw 64 500
	run_test "ib_send_bw 4 KiB, events" perftest ib_send_bw 4096 200 -e
	run_test "ib_send_bw 1 MiB" perftest ib_send_bw 1048576 10
	run_test "ib_send_lat 64 B" perftest ib_send_lat 64 300
	run_test "ib_send_lat 4 KiB, events" perftest ib_send_lat 4096 200 -e
	run_test "ib_send_lat 2 B, events" perftest ib_send_lat 2 200 -e
	run_test "rctest: 1000 sends through rings of 4 (indices and PSNs wrap)" rctest wrap
	run_test "rctest: post_send/post_recv ENOMEM exactly at max_send_wr/max_recv_wr" rctest full
	run_test "rctest: posting and modify_qp in the wrong state are refused" rctest state
	run_test "rctest: gather and scatter over several SGEs" rctest multi-sge
	run_test "rctest: SEND_WITH_IMM delivers the immediate data" rctest imm
	run_test "rctest: solicited events" rctest solicited
	run_test "rctest: inline sends up to max_inline_data" rctest inline
	run_test "rctest: bad lkey or address: LOC_PROT_ERR, then flush" rctest bad-lkey
	run_test "rctest: RNR retries exhausted, or waited out (counters move)" test_rnr
	run_test "rctest: receive too small: LOC_LEN_ERR and REM_INV_REQ_ERR" rctest recv-too-small
	run_test "rctest: completion events end to end" rctest events
	run_test "rctest: RDMA WRITE/WRITE_WITH_IMM/READ and atomics, every byte and result checked" rctest rdma
	run_test "rctest: the same on a wire duplicating every packet (no atomic runs twice)" test_dup rdma
	run_test "rctest: max_rd_atomic honoured, and enforced by the responder; large READs asked in pieces" test_rd_limit
	run_test "rctest: ibv_rereg_mr (access, translation; the old keys refused)" rctest rereg
	run_test "rctest: atomic write by ibv_post_send and ibv_wr_atomic_write, every byte and completion checked" rctest atomic-write
	run_test "rctest: atomic write on a wire duplicating every packet" test_dup atomic-write
	run_test "rctest: completion timestamps (raw clock of rt_values, wall clock) on extended CQs" rctest timestamps
	run_test "hw counters: a pingpong's traffic counted, every packet once, no receive errors" test_counters
	run_test "PMA counters of sysfs (ports/1/counters) read, and are the hw counters" test_pma
	run_test "rmmod after traffic is clean" test_rmmod
}
ktap_run cases
