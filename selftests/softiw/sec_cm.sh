#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The control plane against a local attacker: a process names other
# processes' QPs, by number, in rdma_connect() and rdma_accept()
# (security.rst, "Control plane").  Two unprivileged users:
#
#   victim (nobody, 65534): rping -V between ns1 and ns0 (sw1, sw0), and
#     build/selftests/cm_attack pair in ns0 (two idle QPs of its own on
#     sw0, connected to each other over loopback only when told to, then
#     moving verified Sends and RDMA Reads until told to stop)
#   attacker (65533): cm_attack attack in ns0 and in ns1, naming every QP
#     number from 1 to 24 of the device (skipping its own), while the
#     victim's QPs are idle and again while they move data
#
# Each attempt must fail with EINVAL (as for a number no QP has), the
# attacker's control connection of its own QPs must work, and naming a
# bound QP of its own must fail with EBUSY.  The victims must finish with
# verified data and their QPs usable, and the counters cm_qp_refused and
# cm_qp_busy (rdma statistic) must count exactly the refusals.  Then a
# remote flood of connections that never finish MPA, and wildcard
# listens of two namespaces on one port (below).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping setpriv
PROG=$(dirname "$0")/../../build/selftests/cm_attack
[ -x "$PROG" ] || fail "$PROG not built (make -C selftests/softiw)"
PROG=$(realpath "$PROG")
nobody_prep
chmod 0755 "$DP_TMP"
AS_ATTACKER="prlimit --memlock=unlimited:unlimited setpriv --reuid=65533 --regid=65533 --clear-groups --inh-caps=-all"
QPNS=$(seq 1 24)

# attack NAME NS ADDR PORT: the attacker's run; fails unless every line
# is ok; sets REFUSED and BUSY to the EINVAL and EBUSY refusals it saw.
attack() {
	# shellcheck disable=SC2086
	dp_fg "$1" "$2" 120 "attacker ($1)" $AS_ATTACKER \
		env RDMAV_DRIVERS="$RDMAV_DRIVERS" "$PROG" attack "$3" "$4" $QPNS
	out=$(cat "$DP_TMP/$1")
	check_lacks "$out" "not ok" "attacker ($1)"
	check_contains "$out" "ok - own QPs" "attacker's control ($1)"
	REFUSED=$(grep -c "^ok - rdma_.* refused: Invalid argument" "$DP_TMP/$1")
	BUSY=$(grep -c "^ok - rdma_.* refused: Device or resource busy" "$DP_TMP/$1")
	check_eq "$BUSY" 3 "EBUSY refusals ($1)"
	log "attacker ($1): $REFUSED EINVAL, $BUSY EBUSY refusals"
}

r0=$(rdma_counter sw0 cm_qp_refused) b0=$(rdma_counter sw0 cm_qp_busy)
r1=$(rdma_counter sw1 cm_qp_refused) b1=$(rdma_counter sw1 cm_qp_busy)
[ -n "$r0" ] && [ -n "$b0" ] || fail "no cm_qp_refused / cm_qp_busy counters"

# The victims.
# shellcheck disable=SC2086
dp_bg rping.srv ns1 300 $AS_NOBODY rping -s -a $DP_B -p 7310 -V -C 3000 -S 4096
srv=$DP_LAST
dp_wait_listen ns1 7310
# shellcheck disable=SC2086
dp_bg rping.cli ns0 300 $AS_NOBODY rping -c -a $DP_B -p 7310 -V -C 3000 -S 4096
cli=$DP_LAST
# shellcheck disable=SC2086
dp_bg pair ns0 300 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
	"$PROG" pair $DP_A 7320 "$DP_TMP/go" 300
pair=$DP_LAST
wait_for 30 grep -q "^qpns" "$DP_TMP/pair" || fail "pair: no QPs: $(cat "$DP_TMP/pair")"
vq=$(awk '$1 == "qpns" { print $2, $3 }' "$DP_TMP/pair")
log "victim's idle QPs on sw0: $vq"
for q in $vq; do
	[ "$q" -le 24 ] || fail "victim QP $q outside the attacked range"
done

# While the pair is idle and rping runs: both devices.
attack attack0 ns0 $DP_A 7330
sum0=$REFUSED busy0=$BUSY
attack attack1 ns1 $DP_B 7340
sum1=$REFUSED busy1=$BUSY
# Then while the pair moves data.
touch "$DP_TMP/go"
wait_for 60 grep -q "^connected" "$DP_TMP/pair" || fail "pair did not connect: $(cat "$DP_TMP/pair")"
attack attack0b ns0 $DP_A 7350
sum0=$((sum0 + REFUSED)) busy0=$((busy0 + BUSY))
# the pair was connected and moving data all along: it stops only now
grep -q "^ok - victim moved" "$DP_TMP/pair" && fail "pair stopped before the attack was over"
touch "$DP_TMP/go.stop"

dp_wait pair $pair "victim pair"
check_contains "$(cat "$DP_TMP/pair")" "ok - victim's idle QPs" "pair"
check_contains "$(cat "$DP_TMP/pair")" "ok - victim moved" "pair"
check_lacks "$(cat "$DP_TMP/pair")" "not ok" "pair"
dp_wait rping.cli $cli "victim rping client"
dp_wait rping.srv $srv "victim rping server"
check_lacks "$(cat "$DP_TMP/rping.cli" "$DP_TMP/rping.srv")" "data mismatch" "victim rping"
log "victims finished with verified data"

check_eq "$(($(rdma_counter sw0 cm_qp_refused) - r0))" "$sum0" "cm_qp_refused on sw0"
check_eq "$(($(rdma_counter sw0 cm_qp_busy) - b0))" "$busy0" "cm_qp_busy on sw0"
check_eq "$(($(rdma_counter sw1 cm_qp_refused) - r1))" "$sum1" "cm_qp_refused on sw1"
check_eq "$(($(rdma_counter sw1 cm_qp_busy) - b1))" "$busy1" "cm_qp_busy on sw1"

# A remote peer (cm_flood.py, plain TCP from ns0) opens a connection to
# a listen every 5 ms and never sends its MPA Request, holding each one
# for 6 s, while a legitimate rping client connects 2 s in.  With the
# listen's bound (cm_listen_pending_max) and then the device's
# (cm_dev_pending_max) set to 16: the legitimate client connects and
# verifies its data, the module never holds more than the bound of
# pending connections (debugfs cm_endpoints, sampled), and every drop is
# counted (cm_pending_dropped) and seen by the flooder as a reset.
D=/sys/kernel/debug/softiw
P=/sys/module/softiw/parameters
[ -r $D/cm_endpoints ] || fail "no debugfs softiw/cm_endpoints"
FLOOD=$(realpath "$(dirname "$0")/cm_flood.py")
# flood NAME PORT
flood() {
	d0=$(rdma_counter sw1 cm_pending_dropped)
	# shellcheck disable=SC2086
	dp_bg "$1.srv" ns1 120 $AS_NOBODY rping -s -a $DP_B -p "$2" -V -C 50 -S 4096
	srv=$DP_LAST
	dp_wait_listen ns1 "$2"
	# shellcheck disable=SC2086
	dp_bg "$1.flood" ns0 60 $AS_ATTACKER python3 "$FLOOD" $DP_B "$2" 6
	fl=$DP_LAST
	sleep 2
	# shellcheck disable=SC2086
	dp_bg "$1.cli" ns0 120 $AS_NOBODY rping -c -a $DP_B -p "$2" -V -C 50 -S 4096
	cli=$DP_LAST
	peak=0
	for _ in $(seq 30); do
		n=$(cat $D/cm_endpoints)
		[ "$n" -gt "$peak" ] && peak=$n
		sleep 0.1
	done
	dp_wait "$1.cli" $cli "legitimate rping client during the flood ($1)"
	dp_wait "$1.srv" $srv "rping server during the flood ($1)"
	check_lacks "$(cat "$DP_TMP/$1.cli" "$DP_TMP/$1.srv")" "data mismatch" "rping during the flood ($1)"
	dp_wait "$1.flood" $fl "flooder ($1)"
	fo=$(cat "$DP_TMP/$1.flood")
	# the bound, the two rping endpoints and up to one accept batch (8)
	# of evicted ones still being closed
	[ "$peak" -le 28 ] || fail "$peak endpoints during the flood ($1), bound 16: $fo"
	dropped=$(($(rdma_counter sw1 cm_pending_dropped) - d0))
	reset=$(echo "$fo" | awk '{ print $4 }')
	[ "$dropped" -gt 0 ] || fail "cm_pending_dropped did not move ($1): $fo"
	# each drop is a reset the flooder sees (a few may be in flight;
	# more are reset uncounted when the server's listen goes away, the
	# pending ones and those TCP had not handed over yet)
	[ "$reset" -ge $((dropped - 8)) ] ||
		fail "flooder saw $reset resets, cm_pending_dropped $dropped ($1)"
	log "flood ($1): $fo; $dropped dropped, at most $peak endpoints; rping verified"
}
old_l=$(cat $P/cm_listen_pending_max) old_d=$(cat $P/cm_dev_pending_max)
check_eq "$old_l/$old_d" 256/1024 "cm_listen_pending_max/cm_dev_pending_max by default"
echo 16 >$P/cm_listen_pending_max || fail "setting cm_listen_pending_max"
flood listen 7360
echo 65536 >$P/cm_listen_pending_max || fail "setting cm_listen_pending_max"
echo 16 >$P/cm_dev_pending_max || fail "setting cm_dev_pending_max"
flood device 7370
echo 0 >$P/cm_dev_pending_max 2>/dev/null && fail "cm_dev_pending_max=0 accepted"
echo 65537 >$P/cm_listen_pending_max 2>/dev/null && fail "cm_listen_pending_max=65537 accepted"
echo "$old_l" >$P/cm_listen_pending_max
echo "$old_d" >$P/cm_dev_pending_max
# A wildcard listen belongs to its own namespace.  rdma_cm hands a
# listen on 0.0.0.0 to every iWARP device, sw0 (ns0) included; softiw
# listens only on the devices of the listener's namespace.  The
# attacker's rping server in ns1 on 0.0.0.0:7390 must not hold the port in
# ns0, so the victim's server in ns0 on the same port gets ns0's client,
# verified; the attacker's server is still reachable in ns1 (from ns0
# over the veth) and gets that client only.
# shellcheck disable=SC2086
dp_bg nsa.srv ns1 120 $AS_ATTACKER rping -s -a 0.0.0.0 -p 7390 -V -C 3 -S 4096
nsa=$DP_LAST
dp_wait_listen ns1 7390
sleep 0.5
s0=$(ip netns exec ns0 ss -Htln 'sport = :7390')
[ -z "$s0" ] || fail "a listen in ns1 holds port 7390 in ns0: $s0"
# shellcheck disable=SC2086
dp_bg nsb.srv ns0 120 $AS_NOBODY rping -s -a 0.0.0.0 -p 7390 -V -C 3 -S 4096
nsb=$DP_LAST
dp_wait_listen ns0 7390
# shellcheck disable=SC2086
dp_fg nsb.cli ns0 60 "rping client in ns0 to ns0's own listen" $AS_NOBODY \
	rping -c -a $DP_A -p 7390 -V -C 3 -S 4096
dp_wait nsb.srv $nsb "rping server in ns0"
kill -0 $nsa 2>/dev/null || fail "the ns1 listen ended early: $(cat "$DP_TMP/nsa.srv")"
# shellcheck disable=SC2086
dp_fg nsa.cli ns0 60 "rping client in ns0 to the ns1 listen" $AS_NOBODY \
	rping -c -a $DP_B -p 7390 -V -C 3 -S 4096
dp_wait nsa.srv $nsa "rping server in ns1"
check_lacks "$(cat "$DP_TMP"/ns?.*)" "data mismatch" "rping across the namespaces"
log "wildcard listens on one port in ns0 and ns1 each got their own client"

# once the flood is gone nothing is left but what is still closing
wait_for 15 sh -c "[ \$(cat $D/cm_endpoints) = 0 ]" ||
	fail "$(cat $D/cm_endpoints) endpoints left after the floods"
exit 0
