#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench.sh [KVER] [ROUNDS] [PEER]: `make bench`;
# tools/bench/bench.sh --table RAW_LOG prints the table of a kept run.
#  The wire
# core micro-benchmark on the host (tests/bench), then, in one VM boot
# (tools/vm/run, whose guest kernel log check applies), perftest over
# softiw (CRC on and off), rxe and, with PEER=siw, upstream siw (built
# from Debian's linux-source of the kernel's series by siw-build.sh; a 6.1
# kernel is the default here), plus iperf3, all over 1500-MTU veth pairs
# (bench-guest.sh says how), ROUNDS rounds with the subjects alternating.
# Prints a table of medians with ratios and keeps the raw perftest output
# in build/bench/.  Under TCG (no KVM) absolute figures are those of an
# emulated CPU; the ratios are what to compare.  BENCH_TESTS,
# BENCH_SUBJECTS and BENCH_SIZES narrow the run (bench-guest.sh).
set -uo pipefail
# table RAW: the table of medians and ratios from a raw log
table() {
	awk '
$1 == "RESULT" { k = $2 " " $3 " " $4; n[k]++; v[k, n[k]] = $5; u[$3] = $6
	byr[k, $7] = $5; if ($7 > nr) nr = $7
	if ($2 != "tcp") t[$3 " " $4] = 1 }
function median(k,   i, j, m, a, x) {
	m = n[k]
	if (!m) return ""
	for (i = 1; i <= m; i++) a[i] = v[k, i] + 0
	for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function fmt(x) { return x == "" ? "-" : sprintf("%.2f", x) }
# The median over the rounds of the ratio in each round of results a and b
# (keys "subject test size"): both ran in the same round, so a host that
# speeds up or slows down between rounds moves both.  Bandwidth: a / b;
# latency: b / a (above 1: a is better).
function ratio(a, b, lat,   r, m, x, y, i, j, q, c) {
	m = 0
	for (r = 1; r <= nr; r++) {
		x = byr[a, r]; y = byr[b, r]
		if (x == "" || y == "" || x <= 0 || y <= 0) continue
		q[++m] = lat ? y / x : x / y
	}
	if (!m) return "-"
	for (i = 2; i <= m; i++) { c = q[i]; for (j = i - 1; j >= 1 && q[j] > c; j--) q[j + 1] = q[j]; q[j + 1] = c }
	return sprintf("%.2f", m % 2 ? q[(m + 1) / 2] : (q[m / 2] + q[m / 2 + 1]) / 2)
}
END {
	tcp = median("tcp iperf3 -")
	printf "%-13s %8s %9s %9s %9s %9s %8s %8s %8s\n", "test", "size", "softiw", "no CRC", "siw", "rxe", "/siw", "nc/siw", "/iperf3"
	for (k in t) {
		split(k, a, " ")
		lat = a[1] ~ /_lat$/
		s = median("softiw " k); c = median("softiw-nocrc " k)
		w = median("siw " k); x = median("rxe " k)
		printf "%-13s %8s %9s %9s %9s %9s %8s %8s %8s\n", a[1], a[2], fmt(s), fmt(c), fmt(w), fmt(x), ratio("softiw " k, "siw " k, lat), ratio("softiw-nocrc " k, "siw " k, lat), lat ? "-" : ratio("softiw " k, "tcp iperf3 -", 0)
	}
	if (tcp != "") printf "iperf3 (TCP over the same veth): %.2f MB/s\n", tcp
}' "$1" | { read -r head; echo "$head"; sort; }
}
# spread RAW: how far the rounds agree.  For softiw (with and without
# CRC) against siw, per test: the per-round ratios' quartiles and in how
# many rounds softiw was the faster (above 1 as in the table's ratios).
# With the emulator's round-to-round spread, a median within the
# quartiles' distance of 1 is a tie, not a result.
spread() {
	awk '
$1 == "RESULT" { v[$2, $3 " " $4, $7] = $5; if ($7 > nr) nr = $7
	if ($2 == "siw") t[$3 " " $4] = 1 }
function q(a, m, f,   x) { x = 1 + (m - 1) * f; return a[int(x)] + (x - int(x)) * (a[int(x) + 1] - a[int(x)]) }
function row(s, k,   r, m, a, i, j, c, x, y, w, lat) {
	lat = k ~ /_lat /
	m = 0; w = 0
	for (r = 1; r <= nr; r++) {
		x = v[s, k, r]; y = v["siw", k, r]
		if (x == "" || y == "" || x <= 0 || y <= 0) continue
		a[++m] = lat ? y / x : x / y
		if (a[m] > 1) w++
	}
	if (!m) return
	for (i = 2; i <= m; i++) { c = a[i]; for (j = i - 1; j >= 1 && a[j] > c; j--) a[j + 1] = a[j]; a[j + 1] = c }
	a[m + 1] = a[m]
	printf "%-13s %8s %-13s %6.3f %6.3f %6.3f %5d/%d\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), s, q(a, m, 0.25), q(a, m, 0.5), q(a, m, 0.75), w, m
}
END {
	for (k in t) { row("softiw", k); row("softiw-nocrc", k) }
}' "$1" | sort | { printf "%-13s %8s %-13s %6s %6s %6s %7s\n" test size "vs siw" q1 median q3 faster; cat; }
}
if [ "${1:-}" = --table ]; then
	table "${2:?usage: bench.sh --table RAW_LOG}"
	echo
	spread "$2"
	exit
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=${1:-}
if [ -z "$kver" ]; then
	# a 6.1 kernel (the series of the published figures), else the default
	for v in /boot/vmlinuz-6.1.*; do
		[ -d "/lib/modules/${v#/boot/vmlinuz-}/build" ] && kver=${v#/boot/vmlinuz-}
	done
	[ -n "$kver" ] || kver=$("$top/tools/kver.sh")
fi
rounds=${2:-3}
peer=${3:-}
[ -n "$kver" ] || { echo "bench: no kernel found (make deps)" >&2; exit 1; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: ROUNDS must be a positive number: $rounds" >&2; exit 1; }
case $peer in
"" | siw) ;;
*) echo "bench: PEER must be empty or siw, not '$peer'" >&2; exit 1 ;;
esac

echo "== wire core micro-benchmark (host)"
make -s -C "$top/tests/bench" run || exit 1

echo "== perftest in a VM ($kver, $rounds round(s))"
make -s -C "$top" module KVER="$kver" >/dev/null || exit 1
make -s -C "$top/tools/cmsync" >/dev/null || exit 1
siw_ko=
if [ "$peer" = siw ]; then
	siw_ko=$("$top/tools/siw-build.sh" "$kver") || exit 1
fi
mkdir -p "$top/build/bench" || exit 1
raw=$top/build/bench/bench-$(date -u +%Y%m%dT%H%M%SZ).log
"$top/tools/vm/run" --kver "$kver" --timeout $((600 + rounds * 900)) -- \
	env BENCH_TESTS="${BENCH_TESTS:-}" BENCH_SUBJECTS="${BENCH_SUBJECTS:-}" \
	BENCH_SIZES="${BENCH_SIZES:-}" \
	"$top/tools/bench/bench-guest.sh" "$rounds" "$siw_ko" >"$raw" 2>&1
rc=$?
grep -v '^RAW ' "$raw" | grep -v '^RESULT '

echo
table "$raw"
echo "(medians of $rounds round(s); bandwidth in MB/s, latency in usec (typical);"
echo " ratios are medians of the rounds' own ratios, subjects of one round"
echo " against each other;"
echo " /siw: softiw against siw, nc/siw: softiw without CRC against siw,"
echo " which never asks for CRC: above 1 means softiw is faster; /iperf3:"
echo " softiw against TCP on the same path.  rxe: one device over its own"
echo " address, not the veth path.  Raw output: ${raw#"$top"/})"
if grep -q '^RESULT siw ' "$raw"; then
	echo
	echo "Per-round ratios to siw (quartiles; rounds in which softiw was faster):"
	spread "$raw"
fi
exit "$rc"
