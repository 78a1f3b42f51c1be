# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Two ends of a veth.
#
# Sourced by tests/lib.sh, like every file here.
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
	! grep -q '^sroce ' <<< "$(lsmod)"
}

# rxe_rmmod: rdma_rxe unloads.
rxe_rmmod() {
	modprobe -r rdma_rxe
	! grep -q '^rdma_rxe ' <<< "$(lsmod)"
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
# could not calibrate its clock (PERFTEST_UNCALIBRATED), or a pair that
# failed with a server that could not (a bandwidth server then exits 1,
# "Can't produce a report"), makes it run the pair again, up to
# PERFTEST_TRIES times in all; the last run's status is returned.
run_pair() {
	local try rc
	for ((try = 1; ; try++)); do
		rc=0
		_run_pair_once "$@" || rc=1
		if [[ ${PAIR_OUT#*--- client} == *"$PERFTEST_UNCALIBRATED"* ]]; then
			echo -n "the client's"
		elif [ "$rc" -ne 0 ] &&
			[[ ${PAIR_OUT%%--- client*} == *"$PERFTEST_UNCALIBRATED"* ]]; then
			echo -n "the server's"
		else
			return "$rc"
		fi
		echo " perftest could not calibrate its clock (run $try of at most $PERFTEST_TRIES)"
		[ "$try" -lt "$PERFTEST_TRIES" ] || return "$rc"
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
