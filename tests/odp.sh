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

# R2-1: faults blocked on a FUSE file (sroce-odptest's own server holds
# back every READ) hold up no region's free and no other device's removal:
# while they block, another process frees a region of sroce9 (on a dummy
# netdev) and "rdma link delete sroce9" must be done within 20 s.
fuse_block_other() {
	local ctl=$1 del i
	for ((i = 0; i < 600; i++)); do
		[ -e "$ctl/blocked" ] && break
		sleep 0.1
	done
	"$ODPTEST" sroce9 mr-cycle > "$ctl/mr-cycle.out" 2>&1 ||
		echo "mr-cycle failed" >> "$ctl/verdict"
	rdma link delete sroce9 &
	del=$!
	for ((i = 0; i < 200 * SROCE_TIMEOUT_SCALE; i++)); do
		kill -0 "$del" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$del" 2>/dev/null; then
		echo "rdma link delete sroce9 not done within 20 s" >> "$ctl/verdict"
	fi
	touch "$ctl/release"
	wait "$del" || echo "rdma link delete sroce9 failed" >> "$ctl/verdict"
}

test_fuse_block() {
	local ctl ret=0 helper
	modprobe fuse 2>/dev/null
	[ -c /dev/fuse ] || fail "no /dev/fuse"
	ip link add d9 type dummy || fail "no dummy netdev"
	ip addr add 10.93.19.1/24 dev d9
	ip link set d9 up
	rdma link add sroce9 type sroce netdev d9 || fail "rdma link add sroce9"
	ctl=$(mktemp -d)
	fuse_block_other "$ctl" &
	helper=$!
	odptest fuse-block "$ctl" || ret=1
	wait "$helper"
	if [ -s "$ctl/verdict" ]; then
		sed 's/^/# /' "$ctl/verdict"
		ret=1
	fi
	if rdma link show sroce9 >/dev/null 2>&1; then
		rdma link delete sroce9
		ret=1
	fi
	ip link del d9
	rm -rf "$ctl"
	return "$ret"
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
	run_test "R2-1: ODP faults blocked on a FUSE file hold up no free, no device removal" test_fuse_block
}
ktap_run cases
