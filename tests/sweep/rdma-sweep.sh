#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The full perftest -a sweep between two sroce devices (every power of two
# from 2 B to 8 MiB; ib_write_bw, ib_write_lat, ib_read_bw, ib_read_lat, the
# reads also with completion events): tests/rdma.sh sweep, in the topology
# drawn there.  Not part of `make check` (scripts/check runs tests/*.sh):
# `make check-sweep` runs it.
#
# Runs in a guest (qemu/run-guest) as root.
exec "$(dirname "$0")/../rdma.sh" sweep
