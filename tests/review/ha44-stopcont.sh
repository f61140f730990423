#!/bin/bash
# ha44-stopcont.sh: hostile review h-attack44, the reaper's bracketing calls
# against a hostile caller's environment: SIGSTOP and SIGCONT sent to the
# reaper (the supervisor's child, init of the agent's pid namespace) from
# outside, as fast as a shell can, for the whole run. A stop signal wakes a
# task waiting for its notification's answer (wait_for_completion_
# interruptible): the kernel withdraws the notification and, since no
# handler runs, restarts the call on SIGCONT, notified afresh under a new id.
# The reaper's sentinel can so be received twice (interrupted after the
# receive: the supervisor's answer meets ENOENT, counted all the same), and
# a withdrawn sentinel leaves a gap. Per run: id_range, withdrawn_unseen
# against the agent's own count (ha44-agent.c sig, no signal of its own), and
# whether the run ended within its timeout.
#
#   tests/review/ha44-stopcont.sh [RUNS]    (as root, loopback only)
# Environment: SV (default build/faults/egress-supervisor), FAULT
# (recv_pause:EAGAIN: every receive waits 20 ms, so a queued sentinel can be
# withdrawn; empty for none), N (20).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-10}}
sv=${SV:-$top/build/faults/egress-supervisor}
fault=${FAULT-recv_pause:EAGAIN}
n=${N:-20}
work=$(mktemp -d /tmp/ha44-stopcont.XXXXXX)
chmod 0777 "$work"
killer=
cleanup() {
	if [ -n "$killer" ]; then kill "$killer" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -pthread -isystem "$top/build/kheaders" \
	-o "$work/ha44-agent" "$top/tests/review/ha44-agent.c"
closed_off=0 open=0 total=0
for r in $(seq "$runs"); do
	rm -f "$work/report.json"
	# INTERVAL_US 0: no timer of the agent's own; its connects are never
	# interrupted by it.
	agent=("$work/ha44-agent" sig "$n" 0 0 0 1 192.0.2.1 9)
	[ -z "${CUT_MS:-}" ] || agent=(/bin/sleep 5)
	EGRESS_SV_FAULT="$fault" timeout -s KILL 60 "$sv" --report "$work/report.json" -- \
		"${agent[@]}" >"$work/out" 2>"$work/err" &
	svpid=$!
	if [ -n "${CUT_MS:-}" ]; then
		(
			sleep "$(printf '0.%03d' "$CUT_MS")"
			kill -TERM "$svpid" 2>/dev/null || true
		) &
	fi
	(
		reaper=
		while kill -0 "$svpid" 2>/dev/null; do
			if [ -z "$reaper" ]; then
				# The supervisor's child that is pid 1 of its namespace
				# (the probe's canary comes first and goes).
				for c in $(pgrep -P "$(pgrep -P "$svpid" | head -1)" 2>/dev/null || true); do
					if grep -qP '^NSpid:\t[0-9]+\t1$' "/proc/$c/status" 2>/dev/null; then
						reaper=$c
					fi
				done
				continue
			fi
			kill -0 "$reaper" 2>/dev/null || { reaper=; continue; }
			if [ "${FIRST_ONLY:-0}" = 1 ] && pgrep -P "$reaper" >/dev/null 2>&1; then
				break
			fi
			kill -STOP "$reaper" 2>/dev/null || true
			kill -CONT "$reaper" 2>/dev/null || true
		done
	) &
	killer=$!
	rc=0
	wait "$svpid" || rc=$?
	kill "$killer" 2>/dev/null || true
	wait "$killer" 2>/dev/null || true
	killer=
	line=$(python3 - "$work/report.json" "$n" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("NOREPORT %s" % e)
    sys.exit()
n = int(sys.argv[2])
ev = r.get("events", [])
seen = sum(1 for e in ev if e.get("syscall") == "connect")
died = sum(1 for e in ev if e.get("reason") == "died-before-receive")
rv = r["receivers"]
wu, rng = rv["withdrawn_unseen"], rv.get("id_range")
agent_unseen = n - seen - died
if r.get("interrupted") or r["verdict"] != "fail":
    print("%s id_range %s; withdrawn_unseen %d; run cut short (interrupted %r), verdict %s" % (
        "OFF" if rng == "closed" else "OK", rng, wu, r.get("interrupted"), r["verdict"]))
    sys.exit()
tag = "OK" if (rng == "closed" and wu == max(agent_unseen, 0)) or rng == "open" else "OFF"
print("%s id_range %s; withdrawn_unseen %d; the agent's calls never seen %d (of %d: %d records, %d died-before-receive); verdict %s" % (
    tag, rng, wu, agent_unseen, n, seen, died, r["verdict"]))
PY
)
	total=$((total + 1))
	case $line in OFF*) closed_off=$((closed_off + 1)) ;; esac
	case $line in *"id_range open"*) open=$((open + 1)) ;; esac
	echo "RESULT run $r: exit $rc; $line"
done
echo "SUMMARY: closed with a count that is not the agent's in $closed_off of $total; open in $open"
