#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# RFC 5042 section 5.4.5: IPsec beneath softiw's TCP.  ESP in transport
# mode (AES-GCM, static keys, `ip xfrm`) between the two namespaces, with
# policies in both directions and both namespaces, so no plain packet
# between the two addresses is accepted; then rping -V and ib_write_bw
# through it.  The SAs' packet counters must have grown by at least what
# the transfers needed, which shows the RDMA traffic really went through
# ESP and not around it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping ib_write_bw

# spi and key per direction (20 octets: AES-128 key + 4-octet salt)
K1=0x0123456789abcdef0123456789abcdef01234567
K2=0xfedcba9876543210fedcba9876543210fedcba98
for ns in ns0 ns1; do
	run ip -n $ns xfrm state add src $DP_A dst $DP_B proto esp spi 0x5001 \
		reqid 1 mode transport aead 'rfc4106(gcm(aes))' $K1 128
	run ip -n $ns xfrm state add src $DP_B dst $DP_A proto esp spi 0x5002 \
		reqid 2 mode transport aead 'rfc4106(gcm(aes))' $K2 128
done
pol() { # NS SRC DST DIR REQID
	run ip -n "$1" xfrm policy add src "$2"/32 dst "$3"/32 dir "$4" \
		tmpl src "$2" dst "$3" proto esp reqid "$5" mode transport
}
pol ns0 $DP_A $DP_B out 1
pol ns0 $DP_B $DP_A in 2
pol ns1 $DP_B $DP_A out 2
pol ns1 $DP_A $DP_B in 1

# packets ESP carried so far for SPI in NS
esp_packets() {
	ip -n "$1" -s xfrm state list src "$3" dst "$4" proto esp spi "$2" 2>/dev/null |
		awk '/lifetime current:/ { getline; sub(/\(packets\)/, "", $2); print $2 + 0; exit }'
}
before=$(esp_packets ns1 0x5001 $DP_A $DP_B)
[ -n "$before" ] || fail "no ESP counters: $(ip -n ns1 -s xfrm state)"

dp_bg srv ns1 120 rping -s -a $DP_B -p 7601 -V -C 50 -S 65535
srv=$DP_LAST
dp_wait_listen ns1 7601
dp_fg cli ns0 120 "rping client over ESP" rping -c -a $DP_B -p 7601 -V -C 50 -S 65535
dp_wait srv $srv "rping server over ESP"
check_lacks "$(cat "$DP_TMP/cli" "$DP_TMP/srv")" "data mismatch" "rping over ESP"

dp_bg bw.srv ns1 120 ib_write_bw -R -F -d sw1 -p 7602 -s 65536 -n 100
srv=$DP_LAST
dp_wait_listen ns1 7602
dp_fg bw.cli ns0 120 "ib_write_bw over ESP" ib_write_bw -R -F -d sw0 -p 7602 -s 65536 -n 100 $DP_B
dp_wait bw.srv $srv "ib_write_bw server over ESP"
grep -qE '^ *65536 +100 ' "$DP_TMP/bw.cli" || fail "ib_write_bw: no report: $(cat "$DP_TMP/bw.cli")"

after=$(esp_packets ns1 0x5001 $DP_A $DP_B)
back=$(esp_packets ns0 0x5002 $DP_B $DP_A)
# 50 x 64 KiB verified each way and 100 x 64 KiB written: far more than
# 2000 segments of at most 1448 octets from ns0 to ns1.
[ $((after - before)) -ge 2000 ] ||
	fail "ESP ns0->ns1 carried $((after - before)) packets; the traffic bypassed IPsec"
[ "${back:-0}" -gt 0 ] || fail "no ESP packets ns1->ns0"
log "rping -V 50 x 64 KiB and ib_write_bw 100 x 64 KiB over ESP: $((after - before)) ESP packets ns0->ns1, $back back"
exit 0
