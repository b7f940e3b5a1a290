#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perftest over rdma_cm (-R) between two softiw devices: bandwidth for
# Write, Read and Send over all sizes (-a) and with 4 QPs (-q 4), and the
# three latency tests.  Each run must exit 0 on both ends and print its
# report line.  -F: TCG's CPU frequency is meaningless.
#
#   +---------- ns0 ----------+        +---------- ns1 ----------+
#   | client -> sw0 / veth0   |        | sw1 / veth1 <- server   |
#   |        10.78.0.1/24 ====+========+==== 10.78.0.2/24        |
#   +-------------------------+        +-------------------------+
#
# DP_PERF_ITERS (default 5) iterations per size keep the run to a few
# minutes under TCG.
#
# perftest 4.5 cannot verify what it moves, so a companion runs beside
# the bandwidth tests on the same two devices: rping -V (Send, RDMA Read
# and RDMA Write of 16 KiB, every octet compared), 50 iterations a
# connection, one connection after another.  Every companion run must
# exit 0 on both ends without a data mismatch.  The latency tests run
# alone: perftest's clock calibration fails on a CPU TCG shares with
# the companion.
#
# perftest -R does not order its client's second rdma_cm connect (the
# test's QPs, after the parameter exchange over the first) after its
# server's second rdma_cm listen; a lost race is a correct REJECTED
# (-ECONNREFUSED) that perftest 4.5 then crashes on.  Both ends run with
# build/cmsync/cmsync.so (tools/cmsync/cmsync.c) preloaded: each
# server listen is counted in a file the client's connects wait on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat
iters=${DP_PERF_ITERS:-5}
port=18515
CMSYNC=${CMSYNC:-$(dirname "$0")/../../build/cmsync/cmsync.so}
[ -r "$CMSYNC" ] || fail "$CMSYNC not built (make -C tools/cmsync)"

# perf_once NAME TOOL ARGS...: one server/client pair; $rows is the
# client's count of numeric report rows.
perf_once() {
	name=$1 tool=$2
	shift 2
	port=$((port + 1))
	sync="$DP_TMP/$name.listening"
	rm -f "$sync"
	dp_bg "$name.srv" ns1 300 env LD_PRELOAD="$CMSYNC" \
		SOFTIW_CM_SYNC="$sync" ${DP_PERF_SRV_ENV:-} \
		"$tool" -R -F -d sw1 -p $port "$@"
	srv=$DP_LAST
	dp_wait_listen ns1 $port
	# a failing client kills its server's wait; show the server's side too
	ip netns exec ns0 timeout 300 env LD_PRELOAD="$CMSYNC" \
		SOFTIW_CM_SYNC="$sync" ${DP_PERF_CLI_ENV:-} \
		"$tool" -R -F -d sw0 -p $port "$@" $DP_B >"$DP_TMP/$name.cli" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		cat "$DP_TMP/$name.cli" >&2
		sleep 2
		echo "--- $name server:" >&2
		cat "$DP_TMP/$name.srv" >&2
		fail "$name client: exited $rc (124: timed out)"
	fi
	dp_wait "$name.srv" $srv "$name server"
	rows=$(grep -cE '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$DP_TMP/$name.cli")
}

# perf NAME TOOL ARGS...: assert a report line ("#bytes #iterations ..."
# followed by a numeric row) on the client.  A latency test whose clock
# calibration failed under TCG ("Correlation coefficient r^2 < 0.9": its
# row is all inf) is run again, up to three times in all.
perf() {
	for try in 1 2 3; do
		perf_once "$@"
		[ "$rows" -gt 0 ] && break
		grep -q 'Correlation coefficient' "$DP_TMP/$1.cli" || break
		log "$1: perftest's clock calibration failed (run $try)"
	done
	[ "$rows" -gt 0 ] || { cat "$DP_TMP/$1.cli" >&2; fail "$1: no report line"; }
	log "$1: $rows report line(s)"
	grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$DP_TMP/$1.cli" | tail -n 1
}

# companion: rping -V runs back to back until $DP_TMP/comp.stop exists;
# "RUN CLIENT_RC SERVER_RC" per run in comp.runs, the first failed run's
# output in comp.err
companion() {
	# killed (a failed test's cleanup): its rpings go first, so nothing
	# holds the devices when dp_cleanup unloads the module
	trap 'kill $_cs $_cc 2>/dev/null; wait; exit 0' TERM
	_i=0
	while [ ! -e "$DP_TMP/comp.stop" ]; do
		_cs= _cc=
		_i=$((_i + 1))
		_p=$((7300 + _i))
		ip netns exec ns1 timeout 120 rping -s -a $DP_B -p $_p -V -C 50 \
			-S 16384 >"$DP_TMP/comp.srv" 2>&1 &
		_cs=$!
		# perftest keeps TCG's CPUs busy: a longer wait than
		# dp_wait_listen's
		wait_for 30 sh -c "ip netns exec ns1 ss -Htln 'sport = :$_p' | grep -q ." ||
			sleep 1
		ip netns exec ns0 timeout 120 rping -c -a $DP_B -p $_p -V -C 50 \
			-S 16384 >"$DP_TMP/comp.cli" 2>&1 &
		_cc=$!
		wait $_cc
		_crc=$?
		wait $_cs
		_src=$?
		echo "$_i $_crc $_src" >>"$DP_TMP/comp.runs"
		if [ $_crc != 0 ] || [ $_src != 0 ] ||
		   grep -q mismatch "$DP_TMP/comp.cli" "$DP_TMP/comp.srv"; then
			cat "$DP_TMP/comp.cli" "$DP_TMP/comp.srv" >"$DP_TMP/comp.err"
			break
		fi
	done
}
: >"$DP_TMP/comp.runs"
companion &
comp=$!
DP_PIDS="$DP_PIDS $comp"

for op in write read send; do
	perf "ib_${op}_bw-a" ib_${op}_bw -a -n $iters
	[ "$rows" -ge 20 ] || fail "ib_${op}_bw -a: $rows sizes reported, want all (>= 20)"
	perf "ib_${op}_bw-q4" ib_${op}_bw -q 4 -s 65536 -n $((iters * 4))
done
touch "$DP_TMP/comp.stop"
wait $comp
if [ -e "$DP_TMP/comp.err" ]; then
	cat "$DP_TMP/comp.err" >&2
	fail "companion rping run $(tail -n 1 "$DP_TMP/comp.runs") (run, client and server exit) failed"
fi
runs=$(wc -l <"$DP_TMP/comp.runs")
[ "$runs" -ge 1 ] || fail "no companion rping run finished"
log "companion: $runs rping -V runs of 50 x 16 KiB beside the bandwidth tests, all verified"

for op in write read send; do
	perf "ib_${op}_lat" ib_${op}_lat -s 64 -n $((iters * 20))
done
exit 0
