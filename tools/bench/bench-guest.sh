#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench-guest.sh SECONDS [SIW_KO [ONLY...]]: runs inside the VM
# (tools/bench/bench.sh starts it).  softiw between two namespaces joined
# by a veth pair ("softiw-veth"), then softiw and upstream siw (from SIW_KO
# when given, built by siw-build.sh) each on one device over its own
# address in the initial namespace (loopback: the only setup siw supports
# here); each time perftest over rdma_cm:
# ib_write_bw, ib_read_bw, ib_send_bw at 64 KiB, SECONDS x 200 iterations
# each (perftest's -D duration mode reports 0 under TCG's clock), and the
# three latency tests at 64 octets; iperf3 gives the plain TCP figure over
# the same veth.  Prints one "RESULT rnic test size value unit" line per
# figure; exits non-zero if any run fails.  ONLY: one perftest command
# line instead of the suite (for debugging).  rxe is not compared: its UDP
# socket lives in the initial namespace, so it cannot join two others.
secs=${1:-5}
siw_ko=${2:-}
shift 2 2>/dev/null
only=$*
A=10.77.0.1
B=10.77.0.2
fails=0

setup() {
	ip netns add bn0 && ip netns add bn1 &&
	ip link add bveth0 netns bn0 type veth peer name bveth1 netns bn1 &&
	ip -n bn0 addr add $A/24 dev bveth0 && ip -n bn1 addr add $B/24 dev bveth1 &&
	ip -n bn0 link set lo up && ip -n bn1 link set lo up &&
	ip -n bn0 link set bveth0 up && ip -n bn1 link set bveth1 up
}

# inns NS CMD...: run CMD in netns NS ("-": the initial namespace)
inns() {
	ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# perf RNIC DEV0 DEV1 TOOL ARGS...: one server/client pair, prints RESULT.
# The server runs on DEV1 in $SNS, the client on DEV0 in $CNS, to $SADDR.
perf() {
	rnic=$1 d0=$2 d1=$3 tool=$4
	shift 4
	port=$((${port:-19000} + 1))
	inns "$SNS" timeout 120 "$tool" -R -F -d "$d1" -p $port "$@" \
		>/tmp/bench.srv 2>&1 &
	spid=$!
	sleep 1
	inns "$CNS" timeout 120 "$tool" -R -F -d "$d0" -p $port "$@" $SADDR \
		>/tmp/bench.cli 2>&1
	crc=$?
	wait $spid
	src=$?
	row=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' /tmp/bench.cli | tail -n 1)
	if [ $crc != 0 ] || [ $src != 0 ] || [ -z "$row" ]; then
		echo "FAILED $rnic $tool (client $crc, server $src)"
		sed 's/^/  /' /tmp/bench.cli /tmp/bench.srv | tail -n 20
		fails=$((fails + 1))
		return
	fi
	echo "# $rnic $tool: $row"
	case $tool in
	*_bw) echo "$row" | awk -v r=$rnic -v t=$tool '{ printf "RESULT %s %s %s %.2f MB/s\n", r, t, $1, $4 }' ;;
	# t_typical, the median
	*_lat) echo "$row" | awk -v r=$rnic -v t=$tool '{ printf "RESULT %s %s %s %.2f usec\n", r, t, $1, $5 }' ;;
	esac
}

suite() {
	if [ -n "$only" ]; then
		perf "$1" "$2" "$3" $only
		return
	fi
	for op in write read send; do
		perf "$1" "$2" "$3" ib_${op}_bw -s 65536 -n $((secs * 200))
	done
	for op in write read send; do
		perf "$1" "$2" "$3" ib_${op}_lat -s 64 -n 2000
	done
}

modprobe ib_uverbs; modprobe rdma_ucm
setup || { echo "FAILED: namespace setup"; exit 1; }

if command -v iperf3 >/dev/null 2>&1; then
	ip netns exec bn1 iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
	sleep 1
	ip netns exec bn0 iperf3 -c $B -p 5299 -t "$secs" -f m 2>&1 |
		awk '/receiver/ { printf "RESULT tcp iperf3 - %.2f MB/s\n", $7 / 8 }'
	wait
fi

modprobe softiw || { echo "FAILED: modprobe softiw"; exit 1; }

# Between the two namespaces: softiw only (siw's listen does not work
# outside the initial namespace).
SNS=bn1 CNS=bn0 SADDR=$B
ip netns exec bn0 rdma link add bsw0 type softiw netdev bveth0 &&
	ip netns exec bn1 rdma link add bsw1 type softiw netdev bveth1 ||
	{ echo "FAILED: softiw devices"; exit 1; }
suite softiw-veth bsw0 bsw1
rdma link delete bsw0; rdma link delete bsw1

# Loopback in the initial namespace, client and server on one device and
# its own address: the same path for softiw and siw.
ip link add blo0 type veth peer name blo1 netns bn1 &&
	ip addr add 10.76.0.1/24 dev blo0 && ip link set blo0 up &&
	ip -n bn1 link set blo1 up || { echo "FAILED: loopback setup"; exit 1; }
SNS=- CNS=- SADDR=10.76.0.1
rdma link add blsw type softiw netdev blo0 || { echo "FAILED: softiw loopback device"; exit 1; }
suite softiw blsw blsw
# siw never asks for the MPA CRC: the same without it, for comparison
echo N >/sys/module/softiw/parameters/mpa_crc
suite softiw-nocrc blsw blsw
echo Y >/sys/module/softiw/parameters/mpa_crc
rdma link delete blsw
if [ -n "$siw_ko" ]; then
	# siw's dependencies, then the module built from the 6.1 source
	modprobe iw_cm && modprobe crc32c_generic 2>/dev/null
	if insmod "$siw_ko"; then
		rdma link add blsiw type siw netdev blo0 && suite siw blsiw blsiw
		rdma link delete blsiw 2>/dev/null
		rmmod siw
	else
		echo "FAILED: insmod $siw_ko"
		fails=$((fails + 1))
	fi
fi
ip link del blo0
ip netns del bn0; ip netns del bn1
rmmod softiw
[ $fails = 0 ]
