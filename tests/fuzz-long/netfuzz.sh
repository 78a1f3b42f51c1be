#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The network fuzzer of tests/netfuzz.sh with 1,000,000 datagrams
# (SROCE_NETFUZZ_PACKETS overrides).  Not part of `make check`:
# `make fuzz-net` runs it.
#
# Runs in a guest (qemu/run-guest) as root.
exec "$(dirname "$0")/../netfuzz.sh" long
