#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The port follows the netdev: state and MTU.
#
#   [ stp0 ] <--veth--> [ stp1 ]        (init netns)
#      |
#    swp0 (softiw)
#
# stp0 down -> port DOWN, up -> ACTIVE, seen through sysfs
# (ports/1/state) and, when the provider is set up, through ibv_devinfo;
# an MTU change shows in ibv_devinfo's active_mtu.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd rdma ip
need_softiw
on_exit 'ip link del stp0 2>/dev/null; softiw_reset'
softiw_reset

verbs=0
if [ -n "${RDMAV_DRIVERS:-}" ] && command -v ibv_devinfo >/dev/null; then
	verbs=1
else
	log "provider not set up: checking sysfs only"
fi
# devinfo_field NAME: the value of "NAME:" in ibv_devinfo -d swp0
devinfo_field() {
	ibv_devinfo -d swp0 >/tmp/devinfo.$$ 2>&1 || fail "ibv_devinfo -d swp0 exited $?: $(cat /tmp/devinfo.$$)"
	sed -n "s/^[[:space:]]*$1:[[:space:]]*//p" /tmp/devinfo.$$ | head -n 1
}
check_state() {
	wait_for 5 state_is swp0 "$1" || fail "sysfs port state: got '$(port_state swp0)', want '$1'"
	[ $verbs = 1 ] && check_eq "$(devinfo_field state)" "$2" "ibv_devinfo state"
	return 0
}

run ip link add stp0 type veth peer name stp1
run ip link set stp1 up
run ip link set stp0 up
run rdma link add swp0 type softiw netdev stp0
check_state "4: ACTIVE" "PORT_ACTIVE (4)"

run ip link set stp0 down
check_state "1: DOWN" "PORT_DOWN (1)"
check_contains "$(rdma link show swp0/1)" "state DOWN" "rdma link show after down"

run ip link set stp0 up
check_state "4: ACTIVE" "PORT_ACTIVE (4)"

if [ $verbs = 1 ]; then
	check_eq "$(devinfo_field active_mtu)" "1024 (3)" "active_mtu at MTU 1500"
	run ip link set stp0 mtu 9000
	check_eq "$(devinfo_field active_mtu)" "4096 (5)" "active_mtu at MTU 9000"
	run ip link set stp0 mtu 2100
	check_eq "$(devinfo_field active_mtu)" "2048 (4)" "active_mtu at MTU 2100"
fi
rm -f /tmp/devinfo.$$
log "DOWN/ACTIVE through sysfs$( [ $verbs = 1 ] && echo ' and ibv_devinfo, MTU')"
exit 0
