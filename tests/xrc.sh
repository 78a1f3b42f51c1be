#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# XRC (eXtended Reliable Connected): rdma-core's ibv_xsrq_pingpong between
# two sroce devices (one client, then four clients of one server at once)
# and on one device (a server and two clients sharing one XRC domain
# through /tmp/xrc_domain, over the loopback path), then the XRC checks of
# userspace/tools/sroce-xrctest: SEND and RDMA WRITE with immediate to two
# XRC SRQs through one INI QP, READ and atomics over XRC, a wrong SRQ
# number and an SRQ of another XRC domain refused (NAK, the INI QP to
# ERROR), the lifetime of a TGT QP (it outlives the handle that created
# it while another one is open, and goes with its last handle), and bad
# input.  rdma_rxe has no XRC: nothing to compare with.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.93.9.1/24      |----veth----|   v1 10.93.9.2/24      |
#   | clients, sroce-xrctest |            | servers                |
#   +------------------------+            +------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-xrc-$$
XRCTEST=$SROCE_REPO/build/userspace/tools/sroce-xrctest
IP0=10.93.9.1
IP1=10.93.9.2
PORT=19100
# The veth's MTU of 1500 carries a path MTU of 1024 (the default is 2048).
MTU=1024

trap veth_cleanup EXIT

# xsrq DEV_S IN_NS(0|1) DEV_C NCLIENTS SIZE ITERS: ibv_xsrq_pingpong -c
# NCLIENTS as the server on DEV_S (in $NS or in init_net), NCLIENTS
# clients on DEV_C at once (in init_net, or in $NS with the server in
# init_net; with DEV_S = DEV_C everything in init_net, over 127.0.0.1).
# Every process must say "success" and exit 0 (a completion in error
# ends it with "Work completion error").
xsrq() {
	local sdev=$1 sns=$2 cdev=$3 n=$4 size=$5 iters=$6 sgid cgid saddr
	local sx=() cx=() out pids=() i rc=0 ok
	if [ "$sdev" = "$cdev" ]; then
		saddr=127.0.0.1
		sgid=$(gid_index "$sdev" "::ffff:$IP0")
		cgid=$sgid
	elif [ "$sns" = 1 ]; then
		sx=(ip netns exec "$NS") saddr=$IP1
		sgid=$(gid_index "$sdev" "::ffff:$IP1")
		cgid=$(gid_index "$cdev" "::ffff:$IP0")
	else
		cx=(ip netns exec "$NS") saddr=$IP0
		sgid=$(gid_index "$sdev" "::ffff:$IP0")
		cgid=$(gid_index "$cdev" "::ffff:$IP1")
	fi
	if [ -z "$sgid" ] || [ -z "$cgid" ]; then
		fail "no GID index ($sdev '$sgid', $cdev '$cgid')"
	fi
	PORT=$((PORT + 1))
	out=$(mktemp -d)
	"${sx[@]}" timeout $((120 * SROCE_TIMEOUT_SCALE)) ibv_xsrq_pingpong \
		-d "$sdev" -g "$sgid" -p "$PORT" -m "$MTU" -s "$size" -n "$iters" \
		-c "$n" > "$out/server" 2>&1 &
	pids+=($!)
	if wait_for 20 pid_listening "${pids[0]}" "$PORT"; then
		for ((i = 1; i <= n; i++)); do
			"${cx[@]}" timeout $((120 * SROCE_TIMEOUT_SCALE)) ibv_xsrq_pingpong \
				-d "$cdev" -g "$cgid" -p "$PORT" -m "$MTU" -s "$size" \
				-n "$iters" "$saddr" > "$out/client$i" 2>&1 &
			pids+=($!)
		done
	else
		echo "the server does not listen on $PORT" >&2
		rc=1
	fi
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { echo "process $i: exit status $?" >&2; rc=1; }
	done
	for i in "$out"/*; do
		echo "--- ${i##*/}"
		cat "$i"
	done
	ok=$(cat "$out"/* | grep -cx success)
	rm -rf "$out"
	[ "$rc" -eq 0 ] || fail "ibv_xsrq_pingpong failed"
	[ "$ok" -eq $((n + 1)) ] || fail "$ok of $((n + 1)) processes said success"
}

test_setup() {
	[ -x "$XRCTEST" ] || fail "$XRCTEST is not built"
	sroce_pair "$IP0" "$IP1"
}

# Advertised now that XRC works.
test_caps() {
	local info
	info=$(ibv_devinfo -v -d sroce0)
	grep -E 'XRC' <<< "$info" || fail "XRC is not among the capabilities"
}

xrctest() {
	ktap_tool "$XRCTEST" sroce0 sroce1 "$1"
}

# Nothing of the test programs is left on either device.
test_no_leftovers() {
	no_user_objects 'sroce[01]' qp cq mr pd srq
	rdma resource show
}

test_unload() {
	rdma_links_delete sroce0 sroce1
	sroce_rmmod
}

cases() {
	run_setup "module, veth and two devices set up" test_setup
	run_test "query_device advertises XRC" test_caps
	run_test "ibv_xsrq_pingpong, 1 client, 4 KiB, sroce1 server, sroce0 client" xsrq sroce1 1 sroce0 1 4096 50
	run_test "ibv_xsrq_pingpong, 1 client, 64 KiB (multi-packet), sroce0 server, sroce1 client" xsrq sroce0 0 sroce1 1 65536 20
	run_test "ibv_xsrq_pingpong, 4 clients at once, sroce1 server, sroce0 clients" xsrq sroce1 1 sroce0 4 4096 20
	run_test "ibv_xsrq_pingpong on one device (loopback), 2 clients sharing the server's XRC domain" xsrq sroce0 0 sroce0 2 4096 20
	run_test "xrctest: SEND and WRITE with imm to two XRC SRQs through one INI QP" xrctest two-srqs
	run_test "xrctest: RDMA READ, fetch-and-add, compare-and-swap over XRC" xrctest read-atomic
	run_test "xrctest: a wrong SRQ number: NAK, the INI QP in ERROR, nothing received" xrctest bad-srqn
	run_test "xrctest: an XRC SRQ of another domain: NAK, the INI QP in ERROR" xrctest other-xrcd
	run_test "xrctest: a TGT QP outlives its creating context while opened elsewhere, then goes" xrctest tgt-lifetime
	run_test "xrctest: bad input (XRC QP without domain/PD, post_recv, get_srq_num of a basic SRQ)" xrctest bad-input
	run_test "no user objects left" test_no_leftovers
	run_test "rmmod after XRC traffic is clean" test_unload
}
ktap_run cases
