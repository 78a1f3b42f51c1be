#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the guest selftests: KTAP output, module and provider
# set-up, polling.  A selftest sources this file, declares its plan with
# ktap_plan, runs each case with run_test and ends with ktap_finish:
#
#	. "$(dirname "$0")/lib.sh"
#	ktap_plan 2
#	test_foo() { ...; }        # runs under set -e; exit 4 means skip
#	run_test "foo works" test_foo
#	ktap_finish                 # adds the "kernel log clean" case
#
# Each case's own output is printed as KTAP comments ("# ..."); a failing
# case also prints the tail of the kernel log.  ktap_finish exits non-zero
# if any case failed.

KSFT_SKIP=4
SROCE_REPO=${SROCE_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# SROCE_KO (passed in by qemu/run-guest) loads another build of sroce.ko, such
# as the one for the debug kernel (make check-debug).
SROCE_KO_BUILT=$SROCE_REPO/drivers/sroce/sroce.ko
SROCE_KO=${SROCE_KO:-$SROCE_KO_BUILT}
# Waits are multiplied by SROCE_TIMEOUT_SCALE (make check-debug: the debug
# kernel is several times slower).
SROCE_TIMEOUT_SCALE=${SROCE_TIMEOUT_SCALE:-1}
SROCE_PROVIDER_DIR=$SROCE_REPO/build/userspace/provider

_ktap_n=0
_ktap_failed=0
_ktap_planned=0

# Messages in the kernel log that fail every run.  qemu/run-guest scans the
# whole log with the same list; ktap_finish reports it as a test case.  The
# lockdep messages appear only on a kernel with PROVE_LOCKING (debug kernel).
KERNEL_TROUBLE=$(cat "$SROCE_REPO/qemu/kernel-trouble.ere")

ktap_plan() {
	_ktap_planned=$(($1 + 1))
	echo "KTAP version 1"
	echo "1..$_ktap_planned"
}

# run_test NAME FUNC [ARGS...]: one KTAP case.
run_test() {
	local name=$1 out rc
	shift
	out=$(mktemp)
	(set -eE -o pipefail; "$@") > "$out" 2>&1
	rc=$?
	_ktap_n=$((_ktap_n + 1))
	sed 's/^/# /' "$out"
	rm -f "$out"
	if [ "$rc" -eq 0 ]; then
		echo "ok $_ktap_n $name"
	elif [ "$rc" -eq "$KSFT_SKIP" ]; then
		echo "ok $_ktap_n $name # SKIP"
	else
		_ktap_failed=$((_ktap_failed + 1))
		echo "# exit status $rc; kernel log tail:"
		dmesg | tail -n 30 | sed 's/^/#   /'
		echo "not ok $_ktap_n $name"
	fi
}

ktap_finish() {
	_ktap_n=$((_ktap_n + 1))
	if dmesg | grep -Eq "$KERNEL_TROUBLE"; then
		dmesg | grep -E -A 40 -m1 "$KERNEL_TROUBLE" | sed 's/^/# /'
		_ktap_failed=$((_ktap_failed + 1))
		echo "not ok $_ktap_n kernel log clean"
	else
		echo "ok $_ktap_n kernel log clean"
	fi
	if [ "$_ktap_n" -ne "$_ktap_planned" ]; then
		echo "# planned $_ktap_planned cases, ran $_ktap_n"
		_ktap_failed=$((_ktap_failed + 1))
	fi
	echo "# totals: $((_ktap_n - _ktap_failed)) ok, $_ktap_failed not ok"
	[ "$_ktap_failed" -eq 0 ]
	exit $?
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit "$KSFT_SKIP"
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds (SECONDS
# times SROCE_TIMEOUT_SCALE).
wait_for() {
	local deadline=$((SECONDS + $1 * SROCE_TIMEOUT_SCALE))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "timed out waiting for: $*" >&2; return 1; }
		sleep 0.1
	done
}

# expect_fail CMD...: CMD must fail; its message is shown.
expect_fail() {
	local out
	if out=$("$@" 2>&1); then
		echo "unexpectedly succeeded: $*" >&2
		echo "$out" >&2
		return 1
	fi
	echo "refused as expected: $* -> $out"
}

# Load sroce.ko with the modules it depends on (insmod does not resolve them).
sroce_load() {
	local deps
	[ -e "$SROCE_KO" ] || fail "$SROCE_KO is not built"
	deps=$(modinfo -F depends "$SROCE_KO" | tr ',' ' ')
	# shellcheck disable=SC2086
	[ -z "$deps" ] || modprobe -a $deps
	modprobe ib_uverbs
	lsmod | grep -q '^sroce ' || insmod "$SROCE_KO"
}

sroce_unload() {
	if lsmod | grep -q '^sroce '; then
		rmmod sroce
	fi
}

# Make libibverbs load the provider straight from the build tree (/etc is a
# writable overlay in the guest).
sroce_provider_setup() {
	[ -e "$SROCE_PROVIDER_DIR/libsroce-rdmav34.so" ] ||
		fail "the provider is not built ($SROCE_PROVIDER_DIR/libsroce-rdmav34.so)"
	echo "driver $SROCE_PROVIDER_DIR/libsroce" > /etc/libibverbs.d/sroce.driver
}

# rdma_dev_exists NAME: the RDMA device NAME is registered.
rdma_dev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

rdma_dev_gone() {
	! rdma_dev_exists "$1"
}

# port_state DEV: the state word of port 1 as ibv_devinfo prints it.
port_state() {
	ibv_devinfo -d "$1" | awk '/state:/ { print $2; exit }'
}
