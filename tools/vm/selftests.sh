#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/selftests.sh [KVER] [TEST...]
#
# Runs the softiw selftests (selftests/softiw/, all of them or the named
# ones) in ONE VM booted with KVER (default: tools/kver.sh) and prints TAP:
# one unindented `ok N - name` / `not ok N - name` line per test (`# SKIP`
# for skips), test output as `# ` comments, then one more line for the
# guest kernel log check (tools/vm/check-log: oops, BUG, WARNING, ...).
# Tests the VM never reported (crash, timeout) are `not ok`.  Exits 0 when
# every line is ok, 1 otherwise.
#
#   tools/vm/selftests.sh 6.12.117+deb12-amd64
#   tools/vm/selftests.sh 6.1.0-57-amd64 softiw_link.sh
#
# With SOFTIW_VM_KROOT=DIR (a debug kernel of tools/debug-kernel.sh) the VM
# boots DIR's kernel (KVER, when given, must be DIR's), the test modules
# and siw are built against DIR/build, the guest gets 2 GiB and kmemleak,
# the guest ends with a kmemleak scan after unloading softiw and siw
# (selftests-guest.sh), whose report fails the kernel log check, and the
# guest's RCU stall and soft lockup thresholds are raised (TCG).
#
# DP_* variables of the caller's environment (a test's knobs, e.g.
# DP_SOAK_MINUTES) are passed on to the tests in the guest.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
sdir=$top/selftests/softiw
kver=${1:-}
[ $# -gt 0 ] && shift
kroot=${SOFTIW_VM_KROOT:-}
vmargs=()
scale=1
if [ -n "$kroot" ]; then
	k=$(cat "$kroot/kver" 2>/dev/null) ||
		{ echo "selftests.sh: $kroot: not a finished debug kernel" >&2; exit 1; }
	[ -z "$kver" ] || [ "$kver" = "$k" ] ||
		{ echo "selftests.sh: $kver is not $kroot's kernel ($k)" >&2; exit 1; }
	kver=$k
	export KDIR=$kroot/build
	# slow enough under TCG to pass for an RCU stall or a soft lockup
	vmargs=(--kroot "$kroot" --mem 2048 --append
		"kmemleak=on rcupdate.rcu_cpu_stall_timeout=120 watchdog_thresh=60")
	# KASAN and lockdep under TCG: every test's timeout three times over
	scale=3
fi
[ -n "$kver" ] || kver=$("$top/tools/kver.sh")
[ -n "$kver" ] || { echo "selftests.sh: no kernel found (make deps)" >&2; exit 1; }

make -s -C "$sdir" >/dev/null || { echo "selftests.sh: building selftests failed" >&2; exit 1; }
# the kernel-side test consumers (dp_events.sh fails without them)
"$top/tools/kmod-build.sh" "$kver" ||
	echo "selftests.sh: test modules not built for $kver: dp_events will fail" >&2
# upstream siw, which dp_siw.sh loads next to softiw (it fails without)
"$top/tools/siw-build.sh" "$kver" >/dev/null ||
	echo "selftests.sh: upstream siw not built for $kver: dp_siw will fail" >&2
if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(make -s --no-print-directory -C "$sdir" list)
fi
[ ${#tests[@]} -gt 0 ] || { echo "selftests.sh: no tests" >&2; exit 1; }
for t in "${tests[@]}"; do
	[ -x "$sdir/$t" ] || { echo "selftests.sh: no test $sdir/$t" >&2; exit 1; }
done

mkdir -p "$top/build/vm" || exit 1
out=$(mktemp "$top/build/vm/selftests-out.XXXXXX") || exit 1
klog=$(mktemp "$top/build/vm/selftests-kernel-log.XXXXXX") || exit 1
trap 'rm -f "$out" "$klog"' EXIT

ntests=${#tests[@]}
echo "TAP version 13"
echo "1..$((ntests + 1))"
echo "# kernel $kver, ${ntests} selftests in one VM"
# Generous: the per-test timeouts bound each test; this bounds the boot
# too.  It is a budget for the whole run, not a per-test bound: 150 s a
# test (most take far less than settings' timeout), or a test's own
# "# timeout=SECS", so that CI's limit still holds if the VM hangs;
# times the debug kernel's scale.
# the boot (and the debug kernel's leak scan) scaled too
vmtmo=$((120 * scale))
for t in "${tests[@]}"; do
	tt=$(sed -n 's/^# timeout=\([0-9]*\)$/\1/p' "$sdir/$t" | head -n 1)
	vmtmo=$((vmtmo + ${tt:-150} * scale))
done
mapfile -t knobs < <(env | grep -E '^DP_[A-Z0-9_]+=')
"$here/run" --kver "$kver" "${vmargs[@]}" --timeout $vmtmo --log "$klog" \
	--no-log-check -- env SOFTIW_TIMEOUT_SCALE=$scale "${knobs[@]}" \
	"$here/selftests-guest.sh" "$sdir" "${tests[@]}" | tee "$out"
vmrc=${PIPESTATUS[0]}

fails=0
for i in $(seq 1 "$ntests"); do
	name=${tests[$((i - 1))]%.sh}
	if grep -q -E "^ok $i - " "$out"; then
		continue
	elif grep -q -E "^not ok $i - " "$out"; then
		fails=$((fails + 1))
	else
		echo "not ok $i - $name # no result: the VM failed (runner exit $vmrc)"
		fails=$((fails + 1))
	fi
done

n=$((ntests + 1))
if [ $vmrc -ne 0 ]; then
	echo "not ok $n - guest kernel log # runner exit $vmrc"
	sed 's/^/# /' "$klog"
	fails=$((fails + 1))
elif ! "$here/check-log" "$klog" 2>"$out.why"; then
	echo "not ok $n - guest kernel log"
	sed 's/^/# /' "$out.why"
	echo "# ---- guest kernel log ----"
	sed 's/^/# /' "$klog"
	fails=$((fails + 1))
else
	echo "ok $n - guest kernel log"
fi
rm -f "$out.why"
[ $fails -eq 0 ]
