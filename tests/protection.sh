#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory protection of RDMA WRITE, READ, atomics and the IBTA 1.5 atomic
# write: every case of userspace/tools/sroce-prottest (violations of keys,
# bounds, rights, PDs, memory windows, on the remote and the local side,
# and the allowed accesses at every boundary), each a KTAP subtest of the
# tool's run, first between two sroce devices, then, as a check of the
# tool itself, on rdma_rxe.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.8.1/24      |----veth----|   v1 10.93.8.2/24      |
#   | sroce-prottest: A      |            | B                      |
#   +------------------------+            +------------------------+
#
# then, sroce unloaded:
#
#   init_net
#   +------------------------+
#   | rxe0 (rdma_rxe) on v0  |   A and B are two QPs of rxe0
#   +------------------------+
#
# sroce-prottest opens both devices from init_net (rdma's shared namespace
# mode shows every device everywhere) and connects its QPs itself.
# rdma_rxe of Linux 6.1 binds UDP 4791 in init_net only (so sroce must be
# gone first: one socket per port and namespace) and serves only devices
# there; two rxe devices in init_net cannot be connected (modify_qp to RTR
# times out: the route between two local addresses goes through lo, which
# no rxe device owns), so the rxe run uses one device, whose QPs meet in
# its loopback.
#
# A SKIP of the tool (no memory windows, no atomics, no atomic write on a
# device) is a failure on sroce, which has them all, and a KTAP skip on
# rdma_rxe, never ok: rdma_rxe of Linux 6.1 has no atomic write (6.2 added
# it), so its atomic write cases skip.
# Where rdma_rxe departs from what the tool expects, the rxe run expects
# rxe's own behaviour (RXE_DEVIATES below, handed to the tool as its
# --deviation options): such a case is an XFAIL when it fails exactly so,
# and an XPASS (a failure) when it does not.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-prot-$$
PROTTEST=$SROCE_REPO/build/userspace/tools/sroce-prottest
IP0=10.93.8.1
IP1=10.93.8.2

trap veth_cleanup EXIT

# rdma_rxe (Linux 6.1, rdma-core 44) against the tool's expectations, one
# extended regular expression per case for the whole of its failure
# reasons (joined by "; "): the rxe case is an XFAIL only when it fails
# exactly so, an XPASS when rxe behaves as the tool expects (then this list
# is out of date).
declare -A RXE_DEVIATES
# rdma-core's rxe provider refuses a misaligned atomic in ibv_post_send()
# (EINVAL): the request never reaches the responder, whose invalid request
# NAK cannot be seen on rxe.
RXE_DEVIATES[atomic-misaligned-cmp-swp]='^post_send on A: Invalid argument$'
RXE_DEVIATES[atomic-misaligned-fetch-add]='^post_send on A: Invalid argument$'
# A WRITE's source lkey that names no region of the QP's PD completes with
# IBV_WC_LOC_QP_OP_ERR: copy_data() fails its lookup with -EINVAL, which
# rxe_requester() maps to LOC_QP_OP_ERR (only -EFAULT, a range error,
# becomes LOC_PROT_ERR).
RXE_DEVIATES[local-deregistered-lkey-write]="^A's WQE: local QP operation error, expected local protection error\$"
RXE_DEVIATES[local-other-pd-lkey-write]="^A's WQE: local QP operation error, expected local protection error\$"
# rxe checks an atomic's result SGE only when the response comes back
# (rxe_comp.c, do_atomic()): the status is LOC_PROT_ERR, but the responder
# has executed the atomic, and B's 8 target bytes changed.
RXE_DEVIATES[local-no-local-write-cmp-swp]="^B's target buffer: 8 of 12288 bytes changed, offsets 4000\\.\\.4007 \\([^)]*\\)\$"
RXE_DEVIATES[local-deregistered-lkey-fetch-add]="^B's target buffer: 8 of 12288 bytes changed, offsets 4000\\.\\.4007 \\([^)]*\\)\$"
# The responder checks an access through a memory window against the
# window's MR, not the window (rxe_resp.c, check_rkey(): mr_check_range()
# on mw->mr): outside the window but inside the MR succeeds, and the QP
# carries on, so the fenced WRITE behind it lands as well.
RXE_MW_OUTSIDE="^A's WQE: success, expected remote access error; A's fenced WRITE behind it: success, expected Work Request Flushed Error; A's QP is RTS, expected ERR; B's receive did not complete \\(B's QP is RTS\\); "
RXE_DEVIATES[mw2-outside-write]="${RXE_MW_OUTSIDE}B's target buffer: 18 of 12288 bytes changed, offsets 4000\\.\\.5000 \\([^)]*\\)\$"
RXE_DEVIATES[mw1-outside-read]="${RXE_MW_OUTSIDE}B's target buffer: 16 of 12288 bytes changed, offsets 4000\\.\\.4015 \\([^)]*\\); A's buffer: 2 of 12288 bytes changed, offsets 4000\\.\\.4001 \\([^)]*\\)\$"

test_setup() {
	sroce_pair "$IP0" "$IP1"
	rdma link show
	grep -q sroce1 <<< "$(ibv_devices)"
}

test_listed() {
	local cases
	cases=$("$PROTTEST" --list)
	echo "$cases"
	[ -n "$cases" ] || fail "sroce-prottest --list listed no case"
}

# run_prottest ARGS...: every case of the tool, the subtests of this case.
run_prottest() {
	ktap_tool timeout $((300 * SROCE_TIMEOUT_SCALE)) "$PROTTEST" "$@"
}

# sroce has memory windows and atomics: a case the tool skips there fails.
test_sroce_run() {
	run_prottest --dev-a sroce0 --dev-b sroce1
	if grep -E '^ok [0-9]+ .*# SKIP' <<< "$KTAP_OUT"; then
		fail "sroce lacks what the cases above need"
	fi
}

test_rxe_run() {
	local c dev=()
	for c in "${!RXE_DEVIATES[@]}"; do
		dev+=(--deviation "$c=${RXE_DEVIATES[$c]}")
	done
	run_prottest --dev-a rxe0 --dev-b rxe0 "${dev[@]}"
}

test_rxe_unload() {
	rdma_links_delete rxe0
	rxe_rmmod
}

cases() {
	run_test "sroce-prottest lists its cases" test_listed
	run_setup "module, veth and two devices set up" test_setup
	run_test "sroce-prottest between sroce0 and sroce1, every case" test_sroce_run
	run_test "rmmod after the protection cases is clean" sroce_pair_rmmod
	run_setup "rxe: rdma_rxe on v0" rxe_replaces_sroce0 "$IP0"
	run_test "rxe: sroce-prottest between two QPs of rxe0, every case" test_rxe_run
	run_test "rxe: rdma_rxe unloads" test_rxe_unload
}
ktap_run cases
