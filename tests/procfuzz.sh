#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hostile-process fuzzer (userspace/tools/sroce-procfuzz): an
# unprivileged process corrupts its own mapped SQ, RQ, SRQ and CQ rings
# (indices, WQE fields, SGE counts, opcodes, notification words) and sends
# uverbs commands with driver data of its own making, while sroce-torture,
# another process, runs verified RC traffic between the same two devices.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.21.1/24     |----veth----|   v1 10.93.21.2/24     |
#   | sroce-torture (loop)   |            |                        |
#   | sroce-procfuzz (nobody)|            |                        |
#   +------------------------+            +------------------------+
#
# Then a second hostile process is killed with SIGKILL in the middle of its
# mutations.  Every sroce-torture run meanwhile must complete with every
# byte and completion right (the other process's QPs unaffected); the
# hostile process itself gets a working RC pair afterwards and tears
# everything down in bounded time; every received packet has one fate; both devices
# go away and sroce unloads; the kernel log stays clean.
#
#   procfuzz.sh        SROCE_PROCFUZZ_MUTATIONS ring mutations (default
#                      100000) and a tenth as many commands; `make check`
#   procfuzz.sh long   1,000,000 mutations (`make fuzz-proc`)
#
# SROCE_PROCFUZZ_SEED fixes the seed (default: a new one each run, printed).
#
# Runs in a guest (qemu/run-guest) as root.
# guest-timeout: 900
. "$(dirname "$0")/lib.sh"

MODE=${1:-check}
NS=sroce-procfuzz-$$
PROCFUZZ=$SROCE_REPO/build/userspace/tools/sroce-procfuzz
TORTURE=$SROCE_REPO/build/userspace/tools/sroce-torture
IP0=10.93.21.1
IP1=10.93.21.2
if [ "$MODE" = long ]; then
	MUTATIONS=${SROCE_PROCFUZZ_MUTATIONS:-1000000}
else
	MUTATIONS=${SROCE_PROCFUZZ_MUTATIONS:-100000}
fi
COMMANDS=$((MUTATIONS / 10))
SEED=${SROCE_PROCFUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
WORK=$(mktemp -d)

cleanup() {
	[ ! -e "$WORK/torture.pid" ] || kill "$(cat "$WORK/torture.pid")" 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

test_setup() {
	[ -x "$PROCFUZZ" ] || fail "$PROCFUZZ is not built"
	[ -x "$TORTURE" ] || fail "$TORTURE is not built"
	sroce_pair "$IP0" "$IP1"
	# The hostile process is nobody: the uverbs devices open to all, as
	# rdma-core's udev rules make them.
	chmod 0666 /dev/infiniband/uverbs*
	rdma link show
}

test_fuzz() {
	local rc=0
	torture_loop_start "$IP0" "$IP1" "$SEED"
	sleep 2
	echo "sroce-procfuzz --mutations $MUTATIONS --commands $COMMANDS --seed $SEED, as nobody"
	ktap_tool timeout $((1800 * SROCE_TIMEOUT_SCALE)) \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PROCFUZZ" sroce0 sroce1 --mutations "$MUTATIONS" \
		--commands "$COMMANDS" --seed "$SEED" || rc=$?
	# Another hostile process, killed with SIGKILL in the middle of its
	# mutations: the kernel cleans up after it while the torture runs.
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PROCFUZZ" sroce0 sroce1 --mutations 1000000000 \
		--seed $((SEED + 1)) > "$WORK/killed.out" 2>&1 &
	local victim=$!
	# in the middle of its mutations: 2 s after its setup
	wait_for 60 grep -q '^ok 1 setup' "$WORK/killed.out" ||
		{ cat "$WORK/killed.out"; echo "the process to kill never set up"; rc=1; }
	sleep 2
	kill -9 "$victim"
	wait "$victim" && rc=1
	echo "killed a hostile process 2 s into its mutations (seed $((SEED + 1)))"
	torture_loop_stop
	return "$rc"
}

# Every sroce-torture run during the fuzzing completed, every byte and
# completion right: the hostile process touched nothing of another's.
test_torture_clean() {
	torture_loop_clean
}

test_fates() {
	hw_fates_add_up sroce0 sroce1
}

test_teardown() {
	sroce_pair_rmmod
}

cases() {
	run_setup "sroce0 and sroce1, uverbs open to all" test_setup
	run_test "$MUTATIONS ring mutations and $COMMANDS commands, then one killed mid-run, under sroce-torture" test_fuzz
	run_test "sroce-torture completed every run" test_torture_clean
	run_test "every received packet has one fate" test_fates
	run_test "devices deleted, sroce unloads" test_teardown
}

ktap_run cases
