#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages of `make deb` (build/deb/) as a user installs them:
# `apt-get install` of sroce-dkms and ibverbs-providers-sroce, DKMS building
# sroce.ko in the postinst for every installed kernel that has headers (and
# saying so for one that has none), `rdma link add` autoloading the DKMS
# module, ibv_devinfo and ibv_rc_pingpong through the installed provider
# (no RDMAV_DRIVERS), DKMS's kernel-update hook, then `apt-get purge` and
# nothing of sroce left anywhere.
#
# The guest's root is the host's, read only; /etc and /var are overlays
# already (qemu/initramfs-init) and this test puts one over /usr (which
# holds /lib/modules, /usr/src and the provider directory), each with a
# tmpfs upper layer: dpkg writes there, the host is untouched, and the
# upper layers show every file the packages left.
#
#   init_net                              $NS
#   sroce0 on v0 10.93.9.1/24  ---veth--- sroce1 on v1 10.93.9.2/24
#   ibv_rc_pingpong client                ibv_rc_pingpong server
#
# Runs in a guest (qemu/run-guest) as root; the packages must be built
# (`make deb`; `make check` does it).  Takes about one DKMS build of
# sroce.ko under TCG, the bulk of its time; scripts/check gives it longer
# than the other selftests:
# guest-timeout: 2400
# guest-prepare: tests/lib/kernel-headers.sh
. "$(dirname "$0")/lib.sh"

DEB_DIR=$SROCE_REPO/build/deb
KVER=$(uname -r)
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SROCE_REPO/dkms.conf")
DKMS_DEB=$DEB_DIR/sroce-dkms_${VERSION}_all.deb
PROVIDER_DEB=$DEB_DIR/ibverbs-providers-sroce_${VERSION}_amd64.deb
PROVIDER=$(pkg-config --variable=libdir libibverbs)/libibverbs/libsroce-rdmav34.so
DRIVER_FILE=/etc/libibverbs.d/sroce.driver
DKMS_KO=/lib/modules/$KVER/updates/dkms/sroce.ko
# A kernel that is installed (it has a /lib/modules directory) without its
# headers, as after `apt install linux-image-X` alone.
NOHDR_KVER=6.1.0-0-noheaders
USR_OVL=/run/sroce-pkg/usr
NS=sroce-pkg-$$
IP0=10.93.9.1
IP1=10.93.9.2
PORT=18950
export DEBIAN_FRONTEND=noninteractive
unset RDMAV_DRIVERS

# The packages build sroce.ko for Debian's kernels; the debug kernel
# (SROCE_KO, make check-debug) has its modules in an overlay of its own at
# /lib/modules/<its version>, which this test's /usr overlay would hide.
debian_kernel_only() {
	[ "$SROCE_KO" = "$SROCE_KO_BUILT" ] || skip "SROCE_KO is another build of sroce.ko (not Debian's kernel)"
}

cleanup() {
	veth_cleanup
	rm -rf "/lib/modules/$NOHDR_KVER"
}
trap cleanup EXIT

# Files of sroce in the writable layers (what dpkg, DKMS and depmod wrote),
# by name: the /usr overlay of this test and qemu/initramfs-init's /etc
# and /var ones.
sroce_files() {
	find "$USR_OVL/upper" /run/ovl/etc/upper /run/ovl/var/upper \
		-iname '*sroce*' 2>/dev/null | sort
}

# Everything a user would find of sroce, besides sroce_files.
sroce_leftovers() {
	local f
	for f in "/usr/src/sroce-$VERSION" /var/lib/dkms/sroce "$PROVIDER" \
		"$DRIVER_FILE" /usr/share/man/man7/sroce.7.gz \
		/usr/share/doc/sroce-dkms /usr/share/doc/ibverbs-providers-sroce; do
		[ ! -e "$f" ] || echo "left: $f"
	done
	find /lib/modules -name 'sroce.ko*' | sed 's/^/left: /'
	grep -l 'sroce\.ko' /lib/modules/*/modules.dep 2>/dev/null | sed 's/^/in modules.dep: /'
	# Installed in any way (not "not-installed", the second letter n).
	dpkg-query -W -f='${db:Status-Abbrev}|${Package}\n' sroce-dkms ibverbs-providers-sroce \
		2>/dev/null | awk -F'|' '$2 != "" && substr($1, 2, 1) != "n" { print "dpkg has: " $2 " " $1 }'
	dkms status sroce 2>/dev/null | sed 's/^/dkms: /'
	modinfo -k "$KVER" sroce > /dev/null 2>&1 && echo "modinfo finds sroce"
	return 0
}

# The kernel headers, read over 9p, make a DKMS build in the guest several
# times slower than on a disk (every #include of every compiler run is a
# round of 9p lookups): show a tmpfs copy of each header directory the
# build uses in its place (in the guest only).  DKMS builds with the same
# files.  The copy comes from one tar file that the host made before this
# guest booted (tests/lib/kernel-headers.sh, the guest-prepare line
# above): copied file by file over 9p, the headers alone took minutes.
headers_to_tmpfs() {
	local d tar=$SROCE_REPO/build/guest/kernel-headers.tar
	local dirs=$SROCE_REPO/build/guest/kernel-headers.dirs
	if [ ! -e "$tar" ] || [ ! -e "$dirs" ]; then
		fail "$tar is missing: run tests/lib/kernel-headers.sh on the host first (scripts/check does)"
	fi
	mkdir -p /run/sroce-pkg/hdr
	tar -C /run/sroce-pkg/hdr -xf "$tar"
	while read -r d; do
		[ -d "/$d" ] || fail "/$d is in $tar, not in the guest"
		mount --bind "/run/sroce-pkg/hdr/$d" "/$d"
		echo "headers in tmpfs: /$d ($(du -sh "/run/sroce-pkg/hdr/$d" | cut -f1))"
	done < "$dirs"
}

test_setup() {
	debian_kernel_only
	[ -n "$VERSION" ] || fail "no PACKAGE_VERSION in dkms.conf"
	[ -e "$DKMS_DEB" ] || fail "$DKMS_DEB is missing: run make deb"
	[ -e "$PROVIDER_DEB" ] || fail "$PROVIDER_DEB is missing: run make deb"
	ls -l "$DEB_DIR"/*.deb
	mkdir -p "$USR_OVL/upper" "$USR_OVL/work"
	mount -t overlay overlay \
		-o "lowerdir=/usr,upperdir=$USR_OVL/upper,workdir=$USR_OVL/work" /usr
	touch /usr/.sroce-pkg-writable
	rm /usr/.sroce-pkg-writable
	# The host has nothing of sroce installed, or nothing here could
	# show that the packages installed and removed it.
	local left
	left=$(sroce_leftovers)
	[ -z "$left" ] || { echo "$left"; fail "sroce is installed already (on the host?)"; }
	# The guest's /dev is a bare devtmpfs: add the links udev makes on a
	# real system, without which bash's <(...) fails (DKMS uses it).
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
	[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
	[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
	# man-db's trigger reindexes every manual page: minutes under TCG.
	rm -f /var/lib/man-db/auto-update
	headers_to_tmpfs
	mkdir -p "/lib/modules/$NOHDR_KVER/kernel"
	ls /lib/modules
}

test_install() {
	debian_kernel_only
	local out rc=0 t0=$SECONDS
	out=$(apt-get install -y --no-install-recommends \
		"$DKMS_DEB" "$PROVIDER_DEB" 2>&1) || rc=$?
	echo "$out"
	echo "apt-get install took $((SECONDS - t0)) s (the DKMS build)"
	[ "$rc" -eq 0 ] || fail "apt-get install failed (exit status $rc)"
	# DKMS looked at every installed kernel ...
	grep -q "$KVER" <<< "$(grep -E "^Building for .*$NOHDR_KVER" <<< "$out")" ||
		fail "the postinst did not consider every kernel in /lib/modules"
	# ... skipped the one without headers, saying so ...
	grep -q "sroce-dkms: kernel $NOHDR_KVER has no headers" <<< "$out" ||
		fail "no word about $NOHDR_KVER lacking headers"
	[ ! -e "/lib/modules/$NOHDR_KVER/updates/dkms/sroce.ko" ] ||
		fail "built for $NOHDR_KVER, which has no headers"
	# ... and built and installed it for the one with headers.
	dkms status sroce
	grep -Eq "^sroce/$VERSION, $KVER, x86_64: installed" <<< "$(dkms status sroce)" ||
		fail "dkms status does not show sroce installed for $KVER"
	[ -e "$DKMS_KO" ] || fail "$DKMS_KO is missing"
	[ "$(modinfo -k "$KVER" -F filename sroce)" = "$DKMS_KO" ] ||
		fail "modinfo finds $(modinfo -k "$KVER" -F filename sroce), not $DKMS_KO"
	grep -qx rdma-link-sroce <<< "$(modinfo -k "$KVER" -F alias sroce)"
	grep -q "^$KVER " <<< "$(modinfo -k "$KVER" -F vermagic sroce)"
	[ "$(find /lib/modules -name 'sroce.ko*')" = "$DKMS_KO" ] ||
		fail "other sroce.ko files: $(find /lib/modules -name 'sroce.ko*')"
	[ -e "$PROVIDER" ] || fail "$PROVIDER is missing"
	grep -qx 'driver sroce' "$DRIVER_FILE"
	man -w sroce
	echo "files of sroce in the writable layers:"
	sroce_files
}

test_autoload() {
	debian_kernel_only
	! grep -q '^sroce ' <<< "$(lsmod)" || fail "sroce is loaded before rdma link add"
	grep -q "insmod $DKMS_KO" <<< "$(modprobe --show-depends rdma-link-sroce)" ||
		fail "modprobe does not resolve rdma-link-sroce to $DKMS_KO"
	veth_ns "$IP0" "$IP1"
	rdma link add sroce0 type sroce netdev v0
	# modprobe (the kernel's request_module) found $DKMS_KO, the only
	# sroce.ko under /lib/modules (test_install).
	grep -q '^sroce ' <<< "$(lsmod)" || fail "rdma link add did not load sroce"
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	rdma link show
	wait_for 10 has_gid sroce0 "::ffff:$IP0"
	wait_for 10 has_gid sroce1 "::ffff:$IP1"
}

test_devinfo() {
	debian_kernel_only
	local out
	# LD_DEBUG=files: the dynamic loader names each library it loads.
	out=$(LD_DEBUG=files ibv_devinfo -d sroce0 2>&1)
	grep -Ev '^ *[0-9]+:' <<< "$out"
	! grep -q "Warning" <<< "$out" || fail "libibverbs warned"
	grep -q "calling init: $PROVIDER\$" <<< "$out" ||
		fail "the installed provider $PROVIDER was not loaded"
	grep -Eq 'transport:[[:space:]]+InfiniBand' <<< "$out"
	grep -Eq 'link_layer:[[:space:]]+Ethernet' <<< "$out"
	grep -Eq 'state:[[:space:]]+PORT_ACTIVE' <<< "$out"
}

test_pingpong() {
	debian_kernel_only
	local g0 g1 before
	g0=$(gid_index sroce0 "::ffff:$IP0")
	g1=$(gid_index sroce1 "::ffff:$IP1")
	if [ -z "$g0" ] || [ -z "$g1" ]; then
		fail "no GID index"
	fi
	before=$(hw_snapshot sroce0 sroce1)
	run_pair ns "tcp:$PORT" ibv_rc_pingpong -d sroce1 -g "$g1" -p "$PORT" -s 4096 -n 50 -c \
		-- ibv_rc_pingpong -d sroce0 -g "$g0" -p "$PORT" -s 4096 -n 50 -c "$IP1"
	pingpong_check 4096 50
	hw_moved "$before"
	hw_at_least "$before" sroce1 rx_qp 50
	hw_at_least "$before" sroce0 rx_qp 50
}

# What /etc/kernel/postinst.d/dkms does when a kernel package is installed
# (apt install linux-image-X): a kernel without headers is skipped with a
# message, and the kernel's installation does not fail.
test_kernel_update() {
	debian_kernel_only
	local out rc=0
	out=$(/etc/kernel/postinst.d/dkms "$NOHDR_KVER" 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -eq 0 ] || fail "the kernel postinst hook failed (exit status $rc)"
	grep -q "kernel $NOHDR_KVER was skipped since the kernel headers" <<< "$out" ||
		fail "the hook did not say that $NOHDR_KVER has no headers"
	[ ! -e "/lib/modules/$NOHDR_KVER/updates/dkms/sroce.ko" ] ||
		fail "built for $NOHDR_KVER, which has no headers"
	# The kernel that has headers keeps its module.
	grep -Eq "^sroce/$VERSION, $KVER, x86_64: installed" <<< "$(dkms status sroce)"
}

test_purge() {
	debian_kernel_only
	local out rc=0 left
	rdma link delete sroce0
	ip netns exec "$NS" rdma link delete sroce1
	wait_for 10 rdma_dev_gone sroce0
	wait_for 10 rdma_dev_gone sroce1
	modprobe -r sroce
	out=$(apt-get purge -y sroce-dkms ibverbs-providers-sroce 2>&1) || rc=$?
	echo "$out"
	[ "$rc" -eq 0 ] || fail "apt-get purge failed (exit status $rc)"
	left=$(sroce_leftovers)
	[ -z "$left" ] || { echo "$left"; fail "apt-get purge left sroce behind"; }
	left=$(sroce_files)
	[ -z "$left" ] || { echo "$left"; fail "files of sroce remain in the writable layers"; }
	echo "nothing of sroce remains"
	echo "tests/package.sh so far: $SECONDS s"
}

cases() {
	run_setup "the packages are built; /usr writable in the guest, nothing of sroce installed" test_setup
	run_setup "apt installs both packages; DKMS builds sroce.ko for every kernel with headers" test_install
	run_test "rdma link add autoloads the DKMS-built sroce.ko" test_autoload
	run_test "ibv_devinfo through the installed provider" test_devinfo
	run_test "ibv_rc_pingpong through the installed module and provider" test_pingpong
	run_test "a kernel update without headers: DKMS's hook skips it, saying so" test_kernel_update
	run_test "apt purge removes everything of sroce" test_purge
}
ktap_run cases
