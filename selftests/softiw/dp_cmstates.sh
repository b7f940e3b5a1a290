#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every connection state meets every kind of death at that moment, and
# nothing hangs or leaks.  States (server on sw1 in ns1, client on sw0 in
# ns0):
#
#   listen        a wildcard listen, no connection
#   await_req     the listen accepted a TCP connection whose peer (plain
#                 TCP) never sends its MPA Request
#   await_accept  a softiw client's MPA Request is in and delivered
#                 (CONNECT_REQUEST), the server never accepts: the
#                 client's endpoint waits for the Reply, the server's for
#                 the accept
#   rtr_pending   the server accepted a peer (mpa_peer.py initiate)
#                 that asked for an RTR and never sends it
#   connected     rping -V moving data
#   closing       a softiw client closed its side (rdma_disconnect)
#                 towards a peer (mpa_peer.py respond, MPA v1) that
#                 never closes its own
#
# Deaths: the server process killed (SIGKILL), the client process
# killed, the server's device deleted, the client's device deleted (each
# where that end is softiw), the server's netdev down (then both
# processes killed), and rmmod with all of it in place.  After each,
# every process ends within 10 s of being killed, a device delete or
# rmmod returns within 20 s, and once the processes are gone no
# connection endpoint, no listening socket (debugfs) and no QP (rdma
# resource) is left.  rmmod either unloads the module or, while a
# process holds a softiw context (its doorbell file is the module's), is
# refused with "in use" and succeeds once the processes are gone.  The
# module then unloads cleanly (dp_cleanup).
#
# timeout=600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping python3
PEER=$(dirname "$0")/mpa_peer.py
CYCLE=$(dirname "$0")/../../build/selftests/cm_cycle
# no state may end because cm_cycle gave up waiting
export CM_CYCLE_IDLE_S=600
[ -x "$CYCLE" ] || fail "$CYCLE not built (make -C selftests/softiw)"
D=/sys/kernel/debug/softiw
[ -r $D/cm_endpoints ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -r $D/cm_endpoints ] || fail "no debugfs softiw/cm_endpoints"
TMO=/sys/module/softiw/parameters/mpa_timeout_ms
V2=/sys/module/softiw/parameters/mpa_v2
port=7700

# bg NAME NS CMD...: CMD in NS in the background, its own pid in DP_LAST
# (ip netns exec execs it: no timeout(1) between, so SIGKILL hits CMD)
bg() {
	_name=$1 _ns=$2
	shift 2
	ip netns exec "$_ns" "$@" >"$DP_TMP/$_name" 2>&1 &
	DP_LAST=$!
	DP_PIDS="$DP_PIDS $DP_LAST"
}

endpoints() { cat $D/cm_endpoints 2>/dev/null || echo 0; }
lsocks() { cat $D/cm_listen_sockets 2>/dev/null || echo 0; }
alive() { kill -0 "$1" 2>/dev/null; }

# the module, both devices and both netdevs as dp_setup left them
restore() {
	is_loaded || run modprobe softiw
	# the MPA waits outlast each case, so no state ends by itself
	echo 30000 >$TMO
	echo Y >$V2
	dev_exists sw0 || run ip netns exec ns0 rdma link add sw0 type softiw netdev veth0
	dev_exists sw1 || run ip netns exec ns1 rdma link add sw1 type softiw netdev veth1
	run ip -n ns0 link set veth0 up
	run ip -n ns1 link set veth1 up
	# after netdev_down the ports come back only once the link is up
	for d in sw0 sw1; do
		wait_for 10 state_is $d "4: ACTIVE" ||
			fail "$d: port $(port_state $d) 10 s after its netdev came up"
	done
}

# start STATE: SRV and CLI (empty for none) in that state
start() {
	port=$((port + 1))
	CLI=
	case $1 in
	connected)
		bg "srv$port" ns1 rping -s -a $DP_B -p $port -V -C 1000000 -S 4096
		SRV=$DP_LAST
		dp_wait_listen ns1 $port
		bg "cli$port" ns0 rping -c -a $DP_B -p $port -V -C 1000000 -S 4096
		CLI=$DP_LAST
		if ! wait_for 10 sh -c "[ \$(cat $D/cm_endpoints) -ge 2 ]"; then
			# not connected: say why, and give the client one more
			# go (seen once in a while on 6.1 right after the
			# netdev_down case; under investigation)
			log "connected: $(endpoints) endpoints after 10 s;" \
				"client: $(cat "$DP_TMP/cli$port")" \
				"server: $(cat "$DP_TMP/srv$port")" \
				"ns0 neigh: $(ip -n ns0 neigh)" \
				"ns0 route: $(ip -n ns0 route get $DP_B 2>&1)"
			alive "$SRV" || fail "connected: server died: $(cat "$DP_TMP/srv$port")"
			kill -9 "$CLI" 2>/dev/null
			wait "$CLI" 2>/dev/null
			bg "cli$port" ns0 rping -c -a $DP_B -p $port -V -C 1000000 -S 4096
			CLI=$DP_LAST
			wait_for 10 sh -c "[ \$(cat $D/cm_endpoints) -ge 2 ]" ||
				fail "connected: $(endpoints) endpoints: client: $(cat "$DP_TMP/cli$port")"
			log "connected: the second client connected"
		fi
		sleep 1
		;;
	closing)
		echo N >$V2
		bg "srv$port" ns1 python3 "$PEER" respond $port
		SRV=$DP_LAST
		dp_wait_listen ns1 $port
		bg "cli$port" ns0 "$CYCLE" -c $DP_B $port 1 1
		CLI=$DP_LAST
		wait_for 10 grep -q eof "$DP_TMP/srv$port" ||
			fail "closing: the client did not close: $(cat "$DP_TMP/srv$port" "$DP_TMP/cli$port")"
		[ "$(endpoints)" -ge 1 ] || fail "closing: $(endpoints) endpoints"
		;;
	rtr_pending)
		bg "srv$port" ns1 "$CYCLE" -s 0.0.0.0 $port 1
		SRV=$DP_LAST
		dp_wait_listen ns1 $port
		bg "cli$port" ns0 python3 "$PEER" initiate $DP_B $port
		CLI=$DP_LAST
		wait_for 10 grep -q reply "$DP_TMP/cli$port" ||
			fail "rtr_pending: no Reply: $(cat "$DP_TMP/srv$port" "$DP_TMP/cli$port")"
		[ "$(endpoints)" -ge 1 ] || fail "rtr_pending: $(endpoints) endpoints"
		;;
	*)
		bg "srv$port" ns1 "$CYCLE" -s 0.0.0.0 $port 0
		SRV=$DP_LAST
		dp_wait_listen ns1 $port
		;;
	esac
	case $1 in
	await_req)
		bg "cli$port" ns0 python3 -c "import socket, time
s = socket.create_connection(('$DP_B', $port)); time.sleep(100)"
		CLI=$DP_LAST
		wait_for 10 sh -c "[ \$(cat $D/cm_endpoints) -ge 1 ]" ||
			fail "await_req: $(endpoints) endpoints"
		;;
	await_accept)
		bg "cli$port" ns0 "$CYCLE" -c $DP_B $port 1 1
		CLI=$DP_LAST
		wait_for 10 grep -q request "$DP_TMP/srv$port" ||
			fail "await_accept: no request at the server: $(cat "$DP_TMP/srv$port" "$DP_TMP/cli$port")"
		[ "$(endpoints)" -ge 2 ] || fail "await_accept: $(endpoints) endpoints"
		;;
	esac
	alive "$SRV" || fail "$1: server died: $(cat "$DP_TMP/srv$port")"
	[ -z "$CLI" ] || alive "$CLI" || fail "$1: client died: $(cat "$DP_TMP/cli$port")"
}

# finish WHAT: kill what is left; each must go within 10 s; then no
# endpoint or listening socket may be left
finish() {
	for p in $SRV $CLI; do
		kill -9 "$p" 2>/dev/null
		dp_gone "$p" 10 || fail "$1: process $p still there 10 s after SIGKILL"
		wait "$p" 2>/dev/null
	done
	wait_for 20 sh -c "[ \$(cat $D/cm_endpoints 2>/dev/null || echo 0) = 0 ] &&
		[ \$(cat $D/cm_listen_sockets 2>/dev/null || echo 0) = 0 ] &&
		! rdma resource show qp 2>/dev/null | grep -q 'link sw[01]/'" ||
		fail "$1: $(endpoints) endpoints, $(lsocks) listening sockets and QPs $(rdma resource show qp | grep 'link sw[01]/') left"
}

# timed WHAT CMD...: CMD must succeed within 20 s
timed() {
	what=$1
	shift
	timeout 20 "$@" || fail "$what: '$*' exited $? (124: timed out)"
}

# applies STATE DEATH: the death has a softiw end to hit in that state
applies() {
	case "$1/$2" in
	listen/kill_cli | closing/del_srv | rtr_pending/del_cli) return 1 ;;
	esac
	return 0
}

n=0 unloaded=0
for state in listen await_req await_accept rtr_pending connected closing; do
	for death in kill_srv kill_cli del_srv del_cli netdev_down rmmod; do
		applies $state $death || continue
		what="$state/$death"
		t0=$(date +%s)
		restore
		start $state
		case $death in
		kill_srv) kill -9 "$SRV" ;;
		kill_cli) kill -9 "$CLI" ;;
		del_srv) timed "$what" rdma link delete sw1 ;;
		del_cli) timed "$what" rdma link delete sw0 ;;
		netdev_down) run ip -n ns1 link set veth1 down ;;
		rmmod)
			timeout 20 rmmod softiw 2>"$DP_TMP/rmmod"
			rc=$?
			[ $rc = 0 ] && unloaded=$((unloaded + 1))
			if [ $rc != 0 ]; then
				grep -q "in use" "$DP_TMP/rmmod" ||
					fail "$what: rmmod exited $rc: $(cat "$DP_TMP/rmmod")"
				what="$what (in use)"
			fi
			;;
		esac
		sleep 1
		finish "$what"
		case $what in
		*"(in use)") timed "$what" rmmod softiw ;;
		esac
		n=$((n + 1))
		log "$what: ok ($(($(date +%s) - t0)) s)"
	done
done
log "$n cases, rmmod unloaded the module in $unloaded"
# with no process holding a context (listen, await_req) it must unload
[ $unloaded -ge 2 ] || fail "rmmod unloaded the module in $unloaded cases, want 2"
exit 0
