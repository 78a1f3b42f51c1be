# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The kernel NFS server over RDMA (tests/nfs.sh, scripts/demo, bench-ulp).
#
# Sourced by tests/lib.sh, like every file here.
#
# The server of Debian's nfs-kernel-server in init_net: rpcbind, the
# export, rpc.mountd, nfsd's threads, and its RDMA listener (svcrdma) on
# NFS_RDMA_PORT.  Its state (/var/lib/nfs) is a tmpfs of its own.

NFS_RDMA_PORT=20049
NFS_RUN=/run/sroce-nfs

# nfs_server_start EXPORT CLIENTS: EXPORT (a directory on a file system
# nfsd can export, such as a tmpfs) exported read-write to CLIENTS (an
# address or a subnet) as the NFSv4 pseudo-root (fsid=0), the server up
# and listening on RDMA port NFS_RDMA_PORT.  NFSv4's grace period and
# lease at their minimum, 10 s: no new open is granted during the grace
# period after the start.
nfs_server_start() {
	modprobe -a nfsd rpcrdma
	mkdir -p "$NFS_RUN" /run/rpcbind
	mountpoint -q /var/lib/nfs || mount -t tmpfs nfs-state /var/lib/nfs
	mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /var/lib/nfs/nfsdcltrack
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	rpcbind -f > "$NFS_RUN/rpcbind.log" 2>&1 &
	echo $! > "$NFS_RUN/rpcbind.pid"
	wait_for 10 pid_listening "$(< "$NFS_RUN/rpcbind.pid")" 111
	echo "$1 $2(rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0)" > /etc/exports
	exportfs -ra
	rpc.mountd -F > "$NFS_RUN/mountd.log" 2>&1 &
	echo $! > "$NFS_RUN/mountd.pid"
	rpc.nfsd -G 10 -L 10 4
	echo "rdma $NFS_RDMA_PORT" > /proc/fs/nfsd/portlist
	grep -qx "rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist ||
		fail "nfsd does not list rdma $NFS_RDMA_PORT: $(< /proc/fs/nfsd/portlist)"
}

# pid_gone PID: process PID has ended (gone, or a zombie).
pid_gone() {
	[ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# nfs_server_stop: nfsd's threads and listeners stopped, the exports
# withdrawn, rpc.mountd and rpcbind ended, /proc/fs/nfsd and the state
# tmpfs unmounted; quiet, also for an EXIT trap.
nfs_server_stop() {
	local p pid
	if [ -e /proc/fs/nfsd/threads ]; then
		rpc.nfsd 0 2>/dev/null
		exportfs -ua 2>/dev/null
	fi
	for p in mountd rpcbind; do
		[ -e "$NFS_RUN/$p.pid" ] || continue
		pid=$(< "$NFS_RUN/$p.pid")
		kill "$pid" 2>/dev/null
		wait_for 10 pid_gone "$pid"
		rm -f "$NFS_RUN/$p.pid"
	done
	umount /proc/fs/nfsd 2>/dev/null
	umount /var/lib/nfs 2>/dev/null
	return 0
}
