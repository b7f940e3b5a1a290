#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Network faults under transfers whose data is compared (rping -V:
# Send, RDMA Read and RDMA Write of 64 KiB - 1 each iteration, client
# sw0 in ns0, server sw1 in ns1).  TCP must hide every one of them from
# the RDMA layer: all iterations complete, no data mismatch.
#
#   netem on both veth ends, one at a time:
#     loss        3 % of packets dropped
#     reorder     10 ms delay, 25 % of packets sent at once (reordered)
#     duplicate   5 % of packets sent twice
#     jitter      20 ms +- 10 ms delay
#   link down and up: the server's veth down for 3 s under an endless
#     rping -V -v, then up: the port goes DOWN and ACTIVE again, both
#     ends stay up and iterations go on after the link is back
#
# Each case's time is printed.  The peer's namespace deleted, its device
# deleted and rmmod mid-transfer are dp_removal.sh and dp_cmstates.sh.
# timeout=600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping tc
modprobe sch_netem 2>/dev/null
count=${DP_NETFAULTS_COUNT:-40}
port=7400

# transfer WHAT COUNT [ACTION]: rping -V COUNT iterations ns0 -> ns1,
# running ACTION (a shell function) while the client moves data
transfer() {
	port=$((port + 1))
	t0=$(date +%s%N)
	dp_bg "$1.srv" ns1 300 rping -s -a $DP_B -p $port -V -C "$2" -S 65535
	_srv=$DP_LAST
	dp_wait_listen ns1 $port
	dp_bg "$1.cli" ns0 300 rping -c -a $DP_B -p $port -V -C "$2" -S 65535
	_cli=$DP_LAST
	[ -n "${3:-}" ] && $3
	dp_wait "$1.cli" $_cli "rping client ($1)"
	dp_wait "$1.srv" $_srv "rping server ($1)"
	check_lacks "$(cat "$DP_TMP/$1.cli" "$DP_TMP/$1.srv")" "data mismatch" "rping ($1)"
	ms=$((($(date +%s%N) - t0) / 1000000))
	log "$1: $2 x 64 KiB - 1 verified in $ms ms"
}

# netem ARGS...: the same netem qdisc on both veth ends
netem() {
	run ip netns exec ns0 tc qdisc replace dev veth0 root netem "$@"
	run ip netns exec ns1 tc qdisc replace dev veth1 root netem "$@"
}
netem_off() {
	run ip netns exec ns0 tc qdisc del dev veth0 root
	run ip netns exec ns1 tc qdisc del dev veth1 root
}

if ! ip netns exec ns0 tc qdisc replace dev veth0 root netem delay 1ms 2>"$DP_TMP/tc"; then
	skip "no netem qdisc in this kernel (sch_netem): $(cat "$DP_TMP/tc")"
fi
run ip netns exec ns0 tc qdisc del dev veth0 root

transfer clean "$count"
netem loss 3%
transfer loss "$count"
netem_off
netem delay 10ms reorder 25% 50%
transfer reorder "$count"
netem_off
netem duplicate 5%
transfer duplicate "$count"
netem_off
netem delay 20ms 10ms
transfer jitter "$count"
netem_off

# The link goes down for 3 s while an endless rping -V -v (1000
# octets, each iteration's data printed) runs, then up: the port goes
# DOWN and ACTIVE again, and the iterations go on after it (more of them
# in the 5 s after the port is back), neither end exits, no data
# mismatch; then both are stopped.
port=$((port + 1))
dp_bg flap.srv ns1 300 rping -s -a $DP_B -p $port -V -v -S 1000
fsrv=$DP_LAST
dp_wait_listen ns1 $port
dp_bg flap.cli ns0 300 rping -c -a $DP_B -p $port -V -v -S 1000
fcli=$DP_LAST
iters() { grep -c 'ping data' "$DP_TMP/flap.cli"; }
alive() {
	for p in $fcli $fsrv; do
		kill -0 "$p" 2>/dev/null || {
			cat "$DP_TMP/flap.cli" "$DP_TMP/flap.srv" | tail -n 20 >&2
			fail "link flap: an rping ended $1"
		}
	done
}
sleep 2
[ "$(iters)" -gt 0 ] || { cat "$DP_TMP/flap.cli" >&2; fail "link flap: no iteration before the flap"; }
alive "before the flap"
run ip -n ns1 link set veth1 down
wait_for 5 state_is sw1 "1: DOWN" ||
	fail "sw1's port is '$(port_state sw1)' with its netdev down"
sleep 3
alive "while the link was down"
run ip -n ns1 link set veth1 up
wait_for 10 state_is sw1 "4: ACTIVE" ||
	fail "sw1's port is '$(port_state sw1)' with its netdev up again"
n_up=$(iters)
sleep 5
n_after=$(iters)
alive "after the link came back"
[ "$n_after" -gt "$n_up" ] ||
	fail "link flap: no iteration in the 5 s after the link came back ($n_up before)"
check_lacks "$(cat "$DP_TMP/flap.cli" "$DP_TMP/flap.srv")" "mismatch" "link flap"
kill $fcli $fsrv 2>/dev/null
log "link flap: $n_up iterations until the port was back, $((n_after - n_up)) in the 5 s after"
exit 0
