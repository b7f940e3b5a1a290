#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/siw-build.sh KVER: build upstream siw (the kernel's own
# soft-iWARP driver, which Debian does not ship) from Debian's
# linux-source-<major.minor> tarball of KVER's series (6.1 or 6.12) into
# build/siw-KVER/siw.ko, against the kernel build tree $KDIR (default
# /lib/modules/KVER/build).  `make bench` compares softiw with it and the
# siw selftests (dp_siw.sh) run softiw next to it.  Prints the module's
# path; exits 1 (with the reason on stderr) if it cannot be built.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
kver=${1:?usage: siw-build.sh KVER}
series=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
src=linux-source-$series
tarball=$(ls /usr/src/"$src".tar.* 2>/dev/null | head -n 1)
out=$top/build/siw-$kver
kdir=${KDIR:-/lib/modules/$kver/build}
[ -n "$tarball" ] || { echo "siw-build: no /usr/src/$src.tar.*: apt-get install $src (make deps)" >&2; exit 1; }
[ -d "$kdir" ] || { echo "siw-build: no headers for $kver ($kdir)" >&2; exit 1; }
if [ ! -f "$out/siw.ko" ] || [ "$tarball" -nt "$out/siw.ko" ]; then
	rm -rf "$out" && mkdir -p "$out" || exit 1
	tar -xf "$tarball" -C "$out" --strip-components=5 \
		"$src/drivers/infiniband/sw/siw" || exit 1
	make -s -C "$kdir" M="$out" CONFIG_RDMA_SIW=m modules \
		>"$out/build.log" 2>&1 ||
		{ echo "siw-build: build failed, see $out/build.log" >&2; exit 1; }
fi
echo "$out/siw.ko"
