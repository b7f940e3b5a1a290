#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A QP's lifecycle raced from two threads of one unprivileged process
# (build/selftests/cm_attack hammer, cm_attack.c): one thread posts Sends
# and RDMA Reads on a QP without pause, ringing its doorbell each time,
# while the other connects it over loopback on sw0 (ns0) to a second QP,
# tears the connection down in one of three ways, resets both QPs
# (ERROR -> RESET -> INIT) and connects them again, DP_LIFECYCLE_CYCLES
# times (default 1500).  The engines' locks, work item and buffers live
# as long as the QP (softiw_txrx_qp_init()); each connection sets up only
# its own part, holding the engine, so a doorbell, a deferred kick or the
# work item racing a teardown and a reconnect finds either the old stream
# or the new one whole.  Afterwards a new connection carries a verified
# Send, nothing is left (debugfs cm_endpoints, rdma resource), and the
# guest's kernel log is clean (the VM runner checks it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup setpriv
PROG=$(dirname "$0")/../../build/selftests/cm_attack
[ -x "$PROG" ] || fail "$PROG not built (make -C selftests/softiw)"
D=/sys/kernel/debug/softiw
[ -r $D/cm_endpoints ] || fail "no debugfs softiw/cm_endpoints"
nobody_prep
cycles=${DP_LIFECYCLE_CYCLES:-1500}

# shellcheck disable=SC2086
dp_fg hammer ns0 280 "lifecycle hammer" $AS_NOBODY \
	env RDMAV_DRIVERS="$RDMAV_DRIVERS" "$(realpath "$PROG")" \
	hammer $DP_A 7380 "$cycles"
out=$(cat "$DP_TMP/hammer")
echo "$out"
check_lacks "$out" "not ok" "hammer"
check_contains "$out" "ok - $cycles connect/teardown/reset cycles" "hammer"
check_contains "$out" "ok - after the cycles a new connection carries a verified Send" "hammer"
wait_for 15 sh -c "[ \$(cat $D/cm_endpoints) = 0 ]" ||
	fail "$(cat $D/cm_endpoints) endpoints left after the hammer"
left=$(rdma resource show qp link sw0 2>/dev/null)
[ -z "$left" ] || fail "QPs left after the hammer: $left"
exit 0
