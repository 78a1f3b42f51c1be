#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce devices: life cycle and what user space sees of them.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0 (rdma link)     |            | sroce1 (rdma link)     |
#   |   v0 10.91.0.1/24      |----veth----|   v1 10.91.0.2/24      |
#   |      fd91::1/64        |            |      fd91::2/64        |
#   +------------------------+            +------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-dev-$$

cleanup() {
	rdma link delete sroce0 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip link del v0 2>/dev/null
	ip link del d0 2>/dev/null
	ip link del d1 2>/dev/null
	sroce_unload 2>/dev/null
}
trap cleanup EXIT

topology() {
	veth_ns 10.91.0.1 10.91.0.2 fd91::1 fd91::2
}

# gid_listed DEV PATTERN: ibv_devinfo -v lists a RoCE v2 GID matching PATTERN.
gid_listed() {
	ibv_devinfo -v -d "$1" | grep -E "GID\[ *[0-9]+\]:.*$2.*RoCE v2"
}

gid_unlisted() {
	! gid_listed "$@"
}

test_load() {
	sroce_load
	lsmod | grep '^sroce '
	sroce_provider_setup
	topology
}

test_link_add() {
	rdma link add sroce0 type sroce netdev v0
	local out
	out=$(rdma link show sroce0/1)
	echo "$out" >&2
	grep -q 'state ACTIVE' <<< "$out"
	grep -q 'netdev v0' <<< "$(rdma link show sroce0/1)"
}

test_devinfo() {
	local out
	out=$(ibv_devinfo -d sroce0)
	echo "$out"
	grep -q 'transport:.*InfiniBand' <<< "$out"
	grep -q 'state:.*PORT_ACTIVE' <<< "$out"
	grep -q 'link_layer:.*Ethernet' <<< "$out"
	grep -q 'active_mtu:.*1024' <<< "$out"
	grep -q sroce0 <<< "$(ibv_devices)"
}

# sroce0 sits under /sys/devices/virtual like rdma_rxe and siw: no parent
# device, so Debian's udev rule (rdma_rename NAME_FALLBACK, which names a
# device by its parent's PCI address) keeps the name the user chose.  Its
# netdev is the RDMA core's: `rdma link` and the netdev of every GID.
test_virtual_device() {
	local dir ndev n_dev n=0
	dir=$(readlink -f /sys/class/infiniband/sroce0)
	echo "sysfs: $dir"
	[[ $dir == /sys/devices/virtual/infiniband/sroce0 ]] || fail "not a virtual device"
	[ ! -e /sys/class/infiniband/sroce0/device ] || fail "sroce0 has a parent device"
	if [ -x /usr/lib/udev/rdma_rename ]; then
		/usr/lib/udev/rdma_rename sroce0 NAME_FALLBACK && fail "rdma_rename renamed sroce0"
		[ -e /sys/class/infiniband/sroce0 ] || fail "sroce0 renamed"
	fi
	for ndev in /sys/class/infiniband/sroce0/ports/1/gid_attrs/ndevs/*; do
		# An empty GID entry has no netdev (EINVAL on read).  read, not
		# cat: 1024 entries, and a process costs ~0.1 s under TCG.
		if read -r n_dev 2>/dev/null < "$ndev"; then
			[ "$n_dev" = v0 ] || fail "$ndev: $n_dev"
			n=$((n + 1))
		fi
	done
	echo "$n GIDs on v0"
	[ "$n" -ge 3 ] || fail "$n GIDs with a netdev"
}

test_gids() {
	ibv_devinfo -v -d sroce0 | grep GID
	gid_listed sroce0 '::ffff:10\.91\.0\.1'
	gid_listed sroce0 'fd91::1'
	gid_listed sroce0 'fe80::'
}

test_gid_follows_addresses() {
	ip addr add 10.92.0.1/24 dev v0
	ip addr add fd92::1/64 dev v0 nodad
	wait_for 10 gid_listed sroce0 '::ffff:10\.92\.0\.1'
	wait_for 10 gid_listed sroce0 'fd92::1'
	ip addr del 10.92.0.1/24 dev v0
	ip addr del fd92::1/64 dev v0
	wait_for 10 gid_unlisted sroce0 '::ffff:10\.92\.0\.1'
	wait_for 10 gid_unlisted sroce0 'fd92::1'
	gid_listed sroce0 '::ffff:10\.91\.0\.1'
}

port_is() {
	[ "$(port_state "$1")" = "$2" ]
}

test_port_state() {
	ip link set v0 down
	wait_for 10 port_is sroce0 PORT_DOWN
	rdma link show sroce0/1
	ip link set v0 up
	wait_for 10 port_is sroce0 PORT_ACTIVE
	# Carrier: the peer going down takes the veth's carrier away.
	ip -n "$NS" link set v1 down
	wait_for 10 port_is sroce0 PORT_DOWN
	ip -n "$NS" link set v1 up
	wait_for 10 port_is sroce0 PORT_ACTIVE
}

test_mtu() {
	ip link set v0 mtu 9000
	wait_for 5 active_mtu_is sroce0 4096
	ip link set v0 mtu 1500
	wait_for 5 active_mtu_is sroce0 1024
	ibv_devinfo -d sroce0 | grep -E 'max_mtu:[[:space:]]+4096'
}

test_link_delete() {
	rdma link delete sroce0
	wait_for 10 rdma_dev_gone sroce0
	if grep -q sroce0 <<< "$(ibv_devices)"; then fail "ibv_devices still lists sroce0"; fi
	# The netdev is free again: a new link on it works.
	rdma link add sroce0 type sroce netdev v0
	rdma_dev_exists sroce0
}

test_link_add_netns() {
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	grep -q 'netdev v1' <<< "$(ip netns exec "$NS" rdma link show sroce1/1)"
	ip netns exec "$NS" ibv_devinfo -v -d sroce1 | grep -E 'state|GID'
	[ "$(ip netns exec "$NS" ibv_devinfo -d sroce1 | awk '/state:/ {print $2}')" = PORT_ACTIVE ]
	grep -q '::ffff:10\.91\.0\.2' <<< "$(ip netns exec "$NS" ibv_devinfo -v -d sroce1)"
}

test_netns_delete() {
	# sroce0 as the setup made it, whatever "rdma link delete" left.
	rdma_dev_exists sroce0 || rdma link add sroce0 type sroce netdev v0
	rdma_dev_exists sroce1
	ip netns del "$NS"
	wait_for 20 rdma_dev_gone sroce1
	# v0's peer went with the namespace: so did v0 and sroce0.
	wait_for 20 rdma_dev_gone sroce0
}

test_rmmod_with_devices() {
	ip link add d0 type dummy
	ip link add d1 type dummy
	ip link set d0 up
	rdma link add sroce2 type sroce netdev d0
	rdma link add sroce3 type sroce netdev d1
	sroce_rmmod
	rdma_dev_gone sroce2
	rdma_dev_gone sroce3
	# The netdevs are free and the module loads again.
	ip link del d0
	ip link del d1
	sroce_load
	rmmod sroce
}

# The namespace's device is the setup of the cases after it.
cases() {
	run_setup "module loads" test_load
	run_setup "rdma link add in init_net" test_link_add
	run_test "ibv_devinfo shows an active Ethernet port" test_devinfo
	run_test "a virtual device: no parent, udev keeps its name, netdev per GID" test_virtual_device
	run_test "GID table holds IPv4, IPv6 and link-local GIDs" test_gids
	run_test "GIDs follow address changes" test_gid_follows_addresses
	run_test "port state follows the netdev" test_port_state
	run_test "active MTU follows the netdev MTU" test_mtu
	run_test "rdma link delete" test_link_delete
	run_setup "rdma link add inside a network namespace" test_link_add_netns
	run_test "deleting the namespace removes its device" test_netns_delete
	run_test "rmmod with devices present" test_rmmod_with_devices
}
ktap_run cases
