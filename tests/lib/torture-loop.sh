# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# sroce-torture in a loop (tests/netfuzz.sh, tests/procfuzz.sh).
#
# Sourced by tests/lib.sh, like every file here.
#
# Verified RC traffic between sroce0 and sroce1 of sroce_pair again and
# again while something hostile runs next to it: every run must complete
# with every byte and completion right.  Its files are in $WORK.

# torture_loop_start IP0 IP1 SEED: sroce-torture between sroce0 (IP0) and
# sroce1 (IP1) in the background, run after run (2 QP pairs, 4 MiB, run n
# with seed SEED + n) until torture_loop_stop; each run's output in
# $WORK/torture.log, the loop's pid in $WORK/torture.pid (for an EXIT
# trap).
torture_loop_start() {
	rm -f "$WORK/stop" "$WORK/torture.runs" "$WORK/torture.rc"
	_torture_loop "$@" &
	echo $! > "$WORK/torture.pid"
}

# _torture_loop IP0 IP1 SEED: the loop of torture_loop_start; at its end
# the number of runs completed in $WORK/torture.runs, the first failure's
# status (0: none) in $WORK/torture.rc.
_torture_loop() {
	local n=0 rc=0 ga gb
	ga=$(gid_index sroce0 "::ffff:$1")
	gb=$(gid_index sroce1 "::ffff:$2")
	while [ ! -e "$WORK/stop" ]; do
		timeout $((600 * SROCE_TIMEOUT_SCALE)) \
			"$SROCE_REPO/build/userspace/tools/sroce-torture" \
			--dev-a sroce0 --dev-b sroce1 --gid-a "$ga" --gid-b "$gb" \
			--qps 2 --bytes 4M --depth 8 --seed $(($3 + n)) \
			--timeout "$SROCE_QP_TIMEOUT" \
			> "$WORK/torture.log" 2>&1 || { rc=$?; break; }
		n=$((n + 1))
	done
	echo "$n" > "$WORK/torture.runs"
	echo "$rc" > "$WORK/torture.rc"
}

# torture_loop_stop: the loop of torture_loop_start ends after its
# current run.
torture_loop_stop() {
	touch "$WORK/stop"
	wait "$(cat "$WORK/torture.pid")"
	rm -f "$WORK/torture.pid"
}

# torture_loop_clean: every run of the loop completed, every byte and
# completion right, and at least one did.
torture_loop_clean() {
	[ -e "$WORK/torture.rc" ] || fail "the torture loop did not finish"
	echo "sroce-torture runs completed: $(cat "$WORK/torture.runs")"
	if [ "$(cat "$WORK/torture.rc")" -ne 0 ]; then
		cat "$WORK/torture.log"
		fail "sroce-torture failed with status $(cat "$WORK/torture.rc")"
	fi
	[ "$(cat "$WORK/torture.runs")" -ge 1 ] || fail "no sroce-torture run completed"
	tail -n 3 "$WORK/torture.log"
}
