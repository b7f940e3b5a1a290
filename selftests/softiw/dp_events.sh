#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Asynchronous events reach the consumer with no softiw lock held: a
# kernel consumer (kmod/softiw_evtest.c, built for this kernel by
# tools/vm/selftests.sh) whose CQ error handler polls that CQ and posts
# a receive to the QP whose flushed receives overflowed it.  Its load
# runs the test and fails unless the handler ran once, polled the one
# entry that fit and posted without error; a device raising the event
# under its receive queue lock would deadlock instead.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup
KO=$(dirname "$0")/../../build/selftests/kmod-$(uname -r)/softiw_evtest.ko
[ -r "$KO" ] || fail "$KO not built (tools/vm/selftests.sh builds it)"
dmesg_mark
insmod "$KO" dev=sw0
rc=$?
dmesg_new | grep softiw_evtest
[ $rc = 0 ] || fail "softiw_evtest failed (insmod exited $rc)"
run rmmod softiw_evtest
check_dmesg "softiw_evtest: CQ_ERR: handler polled 1, post_recv 0, other events 0"
check_dmesg "softiw_evtest: passed"
exit 0
