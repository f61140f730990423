#!/bin/bash
# ha54-run.sh: review h-attack54 (the caller's credentials on performed
# AF_UNIX sends, 9e16898). Host, as root; the agent runs as uid 1000
# (setpriv) in the supervisor's pid-namespace run.
#   1. sendtorace with P never connected: a sendto(2) with a name, which the
#      supervisor performs (on_sendto) with its own credentials: the
#      receiver reads pid 0, uid 0 for a uid-1000 sender (finding 1).
#   2. epermrace: sendmsg(2) to a receiver a thread connects elsewhere and
#      disconnects in a loop; the supervisor's raised send refused (EPERM,
#      unix_may_send) is sent again without the caller's credentials, and
#      arrives with ours when the receiver was disconnected in between
#      (finding 2).
#   3. optmem: a control of 20448..20479 bytes (empty SCM_RIGHTS headers)
#      under net.core.optmem_max 20480 (the default before 6.9) in a
#      network namespace: the kernel sends it, the supervisor's 32 more
#      bytes make it ENOBUFS (finding 3).
#   4. cost: ha53-agent loop 10000, unsupervised and supervised.
# RUNS=N repeats 1 and 2 (hit rate). SV=binary for another build. ONLY=1
# or ONLY=2 runs that step alone (the integration tests).
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
RUNS=${RUNS:-3}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha54-agent" tests/review/ha54-agent.c
[ -n "${ONLY:-}" ] || review_cc "$B/ha53-agent" tests/review/ha53-agent.c
d=$(review_stage ha54 "$SV" "$B/ha54-agent")
U1000=(setpriv --reuid 1000 --regid 1000 --clear-groups)
hits() {
	local n=0 i
	for ((i = 0; i < RUNS; i++)); do
		if "$@"; then n=$((n + 1)); fi
	done
	echo "   => other ids received in $n of $RUNS runs"
}
forged() { timeout 120 "$d/sv" -- "${U1000[@]}" "$d/agent" "$@" 2>/dev/null | grep -E '^(received|epermrace)' | tail -2 | tee /dev/stderr | grep -q 'other ids [1-9]'; }
echo "== unsupervised, uid 1000"
[ "${ONLY:-}" = 2 ] || HA54_NOTOGGLE=1 "${U1000[@]}" "$d/agent" sendtorace 2000 || true
[ "${ONLY:-}" = 1 ] || "${U1000[@]}" "$d/agent" epermrace 20000 || true
if [ "${ONLY:-}" != 2 ]; then
	echo "== 1. sendtorace, P never connected, under $SV"
	HA54_NOTOGGLE=1 hits forged sendtorace 2000
fi
[ "${ONLY:-}" != 1 ] || exit 0
echo "== 2. epermrace 20000 under $SV"
hits forged epermrace 20000
[ "${ONLY:-}" != 2 ] || exit 0
echo "== 3. optmem under optmem_max 20480 (a network namespace)"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -n sh -c 'echo 20480 >/proc/sys/net/core/optmem_max
for c in 20447 20448 20479 20480; do "$1" optmem "$c" || true; done
for c in 20447 20448 20479 20480; do timeout 60 "$2" -- "$1" optmem "$c" 2>/dev/null | grep optmem; done' \
	- "$d/agent" "$d/sv"
echo "== 4. cost, ha53-agent loop 10000"
for i in 1 2 3; do "$B/ha53-agent" loop 10000; done
for i in 1 2 3; do timeout 120 "$SV" -- "$B/ha53-agent" loop 10000 2>/dev/null | grep '^loop'; done
