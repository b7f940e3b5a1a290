# SPDX-License-Identifier: GPL-2.0
#
# Shared setup of the data-path selftests dp_*.sh (sourced after lib.sh,
# never run).  The topology:
#
#   +---------- ns0 ----------+        +---------- ns1 ----------+
#   | sw0 (softiw) -> veth0   |        | sw1 (softiw) -> veth1   |
#   |        10.78.0.1/24 ====+========+==== 10.78.0.2/24        |
#   +-------------------------+        +-------------------------+
#
# Loopback runs (where a test asks for them) use sw0 on both ends: client
# and server in ns0, the client connecting to 10.78.0.1.
#
# Every server runs in the background under `timeout`, registered with
# dp_bg so the EXIT trap kills whatever is left.  dp_setup fails (a
# failed setup is a failure, never a skip) when the device advertises no
# QPs or when build/rawpeer/victim -P (if built: make -C tools/rawpeer)
# cannot bind with rdma_cm, allocate the verbs objects and listen.

DP_A=10.78.0.1
DP_B=10.78.0.2
DP_PIDS=
DP_TMP=
DP_RP=${RAWPEER_DIR:-$(dirname "$0")/../../build/rawpeer}

dp_cleanup() {
	for p in $DP_PIDS; do kill "$p" 2>/dev/null; done
	for p in $DP_PIDS; do wait "$p" 2>/dev/null; done
	ip netns del ns0 2>/dev/null
	ip netns del ns1 2>/dev/null
	[ -n "$DP_TMP" ] && rm -rf "$DP_TMP"
	softiw_reset
}

# dp_setup CMD...: check prerequisites (CMD... must be installed), build
# the topology; a device without QPs or a failed probe fails the test.
dp_setup() {
	need_root
	need_cmd ip rdma ibv_devinfo timeout "$@"
	need_softiw
	need_provider
	on_exit dp_cleanup
	softiw_reset
	DP_TMP=$(mktemp -d) || fail "mktemp"
	modprobe ib_uverbs 2>/dev/null
	modprobe rdma_ucm 2>/dev/null
	# shellcheck disable=SC2086
	run modprobe softiw ${DP_MODOPTS:-}
	run ip netns add ns0
	run ip netns add ns1
	run ip link add veth0 netns ns0 type veth peer name veth1 netns ns1
	run ip -n ns0 addr add $DP_A/24 dev veth0
	run ip -n ns1 addr add $DP_B/24 dev veth1
	for ns in ns0 ns1; do
		run ip -n $ns link set lo up
	done
	run ip -n ns0 link set veth0 up
	run ip -n ns1 link set veth1 up
	run ip netns exec ns0 rdma link add sw0 type softiw netdev veth0
	run ip netns exec ns1 rdma link add sw1 type softiw netdev veth1
	max_qp=$(ibv_devinfo -v -d sw0 | awk '$1 == "max_qp:" { print $2 }')
	[ "${max_qp:-0}" -gt 0 ] || fail "sw0 advertises no QPs (max_qp: ${max_qp:-?})"
	# The verbs objects and an rdma_cm bind must work too (victim -P).
	if [ -x "$DP_RP/victim" ]; then
		ip netns exec ns1 timeout 20 "$DP_RP/victim" -P $DP_B 7599 \
			>"$DP_TMP/probe" 2>&1
		rc=$?
		[ $rc = 0 ] || fail "the verbs probe (victim -P) exited $rc: $(cat "$DP_TMP/probe")"
	fi
}

# dp_bg NAME NS SECS CMD...: start CMD in netns NS in the background under
# a SECS timeout, output to $DP_TMP/NAME; sets DP_LAST to its pid.
# (sh has no locals: the dp_* helpers use only _dp_* variables.)
dp_bg() {
	_dp_name=$1 _dp_ns=$2 _dp_secs=$3
	shift 3
	# Emptied here, not only by the background redirection: a caller that
	# waits for a line in the output must not find the previous run's.
	: >"$DP_TMP/$_dp_name"
	ip netns exec "$_dp_ns" timeout "$_dp_secs" "$@" >>"$DP_TMP/$_dp_name" 2>&1 &
	DP_LAST=$!
	DP_PIDS="$DP_PIDS $DP_LAST"
}

# dp_wait_listen NS PORT: give a server time to listen (the softiw CM's
# listening socket is a kernel TCP socket in NS; if ss does not show it,
# fall back to a fixed wait).
dp_wait_listen() {
	wait_for 5 sh -c "ip netns exec $1 ss -Htln 'sport = :$2' | grep -q ." ||
		sleep 1
}

# dp_gone PID SECS: PID has ended within SECS (a zombie counts: it has
# let go of everything)
dp_gone() {
	wait_for "$2" sh -c "! kill -0 $1 2>/dev/null ||
		grep -q '^[0-9]* (.*) Z' /proc/$1/stat 2>/dev/null"
}

# dp_wait NAME PID WHAT: wait for a background job, fail unless it exited
# 0 (124 is timeout's "timed out").
dp_wait() {
	wait "$2"
	_dp_rc=$?
	[ $_dp_rc = 0 ] || { cat "$DP_TMP/$1" >&2; fail "$3: exited $_dp_rc (124: timed out)"; }
}

# dp_fg NAME NS SECS WHAT CMD...: run CMD in NS under a timeout, output to
# $DP_TMP/NAME; fail unless it exits 0.
dp_fg() {
	_dp_name=$1 _dp_ns=$2 _dp_secs=$3 _dp_what=$4
	shift 4
	ip netns exec "$_dp_ns" timeout "$_dp_secs" "$@" >"$DP_TMP/$_dp_name" 2>&1
	_dp_rc=$?
	[ $_dp_rc = 0 ] || { cat "$DP_TMP/$_dp_name" >&2; fail "$_dp_what: exited $_dp_rc (124: timed out)"; }
}

# dp_harness_twice NAME BIN [ARGS]: run the kselftest-harness program BIN
# (ARGS: harness options) in ns0 against sw0's address, as root and then
# as nobody (lib.sh AS_NOBODY); fail if either run fails.
dp_harness_twice() {
	name=$1 bin=$2
	shift 2
	ip netns exec ns0 env VERBS_ADDR=$DP_A timeout 280 "$bin" "$@"
	rc=$?
	[ $rc = 0 ] || fail "$name exited $rc (124: timed out)"
	nobody_prep
	# shellcheck disable=SC2086
	ip netns exec ns0 $AS_NOBODY env RDMAV_DRIVERS="$RDMAV_DRIVERS" \
		VERBS_ADDR=$DP_A timeout 280 "$bin" "$@"
	rc=$?
	[ $rc = 0 ] || fail "$name as nobody exited $rc (124: timed out)"
}
