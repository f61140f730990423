#!/bin/bash
# shellcheck disable=SC2016 # the inner bash -c script expands its own $1
# ha41-burst.sh: hostile review h-attack41, the receiver pool below its cap.
# 9f113d0 made a full pool (16384) an internal error; below it a burst of
# N simultaneous calls that each block in their perform (TCP connects to a
# full accept queue of the agent's) is received one spawn at a time, and a
# denied UDP connect queued behind them waits unreceived until the agent's
# exit_group withdraws it (ha41-agent.c burst). pass = unjudged attempt.
#
#   tests/review/ha41-burst.sh [RUNS]    (as root, loopback only)
# Environment: SV (default build/egress-supervisor), WHO ("root uid1000"),
# THREADS (12000), DELAY_US (20000: the denied connect after the release),
# EXIT_MS (200: exit_group after the release), TMO (60), MODE (burst; burstq:
# an accept queue of 4096, so no perform blocks).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-3}}
sv=${SV:-$top/build/egress-supervisor}
threads=${THREADS:-12000}
dus=${DELAY_US:-20000}
ems=${EXIT_MS:-200}
tmo=${TMO:-60}
mode=${MODE:-burst}
work=$(mktemp -d /tmp/ha41-burst.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -pthread -isystem "$top/build/kheaders" -o "$work/ha41-agent" "$top/tests/review/ha41-agent.c"
cp "$sv" "$work/sv"
pass=0 total=0
for n in $(seq "$runs"); do
	for who in ${WHO:-root uid1000}; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		rm -f "$work/out" "$work/err" "$work/copy"
		: >"$work/chan"
		chown 1000 "$work/chan"
		rc=0
		"${as[@]}" bash -c 'exec 9<>"$1/chan"; rm "$1/chan"
			timeout -s KILL "$5" "$1/sv" --report-fd 9 -- "$1/ha41-agent" "$6" "$2" "$3" "$4" \
				192.0.2.1 9 >"$1/out" 2>"$1/err"
			rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work" "$threads" "$dus" "$ems" "$tmo" "$mode" || rc=$?
		line=$(python3 - "$work/copy" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
pos, last = 0, None
while pos < len(data):
    nl = data.index(b"\n", pos)
    size = int(data[pos:nl].split()[2])
    if nl + 1 + size > len(data):
        break
    last, pos = data[nl + 1:nl + 1 + size], nl + 1 + size
r = json.loads(last)
c = r["counts"]
den = [e.get("dest") for e in r.get("events", []) if e.get("bucket") == "denied"]
import collections
why = collections.Counter(e.get("reason") for e in r.get("events", []) if e.get("bucket") == "abandoned")
print(f"verdict {r['verdict']} (complete {r['complete']}); allowed {c['allowed']}, "
      f"denied {c['denied']} {den}, abandoned {c.get('abandoned')} {dict(why)}, mechanism failures "
      f"{c['mechanism_failures']}; receivers {r.get('receivers')}; "
      f"internal_error {r['internal_error']!r}")
PY
)
		total=$((total + 1))
		case $line in "verdict pass "*) pass=$((pass + 1)) ;; esac
		echo "RESULT run $n ($who, N=$threads): exit $rc; $line; agent: $(grep -o 'denied connect returned.*' "$work/out" || echo 'its denied connect never returned')"
	done
done
echo "SUMMARY: pass with an unjudged undeclared connect in $pass of $total runs"
