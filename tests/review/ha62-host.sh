#!/bin/bash
# ha62-host.sh: hostile review h-attack62, host leg (as root, no VM), the
# harness of ha56-host.sh: a stand-in root service listens on an undeclared
# AF_UNIX socket DIR/s.sock in a host directory (read-only in the run:
# unix-peer, exit 1, is due for any name that reaches it) and records what
# reaches it. Modes: see ha62-agent.c (xchg, xchgstatic, xmnt, costroot,
# costmnt).
#   tests/review/ha62-host.sh [N] [CONNECTS]
#     N runs per mode (default 3), CONNECTS per run (default 50);
#     MODES=..., SUPERVISOR=binary, HA62_LINKS, HA62_PHASE_US.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
connects=${2:-50}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha62.XXXXXX)
srv=
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null || true
	fi
	rm -rf "$work" /dev/shm/ha62 /dev/shm/ha62x
}
trap cleanup EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha62-agent.c"
mkdir -p "$work/h"
# shellcheck source=tests/review/review-unix.sh
. "$top/tests/review/review-unix.sh"
review_unix_service "$work/h/s.sock" "$work/got"
srv=$REVIEW_UNIX_PID
chmod 755 "$work" "$work/h"
h=$work/h
# shellcheck disable=SC2086 # MODES is a list of words
review_unix_modes "$work/agent" "$h" "$work/got" ha62 "$n" "$connects" "$sv" ${MODES:-xchgstatic xchg}
