#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/bench-guest.sh ROUNDS [SIW_KO]: runs inside the VM
# (tools/bench/bench.sh starts it).
#
# The path: a veth pair per subject, MTU 1500, one end in the initial
# namespace (the server side: siw listens only there) and the other in
# namespace bn1 (the client side), so every TCP-based subject crosses a
# real 1500-MTU veth and nothing goes through loopback:
#
#   softiw   bsw0 on bv0 (10.77.0.1)  <-veth->  bsw1 on bv1 (10.77.0.2, bn1)
#   siw      bsiw0 on bs0 (10.75.0.1) <-veth->  bsiw1 on bs1 (10.75.0.2, bn1)
#   iperf3   over bv0/bv1
#   rxe      brxe on br0 (10.74.0.1), client and server on that one device:
#            rxe's UDP socket exists only in the initial namespace, so it
#            cannot reach bn1, and rxe short-cuts traffic to its own
#            address; its figures are context, not the same path.
#
# Subjects: softiw (CRC on, its default), softiw-nocrc (mpa_crc=N; siw
# never asks for CRC), siw (when SIW_KO is given), rxe, and iperf3.  Each
# round runs every test once for every subject, subjects alternating
# within a test, so slow phases of the emulator hit all alike; the host
# takes the median of the rounds.  Tests: ib_{write,read,send}_bw at 4 KiB,
# 64 KiB and 1 MiB (about 24 MiB per run), ib_{write,read,send}_lat at 64
# octets (2000 iterations, typical latency).  perftest over rdma_cm, -R -F.
#
# BENCH_TESTS (e.g. "write_lat send_bw"; default all) and BENCH_SUBJECTS
# (default all; variants such as softiw+tx_splice=N may be added) narrow
# a run down for a quick look; BENCH_SIZES
# ("65536:400", size:iterations) replaces the bandwidth sizes.
#
# Prints "RESULT subject test size value unit round" per run and each
# client's raw report prefixed "RAW"; exits non-zero if any run failed.
rounds=${1:-3}
siw_ko=${2:-}
fails=0
CMSYNC=${SOFTIW_TOP:-.}/build/cmsync/cmsync.so
[ -r "$CMSYNC" ] || { echo "bench: $CMSYNC not built (make -C tools/cmsync)"; exit 1; }

# inns NS CMD...: run CMD in netns NS ("-": the initial namespace)
inns() {
	ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# pair NAME0 NAME1 NET IDX: a veth pair, NAME0 here with NET.1, NAME1 in
# bn1 with NET.2.  Interface indices are explicit and distinct across the
# namespaces: siw binds a wildcard listen to its netdev's index in the
# listener's namespace, so an index of bn1 must not name a device here.
pair() {
	ip link add "$1" index "$4" type veth peer name "$2" netns bn1 \
		index $(($4 + 1)) &&
		ip addr add "$3.1/24" dev "$1" && ip link set "$1" up &&
		ip -n bn1 addr add "$3.2/24" dev "$2" && ip -n bn1 link set "$2" up
}

setup() {
	ip netns add bn1 && ip -n bn1 link set lo up &&
		pair bv0 bv1 10.77.0 100 && pair bs0 bs1 10.75.0 110 &&
		ip link add br0 type veth peer name br1 &&
		ip addr add 10.74.0.1/24 dev br0 && ip link set br0 up &&
		ip link set br1 up
}

# subject -> client netns, server address, client device, server device,
# the server's netdev (NETDEV); a variant softiw+P=V[+P=V...] (e.g.
# softiw+tx_splice=N) sets writable module parameters P for its runs
# only, and softiw-nocrc is the variant softiw+mpa_crc=N.
subject_env() {
	case $1 in
	softiw*) CNS=bn1 SADDR=10.77.0.1 D0=bsw1 D1=bsw0 NETDEV=bv0 ;;
	siw) CNS=bn1 SADDR=10.75.0.1 D0=bsiw1 D1=bsiw0 NETDEV=bs0 ;;
	rxe) CNS=- SADDR=10.74.0.1 D0=brxe D1=brxe NETDEV=br0 ;;
	esac
	params=
	case $1 in
	softiw-nocrc) params=mpa_crc=N ;;
	softiw+*) params=$(echo "${1#softiw+}" | tr + ' ') ;;
	esac
	for pv in $params; do
		pf=/sys/module/softiw/parameters/${pv%%=*}
		[ -w "$pf" ] || { echo "# $1: no parameter ${pv%%=*}"; continue; }
		restore="$restore ${pv%%=*}=$(cat "$pf")"
		echo "${pv#*=}" >"$pf"
	done
}

# the module parameters a variant changed go back to what they were
restore=
subject_restore() {
	for pv in $restore; do
		pf=/sys/module/softiw/parameters/${pv%%=*}
		echo "${pv#*=}" >"$pf"
	done
	restore=
}

# packets NETDEV: "tx rx" packet counters of the server's veth end
packets() {
	echo "$(cat /sys/class/net/$1/statistics/tx_packets) $(cat /sys/class/net/$1/statistics/rx_packets)"
}

# The subject's RDMA devices exist only while it runs: two iWARP drivers
# cannot both listen on one port of a namespace (softiw's wildcard listen
# is a wildcard socket), and rdma_cm's wildcard listen reaches every
# device.
subject_up() {
	case $1 in
	softiw*)
		rdma link add bsw0 type softiw netdev bv0 &&
			ip netns exec bn1 rdma link add bsw1 type softiw netdev bv1 ;;
	siw)
		rdma link add bsiw0 type siw netdev bs0 &&
			ip netns exec bn1 rdma link add bsiw1 type siw netdev bs1 ;;
	rxe) rdma link add brxe type rxe netdev br0 ;;
	esac
}

subject_down() {
	for d in bsw0 bsw1 bsiw0 bsiw1 brxe; do
		rdma link delete $d 2>/dev/null
	done
	return 0
}

# calibration_failed: did the last client's clock calibration fail?
calibration_failed() {
	grep -q 'Correlation coefficient' /tmp/bench.cli ||
		grep -qE '^ *[0-9]+ +[0-9]+ +(inf|nan|-nan) ' /tmp/bench.cli
}

# perf SUBJECT ROUND TOOL ARGS...: one server/client pair
perf() {
	subj=$1 round=$2 tool=$3
	shift 3
	subject_env "$subj"
	if ! subject_up "$subj"; then
		echo "FAILED $subj $tool $*: devices"
		fails=$((fails + 1))
		subject_down
		return
	fi
	# perftest -F derives time from the TSC by a calibration that fails
	# now and then under TCG ("Correlation coefficient r^2 ... < 0.9")
	# and then reports 0.00 (or, in a latency test, inf): such a run is
	# repeated, at most twice.
	try=1
	while :; do
		pk0=$(packets "$NETDEV")
		perf_once "$@"
		pk1=$(packets "$NETDEV")
		calibration_failed || break
		[ $try -lt 3 ] || break
		echo "# $subj $tool $*: perftest's clock calibration failed, again"
		try=$((try + 1))
	done
	subject_down
	subject_restore
	sed "s/^/RAW $subj $tool round $round: /" /tmp/bench.cli
	echo "$pk0 $pk1" | awk -v p="RAW $subj $tool round $round:" \
		'{ printf "%s server netdev packets: %d sent, %d received\n", p, $3 - $1, $4 - $2 }'
	report_row "$@"
}

# perf_once ARGS...: the pair itself ($tool etc. from perf)
perf_once() {
	port=$((${port:-19000} + 1))
	# cmsync.so: the client's rdma_cm connects wait for the server's
	# listens (tools/cmsync/cmsync.c: perftest -R races them)
	rm -f /tmp/bench.listening
	timeout 300 env LD_PRELOAD="$CMSYNC" SOFTIW_CM_SYNC=/tmp/bench.listening \
		"$tool" -R -F -d "$D1" -p $port "$@" >/tmp/bench.srv 2>&1 &
	spid=$!
	inns "$CNS" timeout 300 env LD_PRELOAD="$CMSYNC" \
		SOFTIW_CM_SYNC=/tmp/bench.listening \
		"$tool" -R -F -d "$D0" -p $port "$@" $SADDR >/tmp/bench.cli 2>&1
	crc=$?
	wait $spid
	src=$?
}

# report_row ARGS...: the RESULT line of the last pair, or FAILED
report_row() {
	row=$(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' /tmp/bench.cli | tail -n 1)
	if calibration_failed; then
		echo "FAILED $subj $tool $*: perftest's clock calibration, 3 times"
		fails=$((fails + 1))
		return
	fi
	if [ $crc != 0 ] || [ $src != 0 ] || [ -z "$row" ]; then
		echo "FAILED $subj $tool $* (client $crc, server $src)"
		sed 's/^/  server: /' /tmp/bench.srv | tail -n 10
		fails=$((fails + 1))
		return
	fi
	case $tool in
	*_bw) echo "$row" | awk -v s="$subj" -v t="$tool" -v r="$round" \
		'{ printf "RESULT %s %s %s %.2f MB/s %s\n", s, t, $1, $4, r }' ;;
	*_lat) echo "$row" | awk -v s="$subj" -v t="$tool" -v r="$round" \
		'{ printf "RESULT %s %s %s %.2f usec %s\n", s, t, $1, $5, r }' ;;
	esac
}

modprobe ib_uverbs; modprobe rdma_ucm
setup || { echo "FAILED: namespace setup"; exit 1; }
modprobe softiw || { echo "FAILED: modprobe softiw"; exit 1; }
subjects="softiw softiw-nocrc"
if [ -n "$siw_ko" ]; then
	# siw's dependencies, then the module built from the 6.1 source
	modprobe iw_cm && modprobe crc32c_generic 2>/dev/null
	if insmod "$siw_ko"; then
		subjects="$subjects siw"
	else
		echo "FAILED: insmod $siw_ko"
		fails=$((fails + 1))
	fi
fi
if modprobe rdma_rxe; then
	subjects="$subjects rxe"
else
	echo "FAILED: modprobe rdma_rxe"
	fails=$((fails + 1))
fi
if [ -n "${BENCH_SUBJECTS:-}" ]; then
	want=
	for s in $subjects; do
		case " $BENCH_SUBJECTS " in *" $s "*) want="$want $s" ;; esac
	done
	for s in $BENCH_SUBJECTS; do
		case $s in softiw+*) want="$want $s" ;; esac
	done
	subjects=${want# }
fi
echo "# subjects: $subjects; $rounds round(s)"

# wanted TEST: is ib_TEST in BENCH_TESTS (all when unset)?
wanted() {
	[ -z "${BENCH_TESTS:-}" ] && return 0
	case " $BENCH_TESTS " in *" $1 "*) return 0 ;; esac
	return 1
}

r=1
while [ $r -le "$rounds" ]; do
	if wanted iperf3 && command -v iperf3 >/dev/null 2>&1; then
		iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
		sleep 1
		ip netns exec bn1 iperf3 -c 10.77.0.1 -p 5299 -t 3 -f m 2>&1 |
			awk -v r=$r '/receiver/ { printf "RESULT tcp iperf3 - %.2f MB/s %s\n", $7 / 8, r }'
		wait
	fi
	for op in write read send; do
		wanted ${op}_bw || continue
		for sz in ${BENCH_SIZES:-4096:6000 65536:400 1048576:24}; do
			for s in $subjects; do
				perf "$s" $r ib_${op}_bw -s "${sz%:*}" -n "${sz#*:}"
			done
		done
	done
	for op in write read send; do
		wanted ${op}_lat || continue
		for s in $subjects; do
			perf "$s" $r ib_${op}_lat -s 64 -n 2000
		done
	done
	r=$((r + 1))
done

subject_down
rmmod siw 2>/dev/null
rmmod rdma_rxe 2>/dev/null
ip link del bv0; ip link del bs0; ip link del br0
ip netns del bn1
rmmod softiw
[ $fails = 0 ]
