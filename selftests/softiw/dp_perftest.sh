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
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat
iters=${DP_PERF_ITERS:-5}
port=18515

# perf NAME TOOL ARGS...: one server/client pair; assert a report line
# ("#bytes #iterations ..." followed by a numeric row) on the client.
perf() {
	name=$1 tool=$2
	shift 2
	port=$((port + 1))
	dp_bg "$name.srv" ns1 300 "$tool" -R -F -d sw1 -p $port "$@"
	srv=$DP_LAST
	dp_wait_listen ns1 $port
	dp_fg "$name.cli" ns0 300 "$name client" \
		"$tool" -R -F -d sw0 -p $port "$@" $DP_B
	dp_wait "$name.srv" $srv "$name server"
	rows=$(grep -cE '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$DP_TMP/$name.cli")
	[ "$rows" -gt 0 ] || { cat "$DP_TMP/$name.cli" >&2; fail "$name: no report line"; }
	log "$name: $rows report line(s)"
	grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$DP_TMP/$name.cli" | tail -n 1
}

for op in write read send; do
	perf "ib_${op}_bw-a" ib_${op}_bw -a -n $iters
	[ "$rows" -ge 20 ] || fail "ib_${op}_bw -a: $rows sizes reported, want all (>= 20)"
	perf "ib_${op}_bw-q4" ib_${op}_bw -q 4 -s 65536 -n $((iters * 4))
done
for op in write read send; do
	perf "ib_${op}_lat" ib_${op}_lat -s 64 -n $((iters * 20))
done
exit 0
