#!/bin/sh
# Install every Debian package softiw's build, VM and tests need.
# Idempotent: asks dpkg first and calls apt-get only for what is missing.
set -e

PKGS="
build-essential pkg-config kmod xz-utils zstd cpio python3 binutils util-linux
flex bison bc
linux-image-amd64 linux-headers-amd64
linux-image-6.12-amd64 linux-headers-6.12-amd64
linux-source-6.1 linux-source-6.12 sparse dwarves libelf-dev dkms
qemu-system-x86 busybox-static
rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
libibverbs-dev librdmacm-dev
iproute2 iperf3 linux-perf python3-docutils
clang libclang-rt-14-dev
tshark
"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = "installed" ] || missing="$missing $p"
done

if [ -z "$missing" ]; then
	echo "softiw: all build and test packages are installed"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "softiw: missing packages:$missing" >&2
	echo "softiw: run 'sudo make deps' (or apt-get install them)" >&2
	exit 1
fi

echo "softiw: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; the answer is no.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections 2>/dev/null || true
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
