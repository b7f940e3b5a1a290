#!/bin/sh
# The guest half of 'make demo' (runs as root inside the VM).
#
#   +---------- ns0 ----------+        +---------- ns1 ----------+
#   | softiw0 -> veth0        |        | softiw1 -> veth1        |
#   |          10.77.0.1/24 ==+========+== 10.77.0.2/24          |
#   +-------------------------+        +-------------------------+
#
# The addresses exist only inside the guest.
set -eu

step() { printf '\n==> %s\n' "$*"; }

step "Loading the RDMA core and softiw"
modprobe ib_uverbs
modprobe rdma_ucm
modprobe softiw
lsmod | grep -E '^(softiw|ib_core|iw_cm|ib_uverbs) ' || true

step "Making two network namespaces joined by a veth pair"
ip netns add ns0
ip netns add ns1
ip link add veth0 netns ns0 type veth peer name veth1 netns ns1
ip -n ns0 addr add 10.77.0.1/24 dev veth0
ip -n ns1 addr add 10.77.0.2/24 dev veth1
ip -n ns0 link set veth0 up
ip -n ns1 link set veth1 up
ip -n ns0 link set lo up
ip -n ns1 link set lo up
# iputils-ping is not necessarily installed: show the link instead.
if command -v ping >/dev/null 2>&1; then
	ip netns exec ns0 ping -c 1 -W 2 10.77.0.2
else
	ip -n ns0 addr show dev veth0
fi

step "Adding a softiw device on each end"
ip netns exec ns0 rdma link add softiw0 type softiw netdev veth0
ip netns exec ns1 rdma link add softiw1 type softiw netdev veth1
rdma link show

step "ibv_devices"
ibv_devices

step "ibv_devinfo -v -d softiw0"
ibv_devinfo -v -d softiw0

step "rping -V between the namespaces (Send, RDMA Read, RDMA Write, compared)"
# Server in ns1, client in ns0.  timeout: a hang fails the demo.
ip netns exec ns1 timeout 120 rping -s -a 10.77.0.2 -V -C 10 -S 4096 &
srv=$!
sleep 2
ip netns exec ns0 timeout 120 rping -c -a 10.77.0.2 -V -C 10 -S 4096 -v | tail -n 3
wait $srv

step "ib_write_bw -R between the namespaces"
# -F: TCG's CPU frequency is meaningless.
ip netns exec ns1 timeout 120 ib_write_bw -R -F -d softiw1 -s 65536 -n 200 &
srv=$!
sleep 2
ip netns exec ns0 timeout 120 ib_write_bw -R -F -d softiw0 -s 65536 -n 200 10.77.0.2
wait $srv

step "Removing the devices"
ip netns exec ns0 rdma link delete softiw0
ip netns exec ns1 rdma link delete softiw1
rmmod softiw
echo "demo: done"
