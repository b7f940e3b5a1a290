#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/selftests-guest.sh DIR TEST...: runs inside the VM (via
# tools/vm/run, from tools/vm/selftests.sh).  Runs each selftest of DIR in
# turn, each under the timeout from DIR/settings (or its own, from a
# "# timeout=SECS" line in the test), and prints one TAP line
# per test, numbered from 1: `ok N - name`, `ok N - name # SKIP` (exit 4),
# `not ok N - name` (anything else; 124 = timeout).  A test's own output is
# indented as TAP comments ("# ..."), so only these lines count.  After a
# timeout the blocked tasks' stacks go to the kernel log (sysrq w); the
# log's first reports (a BUG or WARNING that may have caused the hang)
# and its tail are shown.  SOFTIW_TIMEOUT_SCALE (default 1) multiplies
# every timeout (a debug kernel is slower).
#
# On a kernel with kmemleak on (the debug kernel, booted with
# kmemleak=on), after the last test softiw and siw are unloaded and memory
# is scanned: kmemleak logs "new suspected memory leaks" to the kernel log,
# which fails the runner's log check, and the report is shown here.  Any
# leak since boot counts (the kernel's own, too: none so far); softiw
# still loaded at the scan is logged as a problem.
dir=$1
shift
tmo=120
[ -r "$dir/settings" ] && tmo=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' "$dir/settings")
scale=${SOFTIW_TIMEOUT_SCALE:-1}
kml=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
kmemleak=0
if [ -e $kml ]; then
	# the file exists when kmemleak is built in; a scan works only when
	# it is on (kmemleak=on)
	if echo scan >$kml 2>/dev/null; then
		kmemleak=1
	else
		echo "# kmemleak: built in but off (boot with kmemleak=on): no leak check"
	fi
fi
n=0
for t in "$@"; do
	n=$((n + 1))
	name=${t%.sh}
	out=/tmp/selftest-$name.out
	ttmo=$(sed -n 's/^# timeout=\([0-9]*\)$/\1/p' "$dir/$t" | head -n 1)
	ttmo=$((${ttmo:-$tmo} * scale))
	timeout -k 5 "$ttmo" "$dir/$t" >"$out" 2>&1 </dev/null
	rc=$?
	sed 's/^/# /' "$out"
	if [ $rc = 124 ]; then
		echo w >/proc/sysrq-trigger 2>/dev/null
		dmesg | grep -E -A 25 -m 3 \
			'kernel BUG at|BUG:|WARNING:|general protection fault' |
			sed 's/^/# dmesg: /'
		dmesg | tail -n 150 | sed 's/^/# dmesg: /'
	fi
	case $rc in
	0) echo "ok $n - $name" ;;
	4) echo "ok $n - $name # SKIP $(grep -m1 '^SKIP: ' "$out" | cut -c7-)" ;;
	124) echo "not ok $n - $name # TIMEOUT ${ttmo}s" ;;
	*) echo "not ok $n - $name # exit $rc" ;;
	esac
done
if [ $kmemleak = 1 ]; then
	timeout 60 rmmod softiw 2>/dev/null
	timeout 60 rmmod siw 2>/dev/null
	# what softiw still holds would escape the scan: say so in the log
	[ -e /sys/module/softiw ] &&
		echo "softiw-selftests: softiw still loaded at the leak scan" >/dev/kmsg
	# an object is reported once it stayed unreferenced, unchanged and
	# 5 s old over two scans
	echo scan >$kml
	sleep 6
	echo scan >$kml
	sed 's/^/# kmemleak: /' $kml
fi
exit 0
