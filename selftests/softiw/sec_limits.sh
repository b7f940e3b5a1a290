#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The resource manager's limits (RFC 5042 sections 5.3, 6.4.1): every PD,
# CQ, QP, SRQ, MR and CQ entry a process takes is charged against a
# per-process and a per-device limit (module parameters ctx_max_* and
# dev_max_*, rm.c).  build/selftests/res_exhaust (res_exhaust.c) takes
# what it can:
#   - bad limit values are refused, at load time and at run time;
#   - one process stops at its own limit with ENOMEM, a second one at
#     what the device has left, and a third gets its full share once the
#     first is gone;
#   - every resource kind stops at its ctx_max_*, as root and as nobody;
#   - a process that opens the device several times shares one limit;
#   - each refusal counts in `rdma statistic` (res_refused);
#   - the rdma cgroup controller's hca_object limit applies too;
#   - kernel memory taken for a process counts against its memory cgroup,
#     which stops it with ENOMEM (not the OOM killer).
. "$(dirname "$0")/lib.sh"
need_root
need_cmd ip rdma setpriv
need_softiw
need_provider
PROG=$(dirname "$0")/../../build/selftests/res_exhaust
[ -x "$PROG" ] || fail "$PROG not built (make -C selftests/softiw)"
P=/sys/module/softiw/parameters
HOLD=/tmp/sec_limits.hold
CG=/sys/fs/cgroup/softiw_sec_limits

lim_cleanup() {
	touch $HOLD 2>/dev/null
	wait
	rm -f $HOLD
	# see the cgroup part below: limits to max before the cgroup goes
	[ -e $CG/rdma.max ] &&
		echo "sw0 hca_handle=max hca_object=max" >$CG/rdma.max 2>/dev/null
	rmdir $CG 2>/dev/null
	rmdir /sys/fs/cgroup/softiw_sec_memcg 2>/dev/null
	ip link del lveth0 2>/dev/null
	softiw_reset
}
on_exit lim_cleanup

# expect WHAT WANT CMD...: CMD prints "got N errno E"; check it is WANT
expect() {
	what=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	echo "# $what: $out"
	check_eq "$out" "$want" "$what"
}

refused() {
	stat=$(rdma_counter sw0 res_refused)
	echo "${stat:-0}"
}

softiw_reset
modprobe ib_uverbs 2>/dev/null
dmesg_mark
modprobe softiw dev_max_qp=5000 2>/dev/null && fail "dev_max_qp=5000 accepted at load"
check_dmesg "dev_max_qp=5000 refused: must be 1..1024"
run modprobe softiw
echo 0 >$P/ctx_max_qp 2>/dev/null && fail "ctx_max_qp=0 accepted"
echo 1025 >$P/dev_max_qp 2>/dev/null && fail "dev_max_qp=1025 accepted"
echo many >$P/ctx_max_pd 2>/dev/null && fail "ctx_max_pd=many accepted"
check_eq "$(cat $P/ctx_max_qp)" 256 "ctx_max_qp after refused writes"
check_eq "$(cat $P/dev_max_qp)" 1024 "dev_max_qp after refused writes"

run ip link add lveth0 type veth peer name lveth1
run ip link set lveth0 up
run rdma link add sw0 type softiw netdev lveth0
for d in /dev/infiniband/uverbs*; do
	[ -c "$d" ] && chmod 0666 "$d"
done
r0=$(refused)

# one process against its own limit, a second against the device's
echo 4 >$P/ctx_max_qp && echo 6 >$P/dev_max_qp || fail "setting qp limits"
rm -f $HOLD
"$PROG" sw0 qp 10 $HOLD >/tmp/sec_limits.a 2>&1 &
i=0
while ! grep -q got /tmp/sec_limits.a 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_eq "$(cat /tmp/sec_limits.a)" "got 4 errno 12" "first process, ctx_max_qp=4"
expect "second process, device has 2 left" "got 2 errno 12" "$PROG" sw0 qp 10
touch $HOLD
wait
rm -f $HOLD
expect "third process, first gone" "got 4 errno 12" "$PROG" sw0 qp 10
r1=$(refused)
[ "$r1" -ge $((r0 + 3)) ] || fail "res_refused went from $r0 to $r1, want +3"
echo "# res_refused: $r0 -> $r1"
echo 256 >$P/ctx_max_qp && echo 1024 >$P/dev_max_qp

# every kind stops at its per-process limit, root or not
for res in pd cq qp srq mr; do
	old=$(cat $P/ctx_max_$res)
	echo 3 >$P/ctx_max_$res || fail "ctx_max_$res=3"
	expect "$res as root" "got 3 errno 12" "$PROG" sw0 $res 10
	expect "$res as nobody" "got 3 errno 12" setpriv --reuid=65534 \
		--regid=65534 --clear-groups env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
		"$PROG" sw0 $res 10
	echo "$old" >$P/ctx_max_$res
done
# CQ entries: 3 CQs of 256 fit in 1000, a fourth does not
# One process opening the device four times still has one share: the
# limit is the process's, not each context's.
echo 3 >$P/ctx_max_qp || fail "ctx_max_qp=3"
expect "qp from 4 contexts of one process" "got 3 errno 12" \
	env RES_CONTEXTS=4 "$PROG" sw0 qp 10
expect "qp from 4 contexts as nobody" "got 3 errno 12" setpriv \
	--reuid=65534 --regid=65534 --clear-groups \
	env RDMAV_DRIVERS="$RDMAV_DRIVERS" RES_CONTEXTS=4 "$PROG" sw0 qp 10
echo 256 >$P/ctx_max_qp
echo 1000 >$P/ctx_max_cqe || fail "ctx_max_cqe=1000"
expect "cqe" "got 3 errno 12" "$PROG" sw0 cqe 10
echo 1048576 >$P/ctx_max_cqe

# the rdma cgroup controller
if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
fi
if grep -qw rdma /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	echo +rdma >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p $CG || fail "mkdir $CG"
	echo "sw0 hca_handle=2 hca_object=5" >$CG/rdma.max ||
		fail "rdma.max of $CG"
	out=$(sh -c "echo \$\$ >$CG/cgroup.procs && exec $PROG sw0 pd 20" 2>&1)
	echo "# cgroup hca_object=5: $out"
	got=$(echo "$out" | awk '{ print $2 }')
	err=$(echo "$out" | awk '{ print $4 }')
	[ -n "$got" ] && [ "$got" -le 5 ] && [ "$err" != 0 ] ||
		fail "cgroup limit hca_object=5 not applied: $out"
	expect "outside the cgroup" "got 21 errno 0" "$PROG" sw0 pd 20
	# The limit back to max before the cgroup goes: the rdma controller
	# (6.1 and 6.12) frees a device's pool in a cgroup only when its
	# limits are all max and nothing is charged; a pool left when the
	# cgroup is removed stays on the device's list pointing into the
	# freed cgroup, and the device's removal then corrupts memory
	# (list_del corruption in free_cg_rpool_locked(), seen once here).
	echo "sw0 hca_handle=max hca_object=max" >$CG/rdma.max ||
		fail "rdma.max of $CG back to max"
	rmdir $CG || fail "rmdir $CG"
else
	echo "# no rdma cgroup controller in this kernel: cgroup part skipped"
fi

# Kernel memory softiw takes for a process (queues, rings, registrations)
# is charged to its memory cgroup: a process in a cgroup of 24 MiB that
# makes QPs with 1024-deep queues (about 0.8 MiB of kernel memory each)
# is stopped with ENOMEM long before its QP limit, and is not OOM-killed;
# outside it the same process makes all it asks for.
grep -qw memory /sys/fs/cgroup/cgroup.controllers ||
	fail "no memory cgroup controller"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || fail "enable memory controller"
CGM=/sys/fs/cgroup/softiw_sec_memcg
mkdir -p $CGM || fail "mkdir $CGM"
echo 24M >$CGM/memory.max || fail "memory.max of $CGM"
echo 0 >$CGM/memory.swap.max 2>/dev/null
out=$(sh -c "echo \$\$ >$CGM/cgroup.procs && exec env RES_QP_WR=1024 $PROG sw0 qp 100" 2>&1)
rc=$?
echo "# memory cgroup of 24 MiB, 1024-deep QPs: $out (exit $rc)"
got=$(echo "$out" | awk '{ print $2 }')
err=$(echo "$out" | awk '{ print $4 }')
[ $rc = 0 ] || fail "the process in the memory cgroup exited $rc: $out"
[ -n "$got" ] && [ "$got" -ge 4 ] && [ "$got" -le 40 ] && [ "$err" = 12 ] ||
	fail "memory cgroup did not stop it with ENOMEM between 4 and 40 QPs: $out"
oom=$(awk '$1 == "oom_kill" { print $2 }' $CGM/memory.events)
check_eq "${oom:-0}" 0 "OOM kills in the memory cgroup"
rmdir $CGM
expect "1024-deep QPs outside the memory cgroup" "got 51 errno 0" \
	env RES_QP_WR=1024 "$PROG" sw0 qp 50
exit 0
