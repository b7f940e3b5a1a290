#!/bin/bash
# make check: install what is missing, build the module for every installed
# kernel (W=1, sparse), checkpatch, check the documents (reStructuredText,
# and that the tests they cite exist), build the provider, run the host tests
# (unit, fuzz, tshark oracle) and the VM selftests on every kernel and,
# when it is cached (or under CI), on the debug kernel.  Prints each
# stage's time.
#
# Every stage prints TAP lines ("ok ..." / "not ok ...", unindented); this
# script counts them and ends with "N passed, N failed".  A stage that fails
# without printing a "not ok" line of its own gets one here, so nothing can
# fail silently.  Exit status is non-zero on any failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p build
log=build/check.log
# each stage picks its own kernel
unset SOFTIW_VM_KROOT KDIR
: > "$log"

# run_stage NAME CMD...: run CMD, pass its TAP lines through, record status.
run_stage() {
	local name=$1
	shift
	local out="build/check-$name.out"
	echo "# === $name: $*"
	local t0=$SECONDS
	"$@" > "$out" 2>&1 < /dev/null
	local rc=$?
	echo "# --- $name took $((SECONDS - t0)) s"
	# TAP lines go to the summary log; everything else is kept in $out.
	grep -E '^(not )?ok ' "$out" | tee -a "$log"
	if [ $rc -ne 0 ]; then
		if ! grep -qE '^not ok ' "$out"; then
			echo "not ok - $name (exit $rc, see $out)" | tee -a "$log"
		fi
		echo "# --- last lines of $out:"
		tail -n 40 "$out" | sed 's/^/#   /'
	fi
	return 0
}

# stage_build_kernel KVER: W=1 + sparse build that must print no warning.
stage_build_kernel() {
	local k=$1
	local out
	out=$(make --no-print-directory module KVER="$k" KDIR="/lib/modules/$k/build" \
		KBUILD_ARGS="W=1 C=1" 2>&1)
	local rc=$?
	echo "$out"
	if [ $rc -ne 0 ]; then
		echo "not ok - module builds for $k"
		return 1
	fi
	if echo "$out" | grep -E 'warning:|error:|: warning|: error' >/dev/null; then
		echo "not ok - module builds warning-free for $k (W=1 C=1)"
		return 1
	fi
	echo "ok - module builds warning-free for $k (W=1 C=1)"
}

stage_checkpatch() {
	if tools/checkpatch.sh; then
		echo "ok - checkpatch --strict clean"
	else
		echo "not ok - checkpatch --strict clean"
		return 1
	fi
}

stage_provider() {
	if make --no-print-directory provider; then
		echo "ok - provider builds"
	else
		echo "not ok - provider builds"
		return 1
	fi
}

stage_deps() {
	if tools/deps.sh; then
		echo "ok - dependencies installed"
	else
		echo "not ok - dependencies installed"
		return 1
	fi
}

# make install into a staging directory puts the module (with module
# indexes), the provider and its .driver file where libibverbs looks.
stage_install() {
	local d=build/install-test
	rm -rf "$d"
	if ! make --no-print-directory install DESTDIR="$top/$d" >/dev/null; then
		echo "not ok - make install DESTDIR=..."
		return 1
	fi
	local kver
	kver=$(tools/kver.sh)
	local rc=0
	for f in "lib/modules/$kver/extra/softiw.ko" "lib/modules/$kver/modules.dep" \
		etc/libibverbs.d/softiw.driver; do
		if [ -e "$d/$f" ]; then
			echo "ok - make install puts $f"
		else
			echo "not ok - make install puts $f"
			rc=1
		fi
	done
	if find "$d" -name 'libsoftiw-rdmav34.so' | grep -q .; then
		echo "ok - make install puts the provider into libibverbs' directory"
	else
		echo "not ok - make install puts the provider into libibverbs' directory"
		rc=1
	fi
	return $rc
}

stage_debug_kernel() {
	if tools/debug-kernel.sh >/dev/null; then
		echo "ok - debug kernel built ($(tools/debug-kernel.sh --print))"
	else
		echo "not ok - debug kernel build"
		return 1
	fi
}

run_stage deps stage_deps
kernels=$(make --no-print-directory -s -f Makefile print-kernels 2>/dev/null)
[ -n "$kernels" ] || echo "not ok - no kernel with headers and image installed" | tee -a "$log"
for k in $kernels; do
	run_stage "build-$k" stage_build_kernel "$k"
done
run_stage checkpatch stage_checkpatch
run_stage docs tools/doccheck.py Documentation/*.rst
run_stage doc-check tools/doc-check.sh
run_stage dkms tools/dkms-check.sh
run_stage install stage_install
run_stage provider stage_provider
run_stage host-tests make --no-print-directory host-tests
run_stage provider-tests make --no-print-directory -C userspace check
run_stage rawpeer make --no-print-directory -C tools/rawpeer all check
for k in $kernels; do
	run_stage "vm-$k" tools/vm/selftests.sh "$k"
done
# The debug kernel (KASAN, lockdep, kmemleak: Documentation/testing.rst).
# Under CI (.ci/run sets CI) it is built when this machine has none (once:
# it is cached outside the tree), and the selftests of
# tools/debug-kernel/ci-tests run there; without CI all of them run when
# the kernel is cached, and a skip says so otherwise.  SOFTIW_DEBUG_TESTS
# names the tests in both cases (empty: all).
debug_tests=${SOFTIW_DEBUG_TESTS-}
if [ -n "${CI:-}" ]; then
	debug_tests=${SOFTIW_DEBUG_TESTS-$(cat tools/debug-kernel/ci-tests)}
	tools/debug-kernel.sh --print >/dev/null 2>&1 ||
		run_stage debug-kernel stage_debug_kernel
fi
if tools/debug-kernel.sh --print >/dev/null 2>&1; then
	# shellcheck disable=SC2086 # a list of test names
	run_stage vm-debug tools/check-debug.sh $debug_tests
elif [ -z "${CI:-}" ]; then
	echo "ok - selftests on the debug kernel # SKIP none cached: make debug-kernel" |
		tee -a "$log"
fi

passed=$(grep -cE '^ok ' "$log")
failed=$(grep -cE '^not ok ' "$log")
skipped=$(grep -cE '^ok .*# *SKIP' "$log")
echo "$((passed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
