#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# MPA negotiation end to end: rping -V between the two namespaces under
# each combination of the module parameters that change what is
# negotiated (mpa_crc, mpa_markers, mpa_v2), over IPv4 and IPv6, and with
# a wildcard listen.  Both ends run the same module, so each run also
# checks the kernel's own log line for what was agreed
# ("connected: rev R crc C markers M/M ...", dynamic debug; a kernel
# without dynamic debug has each case say its negotiation went
# unchecked).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping
PAR=/sys/module/softiw/parameters
DYN=/sys/kernel/debug/dynamic_debug/control
A6=fd00:78::1
B6=fd00:78::2
run ip -n ns0 -6 addr add $A6/64 dev veth0 nodad
run ip -n ns1 -6 addr add $B6/64 dev veth1 nodad

restore() {
	echo Y >$PAR/mpa_crc; echo N >$PAR/mpa_markers; echo Y >$PAR/mpa_v2
	[ -w $DYN ] && echo 'module softiw -p' >$DYN
	dp_cleanup
}
on_exit restore
[ -w $DYN ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
# The negotiated parameters are read from the module's debug message;
# without dynamic debug the data is still verified, and each case says
# that its negotiation went unchecked.
if [ -w $DYN ]; then
	echo 'module softiw +p' >$DYN || fail "enable softiw's debug messages"
	neg=checked
else
	neg=unchecked
	log "no $DYN (kernel without dynamic debug): negotiation not checked"
fi

# case CRC MARKERS V2 LISTEN_ADDR CONNECT_ADDR WANT_LINE
case_run() {
	echo "$1" >$PAR/mpa_crc || fail "set mpa_crc"
	echo "$2" >$PAR/mpa_markers || fail "set mpa_markers"
	echo "$3" >$PAR/mpa_v2 || fail "set mpa_v2"
	port=$((${port:-7500} + 1))
	what="crc=$1 markers=$2 v2=$3 listen=$4 connect=$5"
	dmesg_mark
	dp_bg srv ns1 120 rping -s -a "$4" -p $port -V -C 20 -S 16384
	srv=$DP_LAST
	dp_wait_listen ns1 $port
	dp_fg cli ns0 120 "rping client ($what)" \
		rping -c -a "$5" -p $port -V -C 20 -S 16384
	dp_wait srv $srv "rping server ($what)"
	check_lacks "$(cat "$DP_TMP/cli" "$DP_TMP/srv")" "data mismatch" "$what"
	if [ $neg = checked ]; then
		check_contains "$(dmesg_new)" "$6" "negotiated ($what)"
		log "$what: 20 x 16 KiB verified; $6"
	else
		log "$what: 20 x 16 KiB verified; negotiation unchecked"
	fi
}

case_run Y N Y $DP_B $DP_B "connected: rev 2 crc 1 markers 0/0"
case_run N N Y $DP_B $DP_B "connected: rev 2 crc 0 markers 0/0"
case_run Y Y Y $DP_B $DP_B "connected: rev 2 crc 1 markers 1/1"
case_run N Y N $DP_B $DP_B "connected: rev 1 crc 0 markers 1/1"
case_run Y N N $DP_B $DP_B "connected: rev 1 crc 1 markers 0/0"
case_run Y N Y $B6 $B6 "connected: rev 2 crc 1 markers 0/0"
case_run Y Y Y $B6 $B6 "connected: rev 2 crc 1 markers 1/1"
case_run Y N Y 0.0.0.0 $DP_B "connected: rev 2 crc 1 markers 0/0"
case_run Y N Y :: $B6 "connected: rev 2 crc 1 markers 0/0"
# Each CRC32c routine (crc.c) and each copy routine (copy.c) the module
# can choose, forced at load: rping verifies every octet it moved.
for pair in lib:memcpy table:words; do
	impl=${pair%:*} copy=${pair#*:}
	dp_cleanup
	DP_MODOPTS="crc_impl=$impl copy_impl=$copy" dp_setup rping
	on_exit restore
	check_eq "$(cat $PAR/crc_impl)" $impl "crc_impl after loading with crc_impl=$impl"
	check_eq "$(cat $PAR/copy_impl)" $copy "copy_impl after loading with copy_impl=$copy"
	[ $neg = unchecked ] || echo 'module softiw +p' >$DYN ||
		fail "enable softiw's debug messages"
	case_run Y N Y $DP_B $DP_B "connected: rev 2 crc 1 markers 0/0"
	case_run Y Y Y $DP_B $DP_B "connected: rev 2 crc 1 markers 1/1"
	log "crc_impl=$impl copy_impl=$copy: verified"
done
exit 0
