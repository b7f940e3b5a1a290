#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host test of device discovery through the real libibverbs, no module:
# ibv_devices is pointed at a fabricated sysfs tree (SYSFS_PATH) that looks
# like one softiw device, and must list it only when our provider is loaded
# through env.sh and the device's softiw_abi_version is ours.
#
#   $SYSFS_PATH/class/infiniband_verbs/abi_version          uverbs ABI (6)
#   $SYSFS_PATH/class/infiniband_verbs/uverbs0/{ibdev,dev,abi_version}
#   $SYSFS_PATH/class/infiniband/fake0/{node_type,node_guid,softiw_abi_version}
#   /dev/infiniband/uverbs0    char device, in a private mount namespace
#
# libibverbs only uses sysfs when RDMA netlink is absent (no ib_core), and
# checks that the char device exists, hence root and unshare(1).  Prints
# TAP; exit 4 = skipped.
#
# usage: sysfs_test.sh BUILD_PROVIDER_DIR

set -u
OUT=${1:?usage: $0 BUILD_PROVIDER_DIR}
OUT=$(cd "$OUT" && pwd)

if [ "${SOFTIW_IN_NS:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "1..0 # SKIP needs root (private mount namespace, mknod)"
		exit 4
	fi
	if [ -d /sys/module/ib_core ]; then
		echo "1..0 # SKIP ib_core is loaded: libibverbs would use netlink, not the fake sysfs"
		exit 4
	fi
	for t in unshare ibv_devices ibv_devinfo; do
		command -v $t >/dev/null || { echo "1..0 # SKIP $t not installed"; exit 4; }
	done
	SOFTIW_IN_NS=1 exec unshare --mount --propagation private sh "$0" "$OUT"
fi

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
expect() { if eval "$1"; then ok "$2"; else not_ok "$2"; sed 's/^/# /' "$T/out" "$T/err"; fi; }

T=$(mktemp -d /tmp/softiw-sysfs-test.XXXXXX)
trap 'umount /dev 2>/dev/null; rm -rf "$T"' EXIT

# A private /dev with the nodes the tools need plus a uverbs node whose
# major has no driver on this host: discovery only stat()s it.
mount -t tmpfs -o mode=755 softiw-test /dev || { echo "1..0 # SKIP cannot mount tmpfs on /dev"; exit 4; }
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 444 /dev/urandom c 1 9
mkdir /dev/infiniband
mknod -m 666 /dev/infiniband/uverbs0 c 231 192

S=$T/sys
mkdir -p "$S/class/infiniband_verbs/uverbs0" "$S/class/infiniband/fake0"
echo 6 > "$S/class/infiniband_verbs/abi_version"
echo fake0 > "$S/class/infiniband_verbs/uverbs0/ibdev"
echo 231:192 > "$S/class/infiniband_verbs/uverbs0/dev"
echo 4 > "$S/class/infiniband/fake0/node_type"		# RDMA_NODE_RNIC
echo 0011:2233:4455:6677 > "$S/class/infiniband/fake0/node_guid"

ABI=$(sed -n 's/^#define SOFTIW_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$(dirname "$0")/../../include/uapi/rdma/softiw-abi.h")

setup() {	# setup UVERBS_ABI SOFTIW_ATTR|-
	echo "$1" > "$S/class/infiniband_verbs/uverbs0/abi_version"
	rm -f "$S/class/infiniband/fake0/softiw_abi_version"
	[ "$2" = - ] || echo "$2" > "$S/class/infiniband/fake0/softiw_abi_version"
}

# run [with-env] CMD...: stdout in $T/out, stderr in $T/err, status in $rc
run() {
	if [ "$1" = with-env ]; then
		shift
		(. "$OUT/env.sh"; SYSFS_PATH=$S "$@") > "$T/out" 2> "$T/err"
	else
		(unset RDMAV_DRIVERS IBV_DRIVERS; SYSFS_PATH=$S "$@") > "$T/out" 2> "$T/err"
	fi
	rc=$?
}

# A signal shows as 128+N; 255 is a tool's exit(-1).
crashed() { [ "$rc" -gt 128 ] && [ "$rc" -lt 255 ]; }
listed() { grep -q '^[[:space:]]*fake0[[:space:]]*0011223344556677' "$T/out"; }

setup "$ABI" "$ABI"
LD_DEBUG=files run with-env ibv_devices
expect 'grep -q "file=$OUT/libsoftiw-rdmav34.so .*dynamically loaded" "$T/err"' \
	"env.sh makes libibverbs dlopen build/provider/libsoftiw-rdmav34.so"
expect '[ $rc = 0 ] && listed' "ibv_devices lists the softiw device with its node GUID"

run without-env ibv_devices
expect '! crashed && ! listed' "without env.sh no installed provider claims the device"

setup "$ABI" $((ABI + 1))
run with-env ibv_devices
expect '! crashed && ! listed' "a device with another softiw ABI is not listed"
expect 'grep -q "kernel ABI $((ABI + 1)), this provider speaks $ABI" "$T/err"' \
	"the ABI mismatch is reported on stderr"

setup "$ABI" -
run with-env ibv_devices
expect '! crashed && ! listed' "a device without softiw_abi_version is not listed"

setup 0 "$ABI"
run with-env ibv_devices
expect '! crashed && ! listed' "a device whose uverbs driver ABI is not ours is not listed"

setup "$ABI" "$ABI"
run with-env ibv_devinfo -d fake0
expect '[ $rc -ne 0 ] && ! crashed && grep -q "Failed to open device" "$T/err"' \
	"ibv_devinfo finds the device, fails cleanly to open it without a kernel (rc=$rc)"

rm -rf "$S/class"
run with-env ibv_devices
expect '! crashed && ! listed' "no RDMA devices at all: ibv_devices does not crash (rc=$rc)"

echo "1..$n"
echo "# $((n - fails)) passed, $fails failed"
[ $fails = 0 ]
