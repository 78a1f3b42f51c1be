#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel verbs as a kernel ULP uses them: tests/kmod/sroce_kverbs_test.ko
# (built by `make kmod-test`) runs its cases from module init between two
# RDMA devices and reports them in KTAP on the kernel log; each of its cases
# becomes a case here.  Kernel post_send/post_recv, CQs polled in softirq,
# from a work queue and directly, the DMA MR (local_dma_lkey, the unsafe
# global rkey), fast registration (REG_MR, LOCAL_INV, SEND_WITH_INV),
# atomics, ib_drain_qp and a return to RESET: see the module's header.
#
#   init_net                              $NS
#   +------------------------+            +------------------------+
#   | sroce0, later rxe0     |            | sroce1                 |
#   |   v0 10.93.9.1/24      |----veth----|   v1 10.93.9.2/24      |
#   | insmod runs here       |            |                        |
#   +------------------------+            +------------------------+
#
# Four runs of the module, each reported as "LABEL: case":
#   sroce:       A = sroce0, B = sroce1 (sroce alone; then a clean rmmod)
#   rxe:         A = B = rxe0, a loopback within rdma_rxe (it binds UDP
#                4791 in init_net only, so two rxe devices in one guest
#                cannot reach each other): the module checked against a
#                known-good implementation
#   rxe->sroce:  A = rxe0 (init_net), B = sroce1 (in $NS, as in
#                tests/rc-interop.sh)
#   sroce->rxe:  A = sroce1, B = rxe0
# A is the initiator, B the target (the DMA MR with a global rkey, the
# fast-registration MRs).  rdma's shared namespace mode shows every
# device in every namespace, so the module finds both by name.
#
# Runs in a guest (qemu/run-guest) as root.
. "$(dirname "$0")/lib.sh"

NS=sroce-kverbs-$$
IP0=10.93.9.1
IP1=10.93.9.2
# The test module built next to the sroce.ko in use (make check-debug
# builds both for the debug kernel).
KVERBS_KO=${SROCE_KVERBS_KO:-${SROCE_KO%/drivers/sroce/sroce.ko}/tests/kmod/sroce_kverbs_test.ko}
# Cases of the module (its "1..N"); each run adds its insmod case.
KVT_CASES=24
KVT_DIR=$(mktemp -d)
# Set when an insmod never returned: nothing can be unloaded any more.
KVT_STUCK=$KVT_DIR/stuck

cleanup() {
	if [ ! -e "$KVT_STUCK" ]; then
		rmmod sroce_kverbs_test 2>/dev/null
		rdma link delete sroce0 2>/dev/null
		ip netns exec "$NS" rdma link delete sroce1 2>/dev/null
		rdma link delete rxe0 2>/dev/null
		sroce_unload 2>/dev/null
		modprobe -r rdma_rxe 2>/dev/null
	fi
	ip netns del "$NS" 2>/dev/null
	ip link del v0 2>/dev/null
	rm -rf "$KVT_DIR"
}
trap cleanup EXIT

# sysfs_gid_index DEV IPV4: index of DEV's RoCE v2 GID of the address IPV4
# (from sysfs: no provider needed); empty if there is none.
sysfs_gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 f i want o gid type
	IFS=. read -ra o <<< "$2"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "${o[@]}")
	# read, not cat: 1024 entries, and a process costs ~0.1 s under TCG.
	for f in "$d"/gids/*; do
		i=${f##*/}
		read -r gid < "$f"
		[ "$gid" = "$want" ] || continue
		type=
		read -r type 2>/dev/null < "$d/gid_attrs/types/$i" || true
		[ "$type" = "RoCE v2" ] || continue
		echo "$i"
		return
	done
}

has_sysfs_gid() {
	[ -n "$(sysfs_gid_index "$1" "$2")" ]
}

# dev_ip DEV: the IPv4 address of DEV's netdev
dev_ip() {
	case $1 in
	sroce0 | rxe0) echo "$IP0" ;;
	*) echo "$IP1" ;;
	esac
}

# No PD, CQ, QP or MR of the test module is left (rdma_rxe has a GSI QP of
# the core's: only the owner tells them apart).
no_kernel_objects() {
	local out r
	out=$(for r in pd cq qp mr; do rdma resource show "$r"; done)
	echo "$out"
	! grep -q 'sroce_kverbs_test' <<< "$out"
}

test_setup() {
	[ -e "$KVERBS_KO" ] || fail "$KVERBS_KO is not built (make kmod-test)"
	modinfo "$KVERBS_KO" | grep -E '^(vermagic|parm):'
	[ "$(modinfo -F vermagic "$KVERBS_KO" | cut -d' ' -f1)" = "$(uname -r)" ] ||
		fail "$KVERBS_KO is not built for $(uname -r)"
	sroce_load
	veth_ns "$IP0" "$IP1"
	rdma link add sroce0 type sroce netdev v0
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	rdma system show
	rdma link show
	wait_for 10 has_sysfs_gid sroce0 "$IP0"
	wait_for 10 has_sysfs_gid sroce1 "$IP1"
}

# kverbs_load RUN A B: insmod the module on devices A and B; its lines of
# the kernel log (without the "sroce_kverbs: " prefix) go to $KVT_DIR/RUN.
# The load succeeds exactly when no case failed; either way the module
# must have reported its plan, every case and its totals.
kverbs_load() {
	local out=$KVT_DIR/$1 a=$2 b=$3 ga gb n rc deps d
	for d in "$a" "$b"; do
		rdma_dev_exists "$d" || fail "no RDMA device $d"
	done
	ga=$(sysfs_gid_index "$a" "$(dev_ip "$a")")
	gb=$(sysfs_gid_index "$b" "$(dev_ip "$b")")
	if [ -z "$ga" ] || [ -z "$gb" ]; then
		fail "no IPv4 RoCE v2 GID ($a: '$ga', $b: '$gb')"
	fi
	deps=$(modinfo -F depends "$KVERBS_KO" | tr ',' ' ')
	# shellcheck disable=SC2086
	[ -z "$deps" ] || modprobe -a $deps
	n=$(dmesg | wc -l)
	echo "insmod $KVERBS_KO dev_a=$a dev_b=$b gid_a=$ga gid_b=$gb"
	# In the background: a case that never ends would hang insmod in
	# module init, where no signal reaches it.
	{
		rc=0
		insmod "$KVERBS_KO" dev_a="$a" dev_b="$b" gid_a="$ga" gid_b="$gb" \
			timeout_ms=$((5000 * SROCE_TIMEOUT_SCALE)) || rc=$?
		echo "$rc" > "$out.rc"
	} &
	if ! wait_for 150 test -e "$out.rc"; then
		touch "$KVT_STUCK"
		dmesg | tail -n +"$((n + 1))" | sed 's/^/  /'
		fail "insmod did not return within $((150 * SROCE_TIMEOUT_SCALE)) s"
	fi
	wait
	rc=$(cat "$out.rc")
	dmesg -t | tail -n +"$((n + 1))" | sed -n 's/^sroce_kverbs: //p' > "$out"
	echo "insmod: exit status $rc"
	if [ "$rc" -eq 0 ]; then
		rmmod sroce_kverbs_test
	fi
	no_kernel_objects || fail "objects of the module are left"
	grep -qx "1\.\.$KVT_CASES" "$out" ||
		fail "the module's plan is not 1..$KVT_CASES: $(grep -E '^1\.\.' "$out")"
	grep -q '^# totals: ' "$out" || fail "the module did not report its totals"
	grep '^# totals: ' "$out"
	if grep -q '^not ok ' "$out"; then
		[ "$rc" -ne 0 ] || fail "cases failed, yet the module loaded"
	else
		[ "$rc" -eq 0 ] || fail "insmod failed (status $rc) without a failed case"
	fi
}

# kverbs_name RUN I: the name the module gave its case I in run RUN
kverbs_name() {
	local line name='' re="^(not )?ok $2 (.*)\$"
	# Builtins only: this runs for every case, twice (counting, running).
	if [ -e "$KVT_DIR/$1" ]; then
		while IFS= read -r line; do
			[[ $line =~ $re ]] || continue
			name=${BASH_REMATCH[2]%% # SKIP*}
			break
		done < "$KVT_DIR/$1"
	fi
	echo "${name:-case $2 of the module (not reported)}"
}

# kverbs_case RUN I: the module's case I in run RUN, with the comments it
# printed for it.  A case the module skips (a device does not advertise
# what it needs) is skipped in run 2 (rdma_rxe alone), and in runs 3 and 4
# (rdma_rxe and sroce) if run 2 skipped it too; else it is a failure:
# sroce advertises everything the module uses.
kverbs_case() {
	local run=$1 i=$2 out=$KVT_DIR/$1 line
	[ -e "$out" ] || fail "the module did not run"
	awk -v i="$i" '
		/^(not )?ok [0-9]+ / {
			n = ($1 == "not") ? $3 : $2
			if (n == i)
				exit
			on = (n == i - 1)
			next
		}
		/^1\.\./ { on = (i == 1); next }
		on && /^#/ { print }
	' "$out"
	line=$(grep -E "^(not )?ok $i " "$out") || fail "the module did not report case $i"
	case $line in
	"not ok "*) fail "$line" ;;
	*"# SKIP"*)
		[ "$run" = 2 ] || { [ "$run" != 1 ] && grep -Eq "^ok $i .*# SKIP" "$KVT_DIR/2"; } ||
			fail "sroce lacks what the case needs: ${line#*# SKIP }"
		skip "${line#*# SKIP }"
		;;
	esac
}

# kverbs RUN LABEL A B: run RUN of the module (a setup: its cases need
# it), its cases as "LABEL: NAME".
kverbs() {
	local run=$1 label=$2 i
	run_setup "$label: insmod sroce_kverbs_test dev_a=$3 dev_b=$4" kverbs_load "$run" "$3" "$4"
	for i in $(seq 1 "$KVT_CASES"); do
		run_test "$label: $(kverbs_name "$run" "$i")" kverbs_case "$run" "$i"
	done
}

test_sroce_unload() {
	no_kernel_objects || fail "objects of the module are left"
	rdma_links_delete sroce0 sroce1
	sroce_rmmod
}

test_rxe_setup() {
	rxe_load
	rdma link add rxe0 type rxe netdev v0
	wait_for 10 has_sysfs_gid rxe0 "$IP0"
	rdma link show
}

# rdma_rxe holds UDP 4791 in init_net: sroce lives in $NS only.
test_interop_setup() {
	sroce_load
	ip netns exec "$NS" rdma link add sroce1 type sroce netdev v1
	wait_for 10 has_sysfs_gid sroce1 "$IP1"
	rdma link show
}

test_unload() {
	no_kernel_objects || fail "objects of the module are left"
	rdma_links_delete sroce1 rxe0
	sroce_unload
	rxe_rmmod
	! grep -Eq '^(sroce|rdma_rxe|sroce_kverbs_test) ' <<< "$(lsmod)"
}

cases() {
	run_setup "module, veth and two sroce devices set up" test_setup
	kverbs 1 sroce sroce0 sroce1
	run_test "sroce: no object left, rmmod sroce is clean" test_sroce_unload
	run_setup "rdma_rxe on v0 (init_net)" test_rxe_setup
	kverbs 2 rxe rxe0 rxe0
	run_setup "sroce in $NS next to rdma_rxe" test_interop_setup
	kverbs 3 "rxe->sroce" rxe0 sroce1
	kverbs 4 "sroce->rxe" sroce1 rxe0
	run_test "no object left, rmmod sroce and rdma_rxe" test_unload
}
ktap_run cases
