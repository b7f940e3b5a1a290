#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Teardown: either side of a connection dies at some point of setup or
# transfer, and nothing is left behind.  After each case the survivor must
# notice and exit, and softiw must be back to no connection endpoints
# (debugfs softiw/cm_endpoints, one per CEP and so per TCP socket), no
# listening sockets beyond the live listeners, and no QPs of sw0/sw1 in
# ib_core's resource tracker (`rdma resource show qp`).  The module then
# unloads with no leak report (softiw_cm_exit() logs one, and the VM
# runner's log check fails on it).
#
#   client killed mid-transfer      server gets DISCONNECTED, exits
#   server killed mid-transfer      client likewise
#   peer accepts TCP, never answers the MPA Request   connect fails after
#                                   mpa_timeout_ms, endpoint freed
#   peer connects TCP, never sends an MPA Request     listener's endpoint
#                                   times out and is freed
#   connect to a port nobody listens on   refused at once
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping python3
D=/sys/kernel/debug/softiw
[ -r $D/cm_endpoints ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -r $D/cm_endpoints ] || fail "no debugfs softiw/cm_endpoints"
P=/sys/module/softiw/parameters/mpa_timeout_ms
old_tmo=$(cat $P)

endpoints() { cat $D/cm_endpoints; }
lsocks() { cat $D/cm_listen_sockets; }
nqps() { rdma resource show qp 2>/dev/null | grep -c 'link sw[01]/'; }
quiet() { [ "$(endpoints)" = 0 ] && [ "$(lsocks)" = 0 ] && [ "$(nqps)" = 0 ]; }
check_quiet() {
	wait_for 15 quiet ||
		fail "$1: left behind: $(endpoints) endpoints, $(lsocks) listening sockets, $(nqps) QPs: $(rdma resource show qp)"
}
# exits_within SECS PID WHAT: PID must exit by itself within SECS.
exits_within() {
	wait_for "$1" sh -c "! kill -0 $2 2>/dev/null" ||
		fail "$3: still running after $1 s"
	wait "$2" 2>/dev/null
}

check_quiet "before the first case"

# kill_mid VICTIM: a long verified rping, then SIGKILL to one end.
kill_mid() {
	port=$((${port:-7300} + 1))
	dp_bg srv ns1 300 rping -s -a $DP_B -p $port -V -C 1000000 -S 65535
	srv=$DP_LAST
	dp_wait_listen ns1 $port
	dp_bg cli ns0 300 rping -c -a $DP_B -p $port -V -C 1000000 -S 65535
	cli=$DP_LAST
	# transfer under way: both ends hold a QP
	wait_for 20 sh -c "[ \$(rdma resource show qp 2>/dev/null | grep -c 'link sw[01]/') -ge 2 ]" ||
		fail "kill $1: no connection came up: $(cat "$DP_TMP/srv" "$DP_TMP/cli")"
	sleep 1
	if [ "$1" = client ]; then
		# `timeout` runs rping as its child: kill the child itself
		pkill -KILL -f "rping -c -a $DP_B -p $port" || fail "pkill client"
		exits_within 30 $srv "server after the client was killed"
		wait $cli 2>/dev/null
	else
		pkill -KILL -f "rping -s -a $DP_B -p $port" || fail "pkill server"
		exits_within 30 $cli "client after the server was killed"
		wait $srv 2>/dev/null
	fi
	check_quiet "$1 killed mid-transfer"
	log "$1 killed mid-transfer: peer exited, nothing left"
}
kill_mid client
kill_mid server

# A TCP peer that never speaks MPA, in either role.
echo 1500 >$P || fail "set mpa_timeout_ms"
restore_tmo() { echo "$old_tmo" >$P; dp_cleanup; }
on_exit restore_tmo
dp_bg mute ns1 60 python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'$DP_B'", 7390)); s.listen(4)
c, _ = s.accept(); time.sleep(30)'
mute=$DP_LAST
dp_wait_listen ns1 7390
t0=$(date +%s)
ip netns exec ns0 timeout 30 rping -c -a $DP_B -p 7390 -C 1 >"$DP_TMP/cli" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
[ $rc != 0 ] && [ $rc != 124 ] || fail "rping to a mute MPA peer: exit $rc after $secs s"
[ $secs -le 10 ] || fail "rping to a mute MPA peer gave up only after $secs s (mpa_timeout_ms 1500)"
kill $mute 2>/dev/null
wait $mute 2>/dev/null
check_quiet "mute MPA responder"
log "peer never answers the MPA Request: connect failed after $secs s, nothing left"

dp_bg srv ns1 60 rping -s -a $DP_B -p 7391 -C 1
srv=$DP_LAST
dp_wait_listen ns1 7391
ip netns exec ns0 python3 -c '
import socket, time
s = socket.create_connection(("'$DP_B'", 7391)); time.sleep(4)' ||
	fail "TCP connect to the rping server"
# The server's endpoint for that connection timed out meanwhile.
check_eq "$(endpoints)" 0 "endpoints after a silent TCP client"
kill $srv 2>/dev/null
wait $srv 2>/dev/null
check_quiet "silent TCP client"
log "peer never sends an MPA Request: endpoint freed after the timeout"
# both timeouts were counted (rdma statistic, stats.c)
for d in sw0 sw1; do
	rdma statistic show link $d/1 | grep -q 'mpa_timeouts [1-9]' ||
		fail "$d: MPA timeout not counted: $(rdma statistic show link $d/1)"
done

ip netns exec ns0 timeout 10 rping -c -a $DP_B -p 7392 -C 1 >"$DP_TMP/cli" 2>&1
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "rping to a closed port: exit $rc"
check_quiet "closed port"
log "connect to a closed port: refused, nothing left"

dmesg_mark
restore_tmo
on_exit :
check_lacks "$(dmesg_new)" "leaked" "module unload"
is_loaded && fail "softiw still loaded after cleanup"
exit 0
