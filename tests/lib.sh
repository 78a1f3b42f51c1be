#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the guest selftests: KTAP output, module and provider
# set-up, polling, the two-ends-of-a-veth topology.  A selftest sources this
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

_ktap_case() {
	local kind=$1 name=$2 out verdict rc word reason i
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
	out=$(mktemp)
	verdict=$(mktemp)
	_ktap_verdict=$verdict
	_ktap_sub=$(mktemp)
	(set -eE -o pipefail; "$@") > "$out" 2>&1
	rc=$?
	_ktap_verdict=
	sed 's/^/# /' "$out"
	sed 's/^/    /' "$_ktap_sub"
	read -r word reason < "$verdict" || true
	rm -f "$out" "$verdict" "$_ktap_sub"
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

# ktap_tool CMD...: CMD, a C++ tool printing KTAP (userspace/tools/ktap.h),
# as part of a run_test case: its KTAP becomes the subtests of the case,
# passed through as it is; its stderr goes to the case's output.  Returns
# CMD's exit status, and fails (saying why) when that is 0 but its KTAP is
# not whole (a plan, as many results as planned) or the case already ran
# a tool (KTAP nests one block of subtests per case).  KTAP_OUT holds the
# output, for the case to look at what the tool relayed.
ktap_tool() {
	local rc=0 plan results
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
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' <<< "$KTAP_OUT" | head -n1)
	results=$(grep -Ec '^(not )?ok [0-9]+ ' <<< "$KTAP_OUT" || true)
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

# --- hw counters and perftest (tests/rdma.sh, tests/rdma-interop.sh) --------
#
# These run after every perftest run: they start as few processes as they
# can (read, [[ ]] and bash arithmetic, not cat, grep and awk), since each
# costs tens of milliseconds under TCG.

HW_SYSFS=/sys/class/infiniband

# hw_counter DEV NAME: the hw counter NAME of DEV's port 1 (fails if DEV
# has no such counter).
hw_counter() {
	local v
	read -r v < "$HW_SYSFS/$1/ports/1/hw_counters/$2" || fail "$1 has no hw counter $2"
	echo "$v"
}

# hw_snapshot DEV...: every hw counter of port 1 of each DEV, as
# "DEV NAME VALUE" lines, for hw_at_least and hw_moved.
hw_snapshot() {
	local d f v
	for d in "$@"; do
		for f in "$HW_SYSFS/$d"/ports/1/hw_counters/*; do
			read -r v < "$f"
			echo "$d ${f##*/} $v"
		done
	done
}

# hw_moved SNAPSHOT: print the counters that moved since SNAPSHOT.
hw_moved() {
	local d c v now moved=
	while read -r d c v; do
		read -r now < "$HW_SYSFS/$d/ports/1/hw_counters/$c" || continue
		[ "$now" = "$v" ] || moved="$moved $d.$c+$((now - v))"
	done <<< "$1"
	echo "hw counters moved:${moved:- none}"
}

# hw_at_least SNAPSHOT DEV NAME MIN: NAME of DEV moved by MIN or more since
# SNAPSHOT.
hw_at_least() {
	local d c v now
	while read -r d c v; do
		[ "$d $c" = "$2 $3" ] || continue
		read -r now < "$HW_SYSFS/$d/ports/1/hw_counters/$c"
		echo "$2 $3: +$((now - v)) (at least $4 expected)"
		[ "$((now - v))" -ge "$4" ] || fail "$2 $3 moved by $((now - v)), expected at least $4"
		return 0
	done <<< "$1"
	fail "no counter $2/$3 in the snapshot"
}

# hw_traffic_counted SNAPSHOT DEV PACKETS BYTES: since SNAPSHOT DEV received
# at least PACKETS packets for its QPs (rx_qp) with BYTES bytes (rx_bytes)
# and sent at least PACKETS (tx_packets).
hw_traffic_counted() {
	hw_at_least "$1" "$2" rx_qp "$3"
	hw_at_least "$1" "$2" rx_bytes "$4"
	hw_at_least "$1" "$2" tx_packets "$3"
}

# hw_no_rx_errors DEV...: no rx_err_* counter of DEV moved (two correct
# peers on a clean wire send no malformed packet).
hw_no_rx_errors() {
	local d f v
	for d in "$@"; do
		for f in "$HW_SYSFS/$d"/ports/1/hw_counters/rx_err_*; do
			[ -e "$f" ] || fail "$d has no rx_err_* counters"
			read -r v < "$f"
			[ "$v" -eq 0 ] || fail "$d: ${f##*/} is $v"
		done
	done
}

# hw_fates DEV: the sum of DEV's fate counters (rx_qp, rx_mcast, rx_drop_*,
# rx_err_*): every received packet has exactly one fate.
hw_fates() {
	local f v s=0 d=$HW_SYSFS/$1/ports/1/hw_counters
	for f in "$d"/rx_qp "$d"/rx_mcast "$d"/rx_cnp "$d"/rx_drop_* "$d"/rx_err_*; do
		read -r v < "$f" || fail "$1 has no counter ${f##*/}"
		s=$((s + v))
	done
	echo "$s"
}

# hw_fates_add_up DEV...: rx_packets of each DEV is the sum of its fates.
hw_fates_add_up() {
	local d fates
	for d in "$@"; do
		fates=$(hw_fates "$d")
		[ "$fates" -eq "$(hw_counter "$d" rx_packets)" ] ||
			fail "$d: rx_packets $(hw_counter "$d" rx_packets) is not the sum of its fates ($fates)"
	done
}

# pid_listening PID PORT: a TCP socket listens on PORT in the network
# namespace of process PID (/proc/PID/net: no "ip netns exec ss", which
# takes half a second under TCG).
pid_listening() {
	local port
	printf -v port '%04X' "$2"
	grep -Eq "^ *[0-9]+: [0-9A-F]+:$port [0-9A-F]+:0000 0A " \
		"/proc/$1/net/tcp" "/proc/$1/net/tcp6"
}

# perftest_sizes PROG ARGS...: set PERFTEST_SIZES to the message sizes of
# perftest PROG ARGS: every power of two from 2 to 2^23 with -a, 8 for
# atomics, else the -s SIZE given.
perftest_sizes() {
	local a
	PERFTEST_SIZES=()
	case $1 in ib_atomic_*) PERFTEST_SIZES=(8); return ;; esac
	case " $* " in
	*" -a "*)
		for a in {1..23}; do PERFTEST_SIZES+=($((1 << a))); done
		return
		;;
	esac
	while [ $# -gt 0 ]; do
		[ "$1" != -s ] || PERFTEST_SIZES=("$2")
		shift
	done
	[ "${#PERFTEST_SIZES[@]}" -eq 1 ] || fail "perftest_sizes: no -s SIZE, no -a"
}

# perftest measures time in CPU cycles and calibrates their rate when it
# starts; when that fails ("Correlation coefficient r^2: ... < 0.9", which
# happens under TCG on a busy host) it takes the rate as 0 and its figures
# are inf or nan.  run_pair runs such a perftest again.
PERFTEST_UNCALIBRATED="Correlation coefficient"
# How many times run_pair runs a perftest whose clock did not calibrate.
PERFTEST_TRIES=${PERFTEST_TRIES:-4}

# perftest_calibrated CLIENT_OUTPUT: the client's perftest calibrated its
# clock, so that its figures mean something.
perftest_calibrated() {
	[[ $1 != *"$PERFTEST_UNCALIBRATED"* ]] ||
		fail "perftest could not calibrate its cycle counter in $PERFTEST_TRIES runs: no figures to check"
}

# _perftest_pos X...: each X is a positive number (not 0.00, inf, nan)
_perftest_pos() {
	local x
	for x in "$@"; do
		[[ $x =~ ^[0-9]+(\.[0-9]+)?$ && $x =~ [1-9] ]] || return 1
	done
}

# perftest_row PROG SIZE ITERS TEXT [rows-only]: TEXT (one side's output)
# has exactly one result row for SIZE bytes x ITERS iterations, and its
# figures are positive numbers: bandwidth rows (#bytes #iterations BW-peak
# BW-average MsgRate) the message rate, and the average bandwidth from
# 1 KiB on (smaller messages may round to 0.00 MB/s under TCG); latency
# rows (#bytes #iterations t_min t_max t_typical t_avg ...) t_min,
# t_typical and t_avg.  With rows-only the row must be there, whatever its
# figures (a latency server's own clock may print inf or -nan on slow
# kernels).
perftest_row() {
	local prog=$1 size=$2 iters=$3 line row='' n=0 f
	local re="^[[:space:]]*${size}[[:space:]]+${iters}[[:space:]]"
	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		n=$((n + 1))
		row=$line
	done <<< "$4"
	[ "$n" -gt 0 ] || fail "$prog: no result row for $size B x $iters"
	[ "$n" -eq 1 ] || fail "$prog: $n result rows for $size B x $iters"
	[ "${5:-}" != rows-only ] || return 0
	read -ra f <<< "$row"
	case $prog in
	*_bw)
		_perftest_pos "${f[4]}" || fail "$prog: no message rate: $row"
		[ "$size" -lt 1024 ] || _perftest_pos "${f[3]}" || fail "$prog: no bandwidth: $row"
		;;
	*_lat)
		_perftest_pos "${f[2]}" "${f[4]}" "${f[5]}" || fail "$prog: no latency: $row"
		;;
	esac
}

# perftest_check PROG ITERS MTU OUT ARGS...: check the output OUT of one
# perftest run of PROG ARGS (the server's output, then a line starting
# "--- client", then the client's): no error reported, the path MTU MTU
# used, events used if -e was given, the client's clock calibrated
# (perftest_calibrated), and the result rows (perftest_row) of every size of
# ARGS (perftest_sizes) from the client, with their figures, and the rows
# the server prints: the client's last row for bandwidth tests, one per size
# of its own for ib_write_lat, none for ib_read_lat and ib_atomic_lat.
perftest_check() {
	local prog=$1 iters=$2 mtu=$3 out=$4 cli srv s
	local err='error|fail|couldn|unable|not supported'
	local mtu_re="Mtu[[:space:]]*:[[:space:]]*${mtu}\[B\]"
	shift 4
	cli=${out#*--- client}
	srv=${out%%--- client*}
	[ "$cli" != "$out" ] || fail "perftest_check: no client output"
	if [[ ${out,,} =~ $err ]]; then
		grep -Ei "$err" <<< "$out" || true
		fail "$prog reported an error"
	fi
	[[ $cli =~ $mtu_re ]] || fail "$prog: path MTU is not $mtu"
	case " $* " in
	*" -e "*) [[ $cli == *"Test with events"* ]] || fail "$prog: events not used" ;;
	esac
	perftest_calibrated "$cli"
	perftest_sizes "$prog" "$@"
	for s in "${PERFTEST_SIZES[@]}"; do
		perftest_row "$prog" "$s" "$iters" "$cli"
	done
	case $prog in
	*_bw) perftest_row "$prog" "$s" "$iters" "$srv" rows-only ;;
	ib_write_lat)
		for s in "${PERFTEST_SIZES[@]}"; do
			perftest_row "$prog" "$s" "$iters" "$srv" rows-only
		done
		;;
	esac
	echo "$prog $*: ${#PERFTEST_SIZES[@]} result row(s) checked"
}

# perftest_counters SNAPSHOT PROG ITERS MTU CLIENT_DEV SERVER_DEV ARGS...:
# the hw counters of the sroce devices among CLIENT_DEV and SERVER_DEV
# ("" for a device that is not sroce) show the traffic of perftest PROG
# ARGS since SNAPSHOT: the payload's receiver got at least every byte and
# every packet of it (rx_bytes, rx_qp), its sender sent at least as many
# packets (tx_packets): the client for ib_write_bw, the server for the
# reads (which also received a request per READ), both for ib_write_lat
# (each side writes); for atomics each side a packet per operation.
perftest_counters() {
	local snap=$1 prog=$2 iters=$3 mtu=$4 cdev=$5 sdev=$6 s ops=0 bytes=0 pkts=0
	local rx=() tx=()
	shift 6
	perftest_sizes "$prog" "$@"
	for s in "${PERFTEST_SIZES[@]}"; do
		ops=$((ops + iters))
		bytes=$((bytes + s * iters))
		pkts=$((pkts + iters * ((s + mtu - 1) / mtu)))
	done
	case $prog in
	ib_write_lat) rx=("$cdev" "$sdev") tx=("$cdev" "$sdev") ;;
	ib_write_*) rx=("$sdev") tx=("$cdev") ;;
	ib_read_*)
		rx=("$cdev") tx=("$sdev")
		[ -z "$sdev" ] || hw_at_least "$snap" "$sdev" rx_qp "$ops"
		;;
	ib_atomic_*)
		for s in "$cdev" "$sdev"; do
			[ -z "$s" ] || hw_at_least "$snap" "$s" rx_qp "$ops"
			[ -z "$s" ] || hw_at_least "$snap" "$s" tx_packets "$ops"
		done
		return 0
		;;
	*) fail "perftest_counters: unknown program $prog" ;;
	esac
	for s in "${rx[@]}"; do
		[ -z "$s" ] || hw_at_least "$snap" "$s" rx_bytes "$bytes"
		[ -z "$s" ] || hw_at_least "$snap" "$s" rx_qp "$pkts"
	done
	for s in "${tx[@]}"; do
		[ -z "$s" ] || hw_at_least "$snap" "$s" tx_packets "$pkts"
	done
}

# gid_index DEV ADDR: index of DEV's RoCE v2 GID ADDR (as ibv_devinfo
# prints it, e.g. ::ffff:10.93.5.1); empty if there is none.
gid_index() {
	local re=${2//./\\.}
	ibv_devinfo -v -d "$1" |
		sed -nE "s/^[[:space:]]*GID\[ *([0-9]+)\]:[[:space:]]+$re, RoCE v2\$/\1/p" |
		head -n1
}

has_gid() {
	[ -n "$(gid_index "$1" "$2")" ]
}

# active_mtu_is DEV MTU: port 1 of DEV reports active_mtu MTU.
active_mtu_is() {
	ibv_devinfo -d "$1" | grep -Eq "active_mtu:[[:space:]]+$2 "
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
	rdma resource show cm_id | grep -q 'state LISTEN'
}

# --- two ends of a veth --------------------------------------------------
#
# Most selftests use one topology: a veth pair, v0 in init_net and v1 in
# the network namespace $NS, an RDMA device on each end, and programs run
# as a server on one end and a client on the other.  Others have both ends
# in init_net (sroce_local_pair): one host's two devices talk to each
# other across the veth.

# veth_ns IP0 IP1 [IP6_0 IP6_1]: the namespace $NS and the veth: v0 with
# IP0/24 (and IP6_0/64) in init_net, v1 with IP1/24 (and IP6_1/64) in $NS,
# both up; IPv6 addresses without duplicate address detection.
veth_ns() {
	ip netns add "$NS"
	ip link add v0 type veth peer name v1 netns "$NS"
	ip addr add "$1/24" dev v0
	[ -z "${3:-}" ] || ip addr add "$3/64" dev v0 nodad
	ip link set v0 up
	ip -n "$NS" link set lo up
	ip -n "$NS" addr add "$2/24" dev v1
	[ -z "${4:-}" ] || ip -n "$NS" addr add "$4/64" dev v1 nodad
	ip -n "$NS" link set v1 up
}

# sroce_pair IP0 IP1 [IP6_0 IP6_1]: sroce and its provider loaded,
# veth_ns IP0 IP1 [IP6_0 IP6_1] with sroce0 on v0 and sroce1 on v1, once
# both have the GIDs of their addresses.
sroce_pair() {
	sroce_load
	sroce_provider_setup
	veth_ns "$@"
	rdma link add sroce0 type sroce netdev v0
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	wait_for 10 has_gid sroce0 "::ffff:$1"
	wait_for 10 has_gid sroce1 "::ffff:$2"
	[ -z "${3:-}" ] || wait_for 10 has_gid sroce0 "$3"
	[ -z "${4:-}" ] || wait_for 10 has_gid sroce1 "$4"
}

# sroce_local_pair IP0 IP1 [IP6_0 IP6_1]: sroce and its provider loaded,
# the veth with both ends in init_net: v0 with IP0/24 (and IP6_0/64), v1
# with IP1/24 (and IP6_1/64), both up, accepting datagrams from an address
# of their own host (accept_local, no rp_filter), sroce0 on v0 and sroce1
# on v1 once both have the GIDs of their addresses.
sroce_local_pair() {
	local n
	sroce_load
	sroce_provider_setup
	for n in all default; do
		sysctl -qw "net.ipv4.conf.$n.accept_local=1" "net.ipv4.conf.$n.rp_filter=0"
	done
	ip link add v0 type veth peer name v1
	ip addr add "$1/24" dev v0
	ip addr add "$2/24" dev v1
	[ -z "${3:-}" ] || ip addr add "$3/64" dev v0 nodad
	[ -z "${4:-}" ] || ip addr add "$4/64" dev v1 nodad
	ip link set v0 up
	ip link set v1 up
	ip link set lo up
	rdma link add sroce0 type sroce netdev v0
	rdma link add sroce1 type sroce netdev v1
	wait_for 10 has_gid sroce0 "::ffff:$1"
	wait_for 10 has_gid sroce1 "::ffff:$2"
	[ -z "${3:-}" ] || wait_for 10 has_gid sroce0 "$3"
	[ -z "${4:-}" ] || wait_for 10 has_gid sroce1 "$4"
}

# rxe_load: rdma_rxe loaded, or the case skipped.  rdma_rxe of Linux 6.1
# binds UDP 4791 in init_net only, as soon as it loads, and serves only
# netdevs there: sroce, which binds it per namespace, cannot have a device
# in init_net next to it.
rxe_load() {
	modprobe rdma_rxe 2>/dev/null || skip "rdma_rxe is not available"
}

# rxe_add DEV NETDEV IP: the rdma_rxe device DEV on NETDEV (init_net), once
# it has the GID of IP.
rxe_add() {
	rdma link add "$1" type rxe netdev "$2"
	wait_for 10 has_gid "$1" "::ffff:$3"
}

# rxe_sroce_pair IP_RXE IP_SROCE [IP6_RXE IP6_SROCE]: the veth of veth_ns
# with rxe0 on v0 (init_net) and sroce1 on v1 ($NS), once both have the
# GIDs of their addresses.
rxe_sroce_pair() {
	rxe_load
	sroce_load
	sroce_provider_setup
	wait_for 5 udp4791_bound || echo "rdma_rxe has not bound UDP 4791 yet"
	veth_ns "$@"
	rxe_add rxe0 v0 "$1"
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	wait_for 10 has_gid sroce1 "::ffff:$2"
	[ -z "${3:-}" ] || wait_for 10 has_gid rxe0 "$3"
	[ -z "${4:-}" ] || wait_for 10 has_gid sroce1 "$4"
}

# rxe_replaces_sroce0 IP0: sroce0 of sroce_pair deleted (if it is still
# there; its UDP socket in init_net goes with it), then rxe0 on v0 (IP0) in
# its place, next to sroce1.
rxe_replaces_sroce0() {
	! rdma_dev_exists sroce0 || rdma_links_delete sroce0
	wait_for 10 udp4791_free
	rxe_load
	rxe_add rxe0 v0 "$1"
	rdma link show
}

# rdma_links_delete DEV...: each rdma link deleted, and gone.
rdma_links_delete() {
	local d
	for d in "$@"; do
		rdma link delete "$d"
	done
	for d in "$@"; do
		wait_for 10 rdma_dev_gone "$d"
	done
}

# sroce_rmmod: sroce unloads (no device, no user of it left).
sroce_rmmod() {
	rmmod sroce
	! lsmod | grep -q '^sroce '
}

# rxe_rmmod: rdma_rxe unloads.
rxe_rmmod() {
	modprobe -r rdma_rxe
	! lsmod | grep -q '^rdma_rxe '
}

# no_user_objects DEV_ERE RESOURCE...: `rdma resource show RESOURCE` lists
# no object of a process (" pid ") on a device matching DEV_ERE: every
# test program cleaned up, or the kernel did it for them.
no_user_objects() {
	local re=$1 r out left=
	shift
	for r in "$@"; do
		out=$(rdma resource show "$r") || fail "rdma resource show $r failed"
		left+=$out$'\n'
	done
	left=$(grep -E "dev $re " <<< "$left" | grep ' pid ' || true)
	[ -z "$left" ] || { echo "$left"; fail "user objects left over"; }
}

# rxe_sroce_rmmod: rxe0 and sroce1 (rxe_sroce_pair, rxe_replaces_sroce0)
# deleted, sroce and rdma_rxe unload.
rxe_sroce_rmmod() {
	rdma_links_delete sroce1 rxe0
	sroce_rmmod
	rxe_rmmod
}

# sroce_pair_rmmod: no user object left on sroce0 and sroce1 of
# sroce_pair, both deleted, sroce unloads.
sroce_pair_rmmod() {
	no_user_objects 'sroce[01]' qp cq mr pd
	rdma_links_delete sroce1 sroce0
	sroce_rmmod
}

# veth_mtu NETDEV_MTU PATH_MTU DEV...: both ends of the veth to NETDEV_MTU,
# then wait until each DEV reports PATH_MTU.
veth_mtu() {
	local d
	ip link set v0 mtu "$1"
	ip -n "$NS" link set v1 mtu "$1"
	for d in "${@:3}"; do
		wait_for 10 active_mtu_is "$d" "$2"
	done
}

# path_mtu PATH_MTU DEV...: veth_mtu with the netdev MTU for PATH_MTU (1500
# for 1024, 9000 for 4096).
path_mtu() {
	case $1 in
	1024) veth_mtu 1500 "$@" ;;
	4096) veth_mtu 9000 "$@" ;;
	*) fail "path_mtu: no netdev MTU for path MTU $1" ;;
	esac
}

# veth_cleanup: for an EXIT trap: the server of run_pair, the devices that
# may be on the veth, the veth, $NS, sroce and rdma_rxe; quiet.
veth_cleanup() {
	local d
	[ -z "${SERVER_PID:-}" ] || kill "$SERVER_PID" 2>/dev/null
	for d in sroce0 sroce1 rxe0; do
		rdma link delete "$d" 2>/dev/null
	done
	ip netns del "$NS" 2>/dev/null
	ip link del v0 2>/dev/null
	sroce_unload 2>/dev/null
	modprobe -r rdma_rxe 2>/dev/null
	return 0
}

# run_pair WHERE WAIT SERVER_CMD... -- CLIENT_CMD...: SERVER_CMD in $NS and
# CLIENT_CMD in init_net (WHERE "ns"), the other way round ("init"), or
# both in init_net ("local"); the
# client starts once the server listens (WAIT: tcp:PORT, a TCP port of the
# server's namespace; cm, an RDMA CM listener; else a command and its
# arguments, split at blanks).  Each may take
# PAIR_TIMEOUT (default 90) x SROCE_TIMEOUT_SCALE seconds.  PAIR_OUT gets
# both outputs, the client's after a line "--- client" (perftest_check's
# format); returns 1, saying why, unless both exit 0.  SERVER_PID is the
# server's while it runs (veth_cleanup kills it).  A perftest client that
# could not calibrate its clock (PERFTEST_UNCALIBRATED) makes it run the
# pair again, up to PERFTEST_TRIES times in all.
run_pair() {
	local try
	for ((try = 1; ; try++)); do
		_run_pair_once "$@" || return 1
		[[ ${PAIR_OUT#*--- client} == *"$PERFTEST_UNCALIBRATED"* ]] || return 0
		[ "$try" -lt "$PERFTEST_TRIES" ] || return 0
		echo "the client's perftest could not calibrate its clock: run $((try + 1))"
	done
}

_run_pair_once() {
	local where=$1 wait=$2 srv=() cli=() sx=() cx=() sout cout rc=0 src=0 w
	local limit=$((${PAIR_TIMEOUT:-90} * SROCE_TIMEOUT_SCALE))
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	case $where in
	ns) sx=(ip netns exec "$NS") ;;
	init) cx=(ip netns exec "$NS") ;;
	esac
	sout=$(mktemp)
	cout=$(mktemp)
	"${sx[@]}" timeout "$limit" "${srv[@]}" > "$sout" 2>&1 &
	SERVER_PID=$!
	case $wait in
	tcp:*) wait_for 20 pid_listening "$SERVER_PID" "${wait#tcp:}" || rc=1 ;;
	cm) wait_for 20 cm_listening || rc=1 ;;
	*)
		read -ra w <<< "$wait"
		wait_for 20 "${w[@]}" || rc=1
		;;
	esac
	if [ "$rc" -eq 0 ]; then
		"${cx[@]}" timeout "$limit" "${cli[@]}" > "$cout" 2>&1 || rc=$?
	else
		echo "the server does not listen ($wait)" >&2
	fi
	# A server ends by itself once its client is done.
	[ "$rc" -eq 0 ] || kill "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" || src=$?
	SERVER_PID=
	PAIR_OUT=$(printf -- '--- server (%s): %s\n%s\n--- client: %s\n%s\n' \
		"$where" "${srv[*]}" "$(< "$sout")" "${cli[*]}" "$(< "$cout")")
	rm -f "$sout" "$cout"
	echo "$PAIR_OUT"
	[ "$rc" -eq 0 ] || { echo "client: exit status $rc" >&2; return 1; }
	[ "$src" -eq 0 ] || { echo "server: exit status $src" >&2; return 1; }
}

# perftest_rows SIZE ITERS: both sides of PAIR_OUT have the result row of
# SIZE bytes and ITERS iterations, the client's with figures in it (its
# clock calibrated; a latency server may print inf or -nan when its own
# clock saw nothing, on slow debug kernels).
perftest_rows() {
	local rows
	rows=$(grep -Ec "^[[:space:]]*$1[[:space:]]+$2[[:space:]]" <<< "$PAIR_OUT")
	[ "$rows" -eq 2 ] || fail "$rows result rows for $1 bytes x $2, expected 2"
	perftest_calibrated "${PAIR_OUT#*--- client}"
	grep -Eq "^[[:space:]]*$1[[:space:]]+$2([[:space:]]+[0-9.]+){3}" \
		<<< "${PAIR_OUT#*--- client}" || fail "no figures in the client's result row"
}

# pingpong_check SIZE ITERS: PAIR_OUT of an ibv_*_pingpong pair run with
# -c: no data mismatch, both sides ran ITERS iterations of SIZE bytes.
pingpong_check() {
	! grep -qi 'invalid data' <<< "$PAIR_OUT" || fail "data corrupted"
	[ "$(grep -c "^$2 iters in" <<< "$PAIR_OUT")" -eq 2 ] ||
		fail "both sides must report $2 iterations"
	[ "$(grep -Ec "^$(($1 * $2 * 2)) bytes in" <<< "$PAIR_OUT")" -eq 2 ] ||
		fail "byte count is not $(($1 * $2 * 2)) on both sides"
}

# --- a device's QPs (tests/nvme.sh, tests/scsi-rdma.sh, tests/nfs.sh, ---------
# tests/rds.sh)
#
# A kernel consumer's queues on the devices: listed by type, or counted
# against the count after set-up (the GSI QP) that qp_base records in
# $WORK/qp-base.

# rc_qps DEV_ERE: the RC QPs on the devices matching DEV_ERE.
rc_qps() {
	rdma resource show qp | grep -E "^link $1/" | grep ' type RC ' || true
}

# no_rc_qps DEV_ERE: no RC QP on a device matching DEV_ERE (the GSI QPs
# stay).
no_rc_qps() {
	[ -z "$(rc_qps "$1")" ]
}

# qp_count DEV: the QPs of DEV, kernel ones included (rdma resource
# show's summary).
qp_count() {
	rdma resource show "$1" | sed -nE 's/.* qp ([0-9]+) .*/\1/p'
}

# qp_base DEV: DEV's QP count now in $WORK/qp-base, the base of
# qps_settled and qps_above.
qp_base() {
	qp_count "$1" > "$WORK/qp-base"
	[ -n "$(< "$WORK/qp-base")" ] || fail "no QP count for $1"
}

# qps_settled DEV...: each DEV (if it exists) has no more QPs than it had
# after set-up (qp_base): no queue of a consumer left.
qps_settled() {
	local d
	for d in "$@"; do
		rdma_dev_exists "$d" || continue
		[ "$(qp_count "$d")" -le "$(< "$WORK/qp-base")" ] || return 1
	done
}

# qps_above DEV N: DEV has at least N QPs more than after set-up.
qps_above() {
	local n
	n=$(qp_count "$1")
	echo "$1: $n QPs ($(< "$WORK/qp-base") after set-up)"
	[ "$n" -ge $(($(< "$WORK/qp-base") + $2)) ] || fail "$1 has $n QPs, expected $2 more than $(< "$WORK/qp-base")"
}

# --- sroce-torture in a loop (tests/netfuzz.sh, tests/procfuzz.sh) ---------
#
# Verified RC traffic between sroce0 and sroce1 of sroce_pair again and
# again while something hostile runs next to it: every run must complete
# with every byte and completion right.  Its files are in $WORK.

# torture_loop_start IP0 IP1 SEED: sroce-torture between sroce0 (IP0) and
# sroce1 (IP1) in the background, run after run (2 QP pairs, 4 MiB, run n
# with seed SEED + n) until torture_loop_stop; each run's output in
# $WORK/torture.log, the loop's pid in $WORK/torture.pid (for an EXIT
# trap).
torture_loop_start() {
	rm -f "$WORK/stop" "$WORK/torture.runs" "$WORK/torture.rc"
	_torture_loop "$@" &
	echo $! > "$WORK/torture.pid"
}

# _torture_loop IP0 IP1 SEED: the loop of torture_loop_start; at its end
# the number of runs completed in $WORK/torture.runs, the first failure's
# status (0: none) in $WORK/torture.rc.
_torture_loop() {
	local n=0 rc=0 ga gb
	ga=$(gid_index sroce0 "::ffff:$1")
	gb=$(gid_index sroce1 "::ffff:$2")
	while [ ! -e "$WORK/stop" ]; do
		timeout $((600 * SROCE_TIMEOUT_SCALE)) \
			"$SROCE_REPO/build/userspace/tools/sroce-torture" \
			--dev-a sroce0 --dev-b sroce1 --gid-a "$ga" --gid-b "$gb" \
			--qps 2 --bytes 4M --depth 8 --seed $(($3 + n)) \
			> "$WORK/torture.log" 2>&1 || { rc=$?; break; }
		n=$((n + 1))
	done
	echo "$n" > "$WORK/torture.runs"
	echo "$rc" > "$WORK/torture.rc"
}

# torture_loop_stop: the loop of torture_loop_start ends after its
# current run.
torture_loop_stop() {
	touch "$WORK/stop"
	wait "$(cat "$WORK/torture.pid")"
	rm -f "$WORK/torture.pid"
}

# torture_loop_clean: every run of the loop completed, every byte and
# completion right, and at least one did.
torture_loop_clean() {
	[ -e "$WORK/torture.rc" ] || fail "the torture loop did not finish"
	echo "sroce-torture runs completed: $(cat "$WORK/torture.runs")"
	if [ "$(cat "$WORK/torture.rc")" -ne 0 ]; then
		cat "$WORK/torture.log"
		fail "sroce-torture failed with status $(cat "$WORK/torture.rc")"
	fi
	[ "$(cat "$WORK/torture.runs")" -ge 1 ] || fail "no sroce-torture run completed"
	tail -n 3 "$WORK/torture.log"
}

# --- the kernel NFS server over RDMA (tests/nfs.sh, scripts/demo) ---------
#
# The server of Debian's nfs-kernel-server in init_net: rpcbind, the
# export, rpc.mountd, nfsd's threads, and its RDMA listener (svcrdma) on
# NFS_RDMA_PORT.  Its state (/var/lib/nfs) is a tmpfs of its own.

NFS_RDMA_PORT=20049
NFS_RUN=/run/sroce-nfs

# nfs_server_start EXPORT CLIENTS: EXPORT (a directory on a file system
# nfsd can export, such as a tmpfs) exported read-write to CLIENTS (an
# address or a subnet) as the NFSv4 pseudo-root (fsid=0), the server up
# and listening on RDMA port NFS_RDMA_PORT.  NFSv4's grace period and
# lease at their minimum, 10 s: no new open is granted during the grace
# period after the start.
nfs_server_start() {
	modprobe -a nfsd rpcrdma
	mkdir -p "$NFS_RUN" /run/rpcbind
	mountpoint -q /var/lib/nfs || mount -t tmpfs nfs-state /var/lib/nfs
	mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /var/lib/nfs/nfsdcltrack
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	rpcbind -f > "$NFS_RUN/rpcbind.log" 2>&1 &
	echo $! > "$NFS_RUN/rpcbind.pid"
	wait_for 10 pid_listening "$(< "$NFS_RUN/rpcbind.pid")" 111
	echo "$1 $2(rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0)" > /etc/exports
	exportfs -ra
	rpc.mountd -F > "$NFS_RUN/mountd.log" 2>&1 &
	echo $! > "$NFS_RUN/mountd.pid"
	rpc.nfsd -G 10 -L 10 4
	echo "rdma $NFS_RDMA_PORT" > /proc/fs/nfsd/portlist
	grep -qx "rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist ||
		fail "nfsd does not list rdma $NFS_RDMA_PORT: $(< /proc/fs/nfsd/portlist)"
}

# pid_gone PID: process PID has ended (gone, or a zombie).
pid_gone() {
	[ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# nfs_server_stop: nfsd's threads and listeners stopped, the exports
# withdrawn, rpc.mountd and rpcbind ended, /proc/fs/nfsd and the state
# tmpfs unmounted; quiet, also for an EXIT trap.
nfs_server_stop() {
	local p pid
	if [ -e /proc/fs/nfsd/threads ]; then
		rpc.nfsd 0 2>/dev/null
		exportfs -ua 2>/dev/null
	fi
	for p in mountd rpcbind; do
		[ -e "$NFS_RUN/$p.pid" ] || continue
		pid=$(< "$NFS_RUN/$p.pid")
		kill "$pid" 2>/dev/null
		wait_for 10 pid_gone "$pid"
		rm -f "$NFS_RUN/$p.pid"
	done
	umount /proc/fs/nfsd 2>/dev/null
	umount /var/lib/nfs 2>/dev/null
	return 0
}
