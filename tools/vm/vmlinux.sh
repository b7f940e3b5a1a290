#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/vmlinux.sh BZIMAGE OUT
#
# Writes the uncompressed ELF kernel inside BZIMAGE to OUT, for the VM
# runner: QEMU boots such an ELF directly through its PVH entry point, which
# skips the in-guest decompression (seconds of an xz or zstd loop under TCG).
# The payload is located exactly from the x86 boot protocol header
# (setup_sects at 0x1f1, payload_offset/payload_length at 0x248/0x24c,
# protocol 2.08+), not by scanning for magic bytes.  Exits non-zero, leaving
# no OUT, when the image is not a bzImage, the payload format is unknown, or
# the result is not an ELF with a PVH note; the runner then boots BZIMAGE.
set -euo pipefail

in=$1
out=$2
die() { echo "vmlinux.sh: $in: $*" >&2; exit 1; }
u8() { od -An -tu1 -j "$1" -N1 "$in" | tr -d ' '; }
u16() { od -An -tu2 -j "$1" -N2 "$in" | tr -d ' '; }
u32() { od -An -tu4 -j "$1" -N4 "$in" | tr -d ' '; }

[ "$(od -An -c -j $((0x202)) -N4 "$in" | tr -d ' ')" = HdrS ] || die "not a bzImage"
[ "$(u16 $((0x206)))" -ge $((0x208)) ] || die "boot protocol older than 2.08"
setup_sects=$(u8 $((0x1f1)))
[ "$setup_sects" != 0 ] || setup_sects=4
poff=$(( (setup_sects + 1) * 512 + $(u32 $((0x248))) ))
plen=$(u32 $((0x24c)))

tmp=$(mktemp "$out.tmp.XXXXXX")
trap 'rm -f "$tmp"' EXIT
payload() { tail -c +$((poff + 1)) "$in" | head -c "$plen"; }
case "$(payload | head -c 6 | od -An -tx1 | tr -d ' \n')" in
fd377a585a00*) dec=(xz -dc) ;;
28b52ffd*) dec=(zstd -qdc) ;;
1f8b*) dec=(gzip -dc) ;;
*) die "unknown payload compression" ;;
esac
command -v "${dec[0]}" >/dev/null || die "${dec[0]} missing (apt-get install ${dec[0]/xz/xz-utils})"
# The decompressors complain about the kernel's trailer (the appended
# uncompressed size) after writing everything: judge the result instead.
payload | "${dec[@]}" >"$tmp" 2>/dev/null || true
[ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] || die "payload is not an ELF"
# The PVH entry is an ELF note of type XEN_ELFNOTE_PHYS32_ENTRY (18).
readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*0x00000012' || die "no PVH entry note"
shoff=$(readelf -h "$tmp" | sed -n 's/.*Start of section headers: *\([0-9]*\).*/\1/p')
shnum=$(readelf -h "$tmp" | sed -n 's/.*Number of section headers: *\([0-9]*\).*/\1/p')
[ "$(stat -c %s "$tmp")" -ge $((shoff + shnum * 64)) ] || die "truncated payload"
chmod 0644 "$tmp"
mv -f "$tmp" "$out"
trap - EXIT
