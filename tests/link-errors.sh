#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `rdma link add` with bad input: each is refused with a clear error and
# leaves nothing behind (no device, no reference on the netdev, no leak).
#
#   init_net
#   +-------------------------------------------+
#   | v0 <--veth--> v1    lo    t0 (tun, no L2)  |
#   +-------------------------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

cleanup() {
	for d in sroce0 sroce1 sroce2; do rdma link delete "$d" 2>/dev/null; done
	ip link del v0 2>/dev/null
	ip link del t0 2>/dev/null
	sroce_unload 2>/dev/null
}
trap cleanup EXIT

# Device names currently registered, one line.
rdma_devs() {
	local d out=
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && out+="${d##*/} "
	done
	echo "$out"
}

# kernel_said PATTERN: the kernel log explains a refusal.
kernel_said() {
	dmesg | tail -n 20 | grep -E "$1"
}

# refused CMD...: CMD fails, and the devices are the ones there were.
refused() {
	local before
	before=$(rdma_devs)
	expect_fail "$@"
	[ "$(rdma_devs)" = "$before" ] || fail "devices were '$before', now '$(rdma_devs)'"
}

test_setup() {
	sroce_load
	sroce_provider_setup
	ip link add v0 type veth peer name v1
	ip link set v0 up
	ip link set v1 up
	modprobe tun
	ip tuntap add t0 mode tun
	ip link set t0 up
	[ -z "$(rdma_devs)" ]
}

# sroce0 on v0, a device to collide with.
sroce0_on_v0() {
	rdma_dev_exists sroce0 || rdma link add sroce0 type sroce netdev v0
	grep -q 'netdev v0' <<< "$(rdma link show sroce0/1)"
}

test_missing_netdev() {
	refused rdma link add sroce0 type sroce netdev nosuchdev0
}

test_loopback() {
	refused rdma link add sroce0 type sroce netdev lo
	kernel_said 'sroce.*lo'
}

test_not_ethernet() {
	refused rdma link add sroce0 type sroce netdev t0
	kernel_said 'sroce.*t0'
}

test_twice_same_netdev() {
	sroce0_on_v0
	refused rdma link add sroce1 type sroce netdev v0
	kernel_said 'sroce.*v0'
	rdma_dev_gone sroce1
}

test_duplicate_name() {
	sroce0_on_v0
	refused rdma link add sroce0 type sroce netdev v1
	kernel_said 'sroce0: an RDMA device of that name exists'
	# v1 has no device: a link with a fresh name on it works.
	rdma link add sroce1 type sroce netdev v1
	grep -q 'netdev v1' <<< "$(rdma link show sroce1/1)"
}

test_bad_name() {
	refused rdma link add "$(printf 'x%.0s' {1..80})" type sroce netdev v1
	refused rdma link delete nosuchdev0
}

test_nothing_left() {
	local d
	for d in $(rdma_devs); do
		rdma link delete "$d"
		wait_for 10 rdma_dev_gone "$d"
	done
	# Every refused attempt dropped its netdev reference: the netdevs go
	# away at once and the module unloads.
	ip link del v0
	ip link del t0
	timeout 20 rmmod sroce
	! grep -q '^sroce ' <<< "$(lsmod)"
}

cases() {
	run_setup "setup" test_setup
	run_test "missing netdev is refused" test_missing_netdev
	run_test "loopback netdev is refused" test_loopback
	run_test "non-Ethernet netdev is refused" test_not_ethernet
	run_test "second link on one netdev is refused" test_twice_same_netdev
	run_test "duplicate device name is refused" test_duplicate_name
	run_test "bad names are refused" test_bad_name
	run_test "nothing is left behind" test_nothing_left
}
ktap_run cases
