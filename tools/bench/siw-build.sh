#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/siw-build.sh KVER: build upstream siw (the kernel's own
# soft-iWARP driver, which Debian does not ship) from Debian's
# linux-source-6.1 tarball into build/siw-KVER/siw.ko, as the baseline
# `make bench` compares softiw with.  Only the 6.1 source is packaged, so
# only a 6.1 kernel gets one.  Prints the module's path; exits 1 (with
# the reason on stderr) if it cannot be built.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=${1:?usage: siw-build.sh KVER}
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
out=$top/build/siw-$kver
case $kver in
6.1.*) ;;
*) echo "siw-build: only Debian's 6.1 source is packaged; no siw for $kver" >&2; exit 1 ;;
esac
[ -n "$tarball" ] || { echo "siw-build: no /usr/src/linux-source-6.1.tar.*: apt-get install linux-source-6.1" >&2; exit 1; }
[ -d "/lib/modules/$kver/build" ] || { echo "siw-build: no headers for $kver" >&2; exit 1; }
if [ ! -f "$out/siw.ko" ] || [ "$tarball" -nt "$out/siw.ko" ]; then
	rm -rf "$out" && mkdir -p "$out" || exit 1
	tar -xf "$tarball" -C "$out" --strip-components=5 \
		linux-source-6.1/drivers/infiniband/sw/siw || exit 1
	make -s -C "/lib/modules/$kver/build" M="$out" CONFIG_RDMA_SIW=m modules \
		>"$out/build.log" 2>&1 ||
		{ echo "siw-build: build failed, see $out/build.log" >&2; exit 1; }
fi
echo "$out/siw.ko"
