#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/mkinitramfs.sh KVER OUT [MODDIR]
#
# Builds the VM runner's initramfs for kernel KVER into OUT (a gzip'ed newc
# cpio): Debian's static busybox, tools/vm/init as /init, and the guest
# kernel's own modules needed to mount the root (virtio PCI, 9p over virtio,
# overlayfs), uncompressed, with a load-order list.  The modules are those of
# MODDIR (default /lib/modules/KVER).  Modules built into KVER (listed in
# MODDIR/modules.builtin) are skipped; the dependencies of the rest are
# taken from the kernel's modules.dep, so 6.1 and 6.12 (which differ in what
# is =m and in their module compression) are both handled without a table.
#
# Owned by the VM runner; called by tools/vm/run only when its inputs change.
# Writes OUT atomically (temp file + rename), so concurrent runs never see a
# half-written image.
set -euo pipefail

kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
moddir=${3:-/lib/modules/$kver}
busybox=${SOFTIW_BUSYBOX:-/bin/busybox}
# What the guest needs to reach its root; each is either =y or in modules.dep.
wanted="virtio_pci 9pnet_virtio 9p overlay"

die() { echo "mkinitramfs: $*" >&2; exit 1; }

[ -f "$moddir/modules.dep" ] || die "$moddir/modules.dep missing: install linux-image-$kver"
[ -x "$busybox" ] || die "$busybox missing: apt-get install busybox-static"
# A dynamic executable has a program interpreter (PT_INTERP).
! readelf -l "$busybox" 2>/dev/null | grep -q 'Requesting program interpreter' ||
	die "$busybox is not static: apt-get install busybox-static"

# Path (relative to $moddir) of module $1, empty when it is built in.
mod_path() {
	local name=${1//-/_} re
	re="^(.*/)?(${name}|${name//_/-})\.ko(\.xz|\.zst|\.gz)?:"
	{ grep -E -o "$re" "$moddir/modules.dep" || true; } | head -n 1 | sed "s/:$//"
}

is_builtin() {
	local name=${1//-/_}
	grep -E -q "(^|/)(${name}|${name//_/-})\.ko$" "$moddir/modules.builtin" 2>/dev/null
}

# modules.dep lists a module's dependencies so that the last must be loaded
# first; emit them in load order, then the module itself.
load_order() {
	local path=$1 deps d
	deps=$(grep -E "^${path//./\\.}:" "$moddir/modules.dep" | cut -d: -f2)
	for d in $(echo "$deps" | tr ' ' '\n' | tac); do
		echo "$d"
	done
	echo "$path"
}

stage=$(mktemp -d "${out}.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,mnt,lib/modules}
cp "$busybox" "$stage/bin/busybox"
for applet in sh mount umount mkdir insmod cat echo switch_root poweroff \
	stty sleep mknod ls dmesg; do
	ln -s busybox "$stage/bin/$applet"
done
# The kernel opens /dev/console before running /init; it can only be
# created as root.  Without it, /init reopens the console after mounting
# devtmpfs (the kernel then logs one harmless line).
mknod "$stage/dev/console" c 5 1 2>/dev/null || true
install -m 0755 "$here/init" "$stage/init"

order=()
for m in $wanted; do
	p=$(mod_path "$m")
	if [ -z "$p" ]; then
		is_builtin "$m" || die "module $m is neither built into $kver nor in modules.dep"
		continue
	fi
	while read -r dep; do
		seen=0
		for o in "${order[@]}"; do
			[ "$o" = "$dep" ] && seen=1 && break
		done
		[ $seen = 1 ] || order+=("$dep")
	done < <(load_order "$p")
done

: >"$stage/lib/modules/order"
for p in "${order[@]}"; do
	base=$(basename "$p")
	base=${base%.xz}; base=${base%.zst}; base=${base%.gz}
	case "$p" in
	*.xz) xz -dc "$moddir/$p" >"$stage/lib/modules/$base" ;;
	*.zst) zstd -qdc "$moddir/$p" >"$stage/lib/modules/$base" ;;
	*.gz) gzip -dc "$moddir/$p" >"$stage/lib/modules/$base" ;;
	*) cp "$moddir/$p" "$stage/lib/modules/$base" ;;
	esac
	echo "$base" >>"$stage/lib/modules/order"
done

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) | gzip -1 >"$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"
