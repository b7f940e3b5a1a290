#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A local process and the rings it shares with the kernel (the fast path
# of include/uapi/rdma/softiw-abi.h): build/selftests/ring_attack
# (ring_attack.c, kselftest harness) writes unknown opcodes and flags,
# too many SGEs, over-long lengths, SGEs outside its regions, producer
# indices out of range, a garbage CQ consumer index and entries rewritten
# while the kernel reads them.  Each case checks the error completion,
# the QP in ERROR with its async event, the peer's memory and a second
# connection that keeps working.  It runs as root and again as nobody
# (lib.sh AS_NOBODY).  The kernel's log must stay clean; the
# VM runner checks it after every test.
#
#   +---------- ns0 ----------+
#   | ring_attack: listener   |
#   | and connector on sw0    |
#   |        10.78.0.1/24     |
#   +-------------------------+
#
# RING_ATTACK_ARGS passes harness options (e.g. "-t sq_unknown_opcode").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
bin=$(dirname "$0")/../../build/selftests/ring_attack
[ -x "$bin" ] || fail "ring_attack not built (make -C selftests/softiw)"
dp_setup setpriv prlimit
dmesg_mark
# as root, then as nobody, the attacker RFC 5042 has in mind
# shellcheck disable=SC2086
dp_harness_twice ring_attack "$bin" $RING_ATTACK_ARGS
log_new=$(dmesg_new)
for bad in BUG WARNING Oops "general protection" UBSAN KASAN; do
	check_lacks "$log_new" "$bad" "kernel log while ring_attack ran"
done
exit 0
