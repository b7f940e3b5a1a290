#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest-side test of the provider with the real ib_core (netlink device
# discovery).  Run it through the VM runner:
#   tools/vm/run -- sh userspace/tests/vm_test.sh
# (make -C userspace/tests vm-check).  Prints TAP; exit 4 = skipped.
#
#   veth0 <-> veth1: rxe0 on veth0 (a device with a known driver id, which
#                    makes libibverbs walk our match table), softiw0 on
#                    veth1 when the softiw module is available.

set -u
[ "${SOFTIW_IN_VM:-}" = 1 ] || { echo "1..0 # SKIP run me in the VM (tools/vm/run)"; exit 4; }
TOP=${SOFTIW_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/build/provider/env.sh"

n=0
fails=0
T=$(mktemp -d)
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$T/out"; }
expect() { if eval "$1"; then ok "$2"; else not_ok "$2"; fi; }
run() { "$@" > "$T/out" 2>&1; rc=$?; }
field() { sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" "$T/out" | head -n 1; }

modprobe ib_uverbs
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up

if modprobe rdma_rxe 2>/dev/null && rdma link add rxe0 type rxe netdev veth0; then
	LD_DEBUG=files run ibv_devices
	expect 'grep -q "file=$TOP/build/provider/libsoftiw-rdmav34.so .*dynamically loaded" "$T/out"' \
		"libibverbs loads the provider from build/provider"
	expect '[ $rc = 0 ] && grep -q "^[[:space:]]*rxe0[[:space:]]" "$T/out"' \
		"with softiw loaded, rxe0 (known driver id) is still listed"
	run ibv_devinfo -d rxe0
	expect '[ $rc = 0 ] && [ "$(field transport)" = "InfiniBand (0)" ]' \
		"rxe0 is claimed by the rxe provider, not by softiw"
else
	ok "# SKIP rdma_rxe not available"
fi

if modprobe softiw 2>/dev/null && rdma link add softiw0 type softiw netdev veth1; then
	run ibv_devices
	expect '[ $rc = 0 ] && grep -q "^[[:space:]]*softiw0[[:space:]]" "$T/out"' \
		"ibv_devices lists softiw0"
	run ibv_devinfo -v -d softiw0
	expect '[ $rc = 0 ] && [ "$(field transport)" = "iWARP (1)" ]' \
		"ibv_devinfo opens softiw0 (alloc_context, query_device_ex): transport iWARP"
	expect '[ "$(field state)" = "PORT_ACTIVE (4)" ]' "softiw0 port 1 is ACTIVE while veth1 is up"
	gid=$(cat /sys/class/infiniband/softiw0/ports/1/gids/0)
	expect '[ "$gid" != "0000:0000:0000:0000:0000:0000:0000:0000" ] &&
		grep -q "GID\[  0\]:[[:space:]]*$gid" "$T/out"' \
		"ibv_devinfo -v prints GID[0] = sysfs gids/0 ($gid)"
	ip link set veth1 down
	sleep 1
	run ibv_devinfo -d softiw0
	expect '[ $rc = 0 ] && [ "$(field state)" = "PORT_DOWN (1)" ]' \
		"softiw0 port 1 is DOWN after ip link set veth1 down"
	rdma link delete softiw0
else
	ok "# SKIP softiw module not available (make module)"
fi

rm -rf "$T"
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed"
[ $fails = 0 ]
