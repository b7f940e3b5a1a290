#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host self-test of rawpeer: rawpeer (connect) against rawpeer (listen,
# the wire core's reference receiver) on 127.0.0.1.  For every crafted
# error case the reference receiver must answer with the Terminate of
# RFC 5040/5041/5044 (the same values dp_rawpeer.sh asserts against
# softiw in the VM), and valid traffic must pass.  TAP output.
#
#   rawpeer (connect) 127.0.0.1:PORT ----TCP----> rawpeer (listen)
#   usage: check.sh PATH/TO/rawpeer
RP=${1:?usage: check.sh rawpeer}
PORT=${RAWPEER_PORT:-$((20000 + $$ % 20000))}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=0
FAILED=0
MR="--stag 0x1234 --to 0x10000 --len 4096 --stag2 0x5678 --to2 0x40000 --len2 4096 --nrecv 4 --rlen 256 --timeout 5"

ok() { N=$((N + 1)); echo "ok $N - $*"; }
not_ok() { N=$((N + 1)); FAILED=1; echo "not ok $N - $*"; sed 's/^/# /' "$TMP/c" "$TMP/l"; }

# pair NAME "LISTEN_OPTS" "CONNECT_OPTS" STEP...: run one exchange; both
# ends must exit 0 (the connector closes after its steps: end with recv
# to wait for the listener's Terminate and close instead)
pair() {
	name=$1 lopts=$2 copts=$3
	shift 3
	PORT=$((PORT + 1))
	# empty it here: the child's own truncation may come after the wait
	# below has read the previous listener's LISTENING line
	: >"$TMP/l"
	# shellcheck disable=SC2086
	timeout 20 "$RP" $MR $lopts listen $PORT validate >"$TMP/l" 2>&1 &
	lpid=$!
	i=0
	while ! grep -q LISTENING "$TMP/l" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	# shellcheck disable=SC2086
	timeout 20 "$RP" $MR $copts connect 127.0.0.1 $PORT "$@" >"$TMP/c" 2>&1
	crc=$?
	wait $lpid
	lrc=$?
	[ $crc = 0 ] && [ $lrc = 0 ] || { echo "# $name: exit $crc/$lrc"; return 1; }
}

# term CASE "LAYER TYPE CODE" [OPTS]: the reference answers CASE with it
term() {
	c=$1 want="TERMINATE layer=$(echo "$2" | awk '{print $1 " type=" $2 " code=" $3}')"
	if pair "$c" "$3" "$3" write "$c" recv &&
	   grep -q "^$want " "$TMP/c" && grep -q '^EOF' "$TMP/c"; then
		ok "$c -> $want"
	else
		not_ok "$c: want '$want'"
	fi
}

echo "TAP version 13"
if pair "valid traffic" "" "" write send send read write &&
   [ "$(grep -c '^FPDU' "$TMP/l")" = 5 ] && ! grep -q TERMINATE "$TMP/c"; then
	ok "MPA v1 with CRC, Write/Send/Read Request accepted"
else
	not_ok "valid traffic"
fi
if pair "v2" "" "--v2" write &&
   grep -q '^MPA reply rev=2 crc=1 markers=0 reject=0 enhanced=1' "$TMP/c" &&
   grep -q '^FPDU opcode=0 last=1 stag=0x00000000 to=0x0 len=0' "$TMP/l"; then
	ok "MPA v2 enhanced exchange with a zero-length Write RTR"
else
	not_ok "v2"
fi
if pair "no crc" "--no-crc" "--no-crc" crc-error &&
   grep -q '^MPA reply rev=1 crc=0' "$TMP/c" && ! grep -q TERMINATE "$TMP/c"; then
	ok "CRC off: the CRC field is not checked"
else
	not_ok "no crc"
fi
if pair "crc asked by responder" "" "--no-crc" crc-error recv &&
   grep -q '^MPA reply rev=1 crc=1' "$TMP/c" &&
   grep -q '^TERMINATE layer=2 type=0 code=2 ' "$TMP/c"; then
	ok "CRC requested by the Responder only is used both ways"
else
	not_ok "crc asked by responder"
fi

term unknown-stag "1 1 0"
term wrong-key "1 1 0"
term write-wrong-key "1 1 0"
term bounds "1 1 1"
term wrong-pd "1 1 2"
term to-wrap "1 1 3" "--to 0xfffffffffffff000 --len 4096"
term to-wrap "1 1 1"
term bad-ddp-ver "1 1 4"
term bad-ddp-ver-untagged "1 2 6"
term bad-qn "1 2 1"
term msn-nobuf "1 2 2"
term msn-range "1 2 3"
term bad-mo "1 2 4"
term too-long "1 2 5"
term bad-opcode "0 2 6"
term bad-rdmap-ver "0 2 5"
term read-bad-stag "0 1 0"
term read-bounds "0 1 1"
term crc-error "2 0 2"
term bad-fpdu-len "2 0 3"

echo "1..$N"
exit $FAILED
