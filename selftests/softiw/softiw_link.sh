#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma link add/delete, the refusals, and netdev unregistration:
#
#   [ stv0 ] <--veth--> [ stv1 ]        (init netns)
#      |
#    sw0 (softiw)
#
# - `rdma link add` auto-loads softiw (MODULE_ALIAS_RDMA_LINK);
# - a second device on stv0: EEXIST + one kernel line; an unknown netdev:
#   ENODEV (refused by ib_core before softiw); a name in use: EEXIST + one
#   kernel line; none of them leaves a device behind;
# - `rdma link delete` removes the device;
# - `ip link del stv0` (netdev unregister) removes the device.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd rdma ip modprobe
need_softiw
on_exit 'ip link del stv0 2>/dev/null; softiw_reset'
softiw_reset

run ip link add stv0 type veth peer name stv1
run ip link set stv0 up
run ip link set stv1 up

run rdma link add sw0 type softiw netdev stv0
is_loaded || fail "rdma link add did not load softiw"
check_dev sw0
check_eq "$(cat $SYSIB/sw0/node_type)" "4: RNIC" "sw0 node_type"
check_contains "$(rdma link show sw0/1)" "netdev stv0" "rdma link show sw0/1"

dmesg_mark
rdma_refused "File exists" rdma link add sw1 type softiw netdev stv0
check_dmesg "softiw: cannot add sw1: netdev stv0 already has softiw device sw0"
check_no_dev sw1

rdma_refused "No such device" rdma link add sw2 type softiw netdev stv-nosuch
check_no_dev sw2

dmesg_mark
rdma_refused "File exists" rdma link add sw0 type softiw netdev stv1
check_dmesg "softiw: cannot add sw0: an RDMA device of that name exists"
check_contains "$(rdma link show sw0/1)" "netdev stv0" "sw0 after the refused add"

run rdma link delete sw0
check_no_dev sw0
check_lacks "$(rdma link show 2>&1)" "sw0/" "rdma link after delete"

# The name and the netdev are free again.
run rdma link add sw0 type softiw netdev stv0
check_dev sw0
run ip link del stv0
wait_for 5 eval '! dev_exists sw0' || fail "sw0 still present after ip link del stv0"
log "add, 3 refusals, delete, unregister"
exit 0
