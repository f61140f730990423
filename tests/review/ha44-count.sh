#!/bin/bash
# ha44-count.sh: hostile review h-attack44, receivers.withdrawn_unseen and
# id_range (cfab595) against an agent that counts its own calls
# (ha44-agent.c sig): N denied UDP connects under a SIGALRM every
# INTERVAL_US, with the test build's recv_pause seam (every receiver waits
# 20 ms before it receives, so queued calls are withdrawn). Without
# SA_RESTART each connect is one notification, so the report must say
#   connect records + died-before-receive + withdrawn_unseen == N
# with id_range "closed". With SA_RESTART (RESTART=1) the kernel restarts a
# withdrawn connect and notifies it afresh: every connect is finally seen,
# and withdrawn_unseen counts the restarts. STACK=1: the agent first stacks
# its own filters (TSYNC; a second listener, refused EBUSY).
#
#   tests/review/ha44-count.sh [RUNS]    (as root, loopback only)
# Environment: SV (default build/faults/egress-supervisor), WHO ("root
# uid1000"), N (60), INTERVAL_US (2000), RESTART (0), STACK (0), THREADS (1),
# FAULT (recv_pause:EAGAIN; empty for none).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-3}}
sv=${SV:-$top/build/faults/egress-supervisor}
n=${N:-60}
ius=${INTERVAL_US:-2000}
restart=${RESTART:-0}
stack=${STACK:-0}
threads=${THREADS:-1}
fault=${FAULT-recv_pause:EAGAIN}
work=$(mktemp -d /tmp/ha44-count.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -pthread -isystem "$top/build/kheaders" \
	-o "$work/ha44-agent" "$top/tests/review/ha44-agent.c"
cp "$sv" "$work/sv"
exact=0 total=0
for r in $(seq "$runs"); do
	for who in ${WHO:-root uid1000}; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		rm -f "$work/report.json" "$work/out"
		rc=0
		"${as[@]}" env EGRESS_SV_FAULT="$fault" timeout -s KILL 120 "$work/sv" \
			--report "$work/report.json" -- "$work/ha44-agent" sig "$n" "$ius" "$restart" \
			"$stack" "$threads" 192.0.2.1 9 >"$work/out" 2>"$work/err" || rc=$?
		line=$(python3 - "$work/report.json" "$n" "$restart" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n, restart = int(sys.argv[2]), sys.argv[3] == "1"
ev = r.get("events", [])
seen = sum(1 for e in ev if e.get("syscall") == "connect" and (e.get("dest") or "").startswith("192.0.2.1"))
died = sum(1 for e in ev if e.get("reason") == "died-before-receive")
rv = r["receivers"]
wu, rng = rv["withdrawn_unseen"], rv.get("id_range")
if restart:
    ok = rng == "closed"
    tag = "connect records %d (program made %d)" % (seen, n)
else:
    ok = rng == "closed" and seen + died + wu == n
    tag = "seen %d + died-before-receive %d + withdrawn_unseen %d = %d of %d" % (seen, died, wu, seen + died + wu, n)
print("%s; verdict %s; id_range %s; withdrawn_unseen %d; dropped %s; %s" % (
    "EXACT" if ok else "MISMATCH", r["verdict"], rng, wu, r["counts"].get("dropped"), tag))
PY
)
		total=$((total + 1))
		case $line in EXACT*) exact=$((exact + 1)) ;; esac
		echo "RESULT run $r ($who): exit $rc; $line; agent: $(grep -h 'ha44' "$work/out" | tr '\n' ' ')"
	done
done
echo "SUMMARY: $exact of $total runs exact (RESTART=$restart STACK=$stack THREADS=$threads N=$n)"
