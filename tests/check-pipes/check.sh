#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-pipes against lines it must flag and lines it must not
# (make check: host:check-pipes): every command line of flagged.txt is
# reported, no line of clean.txt is.
set -uo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
check=$dir/../../scripts/check-pipes
failed=0

want=$(grep -nv '^#' "$dir/flagged.txt" | grep -v '^[0-9]*:[[:space:]]' | cut -d: -f1)
got=$("$check" "$dir/flagged.txt" | sed -E 's/^[^:]*:([0-9]+):.*/\1/')
if [ "$want" = "$got" ]; then
	echo "ok: every line of flagged.txt is flagged ($(wc -l <<< "$want") lines)"
else
	echo "FAIL: flagged.txt: lines flagged: $(paste -sd, - <<< "$got"), expected: $(paste -sd, - <<< "$want")"
	failed=1
fi
if out=$("$check" "$dir/clean.txt"); then
	echo "ok: nothing of clean.txt is flagged"
else
	echo "FAIL: clean.txt has lines flagged:"
	echo "$out"
	failed=1
fi
exit "$failed"
