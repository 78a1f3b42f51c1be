#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC torture (userspace/tools/sroce-torture): QP pairs between two devices,
# both directions at once, a seeded random mix of SEND, WRITE,
# WRITE_WITH_IMM, READ and atomics of random sizes and SGE lists, every
# byte, guard byte and completion checked.  sroce to sroce on a clean wire
# and on a wire losing 1% of the packets both ways; then the same run
# between two rdma_rxe devices, which validates the tool itself.
#
# First sroce, as tests/rc.sh:
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.10.1/24     |----veth----|   v1 10.93.10.2/24     |
#   | sroce-torture          |            |                        |
#   +------------------------+            +------------------------+
#
# sroce-torture opens both devices from init_net (rdma's shared namespace
# mode shows every device everywhere) and connects the QPs itself.
#
# Then, with sroce unloaded, two rdma_rxe devices.  rdma_rxe of Linux 6.1
# receives in init_net only, so both ends of a second veth pair stay there:
#
#   init_net
#   +--------------------------------------------------------------+
#   | rxe0 on r0 10.93.11.1/24 ------veth------ rxe1 on r1 10.93.11.2/24 |
#   +--------------------------------------------------------------+
#
# rdma_rxe routes with the netdev as output interface, so a packet from
# rxe0 to 10.93.11.2 leaves by r0 (not by lo, although the address is
# local) and arrives on r1; r0 and r1 accept packets from a local source
# (accept_local, no rp_filter) and know each other's MAC statically.
#
# SROCE_TORTURE_SEED fixes the seed (default: a new one each run, printed
# with the command line that replays it).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-torture-$$
TORTURE=$SROCE_REPO/build/userspace/tools/sroce-torture
IP0=10.93.10.1
IP1=10.93.10.2
RIP0=10.93.11.1
RIP1=10.93.11.2
SEED_ARGS=()
[ -z "${SROCE_TORTURE_SEED:-}" ] || SEED_ARGS=(--seed "$SROCE_TORTURE_SEED")

cleanup() {
	rdma link delete sroce0 2>/dev/null
	rdma link delete sroce1 2>/dev/null
	rdma link delete rxe0 2>/dev/null
	rdma link delete rxe1 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip link del v0 2>/dev/null
	ip link del r0 2>/dev/null
	sroce_unload 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
}
trap cleanup EXIT

# gid_index DEV ADDR: index of DEV's RoCE v2 GID ADDR (as ibv_devinfo
# prints it, e.g. ::ffff:10.93.10.1); empty if there is none.
gid_index() {
	local re=${2//./\\.}
	ibv_devinfo -v -d "$1" |
		sed -nE "s/^[[:space:]]*GID\[ *([0-9]+)\]:[[:space:]]+$re, RoCE v2\$/\1/p" |
		head -n1
}

has_gid() {
	[ -n "$(gid_index "$1" "$2")" ]
}

cnt() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# torture DEV_A DEV_B ARGS...: sroce-torture between DEV_A and DEV_B over
# their IPv4 GIDs; the hw counters that moved are shown (not checked).
torture() {
	local a=$1 b=$2 snap rc=0
	shift 2
	snap=$(hw_snapshot "$a" "$b")
	timeout $((600 * SROCE_TIMEOUT_SCALE)) "$TORTURE" --dev-a "$a" --dev-b "$b" \
		--gid-a "$(gid_index "$a" "::ffff:$ADDR_A")" \
		--gid-b "$(gid_index "$b" "::ffff:$ADDR_B")" \
		"${SEED_ARGS[@]}" "$@" || rc=$?
	hw_moved "$snap"
	[ "$rc" -eq 0 ] || echo "sroce-torture exited with status $rc" >&2
	return "$rc"
}

test_setup() {
	[ -x "$TORTURE" ] || fail "$TORTURE is not built"
	sroce_load
	sroce_provider_setup
	ip netns add "$NS"
	ip link add v0 type veth peer name v1 netns "$NS"
	ip addr add "$IP0/24" dev v0
	ip link set v0 up
	ip -n "$NS" link set lo up
	ip -n "$NS" addr add "$IP1/24" dev v1
	ip -n "$NS" link set v1 up
	rdma link add sroce0 type sroce netdev v0
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	wait_for 10 has_gid sroce0 "::ffff:$IP0"
	wait_for 10 has_gid sroce1 "::ffff:$IP1"
	rdma link show
}

# Two correct peers on a clean wire: no malformed packet.
no_rx_errors() {
	local d f
	for d in sroce0 sroce1; do
		for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/rx_err_*; do
			[ "$(cat "$f")" -eq 0 ] || fail "$d: ${f##*/} is $(cat "$f")"
		done
	done
}

# 4 QP pairs, 64 MiB over the 8 streams, messages up to 256 KiB in up to 4
# SGEs, 16 outstanding per QP and direction, path MTU 1024.
test_sroce_clean() {
	ADDR_A=$IP0 ADDR_B=$IP1
	torture sroce0 sroce1 --qps 4 --bytes 64M --depth 16 --progress 10
	no_rx_errors
}

# The same with one family of operations only: when the full mix fails and
# these pass, the trouble is in how they interleave on a QP.
test_sroce_clean_payload() {
	ADDR_A=$IP0 ADDR_B=$IP1
	torture sroce0 sroce1 --qps 4 --bytes 64M --depth 16 --progress 10 \
		--mix send=4,write=3,write_imm=2
	no_rx_errors
}

test_sroce_clean_rd_atomic() {
	ADDR_A=$IP0 ADDR_B=$IP1
	torture sroce0 sroce1 --qps 4 --bytes 64M --depth 16 --progress 10 \
		--mix read=3,atomic=2
	no_rx_errors
}

# The same on a wire dropping 1% of the packets each way: go-back-N,
# duplicate READ responses and atomic replays under the checks.  The QP
# timeout (14: 67 ms) and 7 retries recover from any single loss.
test_sroce_loss() {
	local rc=0 before
	ADDR_A=$IP0 ADDR_B=$IP1
	modprobe sch_netem
	tc qdisc add dev v0 root netem loss 1%
	ip netns exec "$NS" tc qdisc add dev v1 root netem loss 1%
	before=$(cnt sroce0 retransmits)
	torture sroce0 sroce1 --qps 4 --bytes 16M --depth 16 --progress 10 || rc=$?
	tc qdisc del dev v0 root
	ip netns exec "$NS" tc qdisc del dev v1 root
	echo "retransmits of sroce0: $before -> $(cnt sroce0 retransmits)"
	return "$rc"
}

# Nothing of the tool is left, then the module goes cleanly.
test_rmmod() {
	local left
	left=$(rdma resource show qp; rdma resource show cq; rdma resource show mr; rdma resource show pd)
	left=$(grep -E 'dev sroce[01] ' <<< "$left" | grep ' pid ' || true)
	[ -z "$left" ] || { echo "$left"; fail "user objects left over"; }
	rdma link delete sroce1
	rdma link delete sroce0
	wait_for 10 rdma_dev_gone sroce0
	wait_for 10 rdma_dev_gone sroce1
	ip netns del "$NS"
	rmmod sroce
	! lsmod | grep -q '^sroce '
}

test_rxe_setup() {
	local i
	modprobe rdma_rxe 2>/dev/null || skip "rdma_rxe is not available"
	ip link add r0 type veth peer name r1
	ip addr add "$RIP0/24" dev r0
	ip addr add "$RIP1/24" dev r1
	sysctl -qw net.ipv4.conf.all.rp_filter=0
	for i in r0 r1; do
		sysctl -qw "net.ipv4.conf.$i.rp_filter=0"
		sysctl -qw "net.ipv4.conf.$i.accept_local=1"
	done
	ip link set r0 up
	ip link set r1 up
	ip neigh replace "$RIP1" lladdr "$(cat /sys/class/net/r1/address)" dev r0 nud permanent
	ip neigh replace "$RIP0" lladdr "$(cat /sys/class/net/r0/address)" dev r1 nud permanent
	rdma link add rxe0 type rxe netdev r0
	rdma link add rxe1 type rxe netdev r1
	wait_for 10 has_gid rxe0 "::ffff:$RIP0"
	wait_for 10 has_gid rxe1 "::ffff:$RIP1"
	rdma link show
}

test_rxe_clean() {
	ADDR_A=$RIP0 ADDR_B=$RIP1
	torture rxe0 rxe1 --qps 4 --bytes 64M --depth 16 --progress 10
}

test_rxe_unload() {
	rdma link delete rxe1
	rdma link delete rxe0
	wait_for 10 rdma_dev_gone rxe0
	wait_for 10 rdma_dev_gone rxe1
	ip link del r0
	modprobe -r rdma_rxe
	! lsmod | grep -q '^rdma_rxe '
}

ktap_plan 9
run_test "module, veth and two sroce devices set up" test_setup
run_test "sroce: 4 QP pairs, 64 MiB of mixed RC ops both ways, clean wire, all verified" test_sroce_clean
run_test "sroce: 64 MiB of SEND, WRITE and WRITE_WITH_IMM only, clean wire" test_sroce_clean_payload
run_test "sroce: 64 MiB of READ and atomics only, clean wire" test_sroce_clean_rd_atomic
run_test "sroce: 16 MiB of the mix, 1% loss both ways, all verified" test_sroce_loss
run_test "rmmod sroce after the torture is clean" test_rmmod
run_test "two rdma_rxe devices on a veth in init_net" test_rxe_setup
run_test "rdma_rxe: the same 64 MiB mixed run (the tool checked against rxe)" test_rxe_clean
run_test "rmmod rdma_rxe" test_rxe_unload
ktap_finish
