#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Device removal never waits on the processes using the device
# (disassociate_ucontext): with unprivileged processes holding both
# devices open, one of them moving verified data (rping -V) and others
# idle with their QPs and rings mapped (ibv_rc_pingpong waiting for its
# peer):
#
#   1. `rdma link delete sw1` returns within 20 s; the rping on both
#      sides ends (with an error) instead of hanging, the idle holder
#      dies to a signal as usual;
#   2. with sw1 back and opened again from ns0 and from the initial
#      namespace, `ip netns del ns1` removes the veth pair with the
#      namespace, and both softiw devices go away within 20 s;
#
# and afterwards no connection endpoint is left (debugfs cm_endpoints),
# a new pair of devices moves verified data again, and the module
# unloads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping ibv_rc_pingpong
nobody_prep
DBG=/sys/kernel/debug/softiw
[ -r $DBG/cm_endpoints ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

# holder NAME NS DEV PORT: an idle process of nobody's with DEV open, a
# QP in INIT and its rings mapped, waiting for a peer that never comes;
# its pid in DP_LAST
holder() {
	# shellcheck disable=SC2086
	dp_bg "$1" "$2" 120 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
		ibv_rc_pingpong -d "$3" -g 0 -p "$4"
}


# 1. rdma link delete under a live connection and idle holders
# shellcheck disable=SC2086
dp_bg rping.srv ns1 120 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
	rping -s -a $DP_B -p 7600 -V -C 1000000 -S 4096
srv=$DP_LAST
dp_wait_listen ns1 7600
# shellcheck disable=SC2086
dp_bg rping.cli ns0 120 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
	rping -c -a $DP_B -p 7600 -V -C 1000000 -S 4096
cli=$DP_LAST
holder idle1 ns1 sw1 18600
idle1_pid=$DP_LAST
holder idle0 ns0 sw0 18601
idle0_pid=$DP_LAST
sleep 3
kill -0 $srv 2>/dev/null && kill -0 $cli 2>/dev/null ||
	{ cat "$DP_TMP/rping.srv" "$DP_TMP/rping.cli" >&2; fail "rping did not get going"; }
kill -0 "$idle1_pid" 2>/dev/null || { cat "$DP_TMP/idle1" >&2; fail "idle holder of sw1 did not start"; }
dmesg_mark
t0=$(date +%s)
timeout 20 rdma link delete sw1
rc=$?
[ $rc = 0 ] || fail "rdma link delete sw1 with processes holding it: exited $rc (124: timed out)"
log "rdma link delete sw1: $(($(date +%s) - t0)) s with processes holding it"
check_no_dev sw1
dp_gone $srv 20 || fail "rping server (on sw1) still running 20 s after its device went"
dp_gone $cli 20 || fail "rping client (peer of sw1) still running 20 s after the peer's device went"
wait $srv 2>/dev/null
wait $cli 2>/dev/null
log "rping server: $(tail -n 1 "$DP_TMP/rping.srv")"
log "rping client: $(tail -n 1 "$DP_TMP/rping.cli")"
check_lacks "$(cat "$DP_TMP/rping.srv" "$DP_TMP/rping.cli")" "data mismatch" "rping before the removal"
kill "$idle1_pid" "$idle0_pid"
dp_gone "$idle1_pid" 10 || fail "idle holder of the removed sw1 does not die"
dp_gone "$idle0_pid" 10 || fail "idle holder of sw0 does not die"

# 2. namespace teardown with the devices held from other namespaces
run ip netns exec ns1 rdma link add sw1 type softiw netdev veth1
nobody_prep
holder idle2 ns0 sw1 18602
idle2_pid=$DP_LAST
holder idle3 ns0 sw0 18603
idle3_pid=$DP_LAST
$AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" timeout 120 \
	ibv_rc_pingpong -d sw1 -g 0 -p 18604 >"$DP_TMP/idle4" 2>&1 &
idle4_pid=$!
DP_PIDS="$DP_PIDS $idle4_pid"
sleep 2
for p in "$idle2_pid" "$idle3_pid" "$idle4_pid"; do
	kill -0 "$p" 2>/dev/null || { cat "$DP_TMP"/idle* >&2; fail "an idle holder did not start"; }
done
run ip netns del ns1
wait_for 20 sh -c "! [ -e $SYSIB/sw1 ] && ! [ -e $SYSIB/sw0 ]" ||
	fail "softiw devices still there 20 s after ns1 (and the veth pair) went: $(ls $SYSIB)"
log "ns1 deleted: sw0 and sw1 removed with processes holding them"
kill "$idle2_pid" "$idle3_pid" "$idle4_pid"
for p in "$idle2_pid" "$idle3_pid" "$idle4_pid"; do
	dp_gone "$p" 10 || fail "idle holder $p does not die after its device went"
done
wait_for 10 sh -c "[ \$(cat $DBG/cm_endpoints) = 0 ]" ||
	fail "$(cat $DBG/cm_endpoints) connection endpoints left"

# 3. the module still works: a new pair moves verified data
run ip netns add ns1
run ip -n ns1 link set lo up
run ip link add veth0 netns ns0 type veth peer name veth1 netns ns1
run ip -n ns0 addr add $DP_A/24 dev veth0
run ip -n ns1 addr add $DP_B/24 dev veth1
run ip -n ns0 link set veth0 up
run ip -n ns1 link set veth1 up
run ip netns exec ns0 rdma link add sw0 type softiw netdev veth0
run ip netns exec ns1 rdma link add sw1 type softiw netdev veth1
nobody_prep
dp_bg after.srv ns1 60 rping -s -a $DP_B -p 7601 -V -C 20 -S 4096
srv=$DP_LAST
dp_wait_listen ns1 7601
dp_fg after.cli ns0 60 "rping client after the removals" \
	rping -c -a $DP_B -p 7601 -V -C 20 -S 4096
dp_wait after.srv $srv "rping server after the removals"
check_lacks "$(dmesg_new)" "hung" "kernel log"
exit 0
