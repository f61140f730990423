#!/bin/bash
# ha56-emfile.sh: hostile review h-attack56 finding 2 (as root, no VM): the
# supervisor under a small hard RLIMIT_NOFILE (it raises its soft limit to
# the hard one; the agent inherits both), a uid-1000 agent whose 8 threads
# each make STEPS performed AF_UNIX sendto calls with a name to its own
# SO_PASSCRED receiver (ha56-emfile.c, mode storm). Near the limit some
# call's /proc/TID/status open is refused EMFILE after its duplicate was
# made: sv_mediate_caller_creds answers "ours stay" and the message reaches
# the receiver naming pid 0, uid 0, gid 0. Prints, per run, the messages
# naming another sender and the run's verdict.
#   tests/review/ha56-emfile.sh [RUNS] [LIMITS] [STEPS]
#     RUNS per limit (default 2), LIMITS (default "22 24 26 28"), STEPS
#     (default 300); SUPERVISOR=binary; HA56_HOLD=N adds N threads held
#     in the supervisor's wait (a full queue) first.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-2}
limits=${2:-22 24 26 28}
steps=${3:-300}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha56e.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha56-emfile.c"
"$work/agent" 100 storm 2>&1 | tail -1 | sed 's/^/UNSUPERVISED: /'
for lim in $limits; do
	for i in $(seq "$runs"); do
		set +e
		(
			ulimit -n "$lim"
			exec timeout -s KILL 120 "$sv" --report "$work/rep" -- "$work/agent" "$steps" storm
		) >"$work/out" 2>&1
		rc=$?
		set -e
		verdict=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
print(r.get("verdict"))' "$work/rep" 2>/dev/null || echo none)
		echo "LIMIT $lim run $i: exit $rc ($verdict);" \
			"$(grep -o 'ha56 emfile: .*' "$work/out" | tail -1)"
		grep -o 'step [0-9]* (storm): sender .*' "$work/out" | sed 's/^/    /' || true
	done
done
