#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA (the kernel's rpcrdma: svcrdma on the server, xprtrdma on
# the client) over sroce.  The kernel NFS server runs in init_net on
# sroce0 and listens on RDMA port 20049; the client mounts its export
# with `mount -o rdma,port=20049` from the network namespace $NS, through
# sroce1 across the veth, and from init_net itself, through sroce0 to its
# own address (loopback: the packets go through lo, see
# tests/loopback.sh).
#
#   init_net                                  netns nfs-client
#   +------------------------------------+    +---------------------------+
#   | nfsd (rdma 20049), rpc.mountd,     |    | NFS client (ns cases)     |
#   | rpcbind; export: a tmpfs            |    |                           |
#   | NFS client (loopback cases)        |    |                           |
#   | sroce0 on v0 10.96.1.1/24 <---veth------> sroce1 on v1 10.96.1.2/24 |
#   +------------------------------------+    +---------------------------+
#
# The client mounts with nsenter --net (not ip netns exec, which gives the
# command a mount namespace of its own that goes, and the mount with it,
# when the command ends): the mount is seen by every case, its RPC
# transport lives in $NS (it follows the network namespace of the mount).
#
# For NFSv3, v4.1 and v4.2, client in $NS and on sroce0 itself: a large
# file (SROCE_NFS_MB MiB, default 64; 256 for the long run) and 200 small
# ones (0 B to 68 KiB: inline RPCs and RDMA chunks) written through the
# mount and synced, compared byte for byte with the server's own copy on
# its tmpfs, then, after `echo 3 > /proc/sys/vm/drop_caches` (one kernel:
# the client's and the server's caches both), read back through the mount
# and compared again; the hw counters show the data crossed sroce both
# ways (the server's device received the written bytes, the client's the
# read ones).  Then umount, the server stopped, no RC QP or CM ID
# left, `rdma link delete` and `rmmod` clean.
#
# Runs in a guest (qemu/run-guest) as root.
# guest-timeout: 1800
. "$(dirname "$0")/lib.sh"

NS=nfs-client
WORK=$(mktemp -d)
EXPORT=$WORK/export
MNT=$WORK/mnt
IP0=10.96.1.1
IP1=10.96.1.2
NFS_MB=${SROCE_NFS_MB:-64}
BIG=$((NFS_MB << 20))
SMALL_FILES=200

cleanup() {
	umount -l "$MNT" 2>/dev/null
	nfs_server_stop
	umount "$EXPORT" 2>/dev/null
	veth_cleanup
	rm -rf "$WORK"
}
trap cleanup EXIT

# no_cm_ids: no RDMA CM ID (a listener, a connection) left on a sroce
# device.
no_cm_ids() {
	! grep -qE '^link sroce[01]/' <<< "$(rdma resource show cm_id)"
}

test_setup() {
	local i
	modprobe -a nfsd nfs nfsv3 nfsv4 rpcrdma
	sroce_pair "$IP0" "$IP1"
	ip link set lo up
	# sroce0's own address is local: the loopback cases go through lo.
	grep -q ' dev lo ' <<< "$(ip route get "$IP0")"
	# The data, made once: a large random file, and small ones of sizes
	# spread from 0 to 68 KiB (inline below rpcrdma's 4 KiB threshold,
	# RDMA chunks above).
	head -c "$BIG" /dev/urandom > "$WORK/big"
	mkdir "$WORK/small"
	for ((i = 0; i < SMALL_FILES; i++)); do
		head -c $((i * 7919 % 70000)) /dev/urandom > "$WORK/small/f$i"
	done
	echo "data: $NFS_MB MiB file, $SMALL_FILES small files ($(du -sk "$WORK/small" | cut -f1) KiB)"
}

# The kernel NFS server in init_net (tests/lib.sh), its export a tmpfs of
# its own.
test_server() {
	mkdir -p "$EXPORT" "$MNT"
	mount -t tmpfs -o size=$((3 * NFS_MB + 64))m nfs-export "$EXPORT"
	nfs_server_start "$EXPORT" 10.96.1.0/24
	exportfs -v
	cat /proc/fs/nfsd/portlist
	echo "versions: $(< /proc/fs/nfsd/versions)"
	rdma resource show cm_id
}

# mb_s BYTES NANOSECONDS: the rate in MB/s (10^6 bytes per second).
mb_s() {
	local kb_s=$(($1 / ($2 / 1000000 + 1)))
	echo "$((kb_s / 1000)).$((kb_s % 1000 / 100)) MB/s"
}

# nfs_mounts: the NFS mounts (file system type nfs or nfs4; not nfsd).
nfs_mounts() {
	awk '$3 == "nfs" || $3 == "nfs4"' /proc/mounts
}

# nfs_io WHERE VERS: mount the export over RDMA from $NS (ns) or from
# init_net through sroce0 itself (loop) with NFS version VERS; write,
# check on the server, drop the caches, read back, check; umount.
nfs_io() {
	local where=$1 vers=$2 src=/ opts=vers=$2 dev_c=sroce1 run=() dir sdir snap t
	case $where in
	ns) run=(nsenter "--net=/run/netns/$NS") ;;
	loop) dev_c=sroce0 ;;
	esac
	# NFSv3 mounts the exported path (no lock manager here: nolock);
	# NFSv4 the pseudo-root.
	[ "$vers" != 3 ] || src=$EXPORT opts=vers=3,nolock
	# A case starts clean even after one that failed mounted.
	! mountpoint -q "$MNT" || umount -l "$MNT"
	"${run[@]}" mount -t nfs -o "rdma,port=$NFS_RDMA_PORT,$opts" "$IP0:$src" "$MNT"
	grep " $MNT nfs" /proc/mounts
	grep -q "[,]proto=rdma," <<< "$(grep " $MNT nfs" /proc/mounts)" || fail "not mounted over RDMA"
	grep -q "[,]port=$NFS_RDMA_PORT," <<< "$(grep " $MNT nfs" /proc/mounts)" || fail "not on port $NFS_RDMA_PORT"
	grep -q "[,]vers=$vers," <<< "$(grep " $MNT nfs" /proc/mounts)" || fail "not NFS version $vers"
	grep -A 30 "mounted on $MNT " /proc/self/mountstats | grep -E '^[[:space:]]*xprt:[[:space:]]+rdma ' ||
		fail "mountstats shows no rdma transport"

	dir=$MNT/$where-v$vers
	sdir=$EXPORT/$where-v$vers
	mkdir "$dir"
	snap=$(hw_snapshot sroce0 sroce1)
	t=$(date +%s%N)
	dd if="$WORK/big" of="$dir/big" bs=1M conv=fsync status=none
	echo "write $NFS_MB MiB: $(mb_s "$BIG" $(($(date +%s%N) - t)))"
	t=$(date +%s%N)
	cp -r "$WORK/small" "$dir/small"
	sync
	echo "write $SMALL_FILES small files: $((($(date +%s%N) - t) / 1000000)) ms"
	# What the server holds, read on its own side.
	cmp "$WORK/big" "$sdir/big" || fail "the server's copy of the large file differs"
	diff -r "$WORK/small" "$sdir/small" || fail "the server's copies of the small files differ"
	hw_at_least "$snap" sroce0 rx_bytes "$BIG"

	echo 3 > /proc/sys/vm/drop_caches
	snap=$(hw_snapshot sroce0 sroce1)
	t=$(date +%s%N)
	cmp "$WORK/big" "$dir/big" || fail "the large file read back differs"
	echo "read $NFS_MB MiB: $(mb_s "$BIG" $(($(date +%s%N) - t)))"
	diff -r "$WORK/small" "$dir/small" || fail "the small files read back differ"
	# The read data came over sroce, not from a cache.
	hw_at_least "$snap" "$dev_c" rx_bytes "$BIG"
	hw_at_least "$snap" sroce0 tx_packets $((BIG / 4096))

	rm -r "$dir"
	umount "$MNT"
	! mountpoint -q "$MNT" || fail "still mounted"
	[ ! -e "$sdir" ] || fail "the server still has $sdir"
}

# The server's side after all: every connection closed, nothing left.
test_teardown() {
	[ -z "$(nfs_mounts)" ] || { nfs_mounts; fail "an NFS mount is left"; }
	rpc.nfsd 0
	[ "$(< /proc/fs/nfsd/threads)" -eq 0 ] || fail "nfsd threads still run"
	nfs_server_stop
	! mountpoint -q /proc/fs/nfsd || fail "/proc/fs/nfsd is still mounted"
	wait_for 30 no_rc_qps 'sroce[01]' || { rdma resource show qp; fail "RC QPs left"; }
	wait_for 30 no_cm_ids || { rdma resource show cm_id; fail "CM IDs left"; }
	umount "$EXPORT"
	rdma_links_delete sroce1 sroce0
	sroce_rmmod
}

test_counters() {
	hw_no_rx_errors sroce0 sroce1
	hw_fates_add_up sroce0 sroce1
	grep -qx 'rx_no_dev 0' /proc/net/sroce || fail "datagrams went unclaimed"
}

cases() {
	local v w
	run_setup "set-up: sroce0 (init_net) and sroce1 ($NS) on a veth, the test data" test_setup
	run_setup "the kernel NFS server listens on RDMA port $NFS_RDMA_PORT" test_server
	for v in 3 4.1 4.2; do
		for w in ns loop; do
			case $w in
			ns) run_test "NFSv$v over RDMA, client in $NS: $NFS_MB MiB and $SMALL_FILES small files written, read back after drop_caches" nfs_io "$w" "$v" ;;
			loop) run_test "NFSv$v over RDMA, client on sroce0 itself (loopback): $NFS_MB MiB and $SMALL_FILES small files written, read back after drop_caches" nfs_io "$w" "$v" ;;
			esac
		done
	done
	run_test "no receive error, every packet counted once, none unclaimed" test_counters
	run_test "server stopped: no connection or listener left; rdma link delete and rmmod clean" test_teardown
}
ktap_run cases
