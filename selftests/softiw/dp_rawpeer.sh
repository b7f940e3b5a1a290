#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# softiw's receive validation, attacked from the wire: rawpeer (a plain
# TCP socket doing MPA itself, tools/rawpeer) sends one crafted FPDU per
# RFC 5040/5041/5044 receive error to victim (an rdma_cm server with
# registered, guarded buffers and posted receives) on sw1.
#
#   +---------- ns0 ----------+        +---------- ns1 ----------+
#   | rawpeer: TCP socket     |        | victim -> sw1 / veth1   |
#   |  (no RDMA) veth0        |        |                         |
#   |        10.78.0.1/24 ====+========+==== 10.78.0.2/24        |
#   +-------------------------+        +-------------------------+
#
# For every error case: rawpeer receives a Terminate with the RFC's
# layer/type/code (the values the wire core prescribes, see ddp.h,
# rdmap.h and mpa.h; tools/rawpeer/check.sh checks the same table on the
# host) and then EOF; the victim's QP is in ERROR (IBV_QPS_ERR = 6), its
# NRECV receives complete with IBV_WC_WR_FLUSH_ERR (5), it got an async
# event, its guard octets and buffers are unchanged; the kernel log shows
# no oops (the VM runner also checks that).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
RP=$DP_RP
[ -x "$RP/rawpeer" ] && [ -x "$RP/victim" ] ||
	fail "rawpeer not built (make -C tools/rawpeer)"
dp_setup
dmesg_mark
port=7600

# start_victim [VICTIM_OPTS...]: victim on sw1; sets the buffer variables.
start_victim() {
	port=$((port + 1))
	dp_bg victim ns1 60 "$RP/victim" -t 20 "$@" $DP_B $port
	vpid=$DP_LAST
	wait_for 10 grep -q '^STAG=' "$DP_TMP/victim" ||
		{ cat "$DP_TMP/victim" >&2; fail "victim did not start"; }
	# STAG= ADDR= LEN= STAG2= ADDR2= LEN2= NRECV= RLEN=: our own output.
	eval "$(grep '^STAG=' "$DP_TMP/victim")"
}

# stat NAME: counter NAME of the victim's device.
stat() { rdma_counter sw1 "$1"; }

# attack NAME RAWPEER_ARGS...: rawpeer from ns0 against the victim.
attack() {
	name=$1
	shift
	ip netns exec ns0 timeout 30 "$RP/rawpeer" --timeout 15 \
		--stag "$STAG" --to "$ADDR" --len "$LEN" \
		--stag2 "$STAG2" --to2 "$ADDR2" --len2 "$LEN2" \
		--nrecv "$NRECV" --rlen "$RLEN" "$@" >"$DP_TMP/rp" 2>&1
	rprc=$?
	dp_wait victim $vpid "victim ($name)"
	rpout=$(cat "$DP_TMP/rp")
	vout=$(cat "$DP_TMP/victim")
}

# case_err CASE "LAYER TYPE CODE" [VICTIM_OPTS...]
case_err() {
	c=$1
	want=$(echo "$2" | awk '{print "TERMINATE layer=" $1 " type=" $2 " code=" $3 " "}')
	shift 2
	start_victim "$@"
	attack "$c" connect $DP_B $port "$c" recv
	[ $rprc = 0 ] || { echo "$rpout" >&2; fail "$c: rawpeer exited $rprc"; }
	check_contains "$rpout" "$want" "$c: Terminate"
	echo "$rpout" | grep -qE '^(EOF|RESET)' ||
		fail "$c: connection not closed after the Terminate: $rpout"
	check_contains "$vout" "QPSTATE=6" "$c: victim QP in ERROR"
	check_contains "$vout" "ASYNC " "$c: victim async event"
	# CONSUMED_STATUS: the ib_wc_status of the receive the bad message
	# was aimed at, when it completes in error rather than flushes.
	flushed=$(echo "$vout" | grep -c '^WC .* status=5 ')
	if [ -n "$CONSUMED_STATUS" ]; then
		check_eq "$(echo "$vout" | grep -c "^WC .* status=$CONSUMED_STATUS ")" 1 \
			"$c: receive completed with status $CONSUMED_STATUS"
		flushed=$((flushed + 1))
	fi
	check_eq "$flushed" "$NRECV" "$c: receives flushed"
	check_lacks "$vout" "status=0 " "$c: a successful completion"
	check_contains "$vout" "GUARD ok" "$c: guard octets"
	check_contains "$vout" "MRDIFF=0" "$c: registered buffers unchanged"
	log "$c: $want, QP ERROR, $flushed flushed, $(echo "$vout" | grep '^ASYNC' | head -n 1)"
}

# Valid traffic first (MPA v1, then v2 with its RTR): a Write and a Send
# land, the rest of the receives flush when rawpeer closes.
for mode in "" --v2; do
	start_victim
	# shellcheck disable=SC2086
	attack "valid $mode" $mode connect $DP_B $port write send
	[ $rprc = 0 ] || { echo "$rpout" >&2; fail "valid $mode: rawpeer exited $rprc"; }
	check_lacks "$rpout" "TERMINATE" "valid $mode"
	check_contains "$vout" "WC wr_id=0 status=0 " "valid $mode: Send received"
	check_contains "$vout" "GUARD ok" "valid $mode: guard octets"
	check_lacks "$vout" "MRDIFF=0" "valid $mode: Write and Send placed"
	check_contains "$vout" "MRWRITE=64" "valid $mode: the Write's 64 octets"
	log "valid Write + Send ${mode:-(MPA v1)}: placed"
done

# An FPDU that arrives in two parts (0.2 s apart) is checked and placed
# whole: its CRC over the parts once the second is there (by TCP's
# coalescing, within one skb or across two), a bad one refused.
start_victim
attack "write-split" connect $DP_B $port write-split send
[ $rprc = 0 ] || { echo "$rpout" >&2; fail "write-split: rawpeer exited $rprc"; }
check_lacks "$rpout" "TERMINATE" "write-split"
check_contains "$vout" "MRWRITE=64" "write-split: the Write's 64 octets"
check_contains "$vout" "WC wr_id=0 status=0 " "write-split: Send after it received"
check_contains "$vout" "GUARD ok" "write-split: guard octets"
log "Write in two parts: placed"

# Two Writes in one TCP send, the second to the same region's index with
# a guessed key (and 256 octets further on): the first is placed, the
# second refused with Invalid STag, though the receiver still holds the
# region the first one's lookup found.  Only the first Write's octets
# differ from the victim's fill pattern (i * 7 + 3) afterwards.
start_victim
attack "write-wrong-key" connect $DP_B $port write-wrong-key recv
[ $rprc = 0 ] || { echo "$rpout" >&2; fail "write-wrong-key: rawpeer exited $rprc"; }
check_contains "$rpout" "TERMINATE layer=1 type=1 code=0 " "write-wrong-key: Terminate"
check_contains "$vout" "QPSTATE=6" "write-wrong-key: victim QP in ERROR"
check_contains "$vout" "MRWRITE=64" "write-wrong-key: the first Write's 64 octets"
check_contains "$vout" "GUARD ok" "write-wrong-key: guard octets"
want=0 i=0
while [ $i -lt 64 ]; do
	[ $(((i * 7 + 3) % 256)) = $((165 ^ i)) ] || want=$((want + 1))
	i=$((i + 1))
done
check_contains "$vout" "MRDIFF=$want" "write-wrong-key: nothing placed by the second Write"
log "Write, then a guessed key in the same segment: first placed, second refused"

CONSUMED_STATUS=
case_err unknown-stag "1 1 0"
case_err wrong-key "1 1 0"
case_err bounds "1 1 1"
case_err wrong-pd "1 1 2"
# A user buffer cannot reach 2^64, so a wrapping TO is out of bounds
# first (ddp.h's check order); TO Wrap proper is covered on the host.
case_err to-wrap "1 1 1"
case_err bad-ddp-ver "1 1 4"
case_err bad-ddp-ver-untagged "1 2 6"
case_err bad-qn "1 2 1"
case_err msn-nobuf "1 2 2"
case_err msn-range "1 2 3"
case_err bad-mo "1 2 4"
# The receive the Send was aimed at completes with a local length error.
CONSUMED_STATUS=1
case_err too-long "1 2 5"
CONSUMED_STATUS=
case_err bad-opcode "0 2 6"
case_err bad-rdmap-ver "0 2 5"
case_err read-bad-stag "0 1 0"
case_err read-bounds "0 1 1"
case_err crc-error "2 0 2"
case_err crc-error-split "2 0 2"
case_err bad-fpdu-len "2 0 3"
# Access rights: a Write into a buffer without remote write is reported
# as DDP Invalid STag (SOFTIW_DDP_ERR_ACCESS's bits), a Read Request of
# a buffer without remote read as RDMAP Access Violation.
case_err write "1 1 0" -a r
case_err read "0 1 2" -a w

# A remote flood of a shared receive queue (RFC 5042 6.4.3.1): the victim
# puts two streams on one SRQ of 64 receives (victim -S).  Stream 0
# connects first and sends 10 Sends only after stream 1 has sent 60 in a
# row, reposting nothing: stream 1 gets exactly 48 (from 32 left on, it
# is over its share once the SRQ is down to 16), then the Terminate for
# a Send without a buffer, and stream 0 still gets all of its 10.
f0=$(stat srq_flood_refused)
start_victim -S -n 64 -r 64
# shellcheck disable=SC2046
ip netns exec ns0 timeout 40 "$RP/rawpeer" --timeout 20 connect $DP_B $port \
	sleep:5 $(seq 10 | sed 's/.*/send/') >"$DP_TMP/rp0" 2>&1 &
rp0=$!
wait_for 10 grep -q 'ESTABLISHED' "$DP_TMP/victim" ||
	{ cat "$DP_TMP/victim" >&2; fail "srq flood: stream 0 not established"; }
# shellcheck disable=SC2046
attack "srq flood" connect $DP_B $port $(seq 60 | sed 's/.*/send/') recv
wait $rp0 || fail "srq flood: stream 0's rawpeer exited $?: $(cat "$DP_TMP/rp0")"
check_contains "$rpout" "TERMINATE layer=1 type=2 code=2 " "srq flood: Terminate"
got1=$(echo "$vout" | grep -c '^WC qp=1 .* status=0 ')
got0=$(echo "$vout" | grep -c '^WC qp=0 .* status=0 ')
check_eq "$got1" 48 "srq flood: Sends the flooding stream got placed"
check_eq "$got0" 10 "srq flood: Sends the other stream got placed"
check_contains "$vout" "QPSTATE1=6" "srq flood: flooding QP in ERROR"
check_eq "$(stat srq_flood_refused)" "$((f0 + 1))" "srq_flood_refused"
log "srq flood: 48 of 60 placed, Terminate, the other stream's 10 placed"

# Every refusal was counted (rdma statistic, stats.c) on the victim's device.
stats=$(rdma statistic show link sw1/1)
for want in "terminate_sent 20" "remote_access_errors 10" \
	"remote_invalid_requests 8" "llp_errors 2" "mpa_crc_errors 1"; do
	n=${want% *} min=${want#* }
	got=$(stat "$n")
	[ "${got:-0}" -ge "$min" ] || fail "counter $n: ${got:-none}, want >= $min: $stats"
done
log "counters: $stats"

check_lacks "$(dmesg_new)" "Oops" "kernel log"
check_lacks "$(dmesg_new)" "BUG" "kernel log"
exit 0
