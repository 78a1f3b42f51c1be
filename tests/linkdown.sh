#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC connections across link outages (Documentation/kernel-driver.md,
# "Timers"): while a QP's path is down its requester spends no retry, and
# resumes when the path is back; a peer gone while the path stays up still
# ends in IBV_WC_RETRY_EXC_ERR within the QP's timeout x retry_cnt.
#
#   $NSA                            $NSB
#   +----------------------+        +----------------------+
#   | sroce0 on a0         |--veth--| sroce1 on a1         |
#   |   10.93.30.1/24      |        |   10.93.30.2/24      |
#   +----------------------+        +----------------------+
#   init_net                        $NSC
#   +----------------------+        +----------------------+
#   | rxe0 (rdma_rxe) on b0|--veth--| sroce2 on b1         |
#   |   10.93.31.1/24      |        |   10.93.31.2/24      |
#   +----------------------+        +----------------------+
#
# rdma_rxe of Linux 6.1 serves init_net only and holds its UDP 4791, so
# every sroce device lives in a namespace.  sroce-torture runs in init_net
# (rdma's shared namespace mode shows every device), every byte and
# completion verified.  Both outages run at the same time, so that the
# SROCE_LINKDOWN_SECS (default 60) are paid once: sroce0 <-> sroce1 both
# ways, and sroce2 -> rxe0 one way (--one-way: rdma_rxe only responds; its
# own requester spends its retries across an outage, which is rdma_rxe's
# behaviour, not sroce's).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NSA=sroce-ldA-$$
NSB=sroce-ldB-$$
NSC=sroce-ldC-$$
TORTURE=$SROCE_REPO/build/userspace/tools/sroce-torture
SECS=${SROCE_LINKDOWN_SECS:-60}
IPA0=10.93.30.1
IPA1=10.93.30.2
IPB0=10.93.31.1
IPB1=10.93.31.2
WORK=$(mktemp -d)
SEED_ARGS=()
[ -z "${SROCE_TORTURE_SEED:-}" ] || SEED_ARGS=(--seed "$SROCE_TORTURE_SEED")

cleanup() {
	local p
	for p in "$WORK"/*.pid; do
		[ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	for d in sroce0 sroce1 sroce2 rxe0; do rdma link delete "$d" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	ip netns del "$NSC" 2>/dev/null
	ip link del b0 2>/dev/null
	sroce_unload 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

test_setup() {
	[ -x "$TORTURE" ] || fail "$TORTURE is not built"
	rxe_load
	sroce_load
	sroce_provider_setup
	ip netns add "$NSA"
	ip netns add "$NSB"
	ip netns add "$NSC"
	ip link add a0 netns "$NSA" type veth peer name a1 netns "$NSB"
	ip -n "$NSA" addr add "$IPA0/24" dev a0
	ip -n "$NSB" addr add "$IPA1/24" dev a1
	ip link add b0 type veth peer name b1 netns "$NSC"
	ip addr add "$IPB0/24" dev b0
	ip -n "$NSC" addr add "$IPB1/24" dev b1
	ip -n "$NSA" link set a0 up
	ip -n "$NSB" link set a1 up
	ip link set b0 up
	ip -n "$NSC" link set b1 up
	ip netns exec "$NSA" rdma link add sroce0 type sroce netdev a0
	ip netns exec "$NSB" rdma link add sroce1 type sroce netdev a1
	ip netns exec "$NSC" rdma link add sroce2 type sroce netdev b1
	rxe_add rxe0 b0 "$IPB0"
	wait_for 10 has_gid sroce0 "::ffff:$IPA0"
	wait_for 10 has_gid sroce1 "::ffff:$IPA1"
	wait_for 10 has_gid sroce2 "::ffff:$IPB1"
	rdma link show
}

# torture_bg NAME DEV_A IP_A DEV_B IP_B ARGS...: sroce-torture between
# DEV_A and DEV_B in the background, QP timeout $SROCE_QP_TIMEOUT (67 ms
# x 7 retries: far shorter than the outage) unless ARGS say otherwise;
# its output in $WORK/NAME.log, its pid in $WORK/NAME.pid, its status in
# $WORK/NAME.rc once it ends.
torture_bg() {
	local name=$1 a=$2 ipa=$3 b=$4 ipb=$5 ga gb
	shift 5
	ga=$(gid_index "$a" "::ffff:$ipa")
	gb=$(gid_index "$b" "::ffff:$ipb")
	rm -f "$WORK/$name.rc"
	{
		local rc=0
		timeout $(((SECS + 600) * SROCE_TIMEOUT_SCALE)) "$TORTURE" \
			--dev-a "$a" --dev-b "$b" --gid-a "$ga" --gid-b "$gb" \
			--qps 2 --depth 16 --progress 10 --timeout "$SROCE_QP_TIMEOUT" \
			"${SEED_ARGS[@]}" "$@" > "$WORK/$name.log" 2>&1 || rc=$?
		echo "$rc" > "$WORK/$name.rc"
	} &
	echo $! > "$WORK/$name.pid"
}

# torture_wait NAME: torture_bg NAME has ended; its output shown as
# diagnostics, its status in TORTURE_RC.
torture_wait() {
	wait "$(cat "$WORK/$1.pid")"
	rm -f "$WORK/$1.pid"
	sed "s/^/# $1: /" "$WORK/$1.log"
	TORTURE_RC=$(cat "$WORK/$1.rc")
}

# running NAME: torture_bg NAME has not ended.
running() {
	[ ! -e "$WORK/$1.rc" ]
}

# ended NAME: it has.
ended() {
	! running "$1"
}

# still_running NAME WHEN: torture_bg NAME has not ended, else its output
# is shown and the case fails: it ended WHEN.
still_running() {
	running "$1" && return 0
	torture_wait "$1"
	fail "$1: sroce-torture ended $2 (status $TORTURE_RC)"
}

# traffic NAME DEV TX0: wait until DEV sent 2000 packets more than TX0
# while torture_bg NAME runs.
traffic() {
	wait_for 60 tx_above "$2" $(($3 + 2000)) || still_running "$1" "before its traffic"
	still_running "$1" "before the outage"
}

# fresh_start: no torture of an earlier case (one that failed) left.
fresh_start() {
	local p
	for p in "$WORK"/*.pid; do
		[ -e "$p" ] || continue
		pkill -KILL -P "$(cat "$p")" 2>/dev/null
		wait "$(cat "$p")" 2>/dev/null
		rm -f "$p"
	done
	links_up
}

# links_up: a0 and b1 up again (after a case that failed during its
# outage), both veths with carrier.
links_up() {
	ip -n "$NSA" link set a0 up
	ip -n "$NSC" link set b1 up
	wait_for 10 lower_up a0 "$NSA" || fail "a0 has no carrier"
	wait_for 10 lower_up b1 "$NSC" || fail "b1 has no carrier"
}

# lower_up IF NS: IF in namespace NS is up with carrier.
lower_up() {
	local out
	out=$(ip -n "$2" link show "$1") && [[ $out == *LOWER_UP* ]]
}

# tx_above DEV N: DEV's tx_packets is above N.
tx_above() {
	[ "$(hw_counter "$1" tx_packets)" -gt "$2" ]
}

# A link down for $SECS s in the middle of both transfers, on the sender's
# side (a0: sroce1's a1 loses carrier; b1: rxe0's b0 loses carrier): with
# a QP timeout of 67 ms x 7 retries every QP ends in RETRY_EXC_ERR within
# a second on a requester that spends its retries while the path is down.
# The QPs towards rdma_rxe have 268 ms x 7 (1.9 s, still far shorter than
# the outage): with 67 ms, one CI run (2026-12-02) saw sroce2's QP end in
# RETRY_EXC_ERR within the 0.5 s after the link came back, while rxe0's
# port was only being set active again (the next run passed); how long
# rdma_rxe takes to answer again after its carrier returns is not
# sroce's to shorten.
test_outage() {
	local tx0 tx2 rs rr
	tx0=$(hw_counter sroce0 tx_packets)
	tx2=$(hw_counter sroce2 tx_packets)
	# Enough that neither ends before both are under way (8 MB/s or
	# more each under TCG).
	torture_bg sr sroce2 "$IPB1" rxe0 "$IPB0" --bytes 128M --one-way \
		--timeout 16 --deadline $((SECS + 120))
	torture_bg ss sroce0 "$IPA0" sroce1 "$IPA1" --bytes 128M \
		--deadline $((SECS + 120))
	traffic sr sroce2 "$tx2"
	traffic ss sroce0 "$tx0"
	ip -n "$NSA" link set a0 down
	ip -n "$NSC" link set b1 down
	still_running ss "before the outage"
	still_running sr "before the outage"
	sleep "$SECS"
	still_running ss "during the outage"
	still_running sr "during the outage"
	links_up
	echo "a0 and b1 were down for $SECS s"
	torture_wait ss
	rs=$TORTURE_RC
	torture_wait sr
	rr=$TORTURE_RC
	[ "$rs" = 0 ] || fail "sroce0 <-> sroce1: sroce-torture exited with status $rs"
	[ "$rr" = 0 ] || fail "sroce2 -> rxe0: sroce-torture exited with status $rr"
}

# The peer's address removed while the path stays up (a0 up with carrier
# and its route to 10.93.30.0/24): sroce0's QPs spend their retries and
# end in IBV_WC_RETRY_EXC_ERR (sroce-torture's clean failure, status 3)
# within QP timeout 16 (268 ms) x (1 + 7 retries), 2.1 s; 15 s allowed (a
# TCG guest, the torture's drain).
test_peer_gone() {
	local tx0 t0 t1 rc bound=$((15 * SROCE_TIMEOUT_SCALE))
	fresh_start
	tx0=$(hw_counter sroce0 tx_packets)
	torture_bg gone sroce0 "$IPA0" sroce1 "$IPA1" --bytes 1G --one-way \
		--timeout 16 --expect-fail-ok --deadline 60
	traffic gone sroce0 "$tx0"
	ip -n "$NSB" addr del "$IPA1/24" dev a1
	t0=$(date +%s%N)
	while running gone && [ $(($(date +%s%N) - t0)) -lt $((bound * 2000000000)) ]; do
		sleep 0.1
	done
	t1=$(date +%s%N)
	running gone && fail "no RETRY_EXC_ERR $((bound * 2)) s after the peer went"
	torture_wait gone
	rc=$TORTURE_RC
	ip -n "$NSB" addr add "$IPA1/24" dev a1
	wait_for 10 has_gid sroce1 "::ffff:$IPA1"
	echo "sroce-torture ended $(((t1 - t0) / 1000000)) ms after the peer's address went"
	[ "$rc" = 3 ] || fail "sroce-torture exited with status $rc, expected 3 (clean RETRY_EXC_ERR)"
	grep -q 'RETRY_EXC' "$WORK/gone.log" || fail "no RETRY_EXC_ERR reported"
	[ $((t1 - t0)) -le $((bound * 1000000000)) ] || fail "RETRY_EXC_ERR took longer than $bound s"
}

# The link goes down and never comes back before the QPs are destroyed:
# the QPs wait (the torture is still running, no retry error), then the
# process is killed and the kernel destroys its QPs with work outstanding
# and the timer polling the path: no hang, nothing left.
test_down_destroyed() {
	local tx0 pid
	fresh_start
	tx0=$(hw_counter sroce0 tx_packets)
	torture_bg never sroce0 "$IPA0" sroce1 "$IPA1" --bytes 1G --deadline 600
	traffic never sroce0 "$tx0"
	ip -n "$NSA" link set a0 down
	sleep 5
	still_running never "with the link down"
	pid=$(pgrep -P "$(cat "$WORK/never.pid")" -x timeout)
	[ -n "$pid" ] || fail "no timeout process under the torture's subshell"
	pid=$(pgrep -P "$pid" -x sroce-torture)
	[ -n "$pid" ] || fail "no sroce-torture process"
	kill -KILL "$pid"
	wait_for 20 ended never || fail "sroce-torture did not exit once killed"
	torture_wait never
	wait_for 20 no_qps_left || fail "QPs left after the process ended"
	links_up
}

# no_qps_left: no QP, CQ, MR or PD of a process left on the sroce devices.
no_qps_left() {
	local out
	out=$(rdma resource show qp; rdma resource show cq; rdma resource show mr;
	      rdma resource show pd)
	! grep -qE 'sroce[012][ /].* pid ' <<< "$out"
}

test_rmmod() {
	fresh_start
	rdma_links_delete sroce0 sroce1 sroce2 rxe0
	timeout 30 rmmod sroce || fail "rmmod sroce failed"
	! grep -q '^sroce ' <<< "$(lsmod)" || fail "sroce still loaded"
	rxe_rmmod
}

cases() {
	run_setup "sroce0 <-> sroce1, sroce2 <-> rdma_rxe on two veths" test_setup
	run_test "link down $SECS s mid-transfer, QP timeout 67 ms x 7 (268 ms x 7 to rdma_rxe): sroce<->sroce and sroce->rdma_rxe recover, all verified" test_outage
	run_test "peer's address gone, path up: RETRY_EXC_ERR within the retry budget" test_peer_gone
	run_test "link down, QPs destroyed before it comes back: no hang, nothing left" test_down_destroyed
	run_test "rmmod sroce and rdma_rxe" test_rmmod
}
ktap_run cases
