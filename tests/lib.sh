#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the guest selftests: KTAP output, module and provider
# set-up, polling, a device's GIDs, and (in tests/lib/, sourced from here)
# hw counters, perftest, the two-ends-of-a-veth topology, a device's QPs,
# the sroce-torture loop and the NFS server.  A selftest sources this
# file, writes each case as a function, lists the cases in a function of its
# own and hands that list to ktap_run:
#
#	. "$(dirname "$0")/lib.sh"
#	test_setup() { ...; }      # each case runs under set -e
#	test_foo() { ...; }        # fail, skip, xfail, xpass: see below
#	cases() {
#		run_setup "module and devices set up" test_setup
#		run_test "foo works" test_foo
#	}
#	ktap_run cases              # adds the "kernel log clean" case
#
# ktap_run calls the list twice: first to count its cases, which gives the
# plan ("1..N", N the cases listed plus "kernel log clean"), then to run
# them.  A list only names cases (run_setup, run_test, in loops if need
# be) and does nothing else.
#
# Each case runs in a subshell and starts from what the setups before it
# made, never from what an earlier test case left behind: a case that needs
# a path MTU or a device sets it up itself.
#
# run_setup marks a case the cases after it depend on.  When it fails, the
# selftest bails out ("Bail out!", the cases not run listed as comments)
# instead of failing every case after it under a misleading name; when it
# skips (skip: rdma_rxe is not available, say), every case after it is
# reported as skipped without running.
#
# A case ends with one verdict: it passes (status 0), fails (fail, or any
# failing command: "not ok"), is skipped (skip REASON: "ok ... # SKIP
# REASON", never a pass), fails as known and expected (xfail REASON: "ok
# ... # XFAIL REASON", counted apart from the passes by scripts/check) or
# passes where a known failure was expected (xpass REASON: "not ok ... #
# XPASS REASON", the expectation is out of date).  Each case's own output
# is printed as KTAP comments ("# ..."); a failing case also prints the
# tail of the kernel log.  A case that runs one of the C++ tools through
# ktap_tool gets the tool's KTAP as its subtests, nested (indented by 4)
# before its own result.  ktap_run returns non-zero if any case failed; it
# is the selftest's last command.

KSFT_XFAIL=2
KSFT_XPASS=3
KSFT_SKIP=4
SROCE_REPO=${SROCE_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# SROCE_KO (passed in by qemu/run-guest) loads another build of sroce.ko, such
# as the one for the debug kernel (make check-debug).
SROCE_KO_BUILT=$SROCE_REPO/drivers/sroce/sroce.ko
SROCE_KO=${SROCE_KO:-$SROCE_KO_BUILT}
# Waits are multiplied by SROCE_TIMEOUT_SCALE (make check-debug: the debug
# kernel is several times slower).
SROCE_TIMEOUT_SCALE=${SROCE_TIMEOUT_SCALE:-1}
# The QP timeout (4.096 us << N, IBTA) sroce-torture runs with: perftest's
# 14 (67 ms, 8 tries in 0.5 s), one more per doubling of SROCE_TIMEOUT_SCALE:
# on the debug kernel 8 QPs' windows move about 1 MB/s, and a packet queued
# behind the others' waits longer than 0.5 s.
SROCE_QP_TIMEOUT=14
for ((_s = SROCE_TIMEOUT_SCALE; _s > 1; _s = (_s + 1) / 2)); do
	SROCE_QP_TIMEOUT=$((SROCE_QP_TIMEOUT + 1))
done
unset _s
SROCE_PROVIDER_DIR=$SROCE_REPO/build/userspace/provider

_ktap_mode=run
_ktap_n=0
_ktap_failed=0
_ktap_planned=0
_ktap_names=()
# Why the cases from here on are skipped (a setup skipped).
_ktap_skip_rest=
# The file a case's skip, xfail or xpass write its verdict to.
_ktap_verdict=
# The directory of the case's output, verdict and subtests.
_ktap_tmp=

# Messages in the kernel log that fail every run.  qemu/run-guest scans the
# whole log with the same list; ktap_finish reports it as a test case.  The
# lockdep messages appear only on a kernel with PROVE_LOCKING (debug kernel).
KERNEL_TROUBLE=$(cat "$SROCE_REPO/qemu/kernel-trouble.ere")

# ktap_run LIST: the KTAP header, the plan counted from LIST, LIST's cases
# and the "kernel log clean" case; fails if a case failed.
ktap_run() {
	_ktap_mode=count
	_ktap_names=()
	"$1"
	_ktap_names+=("kernel log clean")
	_ktap_planned=${#_ktap_names[@]}
	_ktap_mode=run
	echo "KTAP version 1"
	echo "1..$_ktap_planned"
	"$1"
	ktap_finish
}

# run_test NAME FUNC [ARGS...]: one KTAP case.
run_test() {
	_ktap_case test "$@"
}

# run_setup NAME FUNC [ARGS...]: a case the cases after it need; the
# selftest bails out when it fails.
run_setup() {
	_ktap_case setup "$@"
}

# _ktap_indent PREFIX FILE: FILE's lines with PREFIX; builtins for the
# usual few lines, sed for a long output (sroce-netfuzz relays ~400000).
_ktap_indent() {
	local lines
	mapfile -t -n 1001 lines < "$2"
	if [ ${#lines[@]} -gt 1000 ]; then
		sed "s/^/$1/" "$2"
	elif [ ${#lines[@]} -gt 0 ]; then
		printf "$1%s\\n" "${lines[@]}"
	fi
}

_ktap_case() {
	local kind=$1 name=$2 out verdict rc word reason i t0 t
	shift 2
	if [ "$_ktap_mode" = count ]; then
		_ktap_names+=("$name")
		return 0
	fi
	_ktap_n=$((_ktap_n + 1))
	if [ -n "$_ktap_skip_rest" ]; then
		echo "ok $_ktap_n $name # SKIP $_ktap_skip_rest"
		return 0
	fi
	# Shell builtins only, apart from the case's subshell: under TCG every
	# process costs ~0.1 s, which made the bookkeeping of a case (mktemp,
	# sed, rm, date) about 1 s.
	[ -n "$_ktap_tmp" ] || _ktap_tmp=$(mktemp -d)
	out=$_ktap_tmp/out
	verdict=$_ktap_tmp/verdict
	_ktap_sub=$_ktap_tmp/sub
	: > "$out"
	: > "$verdict"
	: > "$_ktap_sub"
	t0=${EPOCHREALTIME//[!0-9]/}
	_ktap_verdict=$verdict
	(set -eE -o pipefail; "$@") > "$out" 2>&1
	rc=$?
	_ktap_verdict=
	# Each case's seconds, for finding where a test's time goes.
	t=$((${EPOCHREALTIME//[!0-9]/} - t0))
	[ -z "${SROCE_OUT:-}" ] || printf '%s\t%d.%02d\t%s\n' "$_ktap_n" \
		$((t / 1000000)) $((t / 10000 % 100)) "$name" >> "$SROCE_OUT/case-times"
	_ktap_indent '# ' "$out"
	_ktap_indent '    ' "$_ktap_sub"
	word='' reason=''
	read -r word reason < "$verdict" || true
	_ktap_sub=
	case $rc:$word in
	0:*)
		echo "ok $_ktap_n $name"
		return 0
		;;
	"$KSFT_SKIP:SKIP")
		echo "ok $_ktap_n $name # SKIP $reason"
		[ "$kind" != setup ] || _ktap_skip_rest="$name skipped: $reason"
		return 0
		;;
	"$KSFT_XFAIL:XFAIL")
		echo "ok $_ktap_n $name # XFAIL $reason"
		return 0
		;;
	esac
	_ktap_failed=$((_ktap_failed + 1))
	echo "# exit status $rc; kernel log tail:"
	dmesg | tail -n 30 | sed 's/^/#   /'
	if [ "$rc:$word" = "$KSFT_XPASS:XPASS" ]; then
		echo "not ok $_ktap_n $name # XPASS $reason"
	else
		echo "not ok $_ktap_n $name"
	fi
	[ "$kind" = setup ] || return 0
	for ((i = _ktap_n; i < _ktap_planned; i++)); do
		echo "# not run: ${_ktap_names[i]}"
	done
	echo "Bail out! $name failed: $((_ktap_planned - _ktap_n)) cases not run"
	exit 1
}

ktap_finish() {
	local log known
	_ktap_n=$((_ktap_n + 1))
	# Known reports that are not sroce's (qemu/kernel-known.awk) are
	# taken out of the log first; they make the case an XFAIL.
	log=$(dmesg | awk -f "$SROCE_REPO/qemu/kernel-known.awk")
	known=$(dmesg | awk -v mode=names -f "$SROCE_REPO/qemu/kernel-known.awk" | sort -u)
	if grep -Eq "$KERNEL_TROUBLE" <<< "$log"; then
		grep -E -A 40 -m1 "$KERNEL_TROUBLE" <<< "$log" | sed 's/^/# /'
		_ktap_failed=$((_ktap_failed + 1))
		echo "not ok $_ktap_n kernel log clean"
	elif [ -n "$known" ]; then
		echo "ok $_ktap_n kernel log clean # XFAIL known reports, not of sroce (qemu/kernel-known.awk): ${known//$'\n'/, }"
	else
		echo "ok $_ktap_n kernel log clean"
	fi
	if [ "$_ktap_n" -ne "$_ktap_planned" ]; then
		echo "# planned $_ktap_planned cases, ran $_ktap_n"
		_ktap_failed=$((_ktap_failed + 1))
	fi
	echo "# totals: $((_ktap_n - _ktap_failed)) ok, $_ktap_failed not ok"
	[ -z "$_ktap_tmp" ] || rm -rf "$_ktap_tmp"
	[ "$_ktap_failed" -eq 0 ]
}

# _ktap_verdict_is WORD REASON...: the case's verdict, for run_test.
_ktap_verdict_is() {
	local word=$1
	shift
	[ -z "$_ktap_verdict" ] || echo "$word ${*//$'\n'/ }" > "$_ktap_verdict"
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# ktap_tool CMD...: CMD, a C++ tool printing KTAP
# (userspace/tools/lib/ktap.h), as part of a run_test case: its KTAP becomes the subtests of the case,
# passed through as it is; its stderr goes to the case's output.  Returns
# CMD's exit status, and fails (saying why) when that is 0 but its KTAP is
# not whole (a plan, as many results as planned) or the case already ran
# a tool (KTAP nests one block of subtests per case).  KTAP_OUT holds the
# output, for the case to look at what the tool relayed.
ktap_tool() {
	local rc=0 plan='' results=0 line re_result='^(not )?ok [0-9]+ ' re_plan='^1\.\.([0-9]+)$'
	if [ -s "${_ktap_sub:-/dev/null}" ]; then
		echo "ktap_tool $1: this case already ran a tool" >&2
		return 1
	fi
	KTAP_OUT=$("$@") || rc=$?
	if [ -n "${_ktap_sub:-}" ]; then
		printf '%s\n' "$KTAP_OUT" >> "$_ktap_sub"
	else
		printf '%s\n' "$KTAP_OUT"
	fi
	if [ ${#KTAP_OUT} -le 65536 ]; then
		# Builtins for the usual short output (a process costs ~0.1 s
		# under TCG); grep for a long one (sroce-netfuzz: ~400000 lines).
		while IFS= read -r line; do
			if [[ $line =~ $re_result ]]; then
				results=$((results + 1))
			elif [ -z "$plan" ] && [[ $line =~ $re_plan ]]; then
				plan=${BASH_REMATCH[1]}
			fi
		done <<< "$KTAP_OUT"
	else
		plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' <<< "$KTAP_OUT" | sed -n 1p)
		results=$(grep -Ec "$re_result" <<< "$KTAP_OUT" || true)
	fi
	if [ "$rc" -ne 0 ]; then
		echo "$*: exit status $rc" >&2
	elif [ -z "$plan" ] || [ "$results" -ne "$plan" ]; then
		echo "$*: $results results of ${plan:-no} planned" >&2
		rc=1
	fi
	return "$rc"
}

# skip REASON: the case does not apply here (KTAP SKIP, never a pass).
skip() {
	echo "SKIP: $*"
	_ktap_verdict_is SKIP "$@"
	exit "$KSFT_SKIP"
}

# xfail REASON: the case failed exactly as a known deviation of another
# implementation (rdma_rxe) says it does; counted as xfail, not as a pass.
xfail() {
	echo "XFAIL: $*"
	_ktap_verdict_is XFAIL "$@"
	exit "$KSFT_XFAIL"
}

# xpass REASON: a known deviation did not happen: the expectation is out of
# date (a failure).
xpass() {
	echo "XPASS: $*" >&2
	_ktap_verdict_is XPASS "$@"
	exit "$KSFT_XPASS"
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
	grep -q '^sroce ' <<< "$(lsmod)" || insmod "$SROCE_KO"
}

sroce_unload() {
	if grep -q '^sroce ' <<< "$(lsmod)"; then
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
	ibv_devinfo -d "$1" | awk '/state:/ && !done { print $2; done = 1 }'
}

gid_index() {
	local re=${2//./\\.}
	ibv_devinfo -v -d "$1" |
		sed -nE "s/^[[:space:]]*GID\[ *([0-9]+)\]:[[:space:]]+$re, RoCE v2\$/\1/p" |
		sed -n 1p
}

has_gid() {
	[ -n "$(gid_index "$1" "$2")" ]
}

# active_mtu_is DEV MTU: port 1 of DEV reports active_mtu MTU.
active_mtu_is() {
	grep -Eq "active_mtu:[[:space:]]+$2 " <<< "$(ibv_devinfo -d "$1")"
}

# udp4791_bound: a socket of init_net holds UDP port 4791 (rdma_rxe's).
udp4791_bound() {
	grep -q ':12B7 ' /proc/net/udp
}

udp4791_free() {
	! udp4791_bound
}

# cm_listening: an RDMA CM ID listens (rping, ucmatose, perftest -R).
cm_listening() {
	grep -q 'state LISTEN' <<< "$(rdma resource show cm_id)"
}

# The helpers of particular topologies, tools and workloads, a file each
# in tests/lib/.
_sroce_lib=$(dirname "${BASH_SOURCE[0]}")/lib
# shellcheck source=tests/lib/hw-counters.sh
. "$_sroce_lib/hw-counters.sh"
# shellcheck source=tests/lib/perftest.sh
. "$_sroce_lib/perftest.sh"
# shellcheck source=tests/lib/veth.sh
. "$_sroce_lib/veth.sh"
# shellcheck source=tests/lib/qps.sh
. "$_sroce_lib/qps.sh"
# shellcheck source=tests/lib/torture-loop.sh
. "$_sroce_lib/torture-loop.sh"
# shellcheck source=tests/lib/nfs-server.sh
. "$_sroce_lib/nfs-server.sh"
