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

# --- hw counters and perftest (tests/rdma.sh, tests/rdma-interop.sh) --------
#
# These run after every perftest run: they start as few processes as they
# can (read, [[ ]] and bash arithmetic, not cat, grep and awk), since each
# costs tens of milliseconds under TCG.

HW_SYSFS=/sys/class/infiniband

# hw_counter DEV NAME: the hw counter NAME of DEV's port 1.
hw_counter() {
	local v
	read -r v < "$HW_SYSFS/$1/ports/1/hw_counters/$2" && echo "$v"
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
# used, events used if -e was given, and the result rows (perftest_row) of
# every size of ARGS (perftest_sizes) from the client, with their figures
# unless perftest says it could not calibrate its clock, and the rows the
# server prints: the client's last row for bandwidth tests, one per size of
# its own for ib_write_lat, none for ib_read_lat and ib_atomic_lat.
perftest_check() {
	local prog=$1 iters=$2 mtu=$3 out=$4 cli srv s cmode=
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
	# perftest measures time in CPU cycles; when it cannot calibrate
	# their rate (it happens under TCG) its figures are inf or nan.
	if [[ $cli == *"Correlation coefficient"* ]]; then
		echo "the client's perftest could not calibrate its clock: its figures are not checked"
		cmode=rows-only
	fi
	perftest_sizes "$prog" "$@"
	for s in "${PERFTEST_SIZES[@]}"; do
		perftest_row "$prog" "$s" "$iters" "$cli" "$cmode"
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
