# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the softiw selftests (sourced, never run).  One line
# each; a failed check prints why and exits 1 at once, so no later command
# can mask it (the tests do not rely on set -e, whose exceptions in
# conditions, pipes and functions hide failures).  Exit 4 is kselftest's
# skip.  Each test registers its cleanup with on_exit.

ksft_skip=4
SYSIB=/sys/class/infiniband

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit $ksft_skip; }
log() { echo "$*"; }
on_exit() { trap "$1" EXIT; }

need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
need_cmd() { for c; do command -v "$c" >/dev/null 2>&1 || skip "$c not installed"; done; }
# softiw and its provider are the suite's own: missing, the setup failed
need_softiw() { modinfo softiw >/dev/null 2>&1 || fail "softiw.ko not installed for $(uname -r) (make module)"; }
need_provider() { [ -n "${RDMAV_DRIVERS:-}" ] || fail "softiw provider not set up (build/provider/env.sh)"; }

# run CMD...: run, fail unless it succeeds
run() { "$@" || fail "'$*' exited $?"; }
# check_eq GOT WANT WHAT
check_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }
# check_contains TEXT NEEDLE WHAT
check_contains() { case "$1" in *"$2"*) ;; *) fail "$3: '$2' not in: $1" ;; esac; }
check_lacks() { case "$1" in *"$2"*) fail "$3: unexpected '$2' in: $1" ;; esac; }

is_loaded() { [ -d /sys/module/softiw ]; }
dev_exists() { [ -e "$SYSIB/$1" ]; }
check_dev() { dev_exists "$1" || fail "device $1 missing from $SYSIB"; }
check_no_dev() { ! dev_exists "$1" || fail "device $1 still in $SYSIB"; }
port_state() { cat "$SYSIB/$1/ports/1/state" 2>/dev/null; }
# wait_for SECONDS CMD...: poll CMD every 0.1 s (events are asynchronous)
wait_for() { t=$(($1 * 10)); shift; while ! "$@"; do t=$((t - 1)); [ $t -gt 0 ] || return 1; sleep 0.1; done; }
state_is() { [ "$(port_state "$1")" = "$2" ]; }

# rdma_refused ERRTEXT CMD...: CMD must fail and print "error: ERRTEXT"
rdma_refused() {
	want=$1; shift
	out=$("$@" 2>&1) && fail "'$*' succeeded, want '$want'"
	check_eq "$out" "error: $want" "'$*'"
}
# rdma_counter DEV NAME: counter NAME of DEV's port 1 (rdma statistic,
# stats.c), empty if there is none.
rdma_counter() {
	rdma statistic show link "$1/1" 2>/dev/null | tr ' ' '\n' |
		awk -v n="$2" 'prev == n { print; exit } { prev = $0 }'
}
# $AS_NOBODY CMD...: run CMD as an unprivileged user (nobody) that has
# only what rdma-core's udev rules give everyone (uverbs and rdma_cm
# device nodes 0666, done by nobody_prep) and an RLIMIT_MEMLOCK big enough
# for its registrations, as an administrator would grant it.  A prefix,
# so it can follow `ip netns exec NS`.
AS_NOBODY="prlimit --memlock=unlimited:unlimited setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
nobody_prep() {
	for d in /dev/infiniband/uverbs* /dev/infiniband/rdma_cm; do
		[ -c "$d" ] && chmod 0666 "$d"
	done
	return 0
}
# Kernel messages since dmesg_mark.
dmesg_mark() { dmesg_base=$(dmesg | wc -l); }
dmesg_new() { dmesg | tail -n +$((dmesg_base + 1)); }
check_dmesg() { check_contains "$(dmesg_new)" "$1" "kernel log"; }

# A clean start: no softiw devices, module not loaded.
softiw_reset() {
	for d in "$SYSIB"/*; do
		[ -e "$d/softiw_abi_version" ] && rdma link delete "$(basename "$d")" 2>/dev/null
	done
	if is_loaded; then rmmod softiw || fail "rmmod softiw (cleanup) exited $?"; fi
	return 0
}
# The iWARP GID of a MAC: the MAC, then zeros (sysfs gids/N format).
gid_of_mac() { echo "$1" | awk -F: '{printf "%s%s:%s%s:%s%s:0000:0000:0000:0000:0000\n", $1,$2,$3,$4,$5,$6}'; }
