#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu/run-guest's scan of the kernel logs, in real guests (make check:
# host:run-guest-scan).  Each guest writes a trouble line first and then
# more than 4 MiB behind it, so that the scan's reader meets the line long
# before the log's producer is done (Documentation/testing.md "Pipelines
# under pipefail"):
#
#   dmesg    "BUG: canary" and 4 MiB of filler into the kernel log at
#            KERN_DEBUG (kept by dmesg, not printed on the console)
#   console  "BUG: canary" and 4 MiB of filler printed by the command,
#            which the serial console carries into the console log
#   clean    the same 4 MiB in both logs without the trouble line
#
# run-guest must exit 126 and print the canary's report for the first two,
# and exit 0 for the third, whose logs are as long.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
lines=4800   # of 900 characters: 4.3 MB, past 4 MiB
failed=0

# The guest's command: MODE's trouble line (or none) and the filler.
guest_cmd() {
	cat <<-EOF
		pad=\$(printf '%0900d' 0)
		exec 3> /dev/kmsg
		case $1 in
		dmesg) echo '<7>BUG: canary at the start of the kernel log' >&3 ;;
		console) echo 'BUG: canary at the start of the console log' ;;
		esac
		for ((i = 0; i < $lines; i++)); do
			echo "<7>filler \$i \$pad" >&3
			[ $1 = dmesg ] || echo "filler \$i \$pad"
		done
		exit 0
	EOF
}

# expect MODE STATUS: run-guest's exit status for MODE's guest is STATUS,
# and with 126 its report names the canary.
expect() {
	local mode=$1 want=$2 status=0 err size dsize csize
	err=$(SROCE_GUEST_APPEND="printk.devkmsg=on log_buf_len=16M" \
		"$repo/qemu/run-guest" --quiet --name "scan-$mode" --timeout 600 \
		-- bash -c "$(guest_cmd "$mode")" 2>&1 > /dev/null) || status=$?
	dsize=$(stat -c %s "$repo/build/guest/scan-$mode.dmesg" 2>/dev/null || echo 0)
	csize=$(stat -c %s "$repo/build/guest/scan-$mode.log" 2>/dev/null || echo 0)
	size="dmesg $dsize bytes, console log $csize bytes"
	if { [ "$mode" != console ] && [ "$dsize" -lt $((4 << 20)) ]; } ||
		{ [ "$mode" != dmesg ] && [ "$csize" -lt $((4 << 20)) ]; }; then
		echo "FAIL: $mode: the log that should be long is not: $size"
		failed=1
	elif [ "$status" != "$want" ]; then
		echo "FAIL: $mode: run-guest exited $status (expected $want); $size"
		tail -n 20 <<< "$err"
		failed=1
	elif [ "$want" = 126 ] && ! grep -q 'BUG: canary' <<< "$err"; then
		echo "FAIL: $mode: run-guest exited 126 but its report does not show the canary"
		failed=1
	else
		echo "ok: $mode: run-guest exited $status; $size"
	fi
}

expect dmesg 126
expect console 126
expect clean 0
exit "$failed"
