#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The semantics of the individual verbs (verbs_ops.c, kselftest harness):
# SEND/RECV with 1 and max SGEs, zero-length and inline operations,
# unsignaled and solicited completions, CQ notification, RDMA WRITE/READ
# at exact offsets with guard octets, ORD queueing, limits refused at post
# and at create, access-rights errors, flushing, CQ overflow, an event
# storm (one async event per object) and SRQs.
# Each case makes its own rdma_cm connection over loopback on sw0:
#
#   +---------- ns0 ----------+
#   | verbs_ops: listener and |
#   | connector on sw0/veth0  |
#   |        10.78.0.1/24     |
#   +-------------------------+
#
# VERBS_OPS_ARGS passes harness options (e.g. "-t send_inline").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
bin=${VERBS_OPS:-$(dirname "$0")/../../build/selftests/verbs_ops}
[ -x "$bin" ] || fail "verbs_ops not built (make -C selftests/softiw)"
dp_setup
dmesg_mark
f0=$(rdma_counter sw0 srq_flood_refused)
c0=$(rdma_counter sw0 cq_flood_refused)
z0=$(rdma_counter sw0 tx_batches_zerocopy)
# Zero-copy transmit over loopback too (by default only where the kernel
# does not copy the pages itself), so that large WRITEs and SENDs here,
# write_source_released_in_flight's among them, go from user pages.
echo Y >/sys/module/softiw/parameters/tx_zcopy_local
# shellcheck disable=SC2086
ip netns exec ns0 env VERBS_ADDR=$DP_A timeout 280 "$bin" $VERBS_OPS_ARGS
rc=$?
echo N >/sys/module/softiw/parameters/tx_zcopy_local
[ $rc = 0 ] || fail "verbs_ops exited $rc (124: timed out)"
z1=$(rdma_counter sw0 tx_batches_zerocopy)
[ "$z1" -gt "$z0" ] || fail "no zero-copy batch with tx_zcopy_local=Y"
# srq_flood_fair_share cuts off exactly one stream
if [ -z "$VERBS_OPS_ARGS" ]; then
	f1=$(rdma_counter sw0 srq_flood_refused)
	check_eq "$f1" "$((f0 + 1))" "srq_flood_refused after the run ($f0 before)"
	# cq_flood_fair_share cuts off exactly one stream too
	c1=$(rdma_counter sw0 cq_flood_refused)
	check_eq "$c1" "$((c0 + 1))" "cq_flood_refused after the run ($c0 before)"
else
	log "VERBS_OPS_ARGS=$VERBS_OPS_ARGS: fair-share counters not checked (whole runs only)"
fi
exit 0
