#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kernel ULP over softiw: NVMe over Fabrics (nvmet-rdma target,
# nvme-rdma host) through sw0, with data written and read back through
# the block device and compared with the file that backs the namespace.
#
#   +--------------------- init_net ----------------------+
#   | nvme-rdma host -> sw0 / veth0 10.79.0.1 <- nvmet     |  veth1 in ns1
#   +------------------------------------------------------+
#
# Kernel ULPs use rdma_cm in the initial namespace, so both ends run
# there and connect to veth0's own address (softiw's loopback path).
# The ULPs post and poll from kernel context (ib_post_send/ib_post_recv/
# ib_poll_cq) with the PD's local DMA lkey, and may post what no process
# can: fast registration (REG_MR) and Read with Local Invalidate, and
# invalidate the fast-registered MRs locally or by Send with Invalidate,
# as they choose.  The test checks the data they move, not which work
# requests they posted.
# No nvme-cli needed: the host connects through /dev/nvme-fabrics.
# While connected, an unprivileged process (build/selftests/cm_attack)
# names every QP number of sw0, the ULP's kernel QPs among them, in
# rdma_connect() and rdma_accept(): each is refused with EINVAL and
# counted (cm_qp_refused), and the I/O that follows still verifies.
. "$(dirname "$0")/lib.sh"

NQN=nqn.2026-12.org.softiw:selftest
ADDR=10.79.0.1
CFG=/sys/kernel/config/nvmet
TMPD=

nvme_cleanup() {
	for c in /sys/class/nvme-fabrics/ctl/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = $NQN ] && echo 1 >"$c/delete_controller"
	done
	rm -f $CFG/ports/1/subsystems/$NQN 2>/dev/null
	rmdir $CFG/ports/1 2>/dev/null
	echo 0 >$CFG/subsystems/$NQN/namespaces/1/enable 2>/dev/null
	rmdir $CFG/subsystems/$NQN/namespaces/1 2>/dev/null
	rmdir $CFG/subsystems/$NQN 2>/dev/null
	modprobe -r nvme_rdma nvmet_rdma 2>/dev/null
	ip link del veth0 2>/dev/null
	ip netns del ns1 2>/dev/null
	[ -n "$TMPD" ] && rm -rf "$TMPD"
	softiw_reset
}

need_root
need_cmd ip rdma dd cmp timeout setpriv prlimit
need_softiw
need_provider
ATTACK=$(dirname "$0")/../../build/selftests/cm_attack
[ -x "$ATTACK" ] || fail "$ATTACK not built (make -C selftests/softiw)"
modprobe nvmet_rdma 2>/dev/null && modprobe nvme_rdma 2>/dev/null ||
	skip "nvmet-rdma / nvme-rdma not available"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
[ -d $CFG ] || skip "nvmet configfs not available"
on_exit nvme_cleanup
softiw_reset
TMPD=$(mktemp -d) || fail "mktemp"

run modprobe softiw
run ip netns add ns1
run ip link add veth0 type veth peer name veth1 netns ns1
run ip addr add $ADDR/24 dev veth0
run ip link set veth0 up
run ip -n ns1 link set veth1 up
run rdma link add sw0 type softiw netdev veth0

# The target: a 16 MiB file-backed namespace on sw0's address.
run dd if=/dev/urandom of="$TMPD/backing" bs=1M count=16 status=none
run mkdir $CFG/subsystems/$NQN
echo 1 >$CFG/subsystems/$NQN/attr_allow_any_host || fail "allow_any_host"
run mkdir $CFG/subsystems/$NQN/namespaces/1
echo "$TMPD/backing" >$CFG/subsystems/$NQN/namespaces/1/device_path ||
	fail "device_path"
# /tmp is tmpfs in the VM, which takes no O_DIRECT on 6.1.
echo 1 >$CFG/subsystems/$NQN/namespaces/1/buffered_io || fail "buffered_io"
echo 1 >$CFG/subsystems/$NQN/namespaces/1/enable || fail "namespace enable"
run mkdir $CFG/ports/1
echo rdma >$CFG/ports/1/addr_trtype
echo ipv4 >$CFG/ports/1/addr_adrfam
echo $ADDR >$CFG/ports/1/addr_traddr
echo 4420 >$CFG/ports/1/addr_trsvcid
run ln -s $CFG/subsystems/$NQN $CFG/ports/1/subsystems/$NQN

dmesg_mark
# The host: one I/O queue keeps it small under emulation.
echo "transport=rdma,traddr=$ADDR,trsvcid=4420,nqn=$NQN,nr_io_queues=1" \
	>/dev/nvme-fabrics || fail "nvme connect over rdma: $(dmesg_new | tail -n 5)"
# The controller, then its namespace's block device (with native
# multipath the disk hangs off the subsystem, not the controller).
ctl=
dev=
for _ in $(seq 100); do
	for c in /sys/class/nvme-fabrics/ctl/nvme*; do
		[ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = $NQN ] && ctl=$c
	done
	for b in /sys/block/nvme*n1; do
		[ -e "$b/device/subsysnqn" ] || [ -e "$b/device/device/subsysnqn" ] || continue
		nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn")
		[ "$nqn" = $NQN ] && dev=/dev/$(basename "$b")
	done
	[ -n "$ctl" ] && [ -n "$dev" ] && [ -b "$dev" ] && break
	sleep 0.1
done
[ -n "$ctl" ] || fail "no controller for $NQN: $(dmesg_new | tail -n 5)"
[ -n "$dev" ] && [ -b "$dev" ] || fail "no namespace block device: $(ls /sys/block) $(dmesg_new | tail -n 5)"
check_eq "$(cat "$ctl/transport")" rdma "transport"
log "connected: $dev over rdma to $ADDR"

# An unprivileged process names every QP number of sw0 (the ULP's kernel
# QPs among them) in rdma_connect() and rdma_accept(): each is refused
# with EINVAL and counted, and the I/O below still verifies.
kq=$(rdma resource show qp link sw0 | awk '!/ pid / { for (i = 1; i < NF; i++) if ($i == "lqpn") print $(i + 1) }')
log "kernel QPs on sw0: $(echo $kq)"
[ -n "$kq" ] || fail "no kernel QPs on sw0: $(rdma resource show qp link sw0)"
for q in $kq; do
	[ "$q" -le 24 ] || fail "kernel QP $q outside the attacked range"
done
nobody_prep
r0=$(rdma_counter sw0 cm_qp_refused)
# shellcheck disable=SC2046
out=$(timeout 120 prlimit --memlock=unlimited:unlimited setpriv \
	--reuid=65533 --regid=65533 --clear-groups --inh-caps=-all \
	env RDMAV_DRIVERS="$RDMAV_DRIVERS" "$(realpath "$ATTACK")" \
	attack $ADDR 7360 $(seq 1 24) 2>&1)
rc=$?
[ $rc = 0 ] || fail "attacker exited $rc: $out"
n=$(echo "$out" | grep -c "^ok - rdma_.* refused: Invalid argument")
check_eq "$(($(rdma_counter sw0 cm_qp_refused) - r0))" "$n" "cm_qp_refused"
log "an unprivileged attacker was refused $n times"

# Read: the device shows the backing file's content.
run dd if="$dev" of="$TMPD/read1" bs=1M count=16 iflag=direct status=none
cmp -s "$TMPD/backing" "$TMPD/read1" || fail "read through nvme-rdma differs from the backing file"
# Write: new data reaches the backing file (direct I/O, then flush).
run dd if=/dev/urandom of="$TMPD/new" bs=1M count=8 status=none
run dd if="$TMPD/new" of="$dev" bs=1M seek=4 oflag=direct conv=fsync status=none
run dd if="$dev" of="$TMPD/read2" bs=1M skip=4 count=8 iflag=direct status=none
cmp -s "$TMPD/new" "$TMPD/read2" || fail "data written through nvme-rdma reads back different"
run dd if="$TMPD/backing" of="$TMPD/file2" bs=1M skip=4 count=8 status=none
cmp -s "$TMPD/new" "$TMPD/file2" || fail "data written through nvme-rdma is not in the backing file"
log "16 MiB read and 8 MiB written and verified"
# Kernel QPs never run their TX engine inside the ULP's own post_send:
# every run is the work item's.
w=$(rdma_counter sw0 tx_runs_worker)
[ "${w:-0}" -gt 0 ] || fail "tx_runs_worker after kernel ULP I/O: ${w:-none}"

check_lacks "$(dmesg_new)" "QP event" "kernel log during I/O"
check_lacks "$(dmesg_new)" "failed" "kernel log during I/O"
# Teardown through the ULP: the controller goes, the target sees it.
echo 1 >"$ctl/delete_controller" || fail "delete_controller"
wait_for 10 sh -c "[ ! -e $ctl ]" || fail "controller still present after delete"
exit 0
