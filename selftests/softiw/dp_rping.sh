#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rping with data verification (-V) between two softiw devices, then over
# loopback on one device:
#
#   +---------- ns0 ----------+        +---------- ns1 ----------+
#   | rping -c -> sw0 / veth0 |        | sw1 / veth1 <- rping -s |
#   |        10.78.0.1/24 ====+========+==== 10.78.0.2/24        |
#   +-------------------------+        +-------------------------+
#   loopback: rping -s and rping -c both in ns0 on sw0 (10.78.0.1)
#
# DP_RPING_COUNT (default 100) iterations of 65535 octets (rping's
# largest size): each is a Send, an
# RDMA Read of the client's buffer and an RDMA Write back, then a compare.
# The veth run sends its TX batches spliced into TCP (tx_splice=Y, the
# default), all copied into the batch (the kernel would copy zero-copy
# fragments on a veth anyway); the second veth run, with
# tx_zcopy_local=Y, sends the server's 65535-octet RDMA Writes (at least
# tx_zcopy_min, default 32768) from the application's own pages
# (zero-copy: completed when TCP lets go of them); the loopback run sends
# by copy (tx_splice=N).  The device counters tx_batches_spliced,
# tx_batches_zerocopy and tx_batches_copied must show exactly that.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup rping
count=${DP_RPING_COUNT:-100}

# rping_pair WHAT SERVER_NS CLIENT_NS ADDR PORT
rping_pair() {
	dp_bg "$1.srv" "$2" 300 rping -s -a "$4" -p "$5" -V -C "$count" -S 65535
	srv=$DP_LAST
	dp_wait_listen "$2" "$5"
	dp_fg "$1.cli" "$3" 300 "rping client ($1)" \
		rping -c -a "$4" -p "$5" -V -C "$count" -S 65535
	dp_wait "$1.srv" $srv "rping server ($1)"
	check_lacks "$(cat "$DP_TMP/$1.cli" "$DP_TMP/$1.srv")" "data mismatch" "rping ($1)"
	log "rping $1: $count x 64 KiB - 1 verified"
}

P=/sys/module/softiw/parameters/tx_splice
# both COUNTER: the counter summed over sw0 and sw1
both() {
	echo $(($(rdma_counter sw0 "$1") + $(rdma_counter sw1 "$1")))
}
batches() { both "tx_batches_$1"; }
[ "$(cat $P)" = Y ] || fail "tx_splice is not Y by default"
check_eq "$(cat /sys/module/softiw/parameters/tx_zcopy_min)" 32768 \
	"tx_zcopy_min by default"
check_eq "$(cat /sys/module/softiw/parameters/tx_zcopy_local)" N \
	"tx_zcopy_local by default"
s0=$(batches spliced) c0=$(batches copied) z0=$(batches zerocopy)
a0=$(both tx_batch_pages_allocated)
rping_pair veth ns1 ns0 $DP_B 7174
s1=$(batches spliced) c1=$(batches copied) z1=$(batches zerocopy)
[ "$s1" -gt "$s0" ] || fail "tx_batches_spliced $s0 -> $s1 over the veth run"
check_eq "$z1" "$z0" "tx_batches_zerocopy over a veth by default"
log "veth: $((s1 - s0)) batches spliced, $((c1 - c0)) copied"
# batch pages are written again once TCP lets go of them: a new one is
# the exception (both ours still with TCP), not one per batch
a1=$(both tx_batch_pages_allocated)
[ "$((a1 - a0))" -le "$(((s1 - s0) / 4 + 4))" ] ||
	fail "tx_batch_pages_allocated $a0 -> $a1 for $((s1 - s0)) spliced batches"
echo Y >/sys/module/softiw/parameters/tx_zcopy_local
rping_pair veth-zc ns1 ns0 $DP_B 7176
echo N >/sys/module/softiw/parameters/tx_zcopy_local
z2=$(batches zerocopy)
# each Write of 65535 octets fills at least one batch of its own
[ "$((z2 - z1))" -ge "$count" ] ||
	fail "tx_batches_zerocopy $z1 -> $z2 over $count Writes of 64 KiB"
log "veth, tx_zcopy_local=Y: $((z2 - z1)) batches zero-copy"
s1=$(batches spliced) c1=$(batches copied) z1=$z2
echo N >$P
rping_pair loopback ns0 ns0 $DP_A 7175
echo Y >$P
s2=$(batches spliced) c2=$(batches copied) z2=$(batches zerocopy)
check_eq "$s2" "$s1" "tx_batches_spliced with tx_splice=N"
check_eq "$z2" "$z1" "tx_batches_zerocopy with tx_splice=N"
[ "$c2" -gt "$c1" ] || fail "tx_batches_copied $c1 -> $c2 with tx_splice=N"
log "loopback, tx_splice=N: $((c2 - c1)) batches copied"
exit 0
