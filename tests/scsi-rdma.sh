#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SCSI over RDMA over sroce: LIO's iSER target (ib_isert) with open-iscsi's
# iSER initiator (iscsiadm -I iser, ib_iser), and LIO's SRP target
# (ib_srpt) with the SRP initiator (ib_srp, a manual add_target through
# /sys/class/infiniband_srp).  Both targets export a file on tmpfs through
# LIO's fileio backstore, configured through configfs; each initiator's
# SCSI disk gets random data written with O_DIRECT, found byte for byte in
# the target's file and read back, and fio's verified random I/O; then the
# initiator logs out and the disk goes away.
#
# Over RoCE both use the RDMA CM, whose IDs ib_isert, ib_iser and ib_srpt
# create in init_net only (6.1; ib_srp uses its writer's namespace): the
# targets and initiators all live in init_net, on sroce0 (loopback, the
# initiator reaching the target's own address) and, for SRP, whose
# add_target takes a source address, from sroce1 across a veth as well.
# ib_iser's connect takes no source address (iscsi_iser_ep_connect): an
# initiator in init_net reaches a target address of its own host through
# the device that holds it, so iSER runs on one device.  ib_srpt's IB CM
# listener is for InfiniBand links only; on RoCE it listens through the
# RDMA CM on the port set in configfs (srpt/discovery_auth/rdma_cm_port).
# ib_srpt's channels have receive queues of their own: its SRQ mode
# (use_srq) works over sroce but WARNs in 6.1 (test_srp_srq), so that case
# runs only on request.
#
#   init_net
#   +----------------------------------------------------------------+
#   | LIO: iSCSI target $ISER_IQN, portal 10.95.4.1:3260 with iser;  |
#   |      SRP target port of sroce0, RDMA CM port 5555              |
#   |   v0 10.95.4.1/24 :sroce0  <--veth-->  v1 10.95.4.2/24 :sroce1 |
#   |   iscsiadm -I iser to 10.95.4.1 (on sroce0);                   |
#   |   ib_srp: srp-sroce0-1 dest=10.95.4.1:5555,                    |
#   |           srp-sroce1-1 src=10.95.4.2 dest=10.95.4.1:5555       |
#   +----------------------------------------------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

# veth_cleanup deletes $NS: no namespace here.
# shellcheck disable=SC2034
NS=unused-$$
WORK=$(mktemp -d)
IP0=10.95.4.1
IP1=10.95.4.2
TARGET=/sys/kernel/config/target
CORE=$TARGET/core
ISER_IQN=iqn.2026-11.io.sroce:iser-test
ISER_TPG=$TARGET/iscsi/$ISER_IQN/tpgt_1
INITIATOR_IQN=iqn.2026-11.io.sroce:initiator
SRP_PORT=5555
DISK_MIB=32

# lio_unconfigure: every LIO object removed, children first (quiet; for
# the teardown and the EXIT trap).  Each step may find nothing to do or
# an object that is not there, so none fails the caller under set -e:
# whether LIO is empty is checked afterwards.  Only the symlinks of a LUN
# directory are unlinked (its attributes cannot be, configfs refuses).
lio_unconfigure() {
	local f
	for f in "$TARGET"/srpt/*/*/enable "$ISER_TPG/enable"; do
		[ ! -e "$f" ] || echo 0 2>/dev/null > "$f" || true
	done
	for f in "$TARGET"/srpt/*/*/acls/*/*/* "$TARGET"/*/*/*/lun/*/*; do
		[ ! -L "$f" ] || rm -f "$f" || true
	done
	rmdir "$TARGET"/srpt/*/*/acls/*/* "$TARGET"/srpt/*/*/acls/* 2>/dev/null || true
	rmdir "$ISER_TPG"/np/* "$TARGET"/*/*/*/lun/* 2>/dev/null || true
	rmdir "$TARGET"/*/*/tpgt_* "$TARGET"/srpt/*/* 2>/dev/null || true
	rmdir "$TARGET"/iscsi/* "$TARGET"/srpt/* 2>/dev/null || true
	rmdir "$TARGET"/iscsi "$TARGET"/srpt 2>/dev/null || true
	rmdir "$CORE"/fileio_*/* "$CORE"/fileio_* 2>/dev/null || true
}

cleanup() {
	local p
	timeout $((60 * SROCE_TIMEOUT_SCALE)) iscsiadm -m node -u > /dev/null 2>&1
	for p in /sys/class/srp_remote_ports/*/delete; do
		[ ! -e "$p" ] || echo 1 > "$p" 2>/dev/null
	done
	[ ! -e "$WORK/iscsid.pid" ] || kill "$(< "$WORK/iscsid.pid")" 2>/dev/null
	lio_unconfigure
	modprobe -r ib_srp ib_iser ib_srpt ib_isert 2>/dev/null
	umount "$WORK/tmpfs" 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

# backstore N NAME: the fileio backstore NAME (HBA fileio_N) of DISK_MIB
# on tmpfs (LIO opens the file without O_DIRECT), serial NAME.
backstore() {
	local d=$CORE/fileio_$1/$2
	shift
	truncate -s "${DISK_MIB}M" "$WORK/tmpfs/$1.img"
	mkdir -p "$d"
	echo "fd_dev_name=$WORK/tmpfs/$1.img,fd_dev_size=$((DISK_MIB << 20))" > "$d/control"
	echo "$1" > "$d/wwn/vpd_unit_serial"
	echo 1 > "$d/enable"
}

# disk_check DISK FILE: 8 MiB of random bytes written to /dev/DISK (O_DIRECT)
# are in the target's FILE and read back the same; then fio's 4 KiB random
# read/write with every written block checked (crc32c).
disk_check() {
	local dev=/dev/$1 rd wr
	[ -b "$dev" ] || fail "$dev is not a block device"
	echo "$1: $(< "/sys/block/$1/device/vendor") $(< "/sys/block/$1/device/model")," \
		"$(($(< "/sys/block/$1/size") / 2048)) MiB"
	[ "$(($(< "/sys/block/$1/size") / 2048))" -eq "$DISK_MIB" ] || fail "$dev is not $DISK_MIB MiB"
	head -c 8M /dev/urandom > "$WORK/pattern"
	dd if="$WORK/pattern" of="$dev" bs=1M oflag=direct status=none
	cmp -n 8M "$WORK/pattern" "$2" || fail "the target's file differs from what the initiator wrote"
	dd if="$dev" of="$WORK/back" bs=1M count=8 iflag=direct status=none
	cmp "$WORK/pattern" "$WORK/back" || fail "read back through $dev differs"
	echo "8 MiB written, in the target's file and read back byte for byte"
	timeout $((300 * SROCE_TIMEOUT_SCALE)) fio --name=verify --filename="$dev" \
		--ioengine=libaio --direct=1 --bs=4k --iodepth=16 --rw=randrw \
		--size=8M --verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--output-format=json \
		> "$WORK/fio.json" || { cat "$WORK/fio.json"; fail "fio failed"; }
	rd=$(jq '.jobs[0].read.io_bytes' "$WORK/fio.json")
	wr=$(jq '.jobs[0].write.io_bytes' "$WORK/fio.json")
	echo "fio: read $rd B, written $wr B, error $(jq '.jobs[0].error' "$WORK/fio.json")"
	[ "$(jq '.jobs[0].error' "$WORK/fio.json")" = 0 ] || fail "fio reported an error"
	[ "$rd" -gt 0 ] || fail "fio read nothing"
	[ "$wr" -gt 0 ] || fail "fio wrote nothing"
}

test_setup() {
	modprobe configfs
	# configfs is a module: qemu/guest-init's mount of it at boot fails.
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	modprobe -a sd_mod target_core_mod target_core_file
	sroce_local_pair "$IP0" "$IP1"
	mkdir "$WORK/tmpfs"
	mount -t tmpfs -o size=$((2 * DISK_MIB + 16))m tmpfs "$WORK/tmpfs"
	backstore 0 iser
	backstore 1 srp
	ls "$CORE"/fileio_*
	rdma resource show
	qp_base sroce1
}

# --- iSER -------------------------------------------------------------------

# iser_disk: the SCSI disk of the iSER session (sdX), or nothing.
iser_disk() {
	iscsiadm -m session -P 3 2>/dev/null |
		sed -nE 's/.*Attached scsi disk ([a-z]+).*State: running.*/\1/p' | sed -n 1p
}

has_iser_disk() {
	[ -n "$(iser_disk)" ]
}

no_iscsi_session() {
	! iscsiadm -m session > /dev/null 2>&1
}

iser_target() {
	modprobe -a iscsi_target_mod ib_isert
	mkdir -p "$ISER_TPG/lun/lun_0"
	ln -s "$CORE/fileio_0/iser" "$ISER_TPG/lun/lun_0/iser"
	# Any initiator, no CHAP, writable.
	echo 1 > "$ISER_TPG/attrib/generate_node_acls"
	echo 1 > "$ISER_TPG/attrib/cache_dynamic_acls"
	echo 0 > "$ISER_TPG/attrib/demo_mode_write_protect"
	echo 0 > "$ISER_TPG/attrib/authentication"
	mkdir "$ISER_TPG/np/$IP0:3260"
	echo 1 > "$ISER_TPG/np/$IP0:3260/iser"
	[ "$(< "$ISER_TPG/np/$IP0:3260/iser")" = 1 ] || fail "the portal has no iSER listener"
	echo 1 > "$ISER_TPG/enable"
	rdma resource show cm_id
	grep -Eq "state LISTEN .*src-addr $IP0:3260( |$)" <<< "$(rdma resource show cm_id)" ||
		fail "ib_isert does not listen on $IP0:3260"
}

# iscsid_up: iscsid listens for iscsiadm (an abstract unix socket).
iscsid_up() {
	grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix
}

iser_login() {
	local disk
	modprobe ib_iser
	mkdir -p /etc/iscsi /run/lock/iscsi /var/lib/iscsi
	echo "InitiatorName=$INITIATOR_IQN" > /etc/iscsi/initiatorname.iscsi
	# In a session of its own: the first run of this test was ended by a
	# SIGTERM to its process group right after the set-up, iscsid's
	# start the suspect.
	setsid iscsid -f > "$WORK/iscsid.log" 2>&1 &
	echo "$!" > "$WORK/iscsid.pid"
	wait_for 10 iscsid_up || { cat "$WORK/iscsid.log"; fail "iscsid does not start"; }
	iscsiadm -m node -o new -T "$ISER_IQN" -p "$IP0:3260" -I iser
	timeout $((120 * SROCE_TIMEOUT_SCALE)) iscsiadm -m node -T "$ISER_IQN" -p "$IP0:3260" -I iser --login
	iscsiadm -m session -P 1 | tee "$WORK/session"
	grep -q 'Iface Transport: iser' "$WORK/session" || fail "the session is not over iSER"
	wait_for 30 has_iser_disk || fail "no disk attached"
	disk=$(iser_disk)
	rdma resource show qp
	# The initiator's and the target's QP on sroce0, none on sroce1.
	qps_above sroce0 2
	qps_settled sroce1 || fail "QPs on sroce1"
	echo "$disk" > "$WORK/iser-disk"
}

iser_logout() {
	local disk
	disk=$(< "$WORK/iser-disk")
	timeout $((120 * SROCE_TIMEOUT_SCALE)) iscsiadm -m node -T "$ISER_IQN" -p "$IP0:3260" -I iser --logout
	wait_for 30 no_iscsi_session
	wait_for 30 test ! -e "/sys/block/$disk" || fail "/dev/$disk is still there"
	iscsiadm -m node -o delete -T "$ISER_IQN" -p "$IP0:3260" -I iser
	wait_for 10 qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
	kill "$(< "$WORK/iscsid.pid")"
	rm "$WORK/iscsid.pid"
}

# The iSER target, a login, the data checks, the logout.
test_iser() {
	local snap
	snap=$(hw_snapshot sroce0)
	iser_target
	iser_login
	disk_check "$(< "$WORK/iser-disk")" "$WORK/tmpfs/iser.img"
	iser_logout
	hw_moved "$snap"
	hw_at_least "$snap" sroce0 rx_bytes $((16 << 20))
	hw_no_rx_errors sroce0
}

# --- SRP --------------------------------------------------------------------

# srpt_port_name DEV: the name of DEV's SRP target port in configfs: the
# interface ID of its GID 0 as ib_srpt formats it (xxxx:xxxx:xxxx:xxxx).
srpt_port_name() {
	local g
	g=$(< "/sys/class/infiniband/$1/ports/1/gids/0")
	echo "${g:20}"
}

# srpt_tpg: the configfs directory of the TPG of sroce0's SRP target port
# (ib_srpt names it as the port).
srpt_tpg() {
	local n
	n=$(srpt_port_name sroce0)
	echo "$TARGET/srpt/$n/$n"
}

# srp_target: ib_srpt's target port of sroce0 with the SRP backstore as
# LUN 0, listening on the RDMA CM (unless an earlier case set it up).
srp_target() {
	local tpg ini
	[ ! -e "$TARGET/srpt" ] || return 0
	modprobe ib_srpt
	mkdir -p "$TARGET/srpt"
	echo "$SRP_PORT" > "$TARGET/srpt/discovery_auth/rdma_cm_port"
	tpg=$(srpt_tpg)
	echo "ib_srpt service GUID $(< /sys/module/ib_srpt/parameters/srpt_service_guid), sroce0's port ${tpg##*/}"
	mkdir -p "$tpg"
	mkdir "$tpg/lun/lun_0"
	ln -s "$CORE/fileio_1/srp" "$tpg/lun/lun_0/srp"
	# A login over the RDMA CM is named for the address the target was
	# reached at, not for the initiator (srpt_rdma_cm_req_recv() takes
	# the passive ID's source address): both cases reach $IP0, and the
	# one ACL named for it must admit both (ib_srpt admits no login
	# without an ACL).
	ini=$IP0
	mkdir "$tpg/acls/$ini"
	mkdir "$tpg/acls/$ini/lun_0"
	ln -s "$tpg/lun/lun_0" "$tpg/acls/$ini/lun_0/lun_0"
	echo 1 > "$tpg/enable"
	rdma resource show cm_id
	grep -Eq "state LISTEN .*src-addr .*:$SRP_PORT( |$)" <<< "$(rdma resource show cm_id)" ||
		fail "ib_srpt does not listen on RDMA CM port $SRP_PORT"
}

# srp_rport: the SRP remote port (port-H:N) of the initiator, or nothing.
srp_rport() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p" ] && echo "${p##*/}" && return 0
	done
	return 1
}

no_srp_rport() {
	! srp_rport
}

# srp_disk: the SCSI disk (sdX) of the SRP remote port's SCSI host.
srp_disk() {
	local r h d
	r=$(srp_rport) || return 1
	h=${r#port-}
	h=${h%%:*}
	for d in /sys/class/scsi_host/host"$h"/device/target*/*/block/*; do
		[ -e "$d" ] && echo "${d##*/}" && return 0
	done
	return 1
}

has_srp_disk() {
	[ -n "$(srp_disk)" ]
}

# srp_login DEV PARAMS: ib_srp's add_target on DEV's port 1 with PARAMS
# (the target's IDs and dest= are added); the disk once it is there.
srp_login() {
	local guid
	guid=$(< /sys/module/ib_srpt/parameters/srpt_service_guid)
	modprobe ib_srp
	wait_for 10 test -e "/sys/class/infiniband_srp/srp-$1-1/add_target"
	echo "id_ext=$guid,ioc_guid=$guid,dest=$IP0:$SRP_PORT$2" > \
		"/sys/class/infiniband_srp/srp-$1-1/add_target"
	wait_for 30 has_srp_disk || fail "no disk attached"
	echo "SRP remote port $(srp_rport): $(< "/sys/class/srp_remote_ports/$(srp_rport)/port_id"), disk $(srp_disk)"
}

srp_logout() {
	local r disk=$1
	r=$(srp_rport)
	echo 1 > "/sys/class/srp_remote_ports/$r/delete"
	wait_for 30 no_srp_rport
	wait_for 30 test ! -e "/sys/block/$disk" || fail "/dev/$disk is still there"
	wait_for 10 qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
}

# srq_count DEV: the SRQs of DEV (rdma resource show's summary).
srq_count() {
	rdma resource show "$1" | sed -nE 's/.* srq ([0-9]+)( |$).*/\1/p'
}

# srp_case DEV PARAMS SRQ: log in from DEV, the data checks, log out; the
# target's channels on one SRQ of sroce0 (ib_srpt's use_srq) if SRQ is 1,
# on receive queues of their own if 0.
srp_case() {
	local snap disk
	srp_target
	# Changing use_srq logs every initiator out; there is none now.
	echo "$3" > "$(srpt_tpg)/attrib/use_srq"
	[ "$(< "$(srpt_tpg)/attrib/use_srq")" = "$3" ] || fail "use_srq is not $3"
	snap=$(hw_snapshot sroce0 sroce1)
	srp_login "$1" "$2"
	disk=$(srp_disk)
	rdma resource show qp
	# The initiator's QPs on DEV, the target's on sroce0.
	if [ "$1" = sroce0 ]; then
		qps_above sroce0 2
		qps_settled sroce1 || fail "QPs on sroce1"
	else
		qps_above "$1" 1
		qps_above sroce0 1
	fi
	rdma resource show srq || true
	echo "sroce0: $(srq_count sroce0) SRQs"
	if [ "$3" = 1 ]; then
		[ "$(srq_count sroce0)" -eq 1 ] || fail "ib_srpt has no SRQ on sroce0"
	else
		[ "$(srq_count sroce0)" -eq 0 ] || fail "an SRQ on sroce0 without use_srq"
	fi
	disk_check "$disk" "$WORK/tmpfs/srp.img"
	srp_logout "$disk"
	hw_moved "$snap"
	hw_at_least "$snap" sroce0 rx_bytes $((8 << 20))
	hw_no_rx_errors sroce0 sroce1
}

test_srp_loopback() { srp_case sroce0 "" 0; }
test_srp_two_devices() { srp_case sroce1 ",src=$IP1" 0; }

# ib_srpt on an SRQ works over sroce (data verified, the target's channel
# QPs on the SRQ), but 6.1's ib_srpt WARNs when it releases a channel in
# SRQ mode: srpt_release_channel_work() puts the channel's receive buffer
# cache, which only a channel without SRQ has (srpt_cache_put(NULL),
# WARN_ON_ONCE in Debian's 6.1.0-56).  SROCE_SRP_SRQ=1 runs it (for a
# kernel without that WARN; on 6.1.0-56 "kernel log clean" then fails).
test_srp_srq() {
	[ "${SROCE_SRP_SRQ:-0}" = 1 ] ||
		skip "6.1's ib_srpt WARNs (srpt_cache_put(NULL)) at every channel release with use_srq; SROCE_SRP_SRQ=1 runs it"
	srp_case sroce1 ",src=$IP1" 1
}

test_teardown() {
	lio_unconfigure
	[ ! -e "$TARGET/srpt" ] || fail "the SRP target is still configured"
	[ ! -e "$TARGET/iscsi" ] || fail "the iSCSI target is still configured"
	modprobe -r ib_srp ib_iser ib_srpt ib_isert
	no_user_objects '[^ ]+' qp cq mr pd
	qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
	rdma_links_delete sroce0 sroce1
	sroce_rmmod
}

cases() {
	run_setup "set-up: sroce0 and sroce1 on a veth in init_net, two fileio backstores on tmpfs" test_setup
	run_test "iSER on sroce0: LIO portal with iser, iscsiadm -I iser login, data in the target's file, fio verified, logout" test_iser
	run_test "SRP on sroce0: ib_srpt on RDMA CM port $SRP_PORT, add_target, data in the target's file, fio verified, logout" test_srp_loopback
	run_test "SRP from sroce1 to sroce0: add_target with src=, data in the target's file, fio verified, logout" test_srp_two_devices
	run_test "SRP from sroce1 to sroce0, the target on an SRQ: use_srq, add_target with src=, data in the target's file, fio verified, logout" test_srp_srq
	run_test "teardown: LIO emptied, the ULP modules unload, rdma link delete and rmmod clean" test_teardown
}
ktap_run cases
