#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Builds the libFuzzer target over the protocol core's receive parser
# (clang, ASan + UBSan) into build/fuzz and runs it for SECONDS seconds in
# one process.  Seeds: one built packet per opcode (IPv4/IPv6, pad 0-3)
# plus the packets of the rdma_rxe captures in tests/proto/data/.  The
# corpus grows in build/fuzz/corpus across runs; crash inputs land in
# build/fuzz/artifacts.  Exits non-zero on a crash or invariant failure.
#
#   tests/fuzz/run-fuzz.sh [SECONDS]      (default 60)
set -euo pipefail

secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${SROCE_FUZZ_DIR:-$top/build/fuzz}
proto=$top/drivers/sroce/proto
tp=$top/tests/proto
cc=${CLANG:-clang}
cxx=${CLANGXX:-clang++}
# shellcheck disable=SC2054 # one -fsanitize= with a list of sanitizers
san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
mkdir -p "$out/obj" "$out/seeds" "$out/corpus" "$out/artifacts"

# The proto sources, compiled once with coverage for the fuzzer and once
# plain for the seed generator.
fobjs=()
pobjs=()
for src in "$proto"/*.c; do
	base=$out/obj/$(basename "${src%.c}")
	$cc -std=gnu11 -O1 -g "${san[@]}" -fsanitize=fuzzer-no-link -Wall -Wextra \
		-Werror -I"$proto" -c "$src" -o "$base.fuzz.o"
	$cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$proto" \
		-c "$src" -o "$base.o"
	fobjs+=("$base.fuzz.o")
	pobjs+=("$base.o")
done
$cc -std=gnu11 -O1 -g "${san[@]}" -fsanitize=fuzzer -Wall -Wextra -Werror \
	-I"$proto" "$top/tests/fuzz/fuzz_rx.c" "${fobjs[@]}" -o "$out/fuzz_rx"
$cxx -std=c++20 -O1 -g -I"$proto" -I"$tp" "$tp/gen_seeds.cc" \
	"$tp/frames.cc" "$tp/pcap.cc" "${pobjs[@]}" -o "$out/gen_seeds"

rm -f "$out"/seeds/*
shopt -s nullglob
"$out/gen_seeds" "$out/seeds" "$tp"/data/*.pcap

echo "fuzz_rx: running for ${secs}s"
cd "$out"
rc=0
./fuzz_rx -max_total_time="$secs" -max_len=9100 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$out/corpus" "$out/seeds" \
	>"$out/last-run.log" 2>&1 || rc=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|ERROR|invariant|SUMMARY' \
	"$out/last-run.log" || true
echo
if [ "$rc" -ne 0 ]; then
	echo "fuzz_rx: FAILED (exit $rc), see $out/last-run.log and $out/artifacts/" >&2
	exit 1
fi
echo "fuzz_rx: ok"
