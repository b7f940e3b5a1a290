#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A soak: DP_SOAK_MINUTES (default 1; `make soak` runs 10 on the debug
# kernel) of mixed traffic, every part of it in a loop of its own, all
# of them at once, as unprivileged processes (lib.sh AS_NOBODY):
#
#   rping ns0 -> ns1     rping -V (Send, Read, Write; data compared),
#   rping ns1 -> ns0     sizes cycling 64, 4096 and 65535 octets
#   verbs_ops            the verbs cases over loopback on sw1: every
#                        operation and size, MRs registered and
#                        deregistered each case, data compared
#   cm_cycle             connections coming and going, 3 at a time
#   ib_write_bw -R       two QPs of bulk Writes between the namespaces
#                        (load only: perftest compares no data)
#
# Every round of every loop must pass; at the end nothing is left (no
# connection endpoint, no QP) and the module unloads (dp_cleanup), and
# the VM runner's log check and kmemleak scan say no report and no leak.
# Prints the rounds of each loop and the rping volume compared.
# timeout=900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping ib_write_bw setpriv
B=$(dirname "$0")/../../build/selftests
CMSYNC=$(dirname "$0")/../../build/cmsync/cmsync.so
for p in "$B/verbs_ops" "$B/cm_cycle" "$CMSYNC"; do
	[ -e "$p" ] || fail "$p not built (make -C selftests/softiw)"
done
B=$(realpath "$B")
CMSYNC=$(realpath "$CMSYNC")
D=/sys/kernel/debug/softiw
mins=${DP_SOAK_MINUTES:-1}
case $mins in ''|*[!0-9]*|0) fail "DP_SOAK_MINUTES must be a whole number of minutes >= 1, not '$mins'" ;; esac
# the harness's timeout must cover the soak: the settings' is 900 s
[ $((mins * 60 + 240)) -le $((900 * ${SOFTIW_TIMEOUT_SCALE:-1})) ] ||
	fail "DP_SOAK_MINUTES=$mins does not fit this test's timeout (900 s x ${SOFTIW_TIMEOUT_SCALE:-1})"
nobody_prep
# cmsync's listen file must be writable by nobody (DP_TMP is root's, 0700)
SYNC=$DP_TMP/sync
mkdir "$SYNC" && chmod 0755 "$DP_TMP" && chown 65534 "$SYNC" ||
	fail "cannot make $SYNC for nobody"
end=$(($(date +%s) + mins * 60))
FAILS=$DP_TMP/fails
: >"$FAILS"

# nb NS SECS NAME CMD...: CMD as nobody in NS under a timeout, its output
# appended to $DP_TMP/NAME.log
nb() {
	_ns=$1 _secs=$2 _name=$3
	shift 3
	# shellcheck disable=SC2086
	ip netns exec "$_ns" timeout "$_secs" $AS_NOBODY \
		env RDMAV_DRIVERS="$RDMAV_DRIVERS" "$@" >>"$DP_TMP/$_name.log" 2>&1
}

# loop NAME BODY: run the function BODY until the soak ends; each round
# must return 0, else the loop records the failure and stops.  Rounds
# are counted in $DP_TMP/NAME.rounds.
loop() {
	(
		r=0
		while [ "$(date +%s)" -lt $end ]; do
			if ! $2 $r; then
				echo "$1: round $r failed" >>"$FAILS"
				tail -n 20 "$DP_TMP/$1.log" >>"$FAILS"
				break
			fi
			r=$((r + 1))
			echo $r >"$DP_TMP/$1.rounds"
		done
	) &
	DP_PIDS="$DP_PIDS $!"
}

size_of() { _i=$(($1 % 3)); set -- 64 4096 65535; shift $_i; echo "$1"; }

# rping_round SRV_NS CLI_NS ADDR PORT ROUND
rping_round() {
	_sz=$(size_of "$5")
	ip netns exec "$1" timeout 120 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
		rping -s -a "$3" -p "$4" -V -C 20 -S "$_sz" >>"$DP_TMP/rp$4.srv.log" 2>&1 &
	_srv=$!
	dp_wait_listen "$1" "$4"
	nb "$2" 120 "rp$4" rping -c -a "$3" -p "$4" -V -C 20 -S "$_sz" || {
		kill $_srv 2>/dev/null; wait $_srv; return 1; }
	wait $_srv || return 1
	! grep -q "data mismatch" "$DP_TMP/rp$4.log" "$DP_TMP/rp$4.srv.log" || return 1
	echo $((20 * _sz)) >>"$DP_TMP/rp$4.octets"
}
rping_fwd() { rping_round ns1 ns0 $DP_B 7410 "$1"; }
rping_back() { rping_round ns0 ns1 $DP_A 7411 "$1"; }

verbs_round() {
	nb ns1 280 verbs env VERBS_ADDR=$DP_B "$B/verbs_ops"
}

cycle_round() {
	ip netns exec ns1 timeout 120 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
		"$B/cm_cycle" -s $DP_B 7412 30 >>"$DP_TMP/cycle.srv.log" 2>&1 &
	_srv=$!
	dp_wait_listen ns1 7412
	nb ns0 120 cycle "$B/cm_cycle" -c $DP_B 7412 30 3 || {
		kill $_srv 2>/dev/null; wait $_srv; return 1; }
	wait $_srv
}

bw_round() {
	_sync=$SYNC/bw.listening
	rm -f "$_sync"
	ip netns exec ns1 timeout 120 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
		LD_PRELOAD="$CMSYNC" SOFTIW_CM_SYNC="$_sync" \
		ib_write_bw -R -F -q 2 -s 65536 -n 200 -p 7413 \
		>>"$DP_TMP/bw.srv.log" 2>&1 &
	_srv=$!
	nb ns0 120 bw env LD_PRELOAD="$CMSYNC" SOFTIW_CM_SYNC="$_sync" \
		ib_write_bw -R -F -q 2 -s 65536 -n 200 -p 7413 $DP_B || {
		kill $_srv 2>/dev/null; wait $_srv; return 1; }
	wait $_srv
}

loop rping_fwd rping_fwd
loop rping_back rping_back
loop verbs verbs_round
loop cycle cycle_round
loop bw bw_round
log "soak: $mins min of mixed traffic"
for p in $DP_PIDS; do wait "$p"; done
DP_PIDS=
if [ -s "$FAILS" ]; then
	cat "$FAILS" >&2
	fail "a loop of the soak failed"
fi
octets=0
for f in "$DP_TMP"/rp*.octets; do
	for o in $(cat "$f"); do octets=$((octets + o)); done
done
for l in rping_fwd rping_back verbs cycle bw; do
	log "$l: $(cat "$DP_TMP/$l.rounds" 2>/dev/null || echo 0) rounds"
	[ -s "$DP_TMP/$l.rounds" ] || fail "$l: not one round in $mins min"
done
log "rping: $octets octets compared, each moved by Send, Read and Write"
wait_for 30 sh -c "[ \$(cat $D/cm_endpoints) = 0 ]" ||
	fail "$(cat $D/cm_endpoints) connection endpoints left after the soak"
left=$(rdma resource show qp 2>/dev/null | grep 'link sw[01]/')
[ -z "$left" ] || fail "QPs left after the soak: $left"
exit 0
