#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Captures rdma_rxe traffic as ground truth for the protocol core's tests:
# every opcode that perftest and ibv_*_pingpong produce, over IPv4 and
# IPv6, stored as tests/proto/data/rxe-ipv4.pcap and rxe-ipv6.pcap.
#
#   tests/proto/capture-rxe.sh            on the host: boots a guest with
#                                         qemu/run-guest, runs itself there
#                                         with --guest, unpacks the pcaps
#   tests/proto/capture-rxe.sh --guest    inside the guest
#   SROCE_CAPTURE_QUICK=1 tests/proto/capture-rxe.sh
#                                         smoke test of the setup: one
#                                         ib_send_bw per family, packets
#                                         and rxe counters printed, the
#                                         stored pcaps left alone
#
# It takes about a minute under TCG.
# Topology inside the one guest (rdma_rxe in 6.1 has no netns support, so
# both devices live in the initial namespace):
#
#     rxe0 ── v0 10.77.0.1/24 fd77::1/64 ══ veth ══ v1 10.77.0.2/24 fd77::2/64 ── rxe1
#     (servers)                                                          (clients)
#
# Both addresses are local, so by default the kernel would route between
# them over lo, where rxe (bound to v0/v1) never sees the packets.  Policy
# routing sends locally generated packets for the other end out of the
# veth instead (rules on "iif lo", ahead of the local table), static
# neighbours replace ARP/ND, and accept_local lets v0/v1 take packets from
# an address of their own host.
#
# The guest cannot write the repository (read-only 9p): it leaves the pcaps
# in $SROCE_OUT, which qemu/run-guest hands back as build/guest/NAME.out/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" != --guest ]; then
	data=$top/tests/proto/data
	name=capture-rxe
	"$top/qemu/run-guest" --name "$name" --timeout 1200 --quiet \
		${SROCE_CAPTURE_QUICK:+--env SROCE_CAPTURE_QUICK=1} -- \
		tests/proto/capture-rxe.sh --guest
	outf=$top/build/guest/$name.output
	if [ -n "${SROCE_CAPTURE_QUICK:-}" ]; then
		cat "$outf"
		exit 0
	fi
	mkdir -p "$data"
	for fam in ipv4 ipv6; do
		cp "$top/build/guest/$name.out/rxe-$fam.pcap" "$data/rxe-$fam.pcap.new"
		mv "$data/rxe-$fam.pcap.new" "$data/rxe-$fam.pcap"
		echo "capture-rxe: $data/rxe-$fam.pcap ($(stat -c %s "$data/rxe-$fam.pcap") bytes)"
	done
	grep '^capture-rxe:' "$outf" || true
	exit 0
fi

# ---- inside the guest ----
log() { echo "capture-rxe: $*"; }
cleanup() {
	[ -n "${tcpdump_pid:-}" ] && kill "$tcpdump_pid" 2>/dev/null
	rdma link del rxe1 2>/dev/null
	rdma link del rxe0 2>/dev/null
	ip link del v0 2>/dev/null
	true
}
trap cleanup EXIT

modprobe rdma_rxe
ip link add v0 type veth peer name v1
ip addr add 10.77.0.1/24 dev v0
ip addr add 10.77.0.2/24 dev v1
ip addr add fd77::1/64 dev v0 nodad
ip addr add fd77::2/64 dev v1 nodad
ip link set v0 up
ip link set v1 up
mac0=$(cat /sys/class/net/v0/address)
mac1=$(cat /sys/class/net/v1/address)
for c in all default v0 v1; do
	sysctl -qw net.ipv4.conf.$c.accept_local=1 net.ipv4.conf.$c.rp_filter=0
done
ip neigh replace 10.77.0.1 lladdr "$mac0" dev v1 nud permanent
ip neigh replace 10.77.0.2 lladdr "$mac1" dev v0 nud permanent
ip -6 neigh replace fd77::1 lladdr "$mac0" dev v1 nud permanent
ip -6 neigh replace fd77::2 lladdr "$mac1" dev v0 nud permanent
for v in -4 -6; do
	ip $v rule add pref 1000 lookup local
	ip $v rule del pref 0 lookup local
done
ip route add 10.77.0.1/32 dev v1 table 101
ip route add 10.77.0.2/32 dev v0 table 100
ip -6 route add fd77::1/128 dev v1 table 101
ip -6 route add fd77::2/128 dev v0 table 100
ip rule add pref 100 iif lo to 10.77.0.1 lookup 101
ip rule add pref 101 iif lo to 10.77.0.2 lookup 100
ip -6 rule add pref 100 iif lo to fd77::1 lookup 101
ip -6 rule add pref 101 iif lo to fd77::2 lookup 100
log "route to 10.77.0.1: $(ip route get 10.77.0.1 from 10.77.0.2 | sed -n 1p)"
log "route to fd77::1: $(ip -6 route get fd77::1 from fd77::2 | sed -n 1p)"
rdma link add rxe0 type rxe netdev v0
rdma link add rxe1 type rxe netdev v1

# gid_index DEV GID: index of a RoCE v2 GID in the device's table (polled,
# the table fills in asynchronously)
gid_index() {
	local dev=$1 want=$2 i f
	for _ in $(seq 100); do
		for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
			i=${f##*/}
			if [ "$(cat "$f" 2>/dev/null)" = "$want" ]; then
				echo "$i"
				return 0
			fi
		done
		sleep 0.1
	done
	echo "capture-rxe: no GID $want on $dev" >&2
	return 1
}

# pair NAME SERVER_CMD... -- CLIENT_ARGS: the server on rxe0, then the
# client on rxe1 with CLIENT_ARGS appended, on a port of their own;
# failures are reported, not fatal
port=18600
pair() {
	local name=$1 srv=() cli=()
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	port=$((port + 1))
	timeout 60 "${srv[0]}" -d rxe0 -p $port "${srv[@]:1}" "${sx[@]}" \
		>"/tmp/$name.srv" 2>&1 &
	local spid=$!
	for _ in $(seq 100); do
		grep -q ":$port " <<< "$(ss -ltn)" && break
		sleep 0.1
	done
	if timeout 40 "${srv[0]}" -d rxe1 -p $port "${srv[@]:1}" "${cx[@]}" "${cli[@]}" \
		>"/tmp/$name.cli" 2>&1 && wait "$spid"; then
		log "ok   $fam $name"
	else
		log "FAIL $fam $name"
		tail -n 5 "/tmp/$name.cli" "/tmp/$name.srv" | sed 's/^/    /'
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
	fi
}

for fam in ipv4 ipv6; do
	if [ $fam = ipv4 ]; then
		g0=$(gid_index rxe0 0000:0000:0000:0000:0000:ffff:0a4d:0001)
		g1=$(gid_index rxe1 0000:0000:0000:0000:0000:ffff:0a4d:0002)
		srv_ip=10.77.0.1
	else
		g0=$(gid_index rxe0 fd77:0000:0000:0000:0000:0000:0000:0001)
		g1=$(gid_index rxe1 fd77:0000:0000:0000:0000:0000:0000:0002)
		srv_ip=10.77.0.1	# the out-of-band TCP exchange
	fi
	sx=(-x "$g0") cx=(-x "$g1")
	pcap=/tmp/rxe-$fam.pcap
	tcpdump -i v0 -s 0 -U --immediate-mode -Z root -w "$pcap" udp port 4791 \
		2>/tmp/tcpdump.err &
	tcpdump_pid=$!
	sleep 2

	p=(-n 5 -m 1024 -F)
	if [ -n "${SROCE_CAPTURE_QUICK:-}" ]; then	# a smoke test of the setup
		pair send-RC ib_send_bw -s 4100 "${p[@]}" -- $srv_ip
		sleep 1; kill -INT "$tcpdump_pid"; wait "$tcpdump_pid" || true; tcpdump_pid=
		ls -la "$pcap"; cat /tmp/tcpdump.err; tcpdump -n -r "$pcap" 2>&1 | sed -n 1,8p
		grep . /sys/class/infiniband/rxe*/ports/1/hw_counters/* | grep -v ':0$' || true
		continue
	fi
	# multi-packet messages (first/middle/last, pad 0) and single-packet
	# ones with pad counts 3, 2, 1, 0
	for t in RC UC; do
		pair send-$t ib_send_bw -c $t -s 4100 "${p[@]}" -- $srv_ip
		pair write-$t ib_write_bw -c $t -s 4100 "${p[@]}" -- $srv_ip
		pair write-only-$t ib_write_bw -c $t -s 3 "${p[@]}" -- $srv_ip
	done
	pair send-ud ib_send_bw -c UD -s 1000 "${p[@]}" -- $srv_ip
	pair send-only-1 ib_send_bw -s 1 "${p[@]}" -- $srv_ip
	pair send-only-2 ib_send_bw -s 2 -I 0 "${p[@]}" -- $srv_ip
	pair read ib_read_bw -s 4100 "${p[@]}" -- $srv_ip
	pair read-only ib_read_bw -s 7 "${p[@]}" -- $srv_ip
	pair cmp-swap ib_atomic_bw -A CMP_AND_SWAP "${p[@]}" -- $srv_ip
	pair fetch-add ib_atomic_bw -A FETCH_AND_ADD "${p[@]}" -- $srv_ip
	pair send-lat ib_send_lat -s 12 "${p[@]}" -- $srv_ip
	pair write-lat ib_write_lat -s 64 "${p[@]}" -- $srv_ip
	pair read-lat ib_read_lat -s 64 "${p[@]}" -- $srv_ip
	sx=(-g "$g0") cx=(-g "$g1")
	pair rc-pingpong ibv_rc_pingpong -n 5 -s 2500 -m 1024 -- $srv_ip
	pair uc-pingpong ibv_uc_pingpong -n 5 -s 2500 -m 1024 -- $srv_ip
	pair ud-pingpong ibv_ud_pingpong -n 5 -s 500 -- $srv_ip

	sleep 1
	kill -INT "$tcpdump_pid"
	wait "$tcpdump_pid" || true
	tcpdump_pid=
	log "$fam: $(tcpdump -r "$pcap" 2>/dev/null | wc -l) packets"
	cp "$pcap" "$SROCE_OUT/rxe-$fam.pcap"
done
