#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The receive engine as the module runs it, fuzzed from the wire:
# DP_WIREFUZZ_CONNS connections (default 30) from rawpeer (ns0, a plain
# TCP socket doing MPA itself) to victim on sw1 (ns1), each carrying 20
# FPDUs mutated at random (rawpeer's mutate step, tools/rawpeer/fpdu.c:
# header bits and octets, truncated or extended ULPDUs with the CRC made
# right, wrong ULPDU_Length fields, any bit of the frame, garbage), MPA
# v1 or v2, CRC on or off, with a seed per connection from DP_WIREFUZZ_SEED
# (printed; the same seed replays the same streams).  Each connection:
#
#   - the victim ends by itself, with its guard octets intact and the
#     buffer registered in its other PD (STAG2) unchanged: nothing a peer
#     sends reaches memory the connection's PD does not own;
#   - rawpeer ends with 0, 1 (the peer closed on it) or 2 (no EOF before
#     its timeout), never by a signal;
#
# and afterwards no connection endpoint is left and the kernel log is
# clean (the VM runner; KASAN and kmemleak on the debug kernel).
# timeout=900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
RP=$DP_RP
[ -x "$RP/rawpeer" ] && [ -x "$RP/victim" ] ||
	fail "rawpeer not built (make -C tools/rawpeer)"
dp_setup
D=/sys/kernel/debug/softiw
conns=${DP_WIREFUZZ_CONNS:-30}
seed=${DP_WIREFUZZ_SEED:-$(date +%s)}
case $conns$seed in *[!0-9]*) fail "DP_WIREFUZZ_CONNS and DP_WIREFUZZ_SEED must be numbers" ;; esac
log "wire fuzz: seed $seed, $conns connections (replay: DP_WIREFUZZ_SEED=$seed)"
port=7700
terms=0 closed=0

k=0
while [ $k -lt "$conns" ]; do
	s=$((seed + k))
	port=$((port + 1))
	rm -f "$DP_TMP/victim"	# not the last connection's STAG= line
	dp_bg victim ns1 60 "$RP/victim" -t 20 $DP_B $port
	vpid=$DP_LAST
	wait_for 10 grep -q '^STAG=' "$DP_TMP/victim" ||
		{ cat "$DP_TMP/victim" >&2; fail "victim did not start"; }
	eval "$(grep '^STAG=' "$DP_TMP/victim")"
	opts=
	[ $((s % 2)) = 1 ] && opts="--v2"
	[ $((s / 2 % 2)) = 1 ] && opts="$opts --no-crc"
	# shellcheck disable=SC2086
	ip netns exec ns0 timeout 60 "$RP/rawpeer" --timeout 5 $opts \
		--stag "$STAG" --to "$ADDR" --len "$LEN" \
		--stag2 "$STAG2" --to2 "$ADDR2" --len2 "$LEN2" \
		--nrecv "$NRECV" --rlen "$RLEN" \
		connect $DP_B $port "mutate:20:$s" recv >"$DP_TMP/rp" 2>&1
	rprc=$?
	dp_wait victim $vpid "victim (seed $s)"
	vout=$(cat "$DP_TMP/victim")
	case $rprc in
	0|1|2) ;;
	*) cat "$DP_TMP/rp" >&2; fail "seed $s: rawpeer exited $rprc" ;;
	esac
	# the MPA exchange is not mutated: every connection gets there
	grep -q '^MPA reply' "$DP_TMP/rp" ||
		{ cat "$DP_TMP/rp" >&2; fail "seed $s: no MPA Reply"; }
	check_contains "$vout" "GUARD ok" "seed $s: victim's guard octets"
	check_contains "$vout" "MR2DIFF=0" "seed $s: the other PD's buffer"
	grep -q '^TERMINATE' "$DP_TMP/rp" && terms=$((terms + 1))
	grep -qE '^(EOF|RESET)' "$DP_TMP/rp" && closed=$((closed + 1))
	k=$((k + 1))
done
log "wire fuzz: $conns connections, $terms answered with a Terminate, $closed closed by the victim"
wait_for 30 sh -c "[ \$(cat $D/cm_endpoints) = 0 ]" ||
	fail "$(cat $D/cm_endpoints) connection endpoints left after the wire fuzz"
exit 0
