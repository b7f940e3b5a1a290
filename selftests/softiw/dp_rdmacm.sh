#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The librdmacm examples (Debian's rdmacm-utils) between two softiw
# devices: ucmatose (connect, Sends, disconnect), rdma_server/rdma_client
# (the synchronous rdma_cm verbs) and rstream (rsockets, data verified).
#
#   +---------- ns0 ----------+        +---------- ns1 ----------+
#   | client -> sw0 / veth0   |        | sw1 / veth1 <- server   |
#   |        10.78.0.1/24 ====+========+==== 10.78.0.2/24        |
#   +-------------------------+        +-------------------------+
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dp_lib.sh"
dp_setup ucmatose rdma_server rdma_client rstream

# ucmatose has no port option: it uses 7471.
dp_bg ucmatose.srv ns1 120 ucmatose -b $DP_B -c 2 -C 10 -S 1000
srv=$DP_LAST
dp_wait_listen ns1 7471
dp_fg ucmatose.cli ns0 120 "ucmatose client" \
	ucmatose -s $DP_B -c 2 -C 10 -S 1000
dp_wait ucmatose.srv $srv "ucmatose server"
check_contains "$(cat "$DP_TMP/ucmatose.cli")" "data transfers complete" "ucmatose client"
log "ucmatose: 2 connections x 10 messages"

dp_bg rdma_server ns1 60 rdma_server -s $DP_B -p 7472
srv=$DP_LAST
dp_wait_listen ns1 7472
dp_fg rdma_client ns0 60 "rdma_client" rdma_client -s $DP_B -p 7472
dp_wait rdma_server $srv "rdma_server"
check_contains "$(cat "$DP_TMP/rdma_client")" "rdma_client: end 0" "rdma_client"
log "rdma_server/rdma_client"

dp_bg rstream.srv ns1 180 rstream -b $DP_B -p 7473 -S 4096 -C 50 -I 4 -T v
srv=$DP_LAST
dp_wait_listen ns1 7473
dp_fg rstream.cli ns0 180 "rstream client" \
	rstream -s $DP_B -p 7473 -S 4096 -C 50 -I 4 -T v
dp_wait rstream.srv $srv "rstream server"
log "rstream: $(tail -n 1 "$DP_TMP/rstream.cli")"
exit 0
