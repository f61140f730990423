#!/bin/bash
# ha49-host.sh: hostile review h-attack49, host leg (as root; 6.18 is fine:
# the attack needs no fchroot). A stand-in root service listens on an
# undeclared AF_UNIX socket in a host directory (read-only in the agent's
# namespace: unix-peer is due) and records what reaches it. The root agent
# (ha49-agent) connects by a relative name after moving its root (chroot in
# a user namespace of its own) or its working directory (a detached bind)
# away from where the supervisor looks. Prints verdict and ground truth.
#   tests/review/ha49-host.sh [N]   (N runs per mode, default 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha49.XXXXXX)
trap 'kill "$srv" 2>/dev/null || true; rm -rf "$work"' EXIT
gcc -O2 -Wall -static -o "$work/agent" "$top/tests/review/ha49-agent.c"
# shellcheck source=tests/review/review-unix.sh
. "$top/tests/review/review-unix.sh"
review_unix_service "$work/s.sock" "$work/got"
srv=$REVIEW_UNIX_PID
for mode in plain chroot detach; do
	for i in $(seq "$n"); do
		rm -f "$work/got"
		set +e
		timeout -s KILL 30 "$sv" -- "$work/agent" "$work" s.sock "$mode" 2>"$work/err"
		rc=$?
		set -e
		got=no
		[ -s "$work/got" ] && got=yes
		echo "MODE $mode run $i: exit $rc, sink reached: $got" \
			"$(grep -o 'ha49 [a-z].*\|unix-peer[^ ]*\|mechanism[^ ]*' "$work/err" | head -2 | tr '\n' ' ')"
	done
done
