#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce's UDP sockets (one set per network namespace) and its receive path:
# crafted RoCEv2 datagrams from a peer namespace move the port's hw
# counters by reason.
#
#   $NSA                           $NSP (peer, sroce-pktgen)        $NSB
#   +------------------------+     +-------------------------+     +-----------------+
#   | sa0 on a0 10.93.1.1/24 |-----| pa0 10.93.1.2/24        |     |                 |
#   |           fd93:1::1/64 |     |     fd93:1::2/64        |     |                 |
#   | (no device) a1         |-----| pa1 10.93.3.2/24        |     |                 |
#   |           10.93.3.1/24 |     | pb0 10.93.2.2/24        |-----| sb0 on b0       |
#   +------------------------+     +-------------------------+     |   10.93.2.1/24  |
#                                                                  +-----------------+
#   init_net: v0 --veth-- v1 (in $NSP), for the rdma_rxe case
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NSA=sroce-net-a-$$
NSB=sroce-net-b-$$
NSP=sroce-net-p-$$
NSC=sroce-net-c-$$
PKTGEN=$SROCE_REPO/build/userspace/tools/sroce-pktgen
# 4791 in /proc/net/udp{,6}: local address ends in ":12B7"
PORT_HEX=12B7

cleanup() {
	for d in sa0 sa1 sb0 sx0 sc0; do
		rdma link delete "$d" 2>/dev/null
	done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	ip netns del "$NSC" 2>/dev/null
	ip netns del "$NSP" 2>/dev/null
	ip link del v0 2>/dev/null
	sroce_unload 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
}
trap cleanup EXIT

# veth NS_LEFT IF_LEFT ADDR_LEFT NS_RIGHT IF_RIGHT ADDR_RIGHT
veth() {
	ip -n "$1" link add "$2" type veth peer name "$5" netns "$4"
	ip -n "$1" link set lo up
	ip -n "$4" link set lo up
	[ -z "$3" ] || ip -n "$1" addr add "$3" dev "$2"
	[ -z "$6" ] || ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

topology() {
	ip netns add "$NSA"
	ip netns add "$NSB"
	ip netns add "$NSP"
	veth "$NSA" a0 10.93.1.1/24 "$NSP" pa0 10.93.1.2/24
	ip -n "$NSA" addr add fd93:1::1/64 dev a0 nodad
	ip -n "$NSP" addr add fd93:1::2/64 dev pa0 nodad
	veth "$NSA" a1 10.93.3.1/24 "$NSP" pa1 10.93.3.2/24
	veth "$NSB" b0 10.93.2.1/24 "$NSP" pb0 10.93.2.2/24
}

# port_bound NS: UDP 4791 is bound in NS, IPv4 and IPv6
port_bound() {
	ip netns exec "$1" grep -q ":$PORT_HEX " /proc/net/udp &&
		ip netns exec "$1" grep -q ":$PORT_HEX " /proc/net/udp6
}

port_free() {
	! ip netns exec "$1" grep -q ":$PORT_HEX " /proc/net/udp &&
		! ip netns exec "$1" grep -q ":$PORT_HEX " /proc/net/udp6
}

init_port_bound() {
	grep -q ":$PORT_HEX " /proc/net/udp
}

# snap DEV: all hw counters of DEV, as hw_snapshot's "DEV NAME VALUE" lines
snap() {
	[ -e "$HW_SYSFS/$1/ports/1/hw_counters/rx_packets" ] ||
		fail "$1 has no hw counters"
	hw_snapshot "$1"
}

# deltas_are DEV SNAPSHOT NAME=DELTA...: every counter moved by exactly the
# given DELTA ("*" for any), the unnamed ones not at all.
deltas_are() {
	local dev=$1 before=$2 name old new want d ok=0 kv
	shift 2
	for kv in "$@"; do
		[[ $'\n'$before == *$'\n'"$dev ${kv%%=*} "* ]] ||
			{ echo "no counter ${kv%%=*}" >&2; return 1; }
	done
	while read -r _ name old; do
		read -r new < "$HW_SYSFS/$dev/ports/1/hw_counters/$name"
		d=$((new - old))
		want=0
		for kv in "$@"; do
			[ "${kv%%=*}" = "$name" ] && want=${kv#*=}
		done
		if [ "$want" != "*" ] && [ "$d" -ne "$want" ]; then
			echo "$dev $name moved by $d, expected $want" >&2
			ok=1
		fi
	done <<< "$before"
	return $ok
}

pktgen() {
	ip netns exec "$NSP" "$PKTGEN" "$@"
}

test_load() {
	[ -x "$PKTGEN" ] || fail "$PKTGEN is not built"
	sroce_load
	topology
	ip netns exec "$NSA" cat /proc/net/sroce
	port_free "$NSA"
	port_free "$NSB"
}

test_socket_follows_devices() {
	ip netns exec "$NSA" rdma link add sa0 type sroce netdev a0
	port_bound "$NSA"
	ip netns exec "$NSA" ss -ulnp | grep ':4791'
	ip netns exec "$NSA" cat /proc/net/sroce
	ip netns exec "$NSA" grep -qx 'devices 1' /proc/net/sroce
	ip netns exec "$NSA" grep -qx 'udp_port 4791 ipv4 ipv6' /proc/net/sroce
	port_free "$NSB"
	# A second device shares the sockets; they outlive the first one.
	ip netns exec "$NSA" rdma link add sa1 type sroce netdev a1
	ip netns exec "$NSA" grep -qx 'devices 2' /proc/net/sroce
	rdma link delete sa0
	wait_for 10 rdma_dev_gone sa0
	port_bound "$NSA"
	rdma link delete sa1
	wait_for 10 rdma_dev_gone sa1
	port_free "$NSA"
	ip netns exec "$NSA" grep -qx 'devices 0' /proc/net/sroce
}

test_two_namespaces() {
	ip netns exec "$NSA" rdma link add sa0 type sroce netdev a0
	ip netns exec "$NSB" rdma link add sb0 type sroce netdev b0
	port_bound "$NSA"
	port_bound "$NSB"
	rdma link delete sb0
	wait_for 10 rdma_dev_gone sb0
	port_free "$NSB"
	port_bound "$NSA"
	ip netns exec "$NSB" rdma link add sb0 type sroce netdev b0
	port_bound "$NSB"
}

# sa0_sb0: sa0 on a0 in $NSA and sb0 on b0 in $NSB, as "each namespace
# has its own sockets" leaves them, whatever it did.
sa0_sb0() {
	rdma_dev_exists sa0 || ip netns exec "$NSA" rdma link add sa0 type sroce netdev a0
	rdma_dev_exists sb0 || ip netns exec "$NSB" rdma link add sb0 type sroce netdev b0
	port_bound "$NSA"
	port_bound "$NSB"
}

test_netdev_moves() {
	sa0_sb0
	ip netns exec "$NSA" rdma link add sa1 type sroce netdev a1
	# Moving the netdev unregisters it from NSA: its device goes away.
	ip -n "$NSA" link set a1 netns "$NSB"
	wait_for 10 rdma_dev_gone sa1
	rdma_dev_exists sa0
	port_bound "$NSA"
	ip -n "$NSB" link set a1 netns "$NSA"
	ip -n "$NSA" addr add 10.93.3.1/24 dev a1
	ip -n "$NSA" link set a1 up
}

test_namespace_deleted() {
	ip netns add "$NSC"
	veth "$NSC" c0 10.93.4.1/24 "$NSP" pc0 10.93.4.2/24
	ip netns exec "$NSC" rdma link add sc0 type sroce netdev c0
	port_bound "$NSC"
	ip netns del "$NSC"
	wait_for 20 rdma_dev_gone sc0
}

# send KIND COUNT COUNTER [ipv6]: COUNT datagrams of KIND to sa0 move
# rx_packets and COUNTER by COUNT, and nothing else but rx_bytes.
send_expect() {
	local kind=$1 n=$2 counter=$3 src=10.93.1.2 dst=10.93.1.1 before
	if [ "${4:-}" = ipv6 ]; then
		src=fd93:1::2 dst=fd93:1::1
	fi
	before=$(snap sa0)
	pktgen --src "$src" --dst "$dst" --kind "$kind" --count "$n"
	wait_for 5 deltas_are sa0 "$before" "rx_packets=$n" "$counter=$n" 'rx_bytes=*' ||
		deltas_are sa0 "$before" "rx_packets=$n" "$counter=$n" 'rx_bytes=*'
	echo "$kind x$n -> $counter"
}

test_rx_valid() {
	local before
	sa0_sb0
	# 12 bytes BTH + 64 payload + 4 ICRC
	before=$(snap sa0)
	pktgen --src 10.93.1.2 --dst 10.93.1.1 --kind valid --count 3
	wait_for 5 deltas_are sa0 "$before" rx_packets=3 rx_drop_no_qp=3 rx_bytes=240 ||
		deltas_are sa0 "$before" rx_packets=3 rx_drop_no_qp=3 rx_bytes=240
	send_expect valid 2 rx_drop_no_qp ipv6
	# The largest payload (4096) in one datagram of a 9000-byte MTU.
	ip -n "$NSA" link set a0 mtu 9000
	ip -n "$NSP" link set pa0 mtu 9000
	before=$(snap sa0)
	pktgen --src 10.93.1.2 --dst 10.93.1.1 --kind valid --len 4096 --count 2
	pktgen --src 10.93.1.2 --dst 10.93.1.1 --kind icrc --len 4096 --count 1
	wait_for 5 deltas_are sa0 "$before" rx_packets=3 rx_drop_no_qp=2 rx_err_icrc=1 rx_bytes=12336 ||
		deltas_are sa0 "$before" rx_packets=3 rx_drop_no_qp=2 rx_err_icrc=1 rx_bytes=12336
	ip -n "$NSA" link set a0 mtu 1500
	ip -n "$NSP" link set pa0 mtu 1500
	# Fragmented over IPv6 and reassembled: a chain of skbs.
	before=$(snap sa0)
	pktgen --src fd93:1::2 --dst fd93:1::1 --kind valid --len 4000 --frag --count 2
	pktgen --src fd93:1::2 --dst fd93:1::1 --kind icrc --len 4000 --frag --count 1
	wait_for 5 deltas_are sa0 "$before" rx_packets=3 rx_drop_no_qp=2 rx_err_icrc=1 rx_bytes=12048 ||
		deltas_are sa0 "$before" rx_packets=3 rx_drop_no_qp=2 rx_err_icrc=1 rx_bytes=12048
}

test_rx_errors() {
	sa0_sb0
	send_expect icrc 4 rx_err_icrc
	send_expect icrc 2 rx_err_icrc ipv6
	send_expect truncated 3 rx_err_truncated
	send_expect opcode 5 rx_err_opcode
	send_expect tver 6 rx_err_tver
}

test_rdma_statistic() {
	local out nq ic
	sa0_sb0
	nq=$(hw_counter sa0 rx_drop_no_qp)
	ic=$(hw_counter sa0 rx_err_icrc)
	pktgen --src 10.93.1.2 --dst 10.93.1.1 --kind valid --count 1
	pktgen --src 10.93.1.2 --dst 10.93.1.1 --kind icrc --count 1
	wait_for 5 counter_above sa0 rx_drop_no_qp "$nq"
	wait_for 5 counter_above sa0 rx_err_icrc "$ic"
	out=$(rdma statistic show link sa0/1)
	echo "$out"
	grep -Eq 'rx_drop_no_qp [1-9]' <<< "$out"
	grep -Eq 'rx_err_icrc [1-9]' <<< "$out"
	grep -q 'tx_packets 0' <<< "$out"
}

# counter_above DEV NAME N: DEV's hw counter NAME is above N.
counter_above() {
	[ "$(hw_counter "$1" "$2")" -gt "$3" ]
}

# rx_no_dev: the rx_no_dev count of $NSA's sockets.
rx_no_dev() {
	ip netns exec "$NSA" cat /proc/net/sroce | awk '/rx_no_dev/ { print $2 }'
}

test_rx_no_device() {
	local before after
	before=$(rx_no_dev)
	# a1 has no sroce device, but NSA's socket takes the datagrams.
	pktgen --src 10.93.3.2 --dst 10.93.3.1 --kind valid --count 7
	after=$(rx_no_dev)
	echo "rx_no_dev $before -> $after"
	[ $((after - before)) -eq 7 ]
}

garbage_counted() {
	[ $(($(hw_counter sa0 rx_packets) - $1)) -eq "$2" ] &&
		[ "$(hw_fates sa0)" -eq "$(hw_counter sa0 rx_packets)" ]
}

test_rx_garbage() {
	local p0 n=20000
	sa0_sb0
	p0=$(hw_counter sa0 rx_packets)
	pktgen --src 10.93.1.2 --dst 10.93.1.1 --kind garbage --count "$n" --seed $$
	pktgen --src fd93:1::2 --dst fd93:1::1 --kind garbage --count 2000 --seed $$
	n=$((n + 2000))
	wait_for 10 garbage_counted "$p0" "$n" || true
	snap sa0
	garbage_counted "$p0" "$n"
}

test_rxe_in_init_net() {
	sa0_sb0
	rxe_load
	ip link add v0 type veth peer name v1 netns "$NSP"
	ip link set v0 up
	wait_for 5 init_port_bound || skip "rdma_rxe does not bind 4791 at load"
	expect_fail rdma link add sx0 type sroce netdev v0
	rdma_dev_gone sx0
	dmesg | grep 'sx0: cannot open UDP port 4791'
	# Other namespaces are not affected.
	rdma link delete sb0
	wait_for 10 rdma_dev_gone sb0
	ip netns exec "$NSB" rdma link add sb0 type sroce netdev b0
	send_expect valid 1 rx_drop_no_qp
	rxe_rmmod
	# Nothing was left behind: the same link works now.
	rdma link add sx0 type sroce netdev v0
	init_port_bound
	rdma link delete sx0
	wait_for 10 rdma_dev_gone sx0
	! init_port_bound
}

test_rmmod() {
	sa0_sb0
	rmmod sroce
	port_free "$NSA"
	port_free "$NSB"
	! ip netns exec "$NSA" test -e /proc/net/sroce
}

cases() {
	run_setup "module loads" test_load
	run_test "UDP 4791 opens with the first device of a namespace, closes with the last" test_socket_follows_devices
	run_test "each namespace has its own sockets" test_two_namespaces
	run_test "a netdev moved to another namespace takes its device along" test_netdev_moves
	run_test "deleting a namespace removes its device" test_namespace_deleted
	run_test "valid packets to a missing QP count as rx_drop_no_qp" test_rx_valid
	run_test "bad ICRC, truncated BTH, unknown opcode, bad TVer count by reason" test_rx_errors
	run_test "rdma statistic shows the counters" test_rdma_statistic
	run_test "datagrams on a netdev without a device are dropped and counted" test_rx_no_device
	run_test "random datagrams: counted, no oops" test_rx_garbage
	run_test "rdma_rxe in init_net: link there fails cleanly, others work" test_rxe_in_init_net
	run_test "rmmod closes every namespace's sockets" test_rmmod
}
ktap_run cases
