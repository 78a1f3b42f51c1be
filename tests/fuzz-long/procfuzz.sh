#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hostile-process fuzzer of tests/procfuzz.sh with 1,000,000 ring
# mutations (SROCE_PROCFUZZ_MUTATIONS overrides).  Not part of
# `make check`: `make fuzz-proc` runs it.
#
# Runs in a guest (qemu/run-guest) as root.
exec "$(dirname "$0")/../procfuzz.sh" long
