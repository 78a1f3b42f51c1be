#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu/kernel-known.awk against kernel logs (make check: host:kernel-known):
# the known reports of the debug kernel's RDS runs, taken from a guest's
# log, are named and taken out whole; the same reports with a frame of
# sroce where it counts, and any other trouble, stay in the log.
#
#   rds-cm-lock-order.log     lockdep's RDS / RDMA CM cycle (tests/rds.sh
#                             under make check-debug, 2026-11-28)
#   rds-unpin-in-softirq.log  RDS unpinning pages in its receive tasklet;
#                             sroce's frames only in the task the
#                             interrupt found running (same run)
set -uo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
awkf=$dir/../../qemu/kernel-known.awk
trouble=$(cat "$dir/../../qemu/kernel-trouble.ere")
failed=0

# expect NAME NAMES TROUBLE < LOG: kernel-known.awk names NAMES (comma
# separated, sorted, empty for none) in LOG, and what it leaves has
# trouble (yes) or not (no).
expect() {
	local log names left=no
	log=$(< /dev/stdin)
	names=$(awk -v mode=names -f "$awkf" <<< "$log" | sort -u)
	names=${names//$'\n'/,}
	grep -Eq "$trouble" <<< "$(awk -f "$awkf" <<< "$log")" && left=yes
	if [ "$names" = "$2" ] && [ "$left" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: known '$names' (expected '$2'), trouble left $left (expected $3)"
		failed=1
	fi
}

lock=$(cat "$dir/rds-cm-lock-order.log")
unpin=$(cat "$dir/rds-unpin-in-softirq.log")

expect "the RDS / RDMA CM lockdep cycle is known" rds-cm-lock-order no <<< "$lock"
expect "RDS unpinning in its tasklet is known" rds-unpin-in-softirq no <<< "$unpin"
expect "both in one log" rds-cm-lock-order,rds-unpin-in-softirq no \
	<<< "$lock"$'\n'"$unpin"
expect "the lockdep cycle with a frame of sroce is not" "" yes \
	<<< "$(sed '0,/ \[rds_rdma\]/s// [sroce]/' <<< "$lock")"
expect "the unpin report with a frame of sroce in the interrupt is not" "" yes \
	<<< "$(sed '0,/ \[rds\]/s// [sroce]/' <<< "$unpin")"
expect "other trouble after a known report stays" rds-cm-lock-order yes \
	<<< "$lock"$'\n'"[   99.000000] WARNING: CPU: 0 PID: 1 at drivers/sroce/qp.c:1 x+0x1/0x2 [sroce]"
expect "a report cut short (no end) is taken whole" rds-cm-lock-order no \
	<<< "$(head -n 60 <<< "$lock")"
expect "other trouble after a report cut short stays" rds-cm-lock-order yes \
	<<< "$(head -n 60 <<< "$lock")"$'\n'"[   99.000000] BUG: KASAN: use-after-free in x+0x1/0x2 [sroce]"
expect "a log without reports is left as it is" "" no \
	<<< "[    1.000000] sroce: sroce0: created on v0"
[ "$(awk -f "$awkf" <<< "a"$'\n'"====="$'\n'"b")" = "a"$'\n'"====="$'\n'"b" ] ||
	{ echo "FAIL: lines that open no report are kept, in order"; failed=1; }
exit "$failed"
