#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel headers a DKMS build of sroce.ko reads, as one tar file for
# tests/package.sh (scripts/check runs this on the host before that guest:
# its "# guest-prepare:" line).  Read over 9p file by file, the headers
# cost the guest minutes (every file is rounds of 9p requests under TCG);
# one tar file is read in seconds.
#
#   tests/lib/kernel-headers.sh [KVER]
#
# Writes build/guest/kernel-headers.tar (paths relative to /) and
# build/guest/kernel-headers.dirs (the directories in it, one per line):
# the flavour's header directory, the kbuild directory its scripts link
# to, and, on Debian, the -common directory's include/ and arch/x86/ (the
# flavour's Makefile includes the -common one; other arches are not read).
set -euo pipefail

cd "$(dirname "$0")/../.."
kver=${1:-$(scripts/kver)}
out=build/guest
build=$(readlink -f "/lib/modules/$kver/build")
[ -d "$build" ] || { echo "kernel-headers: no headers for $kver" >&2; exit 1; }
dirs=("$build" "$(dirname "$(readlink -f "$build/scripts")")")
common=$(grep -m1 -o '/usr/src/linux-headers-[^/ ]*' "$build/Makefile" || true)
[ -z "$common" ] || dirs+=("$common/include" "$common/arch/x86")
mkdir -p "$out"
: > "$out/kernel-headers.dirs.new"
for d in "${dirs[@]}"; do
	[ -d "$d" ] && echo "${d#/}" >> "$out/kernel-headers.dirs.new"
done
tar -C / -cf "$out/kernel-headers.tar.new" -T "$out/kernel-headers.dirs.new"
mv "$out/kernel-headers.tar.new" "$out/kernel-headers.tar"
mv "$out/kernel-headers.dirs.new" "$out/kernel-headers.dirs"
echo "kernel-headers: $(wc -l < "$out/kernel-headers.dirs") directories of $kver," \
	"$(du -h "$out/kernel-headers.tar" | cut -f1) in $out/kernel-headers.tar"
