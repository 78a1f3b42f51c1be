#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Instruction counts of the protocol core's hot paths, measured with
# valgrind --tool=callgrind (deterministic, unlike time on a shared host):
#   rx         transport parse and every validation but the ICRC
#              (sroce_pkt_parse + sroce_pkt_check_qp): the driver's receive
#              path, which gets IP/UDP already parsed by the kernel
#   rx+ip      the same plus the IP/UDP parse (sroce_net_parse), as for a
#              raw packet buffer
#   build      IP/UDP + transport headers (payload copy and ICRC excluded)
#   icrc       ICRC of the whole packet, and its cost per byte
# at 64 B, 1 KiB and 4 KiB payloads of an RC SEND ONLY over IPv4, counting
# only instructions inside the core's functions.
# Goal: rx under 150 instructions per packet (exit status 1 otherwise).
#
#   tests/proto/bench-proto.sh            (builds into build/proto-bench)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${SROCE_BENCH_DIR:-$top/build/proto-bench}
iters=${SROCE_BENCH_ITERS:-20000}
goal=150

command -v valgrind >/dev/null || { echo "bench-proto: valgrind missing" >&2; exit 1; }
cmake -S "$top/tests/proto" -B "$out" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out" -j2 --target sroce_proto_bench >/dev/null
bin=$out/sroce_proto_bench

# Instructions per packet inside the core's functions $3... (callees
# included, the benchmark's loop excluded), for mode $1 and payload $2.
measure() {
	local mode=$1 pay=$2 f=$out/callgrind.$1.$2 toggles=()
	shift 2
	for fn in "$@"; do toggles+=(--toggle-collect="$fn"); done
	valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
		"${toggles[@]}" "$bin" "$mode" "$pay" "$iters" >/dev/null 2>&1
	awk -v n="$iters" '/^(summary|totals):/ { printf "%.1f", $2 / n; exit }' "$f"
}

printf '%-9s %8s %8s %8s %8s %10s %10s\n' payload packet rx rx+ip build \
	icrc icrc/byte
fail=0
for pay in 64 1024 4096; do
	pkt=$((20 + 8 + 12 + pay + (4 - pay % 4) % 4 + 4))
	p=$(measure parse "$pay" sroce_net_parse sroce_pkt_parse sroce_pkt_check_qp)
	t=$(measure transport "$pay" sroce_pkt_parse sroce_pkt_check_qp)
	b=$(measure build "$pay" sroce_net_build sroce_hdrs_build)
	c=$(measure icrc "$pay" sroce_icrc_compute)
	cb=$(awk -v c="$c" -v n="$pkt" 'BEGIN { printf "%.2f", c / n }')
	printf '%-9s %8s %8s %8s %8s %10s %10s\n' "$pay" "$pkt" "$t" "$p" \
		"$b" "$c" "$cb"
	if awk -v p="$t" -v g="$goal" 'BEGIN { exit !(p >= g) }'; then
		fail=1
	fi
done
echo "(instructions per packet; icrc/byte over the whole IP packet)"
if [ "$fail" -ne 0 ]; then
	echo "bench-proto: rx parse+validate above the goal of $goal instructions" >&2
	exit 1
fi
