# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# hw counters (tests/rdma.sh, tests/rdma-interop.sh, tests/netfuzz.sh, ...).
#
# Sourced by tests/lib.sh, like every file here.
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

# hw_expect SNAPSHOT DEV NAME=N...: each counter NAME of DEV moved by
# exactly N since SNAPSHOT (NAME=LO-HI: by LO to HI).
hw_expect() {
	local snap=$1 dev=$2 kv d c v now want
	shift 2
	for kv in "$@"; do
		now=
		while read -r d c v; do
			[ "$d $c" = "$dev ${kv%=*}" ] || continue
			read -r now < "$HW_SYSFS/$d/ports/1/hw_counters/$c"
			now=$((now - v))
			break
		done <<< "$snap"
		[ -n "$now" ] || fail "no counter $dev/${kv%=*} in the snapshot"
		echo "$dev ${kv%=*}: +$now (${kv#*=} expected)"
		want=${kv#*=}
		case $want in
		*-*) [ "$now" -ge "${want%-*}" ] && [ "$now" -le "${want#*-}" ] ;;
		*) [ "$now" = "$want" ] ;;
		esac || fail "$dev ${kv%=*} moved by $now, expected $want"
	done
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
