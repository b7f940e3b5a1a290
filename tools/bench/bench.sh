#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench.sh [KVER] [SECONDS]: `make bench`.  The wire core
# micro-benchmark on the host (tests/bench), then perftest over softiw
# and over upstream siw (built from Debian's linux-source-6.1 by
# siw-build.sh, so only on a 6.1 kernel, the default here) between two
# namespaces in one VM booted with KVER (tools/vm/run, whose guest kernel
# log check applies), and a table of the results.  Under TCG (no KVM)
# absolute figures are those of an emulated CPU; the softiw/siw ratio is
# what to compare.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=${1:-}
if [ -z "$kver" ]; then
	# the kernel siw can be built for, else the default one
	for v in /boot/vmlinuz-6.1.*; do
		[ -d "/lib/modules/${v#/boot/vmlinuz-}/build" ] && kver=${v#/boot/vmlinuz-}
	done
	[ -n "$kver" ] || kver=$("$top/tools/kver.sh")
fi
secs=${2:-5}
[ -n "$kver" ] || { echo "bench: no kernel found (make deps)" >&2; exit 1; }

echo "== wire core micro-benchmark (host)"
make -s -C "$top/tests/bench" run || exit 1

echo "== perftest in a VM ($kver, $((secs * 200)) iterations per bandwidth run)"
make -s -C "$top" module KVER="$kver" >/dev/null || exit 1
siw_ko=$("$here/siw-build.sh" "$kver") || siw_ko=
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$top/tools/vm/run" --kver "$kver" --timeout 900 -- \
	"$top/tools/bench/bench-guest.sh" "$secs" "$siw_ko" | tee "$out"
rc=${PIPESTATUS[0]}

echo
printf "%-13s %-6s %11s %11s %11s %9s %12s\n" test size softiw "no CRC" siw "vs siw" "softiw veth"
awk '$1 == "RESULT" { v[$2 " " $3 " " $4] = $5; u[$3] = $6; if ($2 != "tcp") t[$3 " " $4] = 1 }
END {
	for (k in t) {
		split(k, a, " ")
		s = v["softiw " k]; n = v["softiw-nocrc " k]; r = v["siw " k]
		ratio = "-"
		if (n != "" && r != "" && n > 0 && r > 0)
			ratio = sprintf("%.2f", a[1] ~ /_lat$/ ? r / n : n / r)
		printf "%-13s %-6s %6s %-4s %6s %-4s %6s %-4s %9s %7s %-4s\n", a[1], a[2], s, u[a[1]], n, u[a[1]], r, u[a[1]], ratio, v["softiw-veth " k], u[a[1]]
	}
	if (v["tcp iperf3 -"] != "") printf "iperf3 (TCP over the same veth): %s MB/s\n", v["tcp iperf3 -"]
}' "$out" | sort
echo "(softiw, no CRC, siw: one device over its own address, initial namespace;"
echo " vs siw: softiw without CRC against siw, which never asks for it:"
echo " bandwidth ratio or latency ratio, above 1 means softiw is faster;"
echo " softiw veth: between two namespaces over a veth pair)"
exit "$rc"
