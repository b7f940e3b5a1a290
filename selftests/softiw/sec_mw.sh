#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Memory windows and revocation (RFC 5040 2.1, RFC 5042 5.3, 6.2):
# build/selftests/mw_ops (mw_ops.c, kselftest harness) binds type 1 and
# type 2 windows and uses them through two loopback connections on sw0,
# as in dp_verbs.sh; it tries what an attacker would (past the window,
# after an invalidation or a rebind, from the wrong QP, a window as an
# lkey, binds the region does not allow) and races Writes against Local
# Invalidate, dealloc and dereg; once as root, once as nobody.  Afterwards the binds the kernel refused
# are counted (mw_bind_refused) and the device holds no PD or MR of the
# run, even of the case that exits with its windows bound.
#
# MW_OPS_ARGS passes harness options (e.g. "-t type2_wrong_qp").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
bin=${MW_OPS:-$(dirname "$0")/../../build/selftests/mw_ops}
[ -x "$bin" ] || fail "mw_ops not built (make -C selftests/softiw)"
dp_setup setpriv prlimit
b0=$(rdma_counter sw0 mw_bind_refused)
[ -n "$b0" ] || fail "no mw_bind_refused counter on sw0"
# as root, then as nobody: windows need no privilege, and the attacks
# fail the same way
# shellcheck disable=SC2086
dp_harness_twice mw_ops "$bin" $MW_OPS_ARGS
if [ -z "$MW_OPS_ARGS" ]; then
	# bind_needs_mw_bind_right, bind_from_other_pd, bind_past_region,
	# bind_write_on_read_only_region, bind_same_key, bind_type2_twice;
	# once a run
	b1=$(rdma_counter sw0 mw_bind_refused)
	check_eq "$b1" "$((b0 + 12))" "mw_bind_refused after the runs ($b0 before)"
else
	log "MW_OPS_ARGS=$MW_OPS_ARGS: mw_bind_refused not checked (whole runs only)"
fi
res=$(rdma resource show 2>&1 | grep " sw0:")
log "after the run: $res"
check_contains "$res" " pd 0 " "PDs left on sw0"
check_contains "$res" " mr 0 " "MRs left on sw0"
exit 0
