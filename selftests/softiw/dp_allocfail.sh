#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures in softiw: failslab and fail_page_alloc restricted,
# by their stack-trace filter, to allocations with softiw.ko's text on
# the stack (its own and what it asks of ib_umem, sockets and TCP), with
# GFP_KERNEL allocations and order-0 pages included.  Needs a kernel
# with fault injection (the debug kernel of `make check-debug`); others
# skip, saying so.
#
#   1. systematic (build/selftests/fault_sweep, fault_sweep.c): every
#      allocation site of each verb (open, PD, CQ, SRQ, QP, MRs, MW,
#      modify) and of an rdma_cm connection's life (listen, connect,
#      accept, a verified Send, disconnect) failed one at a time through
#      /proc/thread-self/fail-nth; each failure is an error to the caller
#      or absorbed, never a hang or a failed destroy.
#   2. under load, for each N of DP_ALLOCFAIL_INTERVALS (default "101";
#      "3 17 101" is the longer sweep, about 9 minutes on the debug
#      kernel; empty skips this phase, saying so): every Nth filtered
#      allocation of any task (softiw's work items and softirq paths
#      too) fails while rping -V moves data between the namespaces and
#      cm_cycle churns connections; every process ends by itself (an
#      error is fine, a hang or a data mismatch is not), after which no
#      endpoint or QP is left and a new rping -V passes.  A process that
#      does not end gets its threads' kernel stacks and every QP and CQ
#      printed.  The filter rejects stacks through
#      ib_uverbs_comp_handler(): it drops a completion event when its own
#      allocation fails, and rping's CQ thread, waiting for the event of
#      its flushed receive, then waits for ever: the likely cause of an
#      rping client that never ended after its DISCONNECTED, seen once at
#      N = 101 before the reject range and not since.
#
# The module then unloads (dp_cleanup) and the VM runner's kmemleak scan
# and log check prove no leak, oops or lockdep report.  The number of
# failures injected is printed.
# timeout=600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
[ -d $FS ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d $FS ] && [ -d $FP ] && [ -w /proc/self/fail-nth ] ||
	skip "this kernel has no failslab/fail_page_alloc/fail-nth (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS): make check-debug runs this test on the debug kernel"
[ -r $FS/require-start ] ||
	skip "this kernel's fault injection has no stack-trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
dp_setup rping pgrep
SWEEP=$(dirname "$0")/../../build/selftests/fault_sweep
CYCLE=$(dirname "$0")/../../build/selftests/cm_cycle
[ -x "$SWEEP" ] || fail "$SWEEP not built (make -C selftests/softiw)"
[ -x "$CYCLE" ] || fail "$CYCLE not built (make -C selftests/softiw)"
D=/sys/kernel/debug/softiw
TIMES=1000000

# off, keeping the count of failures injected (times counts down)
faults_off() {
	for a in $FS $FP; do echo 0 >$a/probability; done
}
allocfail_cleanup() {
	faults_off 2>/dev/null
	dp_cleanup
}
on_exit allocfail_cleanup

# softiw's text: from its lowest text symbol to the first symbol of
# anything else above its highest one (/proc/kallsyms, sorted)
range=$(sort /proc/kallsyms | awk '
	$2 ~ /^[tT]$/ && $4 == "[softiw]" { if (!lo) lo = $1; hi = $1; next }
	hi && !end && $1 != hi { end = $1 }
	END { print lo, hi, end }')
# shellcheck disable=SC2086
set -- $range
[ $# -ge 2 ] || fail "cannot find softiw's text in /proc/kallsyms (got '$range')"
[ "$1" != 0000000000000000 ] || fail "/proc/kallsyms hides addresses (kptr_restrict)"
start=0x$1
if [ $# = 3 ]; then end=0x$3; else end=$(printf '0x%x' $((0x$2 + 65536))); fi
log "softiw text: $start..$end"
# ib_uverbs_comp_handler(), which softiw calls to signal a process's
# completion channel, drops the event when its GFP_ATOMIC allocation
# fails (ib_core 6.1 and 6.12): no driver can undo that, and a process
# waiting for that event (rping's CQ thread) waits for ever.  The filter
# rejects stacks through it (the one reject range), so every other
# allocation under softiw stays in.
range=$(sort /proc/kallsyms | awk '
	$3 == "ib_uverbs_comp_handler" { lo = $1; next }
	lo && !end && $1 != lo { end = $1 }
	END { print lo, end }')
# shellcheck disable=SC2086
set -- $range
[ $# = 2 ] || fail "cannot find ib_uverbs_comp_handler in /proc/kallsyms (got '$range')"
rstart=0x$1 rend=0x$2
log "rejected: ib_uverbs_comp_handler $rstart..$rend"

# wr VALUE FILE: a fault-injection knob, checked
wr() { echo "$1" >"$2" || fail "cannot write $1 to $2"; }
for a in $FS $FP; do
	wr 0 $a/probability
	wr 1 $a/interval
	wr $TIMES $a/times
	wr 0 $a/space
	wr 0 $a/verbose	# a stack dump per fault would read as a report
	wr N $a/task-filter
	wr 32 $a/stacktrace-depth
	wr $start $a/require-start
	wr $end $a/require-end
	wr $rstart $a/reject-start
	wr $rend $a/reject-end
	wr N $a/ignore-gfp-wait
	[ "$(cat $a/require-start)" != 0 ] ||
		fail "$a/require-start did not take $start: the filter would be off"
done
wr N $FS/cache-filter
wr N $FP/ignore-gfp-highmem
wr 0 $FP/min-order
log "failslab require-start $(cat $FS/require-start) require-end $(cat $FS/require-end)"

injected() {
	echo $(( (TIMES - $(cat $FS/times)) + (TIMES - $(cat $FP/times)) ))
}
nothing_left() {
	wait_for 30 sh -c "[ \$(cat $D/cm_endpoints) = 0 ]" ||
		fail "$1: $(cat $D/cm_endpoints) connection endpoints left"
	wait_for 30 sh -c "! rdma resource show qp 2>/dev/null | grep -q 'link sw[01]/'" ||
		fail "$1: QPs left: $(rdma resource show qp)"
}

# hang_report PID NAME: what a process that should have ended waits for
# (PID is the timeout(1) of dp_bg; its child is the program), and the
# state of every QP and CQ, before timeout(1) kills it
hang_report() {
	faults_off
	echo "# $2 still running: its threads' kernel stacks and softiw's QPs and CQs"
	for c in $(pgrep -P "$1"); do
		for t in /proc/$c/task/*; do
			echo "# $2 pid $c thread ${t##*/}: $(cat $t/wchan 2>/dev/null)"
			sed 's/^/#   /' $t/stack 2>/dev/null
		done
	done
	rdma -dd resource show qp 2>&1 | sed 's/^/#   /'
	rdma -dd resource show cq 2>&1 | sed 's/^/#   /'
}

since() { echo "$(($(date +%s) - t0)) s"; }
t0=$(date +%s)
# 1. systematic, one site at a time (fail-nth needs probability 0 here:
# only the armed call fails)
dp_fg sweep ns0 600 "fault_sweep" "$SWEEP" sw0 $DP_A 7390
cat "$DP_TMP/sweep"
check_lacks "$(cat "$DP_TMP/sweep")" "not ok" "fault_sweep"
nothing_left "after the systematic sweep"
log "systematic sweep: $(injected) failures injected ($(since))"
# a filter that matched nothing would pass every step with 0 sites
[ "$(injected)" -gt 0 ] || fail "the sweep injected no failure: the stack filter matches nothing"
grep -qE '^ok [0-9]+ - create QP: [1-9][0-9]* allocation sites' "$DP_TMP/sweep" ||
	fail "create QP reached no allocation site"

# 2. every Nth allocation of any task fails while data and connections move
count=${DP_ALLOCFAIL_COUNT:-40}
intervals=${DP_ALLOCFAIL_INTERVALS-101}
[ -n "$intervals" ] ||
	log "the phase under load is not run: DP_ALLOCFAIL_INTERVALS is empty"
for n in $intervals; do
	case $n in *[!0-9]* | 0*) fail "DP_ALLOCFAIL_INTERVALS must be numbers from 1: $intervals" ;; esac
done
for n in $intervals; do
	before=$(injected)
	dp_bg srv$n ns1 240 rping -s -a $DP_B -p 7391 -V -C "$count" -S 65535
	srv=$DP_LAST
	dp_bg cyc_s$n ns1 240 env CM_CYCLE_IDLE_S=30 "$CYCLE" -s $DP_B 7392 30
	cyc_s=$DP_LAST
	dp_wait_listen ns1 7391
	dp_wait_listen ns1 7392
	for a in $FS $FP; do
		wr $n $a/interval
		wr 100 $a/probability
	done
	dp_bg cli$n ns0 240 rping -c -a $DP_B -p 7391 -V -C "$count" -S 65535
	cli=$DP_LAST
	dp_bg cyc_c$n ns0 240 env CM_CYCLE_IDLE_S=30 "$CYCLE" -c $DP_B 7392 30 3
	cyc_c=$DP_LAST
	# The clients end by themselves (124 is timeout's "it hung"), and
	# so does cm_cycle's server (it gives up after CM_CYCLE_IDLE_S
	# without an event).  rping's server waits for a client for ever:
	# it must end by itself only when its client moved all the data.
	# one deadline for all three, 40 s before timeout(1)'s
	deadline=$(($(date +%s) + 200))
	for p in "$cli cli$n" "$cyc_c cyc_c$n" "$cyc_s cyc_s$n"; do
		set -- $p
		left=$((deadline - $(date +%s)))
		[ $left -ge 1 ] || left=1
		dp_gone "$1" $left || hang_report "$1" "$2"
		wait "$1"
		rc=$?
		[ $rc = 124 ] && { cat "$DP_TMP/$2" >&2; fail "interval $n: $2 hung (timed out)"; }
		log "interval $n: $2 exited $rc"
		[ "$2" = cli$n ] && cli_rc=$rc
	done
	if ! dp_gone $srv 30; then
		[ $cli_rc = 0 ] && {
			hang_report $srv srv$n
			fail "interval $n: rping server still running 30 s after its client finished"
		}
		kill $srv
		log "interval $n: rping server killed: its client failed (exit $cli_rc)"
	fi
	wait $srv
	faults_off
	for f in cli$n srv$n; do
		check_lacks "$(cat "$DP_TMP/$f")" "data mismatch" "interval $n: rping $f"
	done
	log "interval $n: $(( $(injected) - before )) failures injected under load ($(since))"
	nothing_left "interval $n"
	# the device still works
	dp_bg vsrv$n ns1 120 rping -s -a $DP_B -p 7393 -V -C 10 -S 65535
	vsrv=$DP_LAST
	dp_wait_listen ns1 7393
	dp_fg vcli$n ns0 120 "rping after interval $n" \
		rping -c -a $DP_B -p 7393 -V -C 10 -S 65535
	dp_wait vsrv$n $vsrv "rping server after interval $n"
	faults_off
done
log "allocation failures injected in all: $(injected)"
exit 0
