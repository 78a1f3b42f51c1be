#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile peers and hostile processes: one regression test per review
# finding of issue #16 (Documentation/security.md), each a case named for
# its finding, run by userspace/tools/sroce-hostile:
#
#   F1  duplicate READs fill the responder's resources, then a READ at the
#       expected PSN (a NULL write in softirq before the fix)
#   F2  a rewound SQ producer index and the doorbell (a hard lockup)
#   F3  blind fatal NAKs of PSNs never sent, amid traffic (the QP killed)
#   F4  a WRITE after ibv_dereg_mr() or LOCAL_INV of its window, a READ
#       after ibv_dereg_mr() and asked for again (bytes moved after it)
#   F5  8192 UD sends in one post: the doorbell's run is bounded
#   F6  one duplicate READ of 1 MiB no resource answered (answered); a
#       duplicate of an answered READ, then the next READ while the
#       replay streams (the replay must not take the next READ's resource)
#   F7  huge CQs and QPs in a memory-limited cgroup: ENOMEM
#   F8  a CQ overflow: IBV_EVENT_CQ_ERR and the QP in ERROR
#   F9  a CNP and reserved AETH syndromes at outstanding PSNs (they
#       acknowledged)
#
# the second review round's (issue #34):
#
#   R2-9  a UD QP given a privileged Q_Key (high bit set): taken with
#       CAP_NET_RAW, EPERM without (6.1's core refuses it before sroce)
#   R2-4  a forged READ of 8 MiB: B's responder work item queues itself
#       again every 128 packets (resp_yields), never holding its CPU's
#       workqueue for the whole READ
#   R2-12 a forged READ of 2 GiB at path MTU 256 (2^23 responses, the
#       half PSN window): accepted and answered, the QP reset after the
#       first 4096 responses
#   R2-7  an XRC message whose SRQ is destroyed after its first packet
#       and a new SRQ made: the rest is refused and completes on nothing
#
# and the IBTA 1.5 atomic write's (issue #17), forged packets no provider
# sends:
#
#   AW  atomic writes of another length than 8 (16 bytes, 4 or 12 under a
#       RETH of 8, none under a RETH of 0: rdma_rxe leaked kernel memory
#       through the last until 2026): an invalid request, not a byte
#       written; duplicates of an executed atomic write, with other bytes
#       or another address: answered, never executed again
#
# Each case also fails when the kernel log gained an oops, a WARN, a
# lockup or a stall while it ran, and every tool run is bounded: a
# doorbell that never returns is a failure, not a hung selftest.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.9.1/24      |----veth----|   v1 10.93.9.2/24      |
#   | sroce-hostile: A, and  |            | B                      |
#   | the forger (UDP from   |            |                        |
#   | 10.93.9.1)             |            |                        |
#   +------------------------+            +------------------------+
#
# SROCE_HOSTILE_ONLY (an extended regular expression) runs only the cases
# whose names match and skips the others: for the runs that show each
# case failing on the module before the fixes, where one of them takes
# the kernel down (see Documentation/security.md).
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-hostile-$$
HOSTILE=$SROCE_REPO/build/userspace/tools/sroce-hostile
IP0=10.93.9.1
IP1=10.93.9.2
CGROOT=/sys/fs/cgroup
CG=$CGROOT/sroce-hostile-$$
# The cgroup of F7: its rings must not fit.
CG_MAX=$((64 << 20))

hostile_cleanup() {
	[ ! -d "$CG" ] || rmdir "$CG" 2>/dev/null
	veth_cleanup
}
trap hostile_cleanup EXIT

test_setup() {
	[ -x "$HOSTILE" ] || fail "$HOSTILE is not built"
	sroce_pair "$IP0" "$IP1"
	rdma link show
}

# _replay FILE STATUS: FILE's contents, and STATUS (for ktap_tool).
_replay() {
	cat "$1"
	return "$2"
}

# hostile CHECK [WRAPPER...]: sroce-hostile's CHECK between sroce0 and
# sroce1 (through WRAPPER, a command that runs the rest), its KTAP the
# subtests of the case.  It may take 180 s (scaled); one still running
# then is stuck in the kernel (a signal does not end it), which fails the
# case.  A kernel log that gained trouble meanwhile fails it as well.
hostile() {
	local check=$1 out pid rc=0 t=0 limit=$((180 * SROCE_TIMEOUT_SCALE))
	local before added
	shift
	before=$(dmesg | wc -l)
	out=$(mktemp)
	"$@" "$HOSTILE" sroce0 sroce1 "$check" > "$out" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [ "$t" -lt "$limit" ]; do
		sleep 1
		t=$((t + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		cat "$out"
		kill -9 "$pid" 2>/dev/null
		fail "sroce-hostile $check did not return within ${limit}s (stuck in the kernel)"
	fi
	wait "$pid" || rc=$?
	ktap_tool _replay "$out" "$rc" || rc=$?
	rm -f "$out"
	added=$(dmesg | tail -n +"$((before + 1))")
	if grep -Eq "$KERNEL_TROUBLE" <<< "$added"; then
		grep -E -A 30 -m1 "$KERNEL_TROUBLE" <<< "$added"
		fail "the kernel log gained trouble during $check"
	fi
	return "$rc"
}

# selected NAME: the case is to run (SROCE_HOSTILE_ONLY), or skipped.
selected() {
	[ -z "${SROCE_HOSTILE_ONLY:-}" ] || [[ $1 =~ $SROCE_HOSTILE_ONLY ]] ||
		skip "not selected by SROCE_HOSTILE_ONLY=$SROCE_HOSTILE_ONLY"
}

test_f1() {
	selected f1
	hostile f1-replays-fill-resources
}

test_f2() {
	selected f2
	hostile f2-rewound-producer
}

test_f3() {
	selected f3
	hostile f3-blind-nak
}

test_f4() {
	selected f4
	hostile f4-
}

test_f5() {
	selected f5
	hostile f5-requester-budget
}

test_f6() {
	selected f6
	hostile f6-
}

# in_cgroup CMD...: CMD alone in $CG, never the OOM killer's victim (the
# limit must show as ENOMEM, not as a killed process).
in_cgroup() {
	sh -c 'echo $$ > "$1/cgroup.procs" && echo -1000 > /proc/self/oom_score_adj && shift && exec "$@"' \
		sh "$CG" "$@"
}

test_f7() {
	selected f7
	if ! grep -q "^cgroup2 $CGROOT " /proc/mounts; then
		mount -t cgroup2 cgroup2 "$CGROOT"
	fi
	grep -qw memory "$CGROOT/cgroup.controllers" ||
		fail "no memory controller in $CGROOT"
	echo +memory > "$CGROOT/cgroup.subtree_control"
	mkdir "$CG"
	echo "$CG_MAX" > "$CG/memory.max"
	[ ! -e "$CG/memory.swap.max" ] || echo 0 > "$CG/memory.swap.max"
	hostile f7-memcg in_cgroup
	grep -E '^(max|oom|oom_kill) ' "$CG/memory.events"
}

test_f8() {
	selected f8
	hostile f8-cq-overflow
}

test_f9() {
	selected f9
	hostile f9-
}

# Issue #34 finding 9: a privileged Q_Key is taken with CAP_NET_RAW
# (root here) and refused without it (setpriv drops it from the bounding
# set, so the exec'd tool has none).
test_r2_qkey_raw() {
	selected r2
	hostile r2-privileged-qkey
}

test_r2_qkey_unprivileged() {
	selected r2
	hostile r2-privileged-qkey setpriv --bounding-set -net_raw --inh-caps -net_raw
}

test_r2_responder_yields() {
	selected r2-4
	hostile r2-responder-yields
}

test_r2_read_2g() {
	selected r2-12
	hostile r2-read-2g-mtu256
}

test_r2_xrc_srq_gone() {
	selected r2-7
	hostile r2-xrc-srq-gone
}

test_aw() {
	selected aw
	hostile aw-
}

test_rmmod() {
	selected rmmod
	sroce_pair_rmmod
}

# Forged SroceHello MADs (issue #36, Documentation/protocol.md): each
# wrong in one way, dropped and counted, never answered, no agreement.
test_ext() {
	selected ext
	hostile ext-forged-hello
}

# Selective repeat (issue #36): a READ ahead of a missing WRITE is held
# and runs in its turn; a READ asked in pieces is asked again once for a
# lost PSN, not a run's budget of times; forged selective ACKs naming PSNs
# never sent are refused whole and acknowledge nothing; to a pair that
# granted no selective repeat (sroce.sr=0), SXH packets are unknown
# opcodes.
test_sr() {
	selected sr
	hostile sr-
}

cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "F1: duplicate READs cannot exhaust the responder's resources" test_f1
	run_test "F2: a rewound SQ producer index is ignored" test_f2
	run_test "F3: blind fatal NAKs are dropped and counted" test_f3
	run_test "F4: no access after deregistration or invalidation" test_f4
	run_test "F5: the requester's run is bounded" test_f5
	run_test "F6: duplicate READs are answered only from their resources, and never at the cost of the next READ" test_f6
	run_test "F7: rings are charged to the memory cgroup" test_f7
	run_test "F8: a CQ overflow ends the QP with CQ_ERR" test_f8
	run_test "F9: CNPs and reserved AETH syndromes acknowledge nothing" test_f9
	run_test "R2-9: a privileged Q_Key is taken with CAP_NET_RAW" test_r2_qkey_raw
	run_test "R2-9: a privileged Q_Key is refused without CAP_NET_RAW" test_r2_qkey_unprivileged
	run_test "R2-4: a long READ's responder gives its CPU's workqueue back" test_r2_responder_yields
	run_test "R2-12: a READ of 2 GiB at path MTU 256 is answered" test_r2_read_2g
	run_test "R2-7: an XRC message whose SRQ was destroyed completes on nothing" test_r2_xrc_srq_gone
	run_test "AW: atomic writes of another length are refused, duplicates never executed" test_aw
	run_test "EXT: forged SroceHello MADs are dropped and counted, never answered" test_ext
	run_test "SR: a READ ahead of a loss is held and runs in its turn; forged selective ACKs are refused whole; SXH packets to a pair without selective repeat are unknown opcodes" test_sr
	run_test "rmmod after the hostile cases is clean" test_rmmod
}
ktap_run cases
