#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA (the kernel's nvmet-rdma target and nvme-rdma host) over
# sroce: the target configured through configfs with a file-backed
# namespace, `nvme connect -t rdma`, fio random I/O verified, `nvme
# disconnect`; the host on the target's own device (loopback, as blktests
# runs it) and on a second device across a veth; teardown under I/O (a
# disconnect, the target's device deleted, the host's device deleted)
# without a hang or an oops, and the host reconnecting by itself once the
# target's device is back.
#
# Linux 6.1's nvmet-rdma and nvme-rdma create their RDMA CM IDs in init_net
# only (rdma_create_id(&init_net, ...) in drivers/nvme/{target,host}/rdma.c):
# the target and the host cannot be put in two network namespaces, so the
# two devices are two sroce devices of init_net, on the two ends of a veth
# (the loopback design of Documentation/kernel-driver.md: with
# `nvme connect -w` (host_traddr) the host binds to sroce1 and reaches
# sroce0 across the veth, which needs accept_local).
#
#   init_net
#   +----------------------------------------------------------------+
#   | sroce0: nvmet port 1 (rdma, 10.95.3.1:4420), subsystem $NQN,   |
#   |         namespace 1 = a 64 MiB file on tmpfs (buffered_io)     |
#   |   v0 10.95.3.1/24  <----veth---->  v1 10.95.3.2/24  :sroce1     |
#   |                                                                |
#   |   host on sroce0 (loopback): nvme connect -a 10.95.3.1         |
#   |   host on sroce1: nvme connect -a 10.95.3.1 -w 10.95.3.2       |
#   +----------------------------------------------------------------+
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

# veth_cleanup deletes $NS: no namespace here.
# shellcheck disable=SC2034
NS=unused-$$
WORK=$(mktemp -d)
IP0=10.95.3.1
IP1=10.95.3.2
NQN=nqn.2026-11.io.sroce:nvme-test
CFG=/sys/kernel/config/nvmet
SUBSYS=$CFG/subsystems/$NQN
PORT_DIR=$CFG/ports/1
BACKING=$WORK/tmpfs/ns1.img
BACKING_MIB=64
HOSTID=$(cat /proc/sys/kernel/random/uuid)
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$HOSTID

# target_unconfigure: the nvmet configuration removed, in the order
# configfs wants (quiet; for the teardown and the EXIT trap).
target_unconfigure() {
	rm -f "$PORT_DIR/subsystems/$NQN" 2>/dev/null
	rmdir "$PORT_DIR" 2>/dev/null
	[ ! -d "$SUBSYS/namespaces/1" ] || echo 0 > "$SUBSYS/namespaces/1/enable" 2>/dev/null
	rmdir "$SUBSYS/namespaces/1" 2>/dev/null
	rmdir "$SUBSYS" 2>/dev/null
	return 0
}

cleanup() {
	timeout $((60 * SROCE_TIMEOUT_SCALE)) nvme disconnect-all > /dev/null 2>&1
	target_unconfigure
	modprobe -r nvme_rdma nvmet_rdma nvmet 2>/dev/null
	umount "$WORK/tmpfs" 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

# --- the target -------------------------------------------------------------

# target_listening: nvmet-rdma has its RDMA CM listener on $IP0:4420.
target_listening() {
	rdma resource show cm_id | grep -E "state LISTEN .*src-addr $IP0:4420( |$)"
}

# port_enable: the subsystem linked to port 1, which makes nvmet-rdma
# listen; once it does (a link left from before is made again).
port_enable() {
	rm -f "$PORT_DIR/subsystems/$NQN"
	ln -s "$SUBSYS" "$PORT_DIR/subsystems/$NQN"
	wait_for 10 target_listening
}

# --- the host ---------------------------------------------------------------

# host_connect ARGS...: nvme connect to the subsystem on $IP0 with ARGS
# (-w ADDR for another device, -l/-c for ctrl_loss_tmo/reconnect_delay);
# sets CTRL (nvmeN) and DEV (/dev/nvmeXnY) once the namespace's block
# device is there.
host_connect() {
	nvme connect -t rdma -a "$IP0" -s 4420 -n "$NQN" -q "$HOSTNQN" -I "$HOSTID" "$@"
	wait_for 20 host_ctrl
	CTRL=$(host_ctrl)
	wait_for 20 host_blockdev "$CTRL"
	DEV=/dev/$(host_blockdev "$CTRL")
	wait_for 10 test -b "$DEV"
	echo "$CTRL: $(< "/sys/class/nvme/$CTRL/transport") $(< "/sys/class/nvme/$CTRL/address"), state $(ctrl_state "$CTRL"), namespace $DEV"
	[ "$(< "/sys/class/nvme/$CTRL/transport")" = rdma ] || fail "$CTRL is not an RDMA controller"
}

# host_ctrl: the name of the host's controller of $NQN (fails if none).
host_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(< "$c/subsysnqn")" = "$NQN" ] || continue
		echo "${c##*/}"
		return 0
	done
	return 1
}

no_host_ctrl() {
	! host_ctrl
}

# host_blockdev CTRL: the block device of namespace 1 of CTRL: nvmeXn1
# itself, or with native multipath the head nvmeXn1 of CTRL's path
# nvmeXcYn1.
host_blockdev() {
	local p
	for p in "/sys/class/nvme/$1"/nvme*n1; do
		[ -e "$p" ] || return 1
		p=${p##*/}
		echo "${p/c[0-9]*n/n}"
		return 0
	done
	return 1
}

# ctrl_state CTRL: the controller's state (live, resetting, connecting,
# deleting, ...).
ctrl_state() {
	cat "/sys/class/nvme/$1/state"
}

ctrl_state_is() {
	[ "$(ctrl_state "$1")" = "$2" ]
}

ctrl_not_live() {
	! ctrl_state_is "$1" live
}

# fresh: every case starts here: no controller of the host, sroce0 and
# sroce1 registered, the target listening (an earlier case may have
# deleted a device and killed the listener with it).
fresh() {
	timeout $((60 * SROCE_TIMEOUT_SCALE)) nvme disconnect-all || true
	wait_for 30 no_host_ctrl
	rdma_dev_exists sroce0 || rdma link add sroce0 type sroce netdev v0
	rdma_dev_exists sroce1 || rdma link add sroce1 type sroce netdev v1
	wait_for 10 has_gid sroce0 "::ffff:$IP0"
	wait_for 10 has_gid sroce1 "::ffff:$IP1"
	target_listening > /dev/null || port_enable
}

# --- fio --------------------------------------------------------------------

# fio_run NAME ARGS...: fio on $DEV, 4 KiB blocks at iodepth 16 with
# libaio and O_DIRECT, every block written checked by crc32c when read
# back, with ARGS; its JSON report in $WORK/NAME.json.  Fails unless fio
# exits 0 with no error and moved data both ways.
fio_run() {
	local name=$1 rd wr err
	shift
	timeout $((300 * SROCE_TIMEOUT_SCALE)) fio --name="$name" --filename="$DEV" \
		--ioengine=libaio --direct=1 --bs=4k --iodepth=16 \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 --output-format=json \
		"$@" > "$WORK/$name.json" || { cat "$WORK/$name.json"; fail "fio $name failed"; }
	rd=$(jq '.jobs[0].read.io_bytes' "$WORK/$name.json")
	wr=$(jq '.jobs[0].write.io_bytes' "$WORK/$name.json")
	err=$(jq '.jobs[0].error' "$WORK/$name.json")
	echo "fio $name: read $rd B, written $wr B, error $err, $(jq -r '.jobs[0] | "\(.read.iops|floor) read IOPS, \(.write.iops|floor) write IOPS"' "$WORK/$name.json")"
	[ "$err" = 0 ] || fail "fio $name: error $err"
	[ "$rd" -gt 0 ] || fail "fio $name read nothing"
	[ "$wr" -gt 0 ] || fail "fio $name wrote nothing"
}

# fio_bg NAME ARGS...: fio on $DEV in the background (FIO_PID), as
# fio_run but not checked; it may take 180 s at most.
fio_bg() {
	local name=$1
	shift
	timeout $((180 * SROCE_TIMEOUT_SCALE)) fio --name="$name" --filename="$DEV" \
		--ioengine=libaio --direct=1 --bs=4k --iodepth=16 --verify_state_save=0 \
		--output-format=json "$@" > "$WORK/$name.json" 2> "$WORK/$name.err" &
	FIO_PID=$!
}

# alive PID: the process runs (not a zombie).
alive() {
	[ -e "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

dead() {
	! alive "$1"
}

# rx_bytes_total: the bytes received by sroce0 and sroce1 so far.
rx_bytes_total() {
	local d v s=0
	for d in sroce0 sroce1; do
		rdma_dev_exists "$d" || continue
		v=$(hw_counter "$d" rx_bytes)
		s=$((s + v))
	done
	echo "$s"
}

# io_moved SINCE MIN: at least MIN bytes received by the devices since
# rx_bytes_total was SINCE.
io_moved() {
	[ $(($(rx_bytes_total) - $1)) -ge "$2" ]
}

# fio_under_way BASE: fio (FIO_PID) has moved 4 MiB since rx_bytes_total
# was BASE, and is still running.
fio_under_way() {
	wait_for 60 io_moved "$1" $((4 << 20)) || fail "fio made no progress"
	alive "$FIO_PID" || { cat "$WORK"/*.err; fail "fio ended before the teardown began"; }
}

# --- the cases --------------------------------------------------------------

test_setup() {
	# The target's client registers first, so that the host's is removed
	# first when a device both use goes away (clients leave in LIFO order).
	modprobe nvmet
	modprobe nvmet-rdma
	modprobe nvme-rdma
	# configfs is a module: qemu/guest-init's mount of it at boot fails.
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	sroce_local_pair "$IP0" "$IP1"

	# tmpfs has no O_DIRECT: the namespace uses buffered I/O on the file.
	mkdir "$WORK/tmpfs"
	mount -t tmpfs -o size=$((BACKING_MIB + 16))m tmpfs "$WORK/tmpfs"
	truncate -s "${BACKING_MIB}M" "$BACKING"
	mkdir "$SUBSYS"
	echo 1 > "$SUBSYS/attr_allow_any_host"
	mkdir "$SUBSYS/namespaces/1"
	echo "$BACKING" > "$SUBSYS/namespaces/1/device_path"
	echo 1 > "$SUBSYS/namespaces/1/buffered_io"
	echo 1 > "$SUBSYS/namespaces/1/enable"
	mkdir "$PORT_DIR"
	echo rdma > "$PORT_DIR/addr_trtype"
	echo ipv4 > "$PORT_DIR/addr_adrfam"
	echo "$IP0" > "$PORT_DIR/addr_traddr"
	echo 4420 > "$PORT_DIR/addr_trsvcid"
	port_enable
	rdma resource show cm_id
	rdma resource show
	qp_base sroce1
}

# data_reaches_target: 8 MiB of random bytes written through the host's
# block device are in the target's backing file, and read back the same
# through the block device.
data_reaches_target() {
	head -c 8M /dev/urandom > "$WORK/pattern"
	dd if="$WORK/pattern" of="$DEV" bs=1M oflag=direct status=none
	cmp -n 8M "$WORK/pattern" "$BACKING" || fail "the target's file differs from what the host wrote"
	dd if="$DEV" of="$WORK/back" bs=1M count=8 iflag=direct status=none
	cmp "$WORK/pattern" "$WORK/back" || fail "read back through $DEV differs"
	echo "8 MiB written, in the target's file and read back byte for byte"
}

host_disconnect() {
	timeout $((60 * SROCE_TIMEOUT_SCALE)) nvme disconnect -n "$NQN" || fail "nvme disconnect failed"
	wait_for 30 no_host_ctrl
	[ ! -e "$DEV" ] || fail "$DEV is still there"
}

test_loopback() {
	local snap
	fresh
	snap=$(hw_snapshot sroce0 sroce1)
	host_connect
	rdma resource show qp
	# The host's and the target's queues (admin and I/O, two at least
	# each) on sroce0, none on sroce1.
	qps_above sroce0 4
	qps_above sroce1 0
	qps_settled sroce1 || fail "QPs on sroce1"
	data_reaches_target
	fio_run loop-randrw --rw=randrw --size=16M
	fio_run loop-seq --rw=write --bs=128k --size=32M
	host_disconnect
	hw_moved "$snap"
	hw_at_least "$snap" sroce0 rx_bytes $((64 << 20))
	[ "$(hw_counter sroce1 rx_qp)" -eq "$(grep -E '^sroce1 rx_qp ' <<< "$snap" | cut -d' ' -f3)" ] ||
		fail "sroce1 received traffic of a loopback on sroce0"
	hw_no_rx_errors sroce0
	wait_for 10 qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
}

test_two_devices() {
	local snap
	fresh
	snap=$(hw_snapshot sroce0 sroce1)
	host_connect -w "$IP1"
	# The host's queues on sroce1, the target's on sroce0.
	qps_above sroce1 2
	qps_above sroce0 2
	data_reaches_target
	fio_run two-randrw --rw=randrw --size=16M
	fio_run two-seq --rw=write --bs=128k --size=32M
	host_disconnect
	hw_moved "$snap"
	# Writes reach the target (sroce0) and reads the host (sroce1).
	hw_at_least "$snap" sroce0 rx_bytes $((32 << 20))
	hw_at_least "$snap" sroce1 rx_bytes $((16 << 20))
	hw_no_rx_errors sroce0 sroce1
	wait_for 10 qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
}

# teardown_done: fio (FIO_PID) ended by itself within 60 s of a teardown,
# with its I/O failed; the controller and its block device are gone.
teardown_done() {
	wait_for 60 no_host_ctrl || fail "the controller is still there: $(ctrl_state "$CTRL")"
	wait_for 60 dead "$FIO_PID" || fail "fio still runs 60 s after its device went away"
	wait "$FIO_PID" && fail "fio reported success after its device went away"
	[ ! -e "$DEV" ] || fail "$DEV is still there"
	echo "fio: $(grep -c 'io_u error' "$WORK/$1.json" "$WORK/$1.err" | paste -sd' ') I/O errors reported"
	wait_for 10 qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
}

test_disconnect_under_io() {
	local base
	fresh
	host_connect -w "$IP1"
	base=$(rx_bytes_total)
	fio_bg disc --rw=randrw --size=32M --time_based --runtime=120
	fio_under_way "$base"
	timeout $((60 * SROCE_TIMEOUT_SCALE)) nvme disconnect -n "$NQN" || fail "nvme disconnect under I/O failed"
	teardown_done disc
}

test_target_device_deleted() {
	local base rc=0 wr
	fresh
	host_connect -w "$IP1" --ctrl-loss-tmo=120 --reconnect-delay=5
	base=$(rx_bytes_total)
	fio_bg reconnect --rw=randwrite --size=48M --verify=crc32c --verify_fatal=1
	fio_under_way "$base"
	rdma_links_delete sroce0
	! target_listening || fail "the listener outlived its device"
	wait_for 60 ctrl_not_live "$CTRL" || fail "the host did not notice that its target went away"
	echo "$CTRL: $(ctrl_state "$CTRL") with sroce0 gone"
	alive "$FIO_PID" || fail "fio ended while the controller was reconnecting"
	rdma link add sroce0 type sroce netdev v0
	wait_for 10 has_gid sroce0 "::ffff:$IP0"
	# nvmet-rdma of 6.1 drops its listener with its device
	# (nvmet_rdma_device_removal) and does not listen again by itself.
	sleep 1
	! target_listening || fail "nvmet-rdma listens again by itself: update tests/nvme.sh and ulp.md"
	port_enable
	wait_for 150 ctrl_state_is "$CTRL" live || fail "the host did not reconnect: $(ctrl_state "$CTRL")"
	echo "$CTRL: live again on $(< "/sys/class/nvme/$CTRL/address")"
	wait "$FIO_PID" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$WORK/reconnect.json" "$WORK/reconnect.err"; fail "fio failed across the reconnect (exit $rc)"; }
	wr=$(jq '.jobs[0].write.io_bytes' "$WORK/reconnect.json")
	echo "fio: $wr B written and every block verified across the reconnect"
	[ "$wr" -eq $((48 << 20)) ] || fail "fio wrote $wr B, not 48 MiB"
	[ "$(jq '.jobs[0].error' "$WORK/reconnect.json")" = 0 ] || fail "fio reported an error"
	host_disconnect
}

test_host_device_deleted() {
	local base
	fresh
	host_connect -w "$IP1"
	base=$(rx_bytes_total)
	fio_bg hostdel --rw=randrw --size=32M --time_based --runtime=120
	fio_under_way "$base"
	# nvme-rdma deletes the controllers of a device that goes away.
	rdma_links_delete sroce1
	teardown_done hostdel
}

test_loopback_device_deleted() {
	local base
	fresh
	host_connect
	base=$(rx_bytes_total)
	fio_bg loopdel --rw=randrw --size=32M --time_based --runtime=120
	fio_under_way "$base"
	rdma_links_delete sroce0
	teardown_done loopdel
	# The device comes back, the port is enabled again, and a new
	# connection works.
	rdma link add sroce0 type sroce netdev v0
	wait_for 10 has_gid sroce0 "::ffff:$IP0"
	port_enable
	host_connect
	fio_run loopdel-after --rw=randrw --size=4M
	host_disconnect
}

test_teardown() {
	timeout $((60 * SROCE_TIMEOUT_SCALE)) nvme disconnect-all
	wait_for 30 no_host_ctrl
	target_unconfigure
	[ ! -e "$SUBSYS" ] || fail "the subsystem is still configured"
	modprobe -r nvme_rdma nvmet_rdma
	no_user_objects '[^ ]+' qp cq mr pd
	qps_settled sroce0 sroce1 || fail "QPs left: $(rdma resource show)"
	rdma_links_delete sroce0 sroce1
	sroce_rmmod
}

cases() {
	run_setup "set-up: sroce0 and sroce1 on a veth in init_net, nvmet port on sroce0" test_setup
	run_test "loopback: host and target on sroce0, data in the target's file, fio random and sequential verified, disconnect" test_loopback
	run_test "two devices: host on sroce1, target on sroce0, data in the target's file, fio verified, disconnect" test_two_devices
	run_test "two devices: nvme disconnect during fio ends it cleanly" test_disconnect_under_io
	run_test "two devices: the target's device deleted during fio; the host reconnects when it is back and fio verifies every block" test_target_device_deleted
	run_test "two devices: the host's device deleted during fio removes the controller cleanly" test_host_device_deleted
	run_test "loopback: sroce0 deleted during fio; back again, a new connection works" test_loopback_device_deleted
	run_test "teardown: configfs emptied, nvme-rdma and nvmet-rdma unload, rdma link delete and rmmod clean" test_teardown
}
ktap_run cases
