#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/kernel-known/check.sh many times in a row under every awk there is
# (make check: host:kernel-known-repeat): mawk (Debian's default awk),
# busybox awk, and gawk where it is installed.  A verdict that depends on
# timing (a pipeline whose reader stops early, Documentation/testing.md
# "Pipelines under pipefail") shows here as a run that fails now and then.
#
#   tests/kernel-known/repeat.sh [RUNS]     (default 200 runs per awk)
#
# An awk that is not installed is said so and left out; mawk and busybox
# are in scripts/install-deps, so both run wherever make check does.
set -uo pipefail

dir=$(cd "$(dirname "$0")" && pwd)
runs=${1:-200}
jobs=$(nproc)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
failed=0 tried=0

for impl in mawk busybox gawk; do
	exe=$(command -v "$impl") || { echo "# $impl is not installed: not run under it"; continue; }
	ln -sf "$exe" "$bin/awk"
	# busybox runs as the applet its name says: "awk" through the link.
	[ "$("$bin/awk" 'BEGIN { print "awk" }')" = awk ] ||
		{ echo "FAIL: $impl does not run as awk"; failed=1; continue; }
	# nproc streams of runs side by side: the wall time of one, and the
	# timing of each run disturbed by the others.
	for ((j = 0; j < jobs; j++)); do
		for ((i = j; i < runs; i += jobs)); do
			PATH=$bin:$PATH "$dir/check.sh" > "$bin/out.$j" 2>&1 && continue
			# A failed run counts, with or without a FAIL line.
			grep '^FAIL' "$bin/out.$j" >> "$bin/failed.$j" ||
				echo "FAIL: check.sh exited non-zero without a FAIL line" >> "$bin/failed.$j"
		done &
	done
	wait
	bad=$(cat "$bin"/failed.* 2>/dev/null | wc -l)
	first=$(cat "$bin"/failed.* 2>/dev/null | sed -n 1p)
	rm -f "$bin"/failed.* "$bin"/out.*
	tried=$((tried + 1))
	if [ "$bad" -eq 0 ]; then
		echo "ok: $runs runs under $impl, 0 failed"
	else
		echo "FAIL: $runs runs under $impl, $bad failing cases; the first: $first"
		failed=1
	fi
done
[ "$tried" -gt 0 ] || { echo "FAIL: no awk ran"; failed=1; }
exit "$failed"
