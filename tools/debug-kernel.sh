#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/debug-kernel.sh [--print | --config]
#
# Builds the VM's debug kernel (`make debug-kernel`), once per machine:
# Linux from Debian's linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz)
# configured with tools/debug-kernel/debug.config (KASAN, lockdep,
# DEBUG_OBJECTS, kmemleak, UBSAN, fault injection, ...; what the selftests
# need built in, the rest as modules) on top of `make allnoconfig`.
# Prints the kernel's directory on stdout, everything else on stderr.
#
#   (no option)  build it unless it is cached; print its directory
#   --print      print the cached kernel's directory; exit 1 if there is no
#                finished one (for `make check` to decide)
#   --config     configure only (no compiling): extract, configure and check
#                the configuration; print the .config's path
#
# The cache is $SOFTIW_CACHE (default /var/cache/softiw), outside any work
# tree; each kernel is in debug-kernel-KEY/, KEY a hash of the source
# package's version, the fragment and this script's recipe (the base
# configuration and what is built), so that editing the fragment builds a
# new kernel next to the old ones (remove those by hand).  In it:
#
#   src/              the extracted source (build/ refers to it)
#   build/            the object tree (make O=): KDIR for out-of-tree
#                     modules (`make all` did modules_prepare and wrote
#                     Module.symvers)
#   vmlinuz           the bzImage
#   lib/modules/KVER/ the modules (make modules_install INSTALL_MOD_PATH=)
#   debug.config      the fragment as applied (plus CONFIG_LOCALVERSION)
#   build.log         the build's output (tail -f it to follow the
#                     build), ending with its wall time
#   kver              the kernel release, KVER:
#                     6.12.N-softiw-debug-<first 8 hex digits of KEY>
#
# kver is written last (write and rename): a directory without it is an
# unfinished build (interrupted, failed or --config), which --print does
# not report and the next build removes.  The build cannot happen in a
# temporary directory renamed at the end, as build/ refers to src/ by its
# absolute path.  Builds of one KEY are serialised (debug-kernel-KEY.lock).
#
# Use (see Documentation/testing.rst, "The debug kernel"):
#   d=$(tools/debug-kernel.sh)
#   make module KVER=$(cat $d/kver) KDIR=$d/build
#   tools/vm/run --kroot $d -- COMMAND
#
# Nothing is installed on the host (/boot, /lib/modules): the VM runner
# boots the kernel from the cache.  Compiles with `nice -n 19 make
# -j$(nproc)`; prints how long the build took.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
frag=$here/debug-kernel/debug.config
cache=$(realpath -m "${SOFTIW_CACHE:-/var/cache/softiw}")
pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz

# The base configuration.  allnoconfig answers "no" to every question, so
# the kernel has exactly what the fragment asks for (and what that needs);
# x86_64_defconfig plus the same fragment comes to twice as many built-in
# options (1670 against 749 with 6.12.118: graphics, sound, USB,
# wireless, filesystems and network drivers the VM never uses).
# tinyconfig is allnoconfig plus kernel/configs/tiny*.config, which sets
# EXPERT (and with it turns off futexes, epoll, ... that Debian's user
# space needs) and SLUB_TINY (which excludes KASAN): not a smaller base for
# this kernel, only a longer fragment.
base=allnoconfig
# Everything below that shapes the result; part of the cache key.
recipe="base=$base localversion=-softiw-debug-KEY8 targets=all,modules_install"

msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }
usage() { sed -n '4,18s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2; exit "$1"; }

mode=build
case ${1:-} in
"") ;;
--print) mode=print ;;
--config) mode=config ;;
-h|--help) usage 0 ;;
*) msg "unknown option '$1'"; usage 1 ;;
esac
[ $# -le 1 ] || usage 1

[ -r "$frag" ] || die "$frag missing"
version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
	die "$pkg is not installed: apt-get install $pkg (make deps)"
[ -r "$tarball" ] || die "$tarball missing: apt-get install --reinstall $pkg"
key=$({ printf 'package=%s %s\nrecipe=%s\n' "$pkg" "$version" "$recipe"
	cat "$frag"; } | sha256sum | cut -c1-12)
dir=$cache/debug-kernel-$key

# A kernel built by another compiler than today's is not taken: modules
# built for it would get a warning from kbuild (and the test module build
# fails on warnings).  The next build starts it afresh.
cc_ok() {
	[ "$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$dir/build/.config" 2>/dev/null)" = \
		"$(gcc --version 2>/dev/null | head -n 1)" ]
}

if [ $mode = print ]; then
	[ -s "$dir/kver" ] && cc_ok || exit 1
	echo "$dir"
	exit 0
fi

[ "$(uname -m)" = x86_64 ] || die "builds an x86-64 kernel on x86-64 hosts only"
for c in make gcc flex bison bc perl tar xz depmod; do
	command -v "$c" >/dev/null ||
		die "$c missing: apt-get install build-essential flex bison bc kmod xz-utils (make deps)"
done
# objtool (the ORC unwinder) needs libelf's headers.
[ -e /usr/include/gelf.h ] || die "libelf headers missing: apt-get install libelf-dev (make deps)"

mkdir -p "$cache" 2>/dev/null || die "cannot create $cache (run as root, or set SOFTIW_CACHE)"
exec 9>"$dir.lock"
if ! flock -n 9; then
	msg "another build of $dir is running; waiting for it"
	flock 9
fi

if [ -s "$dir/kver" ] && ! cc_ok; then
	msg "$dir was built by another compiler: building it again"
	rm -f "$dir/kver"
fi
if [ -s "$dir/kver" ]; then
	if [ $mode = config ]; then
		echo "$dir/build/.config"
	else
		msg "Linux $(cat "$dir/kver") is built (cached)"
		echo "$dir"
	fi
	exit 0
fi

# The kernel's make reads these from the environment; a `make -j
# debug-kernel` must not hand its jobserver or variables down either.
unset MAKEFLAGS MFLAGS MAKELEVEL KBUILD_OUTPUT KBUILD_EXTMOD KCONFIG_CONFIG \
	LOCALVERSION ARCH CROSS_COMPILE

if [ -e "$dir" ]; then
	msg "removing the unfinished build in $dir"
	rm -rf "$dir"
fi
mkdir -p "$dir/src" "$dir/build"
msg "extracting $tarball ($pkg $version) into $dir/src"
nice -n 19 tar -xJf "$tarball" -C "$dir/src" --strip-components=1

# The fragment as applied: also the release string, which names the key so
# that modules built for one debug kernel never load into another.
{
	cat "$frag"
	echo
	echo "# added by tools/debug-kernel.sh"
	echo "CONFIG_LOCALVERSION=\"-softiw-debug-${key:0:8}\""
	echo "# CONFIG_LOCALVERSION_AUTO is not set"
} >"$dir/debug.config"

kmake() { nice -n 19 make --no-print-directory "$@"; }
msg "configuring: make $base with $frag"
kmake -s -C "$dir/src" O="$dir/build" KCONFIG_ALLCONFIG="$dir/debug.config" \
	"$base" >"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log" >&2; die "make $base failed"; }
kmake -s -C "$dir/build" olddefconfig >>"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log" >&2; die "make olddefconfig failed"; }

# Every fragment line must be in the final .config as written; an option
# asked to be unset must not be set.  kconfig drops an option whose
# dependencies are not met without an error.
config=$dir/build/.config
bad=0
n=0
while IFS= read -r line; do
	if [[ $line =~ ^"# "(CONFIG_[A-Za-z0-9_]+)" is not set"$ ]]; then
		sym=${BASH_REMATCH[1]}
		n=$((n + 1))
		grep -q "^$sym=" "$config" || continue
	elif [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=[^[:space:]] ]]; then
		sym=${BASH_REMATCH[1]}
		n=$((n + 1))
		grep -qxF -- "$line" "$config" && continue
	elif [ -z "$line" ] || [ "${line:0:1}" = "#" ]; then
		continue
	else
		msg "$frag: not a kconfig line: '$line'"
		bad=1
		continue
	fi
	if got=$(grep -E "^(# )?${sym}[= ]" "$config"); then
		:
	elif grep -rqE "^[[:space:]]*(menu)?config ${sym#CONFIG_}\$" --include='Kconfig*' "$dir/src"; then
		got="nothing: its dependencies are not met"
	else
		got="nothing: there is no such option in $pkg"
	fi
	msg "'$line' did not stick: .config has $got"
	bad=1
done <"$dir/debug.config"
[ $bad = 0 ] || die "the configuration differs from $frag (see above); fix the fragment"
msg "configuration checked: all $n options of the fragment as requested;" \
	"$(grep -c '=y$' "$config") built in (=y), $(grep -c '=m$' "$config") modules (=m)"
kver=$(kmake -s -C "$dir/build" kernelrelease)

if [ $mode = config ]; then
	echo "$config"
	exit 0
fi

jobs=$(nproc)
log=$dir/build.log
msg "building Linux $kver: make -j$jobs all modules_install (nice 19), output in $log"
start=$(date +%s)
kmake -C "$dir/build" -j"$jobs" all >>"$log" 2>&1 ||
	{ tail -n 40 "$log" >&2; die "the build failed; see $log"; }
kmake -C "$dir/build" INSTALL_MOD_PATH="$dir" modules_install >>"$log" 2>&1 ||
	{ tail -n 40 "$log" >&2; die "modules_install failed; see $log"; }
cp "$dir/build/arch/x86/boot/bzImage" "$dir/vmlinuz"
for f in build/Module.symvers build/scripts/mod/modpost build/include/generated/autoconf.h \
	"lib/modules/$kver/modules.dep" "lib/modules/$kver/modules.builtin"; do
	[ -e "$dir/$f" ] || die "the build left no $dir/$f"
done
s=$(($(date +%s) - start))
took=$(printf '%dh%02dm%02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60)))
echo "built Linux $kver in $took (wall time, make -j$jobs)" >>"$log"
echo "$kver" >"$dir/kver.tmp"
mv -f "$dir/kver.tmp" "$dir/kver"
msg "built Linux $kver in $took (wall time, make -j$jobs): $dir"
for d in "$cache"/debug-kernel-*/; do
	[ "${d%/}" = "$dir" ] || msg "note: an older debug kernel takes space: ${d%/}"
done
echo "$dir"
