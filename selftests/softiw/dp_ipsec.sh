#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# RFC 5042 section 5.4.5: IPsec beneath softiw's TCP.  ESP in transport
# mode and then in tunnel mode (AES-GCM, static keys, `ip xfrm`) between
# the two namespaces, with policies in both directions and both
# namespaces, so no plain packet between the two addresses is accepted;
# then rping -V and ib_write_bw through it, in each mode.  The SAs' packet counters must have grown by at least what
# the transfers needed, which shows the RDMA traffic really went through
# ESP and not around it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping ib_write_bw

# spi and key per direction (20 octets: AES-128 key + 4-octet salt)
K1=0x0123456789abcdef0123456789abcdef01234567
K2=0xfedcba9876543210fedcba9876543210fedcba98

# packets ESP carried so far for SPI in NS
esp_packets() {
	ip -n "$1" -s xfrm state list src "$3" dst "$4" proto esp spi "$2" 2>/dev/null |
		awk '/lifetime current:/ { getline; sub(/\(packets\)/, "", $2); print $2 + 0; exit }'
}

# esp_run MODE SPI1 SPI2 PORT: SAs and policies of MODE (transport or
# tunnel) in both namespaces, then rping -V and ib_write_bw through them.
esp_run() {
	mode=$1 spi1=$2 spi2=$3 port=$4
	for ns in ns0 ns1; do
		run ip -n $ns xfrm policy flush
		run ip -n $ns xfrm state flush
		run ip -n $ns xfrm state add src $DP_A dst $DP_B proto esp \
			spi $spi1 reqid 1 mode $mode aead 'rfc4106(gcm(aes))' $K1 128
		run ip -n $ns xfrm state add src $DP_B dst $DP_A proto esp \
			spi $spi2 reqid 2 mode $mode aead 'rfc4106(gcm(aes))' $K2 128
	done
	pol() { # NS SRC DST DIR REQID
		run ip -n "$1" xfrm policy add src "$2"/32 dst "$3"/32 dir "$4" \
			tmpl src "$2" dst "$3" proto esp reqid "$5" mode $mode
	}
	pol ns0 $DP_A $DP_B out 1
	pol ns0 $DP_B $DP_A in 2
	pol ns1 $DP_B $DP_A out 2
	pol ns1 $DP_A $DP_B in 1

	before=$(esp_packets ns1 $spi1 $DP_A $DP_B)
	[ -n "$before" ] || fail "$mode: no ESP counters: $(ip -n ns1 -s xfrm state)"

	dp_bg srv.$mode ns1 120 rping -s -a $DP_B -p $port -V -C 50 -S 65535
	srv=$DP_LAST
	dp_wait_listen ns1 $port
	dp_fg cli.$mode ns0 120 "rping client over ESP ($mode)" \
		rping -c -a $DP_B -p $port -V -C 50 -S 65535
	dp_wait srv.$mode $srv "rping server over ESP ($mode)"
	check_lacks "$(cat "$DP_TMP/cli.$mode" "$DP_TMP/srv.$mode")" \
		"data mismatch" "rping over ESP ($mode)"

	bport=$((port + 1))
	dp_bg bw.srv.$mode ns1 120 ib_write_bw -R -F -d sw1 -p $bport -s 65536 -n 100
	srv=$DP_LAST
	dp_wait_listen ns1 $bport
	dp_fg bw.cli.$mode ns0 120 "ib_write_bw over ESP ($mode)" \
		ib_write_bw -R -F -d sw0 -p $bport -s 65536 -n 100 $DP_B
	dp_wait bw.srv.$mode $srv "ib_write_bw server over ESP ($mode)"
	grep -qE '^ *65536 +100 ' "$DP_TMP/bw.cli.$mode" ||
		fail "ib_write_bw ($mode): no report: $(cat "$DP_TMP/bw.cli.$mode")"

	after=$(esp_packets ns1 $spi1 $DP_A $DP_B)
	back=$(esp_packets ns0 $spi2 $DP_B $DP_A)
	# 50 x 64 KiB verified each way and 100 x 64 KiB written: far more
	# than 2000 segments of at most 1448 octets from ns0 to ns1.
	[ $((after - before)) -ge 2000 ] ||
		fail "$mode: ESP ns0->ns1 carried $((after - before)) packets; the traffic bypassed IPsec"
	[ "${back:-0}" -gt 0 ] || fail "$mode: no ESP packets ns1->ns0"
	log "$mode mode: rping -V 50 x 64 KiB and ib_write_bw 100 x 64 KiB over ESP: $((after - before)) ESP packets ns0->ns1, $back back"
}

esp_run transport 0x5001 0x5002 7601
esp_run tunnel 0x6001 0x6002 7611
exit 0
