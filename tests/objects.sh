#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce objects: protection domains, memory regions and completion queues
# through libibverbs (tools/sroce-objtest), their bad input, the mapped CQ
# ring, parent and thread domains, objects imported from a shared uverbs
# file, `rdma resource`, and clean-up when a process exits or the module
# goes away.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            |                        |
#   |   v0 10.93.0.1/24      |----veth----|   v1 10.93.0.2/24      |
#   +------------------------+            +------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-obj-$$
OBJTEST=$SROCE_REPO/build/userspace/tools/sroce-objtest

cleanup() {
	rdma link delete sroce0 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip link del v0 2>/dev/null
	sroce_unload 2>/dev/null
}
trap cleanup EXIT

objtest() {
	ktap_tool "$OBJTEST" sroce0 "$@"
}

test_setup() {
	[ -x "$OBJTEST" ] || fail "$OBJTEST is not built"
	sroce_load
	sroce_provider_setup
	veth_ns 10.93.0.1 10.93.0.2
	rdma link add sroce0 type sroce netdev v0
	ibv_devinfo -v -d sroce0 | grep -E 'max_(cq|cqe|mr|mr_size|qp|pd):|page_size_cap'
}

test_objects() {
	objtest objects
}

test_mr_errors() {
	objtest mr-errors
}

test_cq_errors() {
	objtest cq-errors
}

test_qp_errors() {
	objtest qp-errors
}

test_cq_resize() {
	objtest cq-resize
}

test_poll_no_syscall() {
	objtest poll-no-syscall
}

test_mmap() {
	objtest mmap-checks
}

test_channel() {
	objtest channel
}

test_parent_domain() {
	objtest parent-domain
}

test_import() {
	objtest import
}

# Device memory: alloc, memcpy, DM MRs, import (sroce-objtest dm).  One
# tool per case: ktap_tool nests one block of subtests per case.
test_dm() {
	objtest dm
	no_user_objects sroce0 mr pd
}

# DM MRs as local SGEs and remote targets between two QPs of sroce0.
test_dm_traffic() {
	objtest dm-traffic
	no_user_objects sroce0 qp mr cq pd
}

# Memory keys, QPNs and XRC SRQ numbers drawn in a row neither repeat nor
# follow a pattern (Documentation/security.md, "Identifiers").
test_identifiers() {
	objtest identifiers
	no_user_objects sroce0 qp mr cq pd
}

# rdma resource show, run by the tool while it holds a PD, an MR and a CQ;
# the tool relays what it printed as diagnostics ("# dev sroce0 ...").
test_resource_show() {
	objtest hold 'rdma resource show pd dev sroce0; rdma resource show mr dev sroce0; rdma resource show cq dev sroce0'
	grep -q 'comm sroce-objtest' <<< "$KTAP_OUT" || fail "no object of sroce-objtest listed"
	grep -Eq '^# dev sroce0 .*mrlen 16384' <<< "$KTAP_OUT" || fail "MR not listed"
	grep -Eq '^# dev sroce0 .*cqe 32 ' <<< "$KTAP_OUT" || fail "CQ not listed"
	grep -Eq '^# dev sroce0 .*pdn ' <<< "$KTAP_OUT" || fail "PD not listed"
	# Gone afterwards.
	no_user_objects sroce0 cq mr pd
}

# Exiting without destroying anything: the core destroys the objects.
test_exit_cleans_up() {
	objtest leak
	no_user_objects sroce0 mr cq pd
	rdma resource show
}

# An open context does not hold the module (disassociate_ucontext):
# rmmod, run by the tool while it holds a PD, an MR and a CQ, removes
# sroce0 and unloads; the tool's objects are destroyed under it and its
# own destroy calls afterwards succeed (libibverbs takes their EIO as
# done).  tests/lifecycle.sh does the same under traffic.
test_rmmod_with_open_context() {
	objtest hold 'rmmod sroce && ! grep -q "^sroce " /proc/modules'
	rdma_dev_gone sroce0
	! grep -q '^sroce ' <<< "$(lsmod)"
}

cases() {
	run_setup "module, link and provider set up" test_setup
	run_test "PD, MRs and CQs are created and destroyed" test_objects
	run_test "reg_mr and dereg_mr refuse bad input" test_mr_errors
	run_test "create_cq refuses bad sizes and vectors" test_cq_errors
	run_test "create_qp, modify_qp and QP commands refuse bad input" test_qp_errors
	run_test "resize_cq" test_cq_resize
	run_test "poll_cq and req_notify_cq make no system call" test_poll_no_syscall
	run_test "mmap of the uverbs file is checked" test_mmap
	run_test "a CQ on a completion channel arms, no spurious event" test_channel
	run_test "parent and thread domains, the application's allocator" test_parent_domain
	run_test "ibv_import_device, _pd and _mr on a shared uverbs file" test_import
	run_test "device memory: alloc_dm, memcpy, DM MRs, import" test_dm
	run_test "device memory: DM MRs in SEND, WRITE, READ, atomics" test_dm_traffic
	run_test "keys, QPNs and SRQ numbers cannot be guessed from earlier ones" test_identifiers
	run_test "rdma resource show lists the objects" test_resource_show
	run_test "process exit destroys its objects" test_exit_cleans_up
	run_test "rmmod with an open context unloads, the context outlives it" test_rmmod_with_open_context
}
ktap_run cases
