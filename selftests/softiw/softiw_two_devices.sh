#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Two devices on the two ends of a veth pair in two namespaces, then rmmod
# with both present:
#
#   netns stw-a                 netns stw-b
#   [ veth0 ] <----veth----> [ veth1 ]
#      |                        |
#    swa (softiw)             swb (softiw)
#
# Each device is bound to its own netdev; deleting one leaves the other;
# `rmmod softiw` with devices present succeeds and removes them all.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd rdma ip
need_softiw
on_exit 'ip netns del stw-a 2>/dev/null; ip netns del stw-b 2>/dev/null; softiw_reset'
softiw_reset

run ip netns add stw-a
run ip netns add stw-b
run ip link add veth0 netns stw-a type veth peer name veth1 netns stw-b
run ip -n stw-a link set veth0 up
run ip -n stw-b link set veth1 up

run ip netns exec stw-a rdma link add swa type softiw netdev veth0
run ip netns exec stw-b rdma link add swb type softiw netdev veth1
check_dev swa
check_dev swb
check_contains "$(ip netns exec stw-a rdma link show swa/1)" "netdev veth0" "swa's netdev"
check_contains "$(ip netns exec stw-b rdma link show swb/1)" "netdev veth1" "swb's netdev"
gid_a=$(cat $SYSIB/swa/ports/1/gids/0)
gid_b=$(cat $SYSIB/swb/ports/1/gids/0)
check_eq "$gid_a" "$(gid_of_mac "$(ip netns exec stw-a cat /sys/class/net/veth0/address)")" "swa GID"
check_eq "$gid_b" "$(gid_of_mac "$(ip netns exec stw-b cat /sys/class/net/veth1/address)")" "swb GID"

run rdma link delete swb
check_no_dev swb
check_dev swa
run ip netns exec stw-b rdma link add swb type softiw netdev veth1
check_dev swb

run rmmod softiw
is_loaded && fail "softiw still loaded after rmmod"
check_no_dev swa
check_no_dev swb
log "two devices, delete one, rmmod with two present"
exit 0
