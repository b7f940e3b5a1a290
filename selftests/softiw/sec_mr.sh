#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A local process and the STag space (RFC 5042 sections 5.3, 6.1.1):
# build/selftests/mr_attack (mr_attack.c) registers and deregisters
# thousands of regions and checks that STags do not predict each other,
# and tries to expose memory it cannot access itself.  It runs twice: as
# root, and as an unprivileged user (nobody) with nothing but access to
# the uverbs device node, as udev's rdma-core rules grant it (0666), to
# show that softiw needs no privilege and grants none.
. "$(dirname "$0")/lib.sh"
need_root
need_cmd ip rdma setpriv
need_softiw
need_provider
PROG=$(dirname "$0")/../../build/selftests/mr_attack
[ -x "$PROG" ] || fail "$PROG not built (make -C selftests/softiw)"

sec_cleanup() {
	ip link del sveth0 2>/dev/null
	softiw_reset
}
on_exit sec_cleanup
softiw_reset
modprobe ib_uverbs 2>/dev/null
run modprobe softiw
run ip link add sveth0 type veth peer name sveth1
run ip link set sveth0 up
run rdma link add sw0 type softiw netdev sveth0
# what udev's rdma-core rules do for every uverbs device
for d in /dev/infiniband/uverbs*; do
	[ -c "$d" ] && chmod 0666 "$d"
done

out=$("$PROG" sw0 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || fail "mr_attack as root: exit $rc"
check_contains "$out" "ok 4 - stag-not-reissued" "as root"

out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	env RDMAV_DRIVERS="$RDMAV_DRIVERS" "$PROG" sw0 2>&1)
rc=$?
echo "$out" | sed 's/^/nobody: /'
[ $rc = 0 ] || fail "mr_attack as nobody: exit $rc"
check_contains "$out" "ok 2 - stags-distinct" "as nobody"
exit 0
