#!/bin/sh
# make demo: install what is missing, build, boot a VM and show softiw
# working between two network namespaces (see tools/demo-guest.sh).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
echo "==> Checking dependencies (make deps)"
tools/deps.sh
kver=$(tools/kver.sh)
echo "==> Building softiw.ko for $kver and the libibverbs provider"
make --no-print-directory -s module KVER="$kver" >/dev/null
make --no-print-directory -s provider >/dev/null
echo "==> Booting Linux $kver under QEMU (no KVM here: this takes a few seconds)"
exec tools/vm/run --kver "$kver" -- sh tools/demo-guest.sh
