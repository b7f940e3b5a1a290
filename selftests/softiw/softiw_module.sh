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

# crc_impl: the MPA CRC32c routine, decided at load (crc.c).
P=/sys/module/softiw/parameters/crc_impl
for impl in lib table; do
	run modprobe softiw crc_impl=$impl
	check_eq "$(cat $P)" $impl "crc_impl after loading with crc_impl=$impl"
	run rmmod softiw
done
dmesg_mark
run modprobe softiw
got=$(cat $P)
case $got in lib|table) ;; *) fail "crc_impl=auto chose '$got'" ;; esac
check_contains "$(dmesg_new)" "MPA CRC32c: $got (crc_impl=auto;" "the choice in the log"
(echo lib >$P) 2>/dev/null && fail "crc_impl was writable after load"
run rmmod softiw
modprobe softiw crc_impl=fastest 2>/dev/null && fail "modprobe with crc_impl=fastest succeeded"
is_loaded && fail "softiw loaded with crc_impl=fastest"
log "crc_impl: lib, table, auto ($got), bad value refused"

# copy_impl: the data path's copy routine, decided at load (copy.c).
P=/sys/module/softiw/parameters/copy_impl
for impl in memcpy words; do
	run modprobe softiw copy_impl=$impl
	check_eq "$(cat $P)" $impl "copy_impl after loading with copy_impl=$impl"
	run rmmod softiw
done
dmesg_mark
run modprobe softiw
got=$(cat $P)
case $got in memcpy|words) ;; *) fail "copy_impl=auto chose '$got'" ;; esac
check_contains "$(dmesg_new)" "data path copies: $got (copy_impl=auto;" "the choice in the log"
(echo memcpy >$P) 2>/dev/null && fail "copy_impl was writable after load"
run rmmod softiw
modprobe softiw copy_impl=movsb 2>/dev/null && fail "modprobe with copy_impl=movsb succeeded"
is_loaded && fail "softiw loaded with copy_impl=movsb"
log "copy_impl: memcpy, words, auto ($got), bad value refused"
exit 0
