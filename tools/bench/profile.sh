#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/profile.sh [TEST [SIZE [ARGS]]]: profile one perftest run
# on softiw in the VM.  TEST is write_bw (default), read_bw, send_bw,
# write_lat, read_lat or send_lat; SIZE in octets (default 65536 for the
# _bw tests, 64 for _lat); ARGS are softiw module parameters (for example
# "mpa_crc=N").  The path is the benchmark's (tools/bench/bench-guest.sh):
# softiw on a veth pair between the initial namespace (server) and bn1
# (client).  Prints the client's report and `perf report` of the whole
# guest (perf record -a, linux-perf) while the client ran.
#
# With PEER=siw the same run profiles upstream siw instead (built by
# tools/siw-build.sh), for a side-by-side look at where each spends
# its time.  PERF_ARGS go to perf report (e.g. "--sort symbol").
#
#   tools/bench/profile.sh write_bw 65536
#   KVER=6.12.118+deb12-amd64 tools/bench/profile.sh send_lat
#   PEER=siw KVER=6.1.0-57-amd64 tools/bench/profile.sh send_lat
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
test=${1:-write_bw}
case $test in
*_bw) size=${2:-65536} ;;
*_lat) size=${2:-64} ;;
*) echo "profile.sh: unknown test '$test'" >&2; exit 2 ;;
esac
args=${3:-}
kver=${KVER:-$("$top/tools/kver.sh")}
command -v perf >/dev/null || { echo "profile.sh: perf missing (make deps)" >&2; exit 1; }
peer=${PEER:-}
if [ "${SOFTIW_IN_VM:-}" != 1 ]; then
	make -s -C "$top" module provider KVER="$kver" >/dev/null
	siw_ko=
	if [ "$peer" = siw ]; then
		siw_ko=$("$top/tools/siw-build.sh" "$kver") || exit 1
	fi
	exec "$top/tools/vm/run" --kver "$kver" --timeout 900 -- \
		env SOFTIW_IN_VM=1 SIW_KO="$siw_ko" PERF_ARGS="${PERF_ARGS:-}" \
		PERF_LINES="${PERF_LINES:-40}" ITERS="${ITERS:-}" \
		sh tools/bench/profile.sh "$test" "$size" "$args"
fi

# in the guest
modprobe ib_uverbs; modprobe rdma_ucm
drv=softiw dev=bsw
if [ -n "${SIW_KO:-}" ]; then
	modprobe iw_cm; modprobe libcrc32c; modprobe crc32c_generic 2>/dev/null
	insmod "$SIW_KO" || exit 1
	drv=siw dev=bsiw
else
	# shellcheck disable=SC2086
	modprobe softiw $args
fi
ip netns add bn1 && ip -n bn1 link set lo up
# distinct indices across namespaces: siw binds its wildcard listen to
# its netdev's index in the listener's namespace (bench-guest.sh)
ip link add bv0 index 100 type veth peer name bv1 netns bn1 index 101
ip addr add 10.77.0.1/24 dev bv0 && ip link set bv0 up
ip -n bn1 addr add 10.77.0.2/24 dev bv1 && ip -n bn1 link set bv1 up
rdma link add ${dev}0 type $drv netdev bv0
ip netns exec bn1 rdma link add ${dev}1 type $drv netdev bv1
case $test in
*_bw) n="-n ${ITERS:-400}" ;;
*) n="-n ${ITERS:-2000}" ;;
esac
# shellcheck disable=SC2086
timeout 600 ib_$test -R -F -d ${dev}0 -s "$size" $n -p 7790 >/dev/null 2>&1 &
srv=$!
sleep 1
# shellcheck disable=SC2086
perf record -q -a -o /tmp/perf.data -- ip netns exec bn1 \
	timeout 600 ib_$test -R -F -d ${dev}1 -s "$size" $n -p 7790 10.77.0.1 \
	>/tmp/client.out 2>&1 || { cat /tmp/client.out; exit 1; }
wait $srv || true
grep -E "^ *#bytes|^ *$size " /tmp/client.out
# shellcheck disable=SC2086
perf report -q -i /tmp/perf.data --no-children -g none --stdio \
	${PERF_ARGS:---sort comm,symbol} 2>/dev/null | head -n ${PERF_LINES:-40}
