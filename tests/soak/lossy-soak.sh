#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lossy profiles of tests/lossy.sh with 1 GiB each
# (SROCE_TORTURE_BYTES overrides).  Not part of `make check`: `make soak`
# runs it.
#
# Runs in a guest (qemu/run-guest) as root.
exec "$(dirname "$0")/../torture.sh" soak
