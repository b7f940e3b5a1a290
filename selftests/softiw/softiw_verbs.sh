#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The device through libibverbs and the softiw provider:
#
#   [ stv0 ] <--veth--> [ stv1 ]        (init netns)
#      |
#    swv0 (softiw)
#
# ibv_devices lists swv0 with its node GUID (EUI-64 of stv0's MAC);
# ibv_devinfo -v shows transport iWARP, PORT_ACTIVE, the MTUs, and GID[0]
# made from stv0's MAC.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd rdma ip ibv_devices ibv_devinfo
need_softiw
need_provider
on_exit 'ip link del stv0 2>/dev/null; softiw_reset'
softiw_reset

run ip link add stv0 type veth peer name stv1
run ip link set stv0 address 02:11:22:33:44:55
run ip link set stv1 up
run ip link set stv0 up
run rdma link add swv0 type softiw netdev stv0

out=$(ibv_devices 2>&1) || fail "ibv_devices exited $?: $out"
line=$(echo "$out" | grep -w swv0) || fail "ibv_devices does not list swv0: $out"
# EUI-64: flip the U/L bit of the first byte, ff:fe in the middle.
check_eq "$(echo $line | cut -d' ' -f2)" "001122fffe334455" "ibv_devices node GUID"

check_eq "$(cat $SYSIB/swv0/ports/1/gids/0)" "0211:2233:4455:0000:0000:0000:0000:0000" "sysfs GID 0"
out=$(ibv_devinfo -v -d swv0 2>&1) || fail "ibv_devinfo -v -d swv0 exited $?: $out"
field() { echo "$out" | sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" | head -n 1; }
check_eq "$(field transport)" "iWARP (1)" "transport"
check_eq "$(field node_guid)" "0011:22ff:fe33:4455" "node_guid"
check_eq "$(field phys_port_cnt)" "1" "phys_port_cnt"
check_eq "$(field state)" "PORT_ACTIVE (4)" "port state"
check_eq "$(field max_mtu)" "4096 (5)" "max_mtu"
check_eq "$(field active_mtu)" "1024 (3)" "active_mtu"
check_eq "$(field link_layer)" "Ethernet" "link_layer"
# ibv_devinfo hides GIDs whose last 8 octets are zero (rdma-core devinfo.c
# null_gid()); an iWARP GID is the MAC followed by zeros, so it is checked
# through sysfs above instead.

log "ibv_devices and ibv_devinfo -v agree with stv0"
exit 0
