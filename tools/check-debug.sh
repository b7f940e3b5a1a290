#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/check-debug.sh [TEST...]: `make check-debug`.  Builds softiw for
# the cached debug kernel (tools/debug-kernel.sh --print; exits 1 when
# there is none) and runs the VM selftests there, all or the named ones,
# with kmemleak on and a leak scan after softiw is unloaded
# (tools/vm/selftests.sh with SOFTIW_VM_KROOT).  Prints TAP; any KASAN,
# lockdep, DEBUG_OBJECTS, UBSAN, kmemleak or hung-task report in the guest
# log fails the "guest kernel log" line (tools/vm/check-log).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
d=$("$here/debug-kernel.sh" --print) ||
	{ echo "check-debug: no debug kernel cached: make debug-kernel" >&2; exit 1; }
kver=$(cat "$d/kver") || exit 1
make -s --no-print-directory -C "$top" module KVER="$kver" KDIR="$d/build" \
	>/dev/null || { echo "check-debug: softiw does not build for $kver" >&2; exit 1; }
SOFTIW_VM_KROOT=$d exec "$here/vm/selftests.sh" "$kver" "$@"
