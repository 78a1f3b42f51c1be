#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The network fuzzer (userspace/tools/sroce-netfuzz): mutated RoCEv2
# datagrams at UDP 4791 of two sroce devices while sroce-torture's verified
# RC traffic runs between them.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.20.1/24     |----veth----|   v1 10.93.20.2/24     |
#   |      10.93.20.4/24     |            |      10.93.20.3/24     |
#   | sroce-torture (loop)   |            |                        |
#   | sroce-netfuzz          |            | netfuzz's sockets to   |
#   |   capture on v0        |            |   sroce0               |
#   +------------------------+            +------------------------+
#
# sroce-netfuzz owns an RC, a UC and a UD pair of its own (its stateful
# datagrams go there), learns QPNs, PSNs and keys from what it captures on
# v0, its own pairs' and the torture's, and sends to every QP only what a
# correct receiver drops before the QP (bad headers, bad ICRC, CNPs, the
# multicast QPN, no such QP, not from the peer: .3 and .4 are nobody's
# peer), each datagram's fate predicted and found in the hw counters.
# Meanwhile sroce-torture runs again and again: every run must complete
# with every byte and completion right.  Afterwards the device still
# carries verified traffic and every received packet has exactly one fate.
# Then 4,000 more datagrams with a receive backlog of one packet: the
# stack drops some on their way out of the injector's sockets, which must
# see ENOBUFS and send them again (the fates still exact in the counters).
# Last, both devices go away and sroce unloads; the kernel log stays clean.
#
#   netfuzz.sh          SROCE_NETFUZZ_PACKETS datagrams (default 400000),
#                       part of `make check`
#   netfuzz.sh long     1,000,000 (`make fuzz-net`)
#
# SROCE_NETFUZZ_SEED fixes the seed (default: a new one each run, printed).
#
# Runs in a guest (qemu/run-guest) as root.
# guest-timeout: 900
. "$(dirname "$0")/lib.sh"

MODE=${1:-check}
NS=sroce-netfuzz-$$
NETFUZZ=$SROCE_REPO/build/userspace/tools/sroce-netfuzz
TORTURE=$SROCE_REPO/build/userspace/tools/sroce-torture
IP0=10.93.20.1
IP1=10.93.20.2
ALT0=10.93.20.4
ALT1=10.93.20.3
if [ "$MODE" = long ]; then
	PACKETS=${SROCE_NETFUZZ_PACKETS:-1000000}
else
	PACKETS=${SROCE_NETFUZZ_PACKETS:-400000}
fi
BACKLOG_PACKETS=4000
SEED=${SROCE_NETFUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
WORK=$(mktemp -d)

cleanup() {
	[ ! -e "$WORK/torture.pid" ] || kill "$(cat "$WORK/torture.pid")" 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

test_setup() {
	[ -x "$NETFUZZ" ] || fail "$NETFUZZ is not built"
	[ -x "$TORTURE" ] || fail "$TORTURE is not built"
	sroce_pair "$IP0" "$IP1"
	# The predictions take an extension opcode (sxh.h) to any QP for an
	# unknown one: no victim may take selective repeat.
	echo 0 > /sys/module/sroce/parameters/sr
	# Nobody's peers, added once the devices use the first addresses.
	ip addr add "$ALT0/24" dev v0
	ip -n "$NS" addr add "$ALT1/24" dev v1
	wait_for 10 has_gid sroce0 "::ffff:$ALT0"
	wait_for 10 has_gid sroce1 "::ffff:$ALT1"
	rdma link show
}

test_fuzz() {
	local rc=0
	torture_loop_start "$IP0" "$IP1" "$SEED"
	# the torture's QPs are up and in the capture's corpus
	sleep 2
	echo "sroce-netfuzz --packets $PACKETS --seed $SEED"
	ktap_tool "$NETFUZZ" --dev-a sroce0 --dev-b sroce1 \
		--addr-a "$IP0" --addr-b "$IP1" --alt-a "$ALT0" --alt-b "$ALT1" \
		--ns-b "$NS" --capture v0 --packets "$PACKETS" --seed "$SEED" || rc=$?
	torture_loop_stop
	return "$rc"
}

# Every sroce-torture run during the fuzzing completed, every byte and
# completion right.
test_torture_clean() {
	torture_loop_clean
}

test_fates() {
	hw_fates_add_up sroce0 sroce1
}

# The injector's own accounting, made to be tested: with a receive
# backlog of one packet (netdev_max_backlog 0: a packet is queued only
# when the queue is empty) the stack drops datagrams on their way from the
# injector's sockets; each must come back from sendto() as ENOBUFS and be
# sent again, or its predicted fate is missing from the counters (as it
# once was, now and then, on a busy machine).  A veth hands a datagram to
# the backlog of the sending CPU, which the sender's own softirq empties
# before the next sendto(): drops would come only by luck (CI once saw
# none).  So RPS steers both veths' receiving to CPU 1 while the injector
# runs on CPU 0: CPU 1's queue of one is still full when the next datagram
# comes, on every run.  Then most datagrams bigger than the MTU lose a
# fragment on some try, and every try leaves a partial datagram in the
# receiver's reassembly queue for 30 s: past net.ipv4.ipfrag_high_thresh
# (4 MiB) the stack drops new fragments (ReasmFails), the resent datagram
# among them.  The case raises the threshold in both namespaces meanwhile.
rps_cpus() {
	echo "$1" > /sys/class/net/v0/queues/rx-0/rps_cpus &&
		ip netns exec "$NS" sh -c \
			"echo $1 > /sys/class/net/v1/queues/rx-0/rps_cpus"
}

ipfrag_high_thresh() {
	sysctl -qw "net.ipv4.ipfrag_high_thresh=$1" &&
		ip netns exec "$NS" sysctl -qw "net.ipv4.ipfrag_high_thresh=$1"
}

test_backlog_drops() {
	local resent rc=0 thresh
	[ "$(nproc)" -ge 2 ] || skip "one CPU: RPS cannot steer the datagrams away from the sender"
	thresh=$(sysctl -n net.ipv4.ipfrag_high_thresh)
	ipfrag_high_thresh $((256 << 20)) || fail "cannot raise ipfrag_high_thresh"
	rps_cpus 2 || fail "cannot steer v0's and v1's receiving to CPU 1"
	echo "taskset -c 0 sroce-netfuzz --packets $BACKLOG_PACKETS --seed $((SEED + 1)) --backlog 0"
	ktap_tool taskset -c 0 "$NETFUZZ" --dev-a sroce0 --dev-b sroce1 \
		--addr-a "$IP0" --addr-b "$IP1" --alt-a "$ALT0" --alt-b "$ALT1" \
		--ns-b "$NS" --capture v0 --packets "$BACKLOG_PACKETS" \
		--seed $((SEED + 1)) --backlog 0 || rc=$?
	rps_cpus 0 || fail "cannot give v0's and v1's receiving back to the sending CPU"
	ipfrag_high_thresh "$thresh" || fail "cannot restore ipfrag_high_thresh"
	[ "$rc" -eq 0 ] || return "$rc"
	resent=$(sed -n 's/.* \([0-9][0-9]*\) resent after ENOBUFS.*/\1/p' <<< "$KTAP_OUT")
	[ "${resent:-0}" -gt 0 ] ||
		fail "the stack dropped none of the injector's datagrams: the case tested nothing"
	echo "$resent datagrams dropped on their way out and sent again"
}

test_teardown() {
	sroce_pair_rmmod
}

cases() {
	run_setup "sroce0 and sroce1 with nobody's peers next to them" test_setup
	run_test "$PACKETS datagrams under sroce-torture" test_fuzz
	run_test "sroce-torture completed every run" test_torture_clean
	run_test "every received packet has one fate" test_fates
	run_test "$BACKLOG_PACKETS datagrams through a one-packet backlog, the stack's drops sent again" test_backlog_drops
	run_test "devices deleted, sroce unloads" test_teardown
}

ktap_run cases
