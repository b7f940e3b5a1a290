#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - run libFuzzer targets for a bounded time and report TAP.
#
# Usage: run.sh BUILDDIR SEEDDIR SECONDS TARGET...
#
# Each TARGET is the binary BUILDDIR/TARGET.  It fuzzes for SECONDS seconds
# from a working corpus BUILDDIR/corpus/TARGET (seeded from SEEDDIR/NAME,
# where NAME is TARGET without "fuzz_"), so the committed seeds are never
# modified.  All libFuzzer output goes to BUILDDIR/TARGET.log; stdout gets
# one TAP line per target and, on failure, the log's tail as TAP comments.
# Crash inputs are kept as BUILDDIR/TARGET-crash-* (libFuzzer's names).
# Exit status: 0 if every target ran clean, 1 otherwise.

set -u
[ $# -ge 4 ] || { echo "usage: $0 BUILDDIR SEEDDIR SECONDS TARGET..." >&2; exit 2; }
build=$1 seeds=$2 secs=$3
shift 3

# Sanitizer reports must end the run with an error, never scroll by.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

echo "1..$#"
n=0 failed=0
for t in "$@"; do
	n=$((n + 1))
	name=${t#fuzz_}
	log=$build/$t.log
	work=$build/corpus/$t
	mkdir -p "$work"
	if [ ! -x "$build/$t" ]; then
		echo "not ok $n - $t"
		echo "# $build/$t: not built"
		failed=1
		continue
	fi
	"$build/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/$t-" \
		"$work" "$seeds/$name" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	# libFuzzer exits 0 only when the time ran out without any finding.
	if [ $rc -eq 0 ] && ! grep -q -e 'ERROR: AddressSanitizer' \
		-e 'runtime error:' -e 'ERROR: libFuzzer' "$log"; then
		echo "ok $n - $t"
		echo "# $t: ${runs:-?} executions in ${secs}s, corpus $(ls "$work" | wc -l) inputs"
	else
		echo "not ok $n - $t"
		echo "# $t: exit $rc after ${runs:-?} executions; log $log"
		# The finding itself first, then libFuzzer's summary.
		grep -m 3 -e 'invariant failed' -e 'ERROR: AddressSanitizer' \
			-e 'runtime error:' -e 'ERROR: libFuzzer' "$log" | sed 's/^/# /'
		grep -A 2 -e '^    #[0-9] .* in [a-z_]* /' "$log" | head -n 12 | sed 's/^/# /'
		tail -n 12 "$log" | sed 's/^/# /'
		failed=1
	fi
done
exit $failed
