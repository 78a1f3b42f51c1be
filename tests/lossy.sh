#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC reliability on a bad wire: sroce-torture through each netem profile
# (loss 1/5/10%, reordering, duplication, corruption, a 2 s link flap),
# every byte verified and the counters that must move checked.  See
# tests/torture.sh for the topology; `make soak` runs the same profiles
# with 1 GiB each (tests/soak/lossy-soak.sh).
#
# Runs in a guest (qemu/run-guest) as root.
exec "$(dirname "$0")/torture.sh" lossy
