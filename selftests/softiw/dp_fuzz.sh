#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What an unprivileged process can reach, fuzzed (verbs_fuzz.c): for
# DP_FUZZ_SECS seconds (default 30; `make fuzz-vm` runs 600 on the debug
# kernel) DP_FUZZ_PROCS processes (default 3) of nobody's on sw0 (ns0)
# issue random verbs, connect to each other's listeners, and write random
# bytes into their own rings and doorbells.  DP_FUZZ_SEED replays a run
# (the seed is printed).  Afterwards:
#
#   - every process ended by itself (no call hung) with its canary (a
#     buffer registered without rights) untouched;
#   - once they are gone, no connection endpoint, listening socket or QP
#     is left;
#   - a new rping -V between the namespaces passes;
#
# and the module unloads (dp_cleanup); the VM runner's log check (and the
# debug kernel's KASAN, lockdep and kmemleak) judge the kernel.
# timeout=900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping setpriv
FUZZ=$(dirname "$0")/../../build/selftests/verbs_fuzz
[ -x "$FUZZ" ] || fail "$FUZZ not built (make -C selftests/softiw)"
D=/sys/kernel/debug/softiw
secs=${DP_FUZZ_SECS:-30}
procs=${DP_FUZZ_PROCS:-3}
case $secs$procs in *[!0-9]*) fail "DP_FUZZ_SECS and DP_FUZZ_PROCS must be numbers" ;; esac
[ $((secs + 300)) -le $((900 * ${SOFTIW_TIMEOUT_SCALE:-1})) ] ||
	fail "DP_FUZZ_SECS=$secs does not fit this test's timeout (900 s x ${SOFTIW_TIMEOUT_SCALE:-1})"
nobody_prep

# shellcheck disable=SC2086
ip netns exec ns0 timeout $((secs + 240)) $AS_NOBODY \
	env RDMAV_DRIVERS="$RDMAV_DRIVERS" "$(realpath "$FUZZ")" \
	${DP_FUZZ_SEED:+-s $DP_FUZZ_SEED} -t "$secs" -p "$procs" $DP_A 7420 \
	>"$DP_TMP/fuzz" 2>&1
rc=$?
cat "$DP_TMP/fuzz"
[ $rc = 0 ] || fail "verbs_fuzz exited $rc (124: timed out)"
check_contains "$(cat "$DP_TMP/fuzz")" "ok - $procs fuzz processes ended by themselves, canaries intact" "verbs_fuzz"
actions=$(sed -n 's/^# process .*: \([0-9]*\) actions.*/\1/p' "$DP_TMP/fuzz" |
	awk '{ n += $1 } END { print n + 0 }')
log "verbs_fuzz: $actions actions in $secs s by $procs processes"

wait_for 30 sh -c "[ \$(cat $D/cm_endpoints) = 0 ]" ||
	fail "$(cat $D/cm_endpoints) connection endpoints left after the fuzz"
check_eq "$(cat $D/cm_listen_sockets)" 0 "listening sockets after the fuzz"
left=$(rdma resource show qp 2>/dev/null | grep 'link sw[01]/')
[ -z "$left" ] || fail "QPs left after the fuzz: $left"

dp_bg srv ns1 120 rping -s -a $DP_B -p 7430 -V -C 20 -S 65535
srv=$DP_LAST
dp_wait_listen ns1 7430
dp_fg cli ns0 120 "rping after the fuzz" rping -c -a $DP_B -p 7430 -V -C 20 -S 65535
dp_wait srv $srv "rping server after the fuzz"
exit 0
