#!/bin/bash
# shellcheck disable=SC2016 # the inner bash -c scripts expand their own $1
# ha34-threads.sh: hostile review h-attack34. Every allowed connect is
# performed by a supervisor thread on the duplicate, blocking as the
# agent's socket is; notify.c caps the receivers at MAX_THREADS (1024) and
# files the first receive that finds no spare as an internal error. An
# agent with more than 1024 threads in blocking connects that take a while
# (here: one loopback listener whose accept queue is full, so the SYNs are
# dropped until the agent closes it after 6 s) gets capability-error for a
# run in which every call was allowed and performed. A false red, for any
# thread-per-connection program with that many connections in flight;
# 1000 threads (the control) pass.
#
#   tests/review/ha34-threads.sh [RUNS]     (as root; loopback only)
# Environment: SV (the supervisor, default build/egress-supervisor), WHO
# ("root uid1000"), THREADS ("1000 1100"), SECS (6: how long the listener's
# queue stays full), NOFILE (a soft RLIMIT_NOFILE for the run, e.g. 1024).
# Since the fix a full pool is counted in the report's receivers.capped.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-2}}
sv=${SV:-$top/build/egress-supervisor}
secs=${SECS:-6}
[ -z "${NOFILE:-}" ] || ulimit -Sn "$NOFILE"
work=$(mktemp -d /tmp/ha34-threads.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
cp "$sv" "$work/sv"

for n in $(seq "$runs"); do
	for who in ${WHO:-root uid1000}; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		for threads in ${THREADS:-1000 1100}; do
			rm -f "$work/copy" "$work/err" "$work/out"
			: >"$work/chan"
			chown 1000 "$work/chan"
			rc=0
			"${as[@]}" bash -c 'exec 9<>"$1/chan"; rm "$1/chan"
				timeout -s KILL 120 "$1/sv" --report-fd 9 -- "$1/ha34-agent" threads "$2" "$3" \
					>"$1/out" 2>"$1/err"
				rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work" "$threads" "$secs" || rc=$?
			python3 - "$work/copy" "$rc" "$n" "$who" "$threads" "$(tail -n 1 "$work/out")" <<'EOF'
import json, sys
data = open(sys.argv[1], "rb").read()
pos, last = 0, None
while pos < len(data):
    nl = data.index(b"\n", pos)
    size = int(data[pos:nl].split()[2])
    last, pos = data[nl + 1:nl + 1 + size], nl + 1 + size
r = json.loads(last)
c = r["counts"]
print(f"run {sys.argv[3]} ({sys.argv[4]}, {sys.argv[5]} threads): exit {sys.argv[2]}, "
      f"verdict {r['verdict']}; allowed {c['allowed']}, denied {c['denied']}, "
      f"mechanism failures {c['mechanism_failures']}; internal_error {r['internal_error']!r}; "
      f"receivers capped {(r.get('receivers') or {}).get('capped')}; "
      f"agent: {sys.argv[6]}")
EOF
		done
	done
done
