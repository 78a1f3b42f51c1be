#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install-module` as a user's host would run it, then the module is
# found by modprobe (dependencies resolved) and autoloaded by `rdma link add`
# through its rdma-link-sroce alias.  /lib/modules is a writable overlay in
# the guest, so the host is untouched.
#
#   init_net:  v0 <--veth--> v1
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

KVER=$(uname -r)

cleanup() {
	rdma link delete sroce0 2>/dev/null
	ip link del v0 2>/dev/null
	modprobe -r sroce 2>/dev/null
}
trap cleanup EXIT

# `make install-module` installs the repository's own build: it says nothing
# about another sroce.ko (SROCE_KO, the debug kernel's build).  The cases
# after the installation skip with it.
own_build_only() {
	[ "$SROCE_KO" = "$SROCE_KO_BUILT" ] || skip "SROCE_KO is another build of sroce.ko"
}

test_install() {
	own_build_only
	make -s -o all install-module
	[ -e "/lib/modules/$KVER/updates/drivers/sroce/sroce.ko" ] ||
		[ -e "/lib/modules/$KVER/updates/sroce.ko" ] || fail "sroce.ko not installed under updates/"
	modinfo sroce | grep -E '^(filename|alias|depends|license)'
	grep -qx 'rdma-link-sroce' <<< "$(modinfo -F alias sroce)"
	[ "$(modinfo -F license sroce)" = GPL ]
}

test_modprobe() {
	modprobe sroce
	lsmod | grep '^sroce '
	modprobe -r sroce
	! grep -q '^sroce ' <<< "$(lsmod)"
}

test_autoload() {
	ip link add v0 type veth peer name v1
	ip link set v0 up
	ip link set v1 up
	sroce_unload
	rdma link add sroce0 type sroce netdev v0
	grep -q '^sroce ' <<< "$(lsmod)"
	rdma link show sroce0/1
	rdma link delete sroce0
	wait_for 10 rdma_dev_gone sroce0
	modprobe -r sroce
}

cases() {
	run_setup "make install-module installs sroce.ko with its alias" test_install
	run_test "modprobe loads it with its dependencies" test_modprobe
	run_test "rdma link add autoloads it" test_autoload
}
ktap_run cases
