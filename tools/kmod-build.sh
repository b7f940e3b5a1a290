#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/kmod-build.sh KVER: build the selftests' kernel-side test
# consumers (selftests/softiw/kmod/) for KVER into
# build/selftests/kmod-KVER/, against the kernel build tree $KDIR
# (default /lib/modules/KVER/build; a debug kernel's is DIR/build).  Exits
# 1 (with the reason on stderr) if they cannot be built.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
kver=${1:?usage: kmod-build.sh KVER}
src=$top/selftests/softiw/kmod
out=$top/build/selftests/kmod-$kver
kdir=${KDIR:-/lib/modules/$kver/build}
[ -d "$kdir" ] || { echo "kmod-build: no headers for $kver ($kdir)" >&2; exit 1; }
mkdir -p "$out" || exit 1
for f in "$src"/*; do
	cmp -s "$f" "$out/${f##*/}" || cp "$f" "$out/" || exit 1
done
make -s -C "$kdir" M="$out" W=1 modules >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; echo "kmod-build: build failed" >&2; exit 1; }
if grep -q "warning:" "$out/build.log"; then
	cat "$out/build.log" >&2
	echo "kmod-build: warnings" >&2
	exit 1
fi
