#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/trace.sh [TEST [MODULE_ARGS]]: where one perftest latency
# run spends its time, function by function.  In the VM, on the bench's
# path (softiw on a veth pair between the initial namespace and bn1),
# ftrace's function_graph tracer times the functions named in FUNCS
# (default: the doorbell, the TX engine, TCP's send and the RX engine)
# during `ib_TEST -s 64` (TEST: write_lat, default, send_lat or
# read_lat), and the report gives each one's count, mean and median
# duration.  The clock is the TSC (x86-tsc): durations are TSC cycles
# divided by 1000, labelled "us"; compare them with each other, not with
# perftest's figures.  Tracing adds to every traced call, so a function
# with many traced children looks dearer than it is.
#
#   tools/bench/trace.sh write_lat
#   tools/bench/trace.sh send_lat mpa_crc=N
#   PEER=siw FUNCS="__x64_sys_write siw_post_send" tools/bench/trace.sh send_lat
#
# KVER selects the kernel (6.1 for PEER=siw), ITERS the iterations
# (default 1000).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
test=${1:-write_lat}
args=${2:-}
case $test in
write_lat | send_lat | read_lat) ;;
*) echo "trace.sh: unknown test '$test'" >&2; exit 2 ;;
esac
kver=${KVER:-$("$top/tools/kver.sh")}
funcs=${FUNCS:-__x64_sys_ioctl db_ioctl tx_run tx_push softiw_sq_next \
tx_wqe_start softiw_sq_done do_tcp_sendpages tcp_sendmsg_locked \
softiw_rx_data_ready rx_actor tcp_read_sock tcp_v4_rcv}
if [ "${SOFTIW_IN_VM:-}" != 1 ]; then
	make -s -C "$top" module provider KVER="$kver" >/dev/null
	siw_ko=
	if [ "${PEER:-}" = siw ]; then
		siw_ko=$("$top/tools/bench/siw-build.sh" "$kver") || exit 1
	fi
	exec "$top/tools/vm/run" --kver "$kver" --timeout 600 -- \
		env SOFTIW_IN_VM=1 SIW_KO="$siw_ko" FUNCS="$funcs" \
		ITERS="${ITERS:-1000}" sh tools/bench/trace.sh "$test" "$args"
fi

# in the guest
modprobe ib_uverbs; modprobe rdma_ucm
drv=softiw dev=bsw
if [ -n "${SIW_KO:-}" ]; then
	modprobe iw_cm; modprobe libcrc32c; modprobe crc32c_generic 2>/dev/null
	insmod "$SIW_KO"
	drv=siw dev=bsiw
else
	# shellcheck disable=SC2086
	modprobe softiw $args
fi
ip netns add bn1 && ip -n bn1 link set lo up
# distinct indices across namespaces (see bench-guest.sh)
ip link add bv0 index 100 type veth peer name bv1 netns bn1 index 101
ip addr add 10.77.0.1/24 dev bv0 && ip link set bv0 up
ip -n bn1 addr add 10.77.0.2/24 dev bv1 && ip -n bn1 link set bv1 up
rdma link add ${dev}0 type $drv netdev bv0
ip netns exec bn1 rdma link add ${dev}1 type $drv netdev bv1

T=/sys/kernel/tracing
[ -d $T/options ] || mount -t tracefs none $T
echo 0 > $T/tracing_on
echo x86-tsc > $T/trace_clock
# The filter before the tracer: a tracer enabled with an empty filter
# patches every function of the kernel, which under TCG takes minutes of
# text_poke() cross-CPU calls (soft lockups, seen on 6.1).
: > $T/set_ftrace_filter
for f in $FUNCS; do
	echo "$f" >> $T/set_ftrace_filter 2>/dev/null ||
		echo "# not traceable here: $f"
done
grep -q . $T/set_ftrace_filter || { echo "trace.sh: nothing to trace" >&2; exit 1; }
echo function_graph > $T/current_tracer
echo funcgraph-tail > $T/trace_options
echo 20000 > $T/buffer_size_kb
timeout 300 ib_$test -R -F -d ${dev}0 -s 64 -n "$ITERS" -p 7791 >/dev/null 2>&1 &
srv=$!
sleep 1
echo 1 > $T/tracing_on
ip netns exec bn1 timeout 300 ib_$test -R -F -d ${dev}1 -s 64 -n "$ITERS" \
	-p 7791 10.77.0.1 > /tmp/trace-client.out 2>&1 || true
echo 0 > $T/tracing_on
wait $srv || true
grep -E '^ *#bytes|^ *64 ' /tmp/trace-client.out
perl -ne '
	next unless /([0-9]+\.[0-9]+) us/; my $d = $1; my $n;
	if (m{/\* ([\w.]+)}) { $n = $1 }
	elsif (/([\w.]+)(?: \[\w+\])?\(\);/) { $n = $1 } else { next }
	$c{$n}++; $s{$n} += $d; push @{$v{$n}}, $d;
	END {
		for my $k (sort keys %c) {
			my @a = sort { $a <=> $b } @{$v{$k}};
			printf "%-28s n=%6d mean=%8.2f median=%8.2f\n", $k, $c{$k},
			       $s{$k} / $c{$k}, $a[int(@a / 2)];
		}
	}' $T/trace
