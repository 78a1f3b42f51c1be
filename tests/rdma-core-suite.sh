#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own test suite (python3-pyverbs, run_tests.py) on an sroce
# device, then on an rdma_rxe device on the same netdev for the comparison.
# Most of the suite's tests connect QPs of one device to each other, so
# they run over loopback (sroce0's own address routes through lo).
#
#   init_net
#   +--------------------------------------------------------------+
#   | sroce0 (then rxe0, after sroce is unloaded)                  |
#   |   v0 10.96.1.1/24 fd96:1::1/64 <----veth----> v1 (no device) |
#   +--------------------------------------------------------------+
#
# rdma_rxe binds UDP 4791 in init_net as soon as it loads, so the two
# halves cannot share it: sroce runs first and is unloaded, then rxe0 takes
# v0.  Each half is one case whose subtests are the suite's tests
# (tests/rdma-core-suite.py: each test under a time limit, so none hangs
# the run; FAIL and ERROR are failures; every skip is listed by its
# reason, classified by tests/rdma-core-suite.skips).
#
# Runs in a guest (qemu/run-guest) as root.
# guest-timeout: 1800
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034 # veth_cleanup deletes $NS: no namespace here.
NS=unused-$$
WORK=$(mktemp -d)
IP0=10.96.1.1
IP6_0=fd96:1::1
RUNNER=$SROCE_REPO/tests/rdma-core-suite.py
SKIPS=$SROCE_REPO/tests/rdma-core-suite.skips
SUITE_TIMEOUT=${SROCE_SUITE_TIMEOUT:-120}
# For a rerun of some tests (qemu/run-guest --env): only the tests whose id
# matches SROCE_SUITE_SELECT (an ERE), on the devices SROCE_SUITE_DEVS
# names ("sroce rxe" by default); a half left out is a SKIP, never a pass.
SUITE_SELECT=${SROCE_SUITE_SELECT:-}
SUITE_DEVS=${SROCE_SUITE_DEVS:-sroce rxe}

cleanup() {
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

test_setup() {
	[ -d /usr/share/doc/rdma-core/tests ] || fail "python3-pyverbs' suite is not installed"
	cp -r /usr/share/doc/rdma-core/tests "$WORK/tests"
	gunzip -f "$WORK"/tests/*.gz
	# How the suite finds a software device's netdev (the RDMA CM tests).
	patch -s -p1 -d "$WORK" --no-backup-if-mismatch \
		< "$SROCE_REPO/tests/rdma-core-suite-netdev.patch" ||
		fail "tests/rdma-core-suite-netdev.patch does not apply"
	# The suite's huge page tests want 2 MiB pages allocated.
	echo 16 > /proc/sys/vm/nr_hugepages
	sroce_load
	sroce_provider_setup
	ip link add v0 type veth peer name v1
	ip addr add "$IP0/24" dev v0
	ip addr add "$IP6_0/64" dev v0 nodad
	ip link set v0 up
	ip link set v1 up
	rdma link add sroce0 type sroce netdev v0
	wait_for 10 has_gid sroce0 "::ffff:$IP0"
	wait_for 10 has_gid sroce0 "$IP6_0"
}

# suite DEV [ARGS...]: the suite on DEV, its tests as subtests.
suite() {
	local dev=$1 sel=()
	shift
	[ -z "$SUITE_SELECT" ] || sel=(--select "$SUITE_SELECT")
	ktap_tool /usr/bin/python3 "$RUNNER" --suite "$WORK/tests" --dev "$dev" \
		--timeout "$((SUITE_TIMEOUT * SROCE_TIMEOUT_SCALE))" \
		--skips "$SKIPS" --counts "$SROCE_OUT/suite-$dev.json" \
		"${sel[@]}" "$@"
}

# wanted sroce|rxe: the half is in SUITE_DEVS, or the case is skipped.
wanted() {
	[[ " $SUITE_DEVS " == *" $1 "* ]] || skip "SROCE_SUITE_DEVS leaves $1 out"
}

test_suite_sroce() {
	wanted sroce
	suite sroce0 --strict-skips
}

test_rxe_setup() {
	rdma_links_delete sroce0
	sroce_rmmod
	rxe_load
	rxe_add rxe0 v0 "$IP0"
	wait_for 10 has_gid rxe0 "$IP6_0"
}

# rdma_rxe of Linux 6.1 has no IB_WR_ATOMIC_WRITE (6.2 added it), which
# its rdma-core 44 provider offers: the kernel fails the work request.
test_suite_rxe() {
	wanted rxe
	suite rxe0 --xfail \
		'tests.test_qpex.QpExTestCase.test_qp_ex_rc_atomic_write=local QP operation error'
}

test_rxe_cleanup() {
	rdma_links_delete rxe0
	rxe_rmmod
}

cases() {
	run_setup "set-up: sroce0 on v0, the suite unpacked" test_setup
	run_test "rdma-core suite on sroce0" test_suite_sroce
	run_setup "sroce unloaded, rdma_rxe's rxe0 on v0" test_rxe_setup
	run_test "rdma-core suite on rxe0" test_suite_rxe
	run_test "rxe0 deleted, rdma_rxe unloads" test_rxe_cleanup
}
ktap_run cases
