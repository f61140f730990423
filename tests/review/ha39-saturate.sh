#!/bin/bash
# shellcheck disable=SC2016 # the inner bash -c script expands its own $1
# ha39-saturate.sh: hostile review h-attack39, the receiver pool's cap
# (1260e78: at 1024 receivers the next notifications wait in the kernel's
# queue, counted in receivers.capped). An agent fills the pool with 1100
# threads in blocking TCP connects to a loopback listener whose accept
# queue is full (each receiver performs one and waits in it), then makes a
# UDP connect to an undeclared destination (192.0.2.1:9: denied before
# anything is sent, and a UDP connect sends nothing anyway) and, 1 s later,
# exits (exit_group from another thread). The connect was never received:
# the kernel withdraws it with its task, the supervisor never judges it, and
# the run says pass. Before 1260e78 (then mutant receivers-capped-error)
# the full pool was an internal error: capability-error. So it is again
# since 9f113d0; mutant receivers-capped-counted reopens the hole.
#
#   tests/review/ha39-saturate.sh [RUNS]    (as root, loopback only)
# Environment: SV (default build/egress-supervisor), WHO ("root uid1000"),
# LATE (exit: the agent exits while its denied call waits; wait: it waits
# for the call, which is judged only when a receiver's connect ends: its
# SYN retries, about 130 s; TMO kills the run first), THREADS (1100),
# TMO (60). One RESULT line per run: exit status, verdict, counts, capped.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-3}}
sv=${SV:-$top/build/egress-supervisor}
late=${LATE:-exit}
threads=${THREADS:-1100}
tmo=${TMO:-60}
work=$(mktemp -d /tmp/ha39-saturate.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha39-agent" "$top/tests/review/ha39-agent.c"
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
			timeout -s KILL "$4" "$1/sv" --report-fd 9 -- "$1/ha39-agent" saturate "$2" 4 \
				192.0.2.1 9 "$3" >"$1/out" 2>"$1/err"
			rc=$?; cat /dev/fd/9 >"$1/copy"; exit $rc' _ "$work" "$threads" "$late" "$tmo" || rc=$?
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
print(f"verdict {r['verdict']} (complete {r['complete']}); allowed {c['allowed']}, "
      f"denied {c['denied']} {den}, abandoned {c.get('abandoned')}, mechanism failures "
      f"{c['mechanism_failures']}; receivers capped {(r.get('receivers') or {}).get('capped')}; "
      f"internal_error {r['internal_error']!r}")
PY
)
		total=$((total + 1))
		case $line in "verdict pass "*) pass=$((pass + 1)) ;; esac
		echo "RESULT run $n ($who, LATE=$late): exit $rc; $line; agent: $(grep -c '^ha39' "$work/out") lines, $(grep -o 'denied connect returned.*' "$work/out" || echo 'its denied connect never returned')"
	done
done
echo "SUMMARY: pass with an unjudged undeclared connect in $pass of $total runs"
