#!/bin/sh
# Prove dkms.conf works: add and build softiw with DKMS for KVER in a
# private DKMS tree under build/dkms (the system's DKMS state is not
# touched).  Prints one TAP line.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:-$("$top/tools/kver.sh")}
if ! command -v dkms >/dev/null 2>&1; then
	echo "ok - dkms builds softiw for $kver # SKIP dkms not installed"
	exit 0
fi
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
work=$top/build/dkms
rm -rf "$work"
mkdir -p "$work/src/softiw-$ver" "$work/tree"
(cd "$top" && tar -c --exclude=./build --exclude=./.git .) |
	tar -x -C "$work/src/softiw-$ver"
if dkms add -m softiw -v "$ver" --dkmstree "$work/tree" \
	--sourcetree "$work/src" >"$work/log" 2>&1 &&
   dkms build -m softiw -v "$ver" -k "$kver" --dkmstree "$work/tree" \
	--sourcetree "$work/src" >>"$work/log" 2>&1 &&
   ls "$work/tree/softiw/$ver/$kver/x86_64/module/"softiw.ko* >/dev/null 2>&1; then
	echo "ok - dkms builds softiw for $kver"
	exit 0
fi
sed 's/^/# /' "$work/log" | tail -n 30
find "$work/tree" -name make.log -exec sed 's/^/# /' {} \; | tail -n 30
echo "not ok - dkms builds softiw for $kver"
exit 1
