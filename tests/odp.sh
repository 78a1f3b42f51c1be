#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On-demand paging (drivers/sroce/odp.c): regions registered with
# IBV_ACCESS_ON_DEMAND over memory the process never touched, reached by
# RDMA WRITE, READ, SEND, atomics and the atomic write over an RC pair on
# one device (its loopback path), every byte checked; pages given back
# with madvise(MADV_DONTNEED) and unmapped (error completions, no hang);
# ibv_advise_mr() prefetch; an implicit region (the whole address space)
# (userspace/tools/sroce-odptest).  rdma-core's suite runs its own ODP
# tests (tests/rdma-core-suite.sh).
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            |                        |
#   |   v0 10.93.11.1/24     |----veth----|   v1 10.93.11.2/24     |
#   +------------------------+            +------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-odp-$$
ODPTEST=$SROCE_REPO/build/userspace/tools/sroce-odptest

cleanup() {
	rdma link delete sroce0 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip link del v0 2>/dev/null
	sroce_unload 2>/dev/null
}
trap cleanup EXIT

odptest() {
	ktap_tool "$ODPTEST" sroce0 "$@"
}

test_setup() {
	[ -x "$ODPTEST" ] || fail "$ODPTEST is not built"
	sroce_load
	sroce_provider_setup
	veth_ns 10.93.11.1 10.93.11.2
	rdma link add sroce0 type sroce netdev v0
}

test_caps() {
	odptest caps
	ibv_devinfo -v -d sroce0 | grep -A12 -i 'odp'
}

test_untouched() {
	odptest untouched
}

test_dontneed() {
	odptest dontneed
}

test_munmap() {
	odptest munmap
}

test_prefetch() {
	odptest prefetch
}

test_implicit() {
	odptest implicit
}

test_reset() {
	odptest reset
}

test_dead_recv() {
	odptest dead-recv
}

test_huge() {
	odptest huge
}

test_implicit_leak() {
	odptest implicit-leak
}

cases() {
	run_setup "module, link and provider set up" test_setup
	run_test "query_device advertises ODP for RC (the atomic write too), XRC and UD sends" test_caps
	run_test "WRITE, READ, SEND, atomics, atomic write through never-touched ODP pages" test_untouched
	run_test "pages given back with MADV_DONTNEED are faulted in again" test_dontneed
	run_test "an unmapped range ends in error completions, no hang" test_munmap
	run_test "ibv_advise_mr prefetch" test_prefetch
	run_test "implicit ODP region: the whole address space" test_implicit
	run_test "R2-8: a failed fault does not outlive RESET" test_reset
	run_test "R2-r6: a receive into a deregistered ODP region never lands" test_dead_recv
	run_test "R2-2: a 1 TiB ODP registration fails cleanly (EINVAL)" test_huge
	run_test "R2-3: failed implicit faults leave no child umem behind" test_implicit_leak
}
ktap_run cases
