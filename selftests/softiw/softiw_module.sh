#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module load/unload, repeatedly, and the link type it registers:
#
#   (no network: only the module and sysfs)
#
# modprobe, rmmod and modprobe -r, three rounds; each round the module must
# appear in /sys/module and lsmod, and vanish after unload.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd modprobe rmmod lsmod
need_softiw
on_exit 'softiw_reset'
softiw_reset

for round in 1 2 3; do
	run modprobe softiw
	is_loaded || fail "round $round: /sys/module/softiw missing after modprobe"
	check_contains "$(lsmod)" "softiw" "lsmod after modprobe"
	if [ $round = 2 ]; then run modprobe -r softiw; else run rmmod softiw; fi
	is_loaded && fail "round $round: softiw still loaded after unload"
	check_lacks "$(lsmod | cut -d' ' -f1)" "softiw" "lsmod after unload"
done
# Unloading twice is refused by the kernel, not silently accepted.
rmmod softiw 2>/dev/null && fail "rmmod of an unloaded softiw succeeded"
log "3 load/unload rounds"

# impl_param NAME "A B" LOGTEXT BAD: a routine chosen at load (crc.c,
# copy.c): each value forced, auto's choice among them and in the log
# (LOGTEXT), read-only after load, the value BAD refused.
impl_param() {
	name=$1 values=$2 logtext=$3 bad=$4
	P=/sys/module/softiw/parameters/$name
	for impl in $values; do
		run modprobe softiw $name=$impl
		check_eq "$(cat $P)" $impl "$name after loading with $name=$impl"
		run rmmod softiw
	done
	dmesg_mark
	run modprobe softiw
	got=$(cat $P)
	case " $values " in *" $got "*) ;; *) fail "$name=auto chose '$got'" ;; esac
	check_contains "$(dmesg_new)" "$logtext: $got ($name=auto;" "the choice in the log"
	(echo "${values%% *}" >$P) 2>/dev/null && fail "$name was writable after load"
	run rmmod softiw
	modprobe softiw $name=$bad 2>/dev/null && fail "modprobe with $name=$bad succeeded"
	is_loaded && fail "softiw loaded with $name=$bad"
	log "$name: $values, auto ($got), bad value refused"
}
impl_param crc_impl "lib table" "MPA CRC32c" fastest
impl_param copy_impl "memcpy words" "data path copies" movsb
exit 0
