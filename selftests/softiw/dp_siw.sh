#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# softiw next to upstream siw (built from Debian's linux-source of this
# kernel's series by tools/siw-build.sh into build/siw-KVER/siw.ko):
# rdma_cm hands a wildcard listen to every iWARP device, so every listen
# below has both drivers listening on its port in the server's namespace.
# Each wire has softiw at one end and siw at the other, and a third has
# softiw at both:
#
#   +----------- ns0 -----------+        +----------- ns1 -----------+
#   | sw0 (softiw) on a0 (300)  |========| a1 (301) siw1 (siw)       |
#   |   10.81.0.1, fd81::1      |        |   10.81.0.2, fd81::2      |
#   | siw0 (siw) on b0 (310)    |========| b1 (311) sw1 (softiw)     |
#   |   10.82.0.1, fd82::1      |        |   10.82.0.2, fd82::2      |
#   | sw2 (softiw) on c0 (320)  |========| c1 (321) sw3 (softiw)     |
#   |   10.83.0.1               |        |   10.83.0.2               |
#   +---------------------------+        +---------------------------+
#
# Interface indices are explicit and distinct across the namespaces: siw
# binds a wildcard listen to its netdev's index in the listener's
# namespace, where an index of the other namespace could name a device.
#
# In each device order (softiw's devices registered first, then siw's
# first), with the server in either namespace: rping -V siw->softiw and
# softiw->siw over IPv4, then (softiw first only) over IPv6, softiw's
# loopback and to both drivers' specific addresses on one port at once,
# and perftest ib_write_bw and ib_send_lat, each with either driver as
# the server; then in each order cm_cycle's connection churn:
# DP_SIW_CYCLES (default 1000) connect/establish/disconnect cycles
# softiw->softiw while siw listens on the same port and a quarter of that
# siw->softiw at once, then a quarter of it softiw->siw with softiw's
# mpa_v2=0; not one may be refused.
#
# Why MPA v1 for softiw->siw churn: upstream siw (6.1 and 6.12) as the
# responder of an MPA v2 peer-to-peer connection delivers ESTABLISHED
# only from its callback for the initiator's RTR, installs that only after
# siw_accept() has sent the MPA Reply, and delivers DISCONNECT and CLOSE
# on the peer's FIN whether or not ESTABLISHED went up.  A churn client
# closes the moment it is connected, and a FIN that siw handles before
# ESTABLISHED gives iw_cm a CLOSE for a cm_id in CONN_RECV: "kernel BUG at
# drivers/infiniband/core/iwcm.c", which kills the worker of iw_cm's
# ordered workqueue and with it connection setup and teardown for every
# iWARP device (seen here three times in a few thousand cycles under
# TCG).  Without peer-to-peer mode siw delivers ESTABLISHED from
# siw_accept() itself.  The rping runs connect softiw->siw with MPA v2
# and move data before they close.
#
# timeout=600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
need_root
need_cmd ip rdma rping ib_write_bw ib_send_lat timeout
need_softiw
need_provider
TOP=$(dirname "$0")/../..
SIW_KO=$TOP/build/siw-$(uname -r)/siw.ko
CYCLE=$TOP/build/selftests/cm_cycle
CMSYNC=${CMSYNC:-$TOP/build/cmsync/cmsync.so}
[ -r "$SIW_KO" ] || fail "$SIW_KO not built (tools/siw-build.sh $(uname -r))"
[ -x "$CYCLE" ] || fail "$CYCLE not built (make -C selftests/softiw)"
[ -r "$CMSYNC" ] || fail "$CMSYNC not built (make -C tools/cmsync)"
cycles=${DP_SIW_CYCLES:-1000}
port=19000

# siw has no disassociate_ucontext: deleting its devices waits for every
# process that has them open, so the processes go first.
siw_cleanup() {
	for p in $DP_PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $DP_PIDS; do wait "$p" 2>/dev/null; done
	for d in siw0 siw1; do rdma link delete $d 2>/dev/null; done
	dp_cleanup
	rmmod siw 2>/dev/null
}
T0=$(date +%s)
since() { echo "$(($(date +%s) - T0)) s"; }
on_exit siw_cleanup
softiw_reset
DP_TMP=$(mktemp -d) || fail "mktemp"
modprobe ib_uverbs 2>/dev/null
modprobe rdma_ucm 2>/dev/null
modprobe crc32c_generic 2>/dev/null
run modprobe softiw
lsmod | grep -q '^siw ' || run insmod "$SIW_KO"
run ip netns add ns0
run ip netns add ns1
# pair N0 N1 IDX NET [NET6]: a veth pair N0 (ns0, IDX, NET.1) - N1 (ns1,
# IDX+1, NET.2)
pair() {
	run ip link add "$1" netns ns0 index "$3" type veth \
		peer name "$2" netns ns1 index $(($3 + 1))
	run ip -n ns0 addr add "$4.1/24" dev "$1"
	run ip -n ns1 addr add "$4.2/24" dev "$2"
	if [ -n "${5:-}" ]; then
		run ip -n ns0 addr add "$5::1/64" dev "$1" nodad
		run ip -n ns1 addr add "$5::2/64" dev "$2" nodad
	fi
	run ip -n ns0 link set "$1" up
	run ip -n ns1 link set "$2" up
}
for ns in ns0 ns1; do run ip -n $ns link set lo up; done
pair a0 a1 300 10.81.0 fd81
pair b0 b1 310 10.82.0 fd82
pair c0 c1 320 10.83.0

links_softiw() {
	run ip netns exec ns0 rdma link add sw0 type softiw netdev a0
	run ip netns exec ns1 rdma link add sw1 type softiw netdev b1
	run ip netns exec ns0 rdma link add sw2 type softiw netdev c0
	run ip netns exec ns1 rdma link add sw3 type softiw netdev c1
}
links_siw() {
	run ip netns exec ns1 rdma link add siw1 type siw netdev a1
	run ip netns exec ns0 rdma link add siw0 type siw netdev b0
}
links_down() {
	for d in sw0 sw1 sw2 sw3 siw0 siw1; do
		run rdma link delete $d
	done
}

# other NS: the other namespace
other() { [ "$1" = ns0 ] && echo ns1 || echo ns0; }

# rping_v WHAT SRV_NS LISTEN ADDR: rping -V, the server listening on
# LISTEN in SRV_NS, the client in the other namespace (or, with
# CLI_NS set, there) connecting to ADDR
rping_v() {
	port=$((port + 1))
	cns=${CLI_NS:-$(other "$2")}
	dp_bg "$1.srv" "$2" 120 rping -s -a "$3" -p $port -V -C 20 -S 4096
	srv=$DP_LAST
	dp_wait_listen "$2" $port
	dp_fg "$1.cli" "$cns" 120 "rping client ($1)" \
		rping -c -a "$4" -p $port -V -C 20 -S 4096
	dp_wait "$1.srv" $srv "rping server ($1)"
	check_lacks "$(cat "$DP_TMP/$1.cli" "$DP_TMP/$1.srv")" "data mismatch" "rping ($1)"
	log "rping -V $1: ok ($(since))"
}

# perf WHAT SRV_NS SRV_DEV CLI_DEV ADDR TOOL ARGS...: one perftest pair;
# the client must print a report line.  A latency test whose clock
# calibration failed under TCG ("Correlation coefficient r^2 < 0.9": its
# row is all inf) is run again, up to three times in all (as dp_perftest).
perf() {
	for try in 1 2 3; do
		perf_once "$@" && return 0
		grep -q 'Correlation coefficient' "$DP_TMP/$1.cli" || break
		log "$1: perftest's clock calibration failed (run $try)"
	done
	cat "$DP_TMP/$1.cli" >&2
	fail "$1: no report line"
}
perf_once() {
	what=$1 sns=$2 sdev=$3 cdev=$4 addr=$5 tool=$6
	shift 6
	port=$((port + 1))
	sync="$DP_TMP/$what.listening"
	rm -f "$sync"
	dp_bg "$what.srv" "$sns" 120 env LD_PRELOAD="$CMSYNC" \
		SOFTIW_CM_SYNC="$sync" "$tool" -R -F -d "$sdev" -p $port "$@"
	srv=$DP_LAST
	dp_wait_listen "$sns" $port
	dp_fg "$what.cli" "$(other "$sns")" 120 "$what client" env \
		LD_PRELOAD="$CMSYNC" SOFTIW_CM_SYNC="$sync" \
		"$tool" -R -F -d "$cdev" -p $port "$@" "$addr"
	dp_wait "$what.srv" $srv "$what server"
	grep -qE '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$DP_TMP/$what.cli" || return 1
	log "$what: ok ($(since))"
}

# churn WHAT SRV_NS N ADDR:N ...: one wildcard cm_cycle server in SRV_NS
# for the sum of the N, and one client per ADDR:N in the other namespace,
# all at once, 4 connections in flight each
churn() {
	what=$1 sns=$2
	shift 2
	port=$((port + 1))
	total=0
	for an; do total=$((total + ${an##*:})); done
	dp_bg "$what.srv" "$sns" 300 "$CYCLE" -s 0.0.0.0 $port $total
	srv=$DP_LAST
	dp_wait_listen "$sns" $port
	i=0 cpids=
	for an; do
		i=$((i + 1))
		ip netns exec "$(other "$sns")" "$CYCLE" -c \
			"${an%:*}" $port "${an##*:}" 4 >"$DP_TMP/$what.cli$i" 2>&1 &
		cpids="$cpids $!"
		DP_PIDS="$DP_PIDS $!"
	done
	i=0
	for p in $cpids; do
		i=$((i + 1))
		wait "$p"
		rc=$?
		[ $rc = 0 ] || { cat "$DP_TMP/$what.cli$i" >&2; fail "$what: client $i exited $rc"; }
		log "$what: client $i: $(cat "$DP_TMP/$what.cli$i")"
	done
	dp_wait "$what.srv" $srv "$what server"
	log "$what: server: $(tail -n 1 "$DP_TMP/$what.srv") ($(since))"
}

# mpa_v1_churn ARGS...: churn ARGS with softiw offering MPA v1 (no
# peer-to-peer mode: see the top)
mpa_v1_churn() {
	mpa_v2=/sys/module/softiw/parameters/mpa_v2
	echo 0 >$mpa_v2 || fail "cannot set $mpa_v2"
	churn "$@"
	echo 1 >$mpa_v2 || fail "cannot set $mpa_v2"
}

# both_wires ORDER: rping -V over the a and b wires (one end softiw, the
# other siw) with the server on the wildcard address in either namespace
both_wires() {
	for sns in ns1 ns0; do
		if [ $sns = ns1 ]; then sa=2; else sa=1; fi
		# in ns1 the b wire's server end is softiw (sw1), the a wire's siw
		rping_v "$1 $sns b-wire" $sns 0.0.0.0 10.82.0.$sa
		rping_v "$1 $sns a-wire" $sns 0.0.0.0 10.81.0.$sa
	done
}

# Device order 1: softiw's devices first, so every listen reaches them
# before siw's.
links_softiw
links_siw
both_wires softiw-first
rping_v "ipv6 siw->softiw" ns1 :: fd82::2
rping_v "ipv6 softiw->siw" ns1 :: fd81::2
CLI_NS=ns1 rping_v "softiw loopback" ns1 0.0.0.0 10.82.0.2
# specific addresses: one port, a listen on softiw's address and one on
# siw's, at once
port=$((port + 1))
dp_bg spec.sw ns1 120 rping -s -a 10.82.0.2 -p $port -V -C 20 -S 4096
ssw=$DP_LAST
dp_bg spec.siw ns1 120 rping -s -a 10.81.0.2 -p $port -V -C 20 -S 4096
ssiw=$DP_LAST
wait_for 10 sh -c "[ \$(ip netns exec ns1 ss -Htln 'sport = :$port' | wc -l) -ge 2 ]" ||
	fail "specific addresses: not both listening on $port: $(ip netns exec ns1 ss -Htln)"
dp_fg spec.sw.cli ns0 120 "rping client (softiw's address)" \
	rping -c -a 10.82.0.2 -p $port -V -C 20 -S 4096
dp_fg spec.siw.cli ns0 120 "rping client (siw's address)" \
	rping -c -a 10.81.0.2 -p $port -V -C 20 -S 4096
dp_wait spec.sw $ssw "rping server on softiw's address"
dp_wait spec.siw $ssiw "rping server on siw's address"
log "rping -V to both drivers' specific addresses on one port: ok ($(since))"
perf write_bw-siw-to-softiw ns1 sw1 siw0 10.82.0.2 ib_write_bw -s 65536 -n 20
perf write_bw-softiw-to-siw ns1 siw1 sw0 10.81.0.2 ib_write_bw -s 65536 -n 20
perf send_lat-siw-to-softiw ns0 siw0 sw1 10.82.0.1 ib_send_lat -s 64 -n 200
perf send_lat-softiw-to-siw ns0 sw0 siw1 10.81.0.1 ib_send_lat -s 64 -n 200
q=$((cycles / 4))
# server in ns1: sw2->sw3 and siw0->sw1, then sw0->siw1
churn "churn softiw-first" ns1 10.83.0.2:$cycles 10.82.0.2:$q
mpa_v1_churn "churn softiw-first softiw->siw" ns1 10.81.0.2:$q

# Device order 2: siw's first.
links_down
links_siw
links_softiw
both_wires siw-first
# server in ns0: sw3->sw2 and siw1->sw0, then sw1->siw0
churn "churn siw-first" ns0 10.83.0.1:$cycles 10.81.0.1:$q
mpa_v1_churn "churn siw-first softiw->siw" ns0 10.82.0.1:$q
exit 0
