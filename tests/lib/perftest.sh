# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# perftest and ibv_*_pingpong (tests/rdma.sh, tests/rdma-interop.sh, ...).
#
# Sourced by tests/lib.sh, like every file here.

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
