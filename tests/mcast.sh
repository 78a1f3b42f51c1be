#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast on UD QPs: sroce to sroce across a veth, then with rdma_rxe on
# the other end, both ways.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (later: rxe0)   |            | sroce1                 |
#   |   v0 10.93.21.1/24     |----veth----|   v1 10.93.21.2/24     |
#   | senders (or receivers) |            | receivers (or senders) |
#   +------------------------+            +------------------------+
#
# query_device advertises the multicast limits; sroce-mcasttest mcast and
# mcast6 (delivery to every attached QP of both devices but the sender,
# Q_Key and missing receives per QP, detach, multicast QPN and address
# mismatches dropped and counted; an IPv4 and an IPv6 group), mcast-bad
# (refused input) and mcast-limits (every limit, then ENOMEM; and a
# process exiting with everything attached); the netdevs' memberships
# (ip maddr) come and go with the attachments.  mckey (the RDMA CM's
# multicast test: it joins, attaches through librdmacm and checks that
# every message arrives): one receiver, and two QPs receiving on one
# group.  Then sroce0 goes, rdma_rxe takes v0 (it holds UDP 4791 of
# init_net, so both cannot be there at once) and mckey runs between rxe0
# and sroce1, each side once the sender.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-mc-$$
IP0=10.93.21.1
IP1=10.93.21.2
MCASTTEST=$SROCE_REPO/build/userspace/tools/sroce-mcasttest

trap veth_cleanup EXIT

# groups_of DEV [-n NS]: the IPv4 multicast groups DEV is in, but the
# all-hosts group.
groups_of() {
	local dev=$1
	shift
	ip "$@" maddr show dev "$dev" |
		awk '$1 == "inet" && $2 != "224.0.0.1" { print $2 }'
}

# joined DEV GROUP [-n NS]: DEV is in the IPv4 multicast group GROUP.
joined() {
	local dev=$1 grp=$2
	shift 2
	grep -qxF "$grp" <<< "$(groups_of "$dev" "$@")"
}

not_joined() { ! joined "$@"; }

# mckey_pair WHERE GROUP RECV_ARGS...: an mckey receiver on the side WHERE
# ("ns": sroce1 in $NS; "init": the device on v0), then a sender from the
# other side once the receiver joined (run_pair).  Both must exit 0 and
# the receiver must have received every message (mckey's receiver waits
# for all of them).
mckey_pair() {
	local where=$1 grp=$2 rip=$IP0 tip=$IP1 joined_args
	shift 2
	joined_args=(v0 "$grp")
	if [ "$where" = ns ]; then
		rip=$IP1 tip=$IP0 joined_args=(v1 "$grp" -n "$NS")
	fi
	PAIR_TIMEOUT=60 run_pair "$where" "joined ${joined_args[*]}" \
		mckey -m "$grp" -b "$rip" -C 10 "$@" -- mckey -m "$grp" -b "$tip" -s -C 10 ||
		fail "mckey failed (its receiver fails unless every message arrived)"
	grep -q '^receiving data transfers' <<< "$PAIR_OUT" || fail "the receiver did not receive"
	grep -q '^initiating data transfers' <<< "$PAIR_OUT" || fail "the sender did not send"
	[ "$(grep -c '^return status 0' <<< "$PAIR_OUT")" -eq 2 ] ||
		fail "both sides must end with status 0"
	# Both leave the group: the memberships go with the last one.
	wait_for 10 not_joined "${joined_args[@]}" || fail "$grp is still joined"
}

test_setup() {
	[ -x "$MCASTTEST" ] || fail "$MCASTTEST is not built"
	sroce_pair "$IP0" "$IP1"
}

test_limits_advertised() {
	local out
	out=$(ibv_devinfo -v -d sroce0 | grep -E 'max_(total_)?mcast')
	echo "$out"
	grep -Eq 'max_mcast_grp:[[:space:]]+1024$' <<< "$out"
	grep -Eq 'max_mcast_qp_attach:[[:space:]]+64$' <<< "$out"
	grep -Eq 'max_total_mcast_qp_attach:[[:space:]]+16384$' <<< "$out"
}

test_mcasttest_mcast() {
	ktap_tool "$MCASTTEST" sroce0 sroce1 mcast
	# Nothing left joined by the QPs that went.
	[ -z "$(groups_of v0)" ] || fail "v0 still in $(groups_of v0)"
	[ -z "$(groups_of v1 -n "$NS")" ] || fail "v1 still in $(groups_of v1 -n "$NS")"
}

test_mcasttest_mcast6() {
	# The link-local GID (from the MAC) is there from the start.
	ibv_devinfo -v -d sroce0 | grep -E 'fe80:.*RoCE v2'
	ktap_tool "$MCASTTEST" sroce0 sroce1 mcast6
	! grep -q 'ff02::5e:7:1' <<< "$(ip maddr show dev v0)" || fail "v0 still in ff02::5e:7:1"
}

test_mcasttest_mcast_bad() {
	ktap_tool "$MCASTTEST" sroce0 sroce1 mcast-bad
}

test_mcasttest_mcast_limits() {
	ktap_tool "$MCASTTEST" sroce0 sroce1 mcast-limits
	[ -z "$(groups_of v0)" ] || fail "v0 still in $(groups_of v0 | wc -l) groups"
}

# uverbs detaches what a process left attached when it exits.
test_exit_attached() {
	local left
	ktap_tool "$MCASTTEST" sroce0 sroce1 mcast-limits-exit
	wait_for 10 rdma_no_user_qp
	left=$(groups_of v0 | wc -l)
	[ "$left" -eq 0 ] || fail "v0 still in $left groups"
}

rdma_no_user_qp() {
	! grep -q ' pid ' <<< "$(rdma resource show qp)"
}

test_mckey() {
	local before after
	before=$(hw_counter sroce1 rx_mcast)
	mckey_pair ns 239.1.2.3
	after=$(hw_counter sroce1 rx_mcast)
	echo "sroce1 rx_mcast: $before -> $after"
	[ $((after - before)) -ge 10 ] || fail "sroce1 counted fewer than 10 multicast datagrams"
}

test_mckey_two_qps() {
	mckey_pair ns 239.1.2.4 -c 2
	# Each of the receiver's two QPs got the 10 messages: mckey waits
	# for 10 on each, so its exit status 0 says it.
}

test_mckey_reverse() {
	mckey_pair init 239.1.2.5
}

test_sroce0_gone() {
	rdma_links_delete sroce0
}

test_rxe_mckey_to_sroce() {
	mckey_pair ns 239.1.2.6
}

test_rxe_mckey_to_rxe() {
	mckey_pair init 239.1.2.7
}

test_unload() {
	no_user_objects '[^ ]+' qp cm_id
	rxe_sroce_rmmod
}

cases() {
	run_setup "module, veth, two sroce devices" test_setup
	run_test "query_device: max_mcast_grp 1024, max_mcast_qp_attach 64, max_total_mcast_qp_attach 16384" test_limits_advertised
	run_test "sroce-mcasttest mcast: every attached QP but the sender, Q_Key, no receive, detach, QPN/address mismatch" test_mcasttest_mcast
	run_test "sroce-mcasttest mcast6: the same over an IPv6 group" test_mcasttest_mcast6
	run_test "sroce-mcasttest mcast-bad: non-UD QPs, non-multicast GIDs, double attach/detach, destroy while attached" test_mcasttest_mcast_bad
	run_test "sroce-mcasttest mcast-limits: every limit then ENOMEM, all detached, groups left" test_mcasttest_mcast_limits
	run_test "a process exiting with 16384 attachments leaves no group joined" test_exit_attached
	run_test "mckey sroce0 -> sroce1, 10 messages" test_mckey
	run_test "mckey -c 2: two QPs of sroce1 on one group get every message" test_mckey_two_qps
	run_test "mckey sroce1 -> sroce0" test_mckey_reverse
	run_test "sroce0 deleted" test_sroce0_gone
	run_setup "rdma_rxe on v0 (init_net), sroce1 in the namespace" rxe_replaces_sroce0 "$IP0"
	run_test "mckey rxe0 -> sroce1" test_rxe_mckey_to_sroce
	run_test "mckey sroce1 -> rxe0" test_rxe_mckey_to_rxe
	run_test "no object left, rmmod sroce and rdma_rxe" test_unload
}
ktap_run cases
