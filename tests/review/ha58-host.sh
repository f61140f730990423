#!/bin/bash
# ha58-host.sh: hostile review h-attack58 on the host (main 020f1ad): issue
# 12's run-integrity classes as fresh variants (ha58-agent.c modes forge,
# race, outlive), each under the supervisor as root (pid namespace) and as
# uid 1000 (its user namespace), with --report-fd on an unlinked file and
# --report FILE. For every run it prints one RESULT line: the exit status,
# the last whole record of the descriptor (kind, verdict, complete), whether
# FILE agrees, the counts, the agent's own tally, how long the run took and
# any survivor (a process whose argv[0] is the run's mark) after the
# supervisor exited (killed then by the script).
#
#   tests/review/ha58-host.sh [LEG]...     (as root, loopback only)
# LEGs: forge race-kill race-exit race-sig race-rsig race-stop race-unshare
#       race-ptrace outlive-setsid outlive-userns outlive-vfork outlive-stop
#       outlive-ptrace outlive-uring (default: all).
# Environment: SV (default build/egress-supervisor), WHO ("root uid1000"),
# RUNS (1), N (40 children per race run; with N=1 one attempt per run, run
# R waiting (R-1)*MAXUS/RUNS us), MAXUS (400), SECS (3, a
# survivor's sleep), TMO (20, then SIGTERM to the supervisor, SIGKILL 5 s
# later), ADDR (192.0.2.1: the race's and forge's destination, port 9),
# ALLOW (a --allow SPEC, e.g. 127.0.0.1:9 with ADDR=127.0.0.1; the agent's
# "sent" is then the allowed send), FAULT (EGRESS_SV_FAULT for a FAULTS=1
# build: userns:EPERM gives a uid-1000 run the subreaper+landlock mode,
# pidfd_thread:EINVAL the pre-6.9 leader-table path).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
runs=${RUNS:-1}
n=${N:-40}
maxus=${MAXUS:-400}
secs=${SECS:-3}
tmo=${TMO:-20}
export TMO_=$tmo
legs=("$@")
[ ${#legs[@]} -gt 0 ] || legs=(forge race-kill race-exit race-sig race-rsig race-stop race-unshare
	race-ptrace outlive-setsid outlive-userns outlive-vfork outlive-stop outlive-ptrace outlive-uring)
work=$(mktemp -d /tmp/ha58-host.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -pthread -isystem "$top/build/kheaders" \
	-o "$work/ha58-agent" "$top/tests/review/ha58-agent.c" 2>/dev/null
cp "$sv" "$work/sv"
mkdir -m 0777 "$work/rep"

survivors() {
	local f
	for f in $(grep -l -a "^$1" /proc/[0-9]*/cmdline 2>/dev/null || true); do
		f=${f#/proc/}
		echo "${f%/cmdline}"
	done
}

for leg in "${legs[@]}"; do
	for r in $(seq "$runs"); do
		for who in ${WHO:-root uid1000}; do
			mark="ha58mark$$x$r$who${leg//-/}"
			case $leg in
			forge) args=(forge "${ADDR:-192.0.2.1}" 9) ;;
			race-*)
				# N=1: one attempt per run, the runs sweeping the delay
				d=$maxus
				[ "$n" != 1 ] || d=$(((r - 1) * maxus / runs))
				args=(race "${leg#race-}" "$n" "$d" "${ADDR:-192.0.2.1}" 9)
				;;
			outlive-*) args=(outlive "${leg#outlive-}" "$secs" "$mark") ;;
			esac
			as=()
			[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
			rm -f "$work/rep/report.json" "$work/chan" "$work/chan.keep"
			start=$(date +%s.%N)
			rc=0
			# The caller holds the channel for the whole run (a uid-1000
			# caller for a uid-1000 supervisor): the agent looks for it.
			# shellcheck disable=SC2016 # expanded by the caller's shell
			"${as[@]}" env ${FAULT:+EGRESS_SV_FAULT=$FAULT} bash -c '
				w=$1; shift
				exec 9<>"$w/chan"
				rm -f "$w/chan"
				cd "$w"
				rc=0
				timeout -k 5 "$TMO_" "$w/sv" --report-fd 9 --report "$w/rep/report.json" \
					${ALLOW:+--allow "$ALLOW"} \
					-- "$w/ha58-agent" "$@" || rc=$?
				cat /dev/fd/9 >"$w/chan.keep"
				exit "$rc"
			' ha58-caller "$work" "${args[@]}" >"$work/out" 2>"$work/err" || rc=$?
			took=$(python3 -c "import time; print('%.1f' % (time.time() - $start))")
			left=$(survivors "$mark" | tr '\n' ' ')
			for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
			line=$(python3 - "$work/chan.keep" "$work/rep/report.json" "$rc" <<'PY'
import json, re, sys
d = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
recs, i = [], 0
while i < len(d):
    m = re.match(r"egress-supervisor-report-record/1 (\w+) (\d+)\n", d[i:])
    if not m:
        break
    j = i + m.end(); n = int(m.group(2))
    if len(d) - j < n:
        break
    recs.append((m.group(1), d[j:j + n])); i = j + n
rc = int(sys.argv[3])
if not recs:
    print("no record"); sys.exit()
kind, body = recs[-1]
r = json.loads(body)
want = {0: "pass", 1: "fail", 3: "capability-error"}.get(rc)
agree = r["verdict"] == want and (r["complete"] or rc == 3)
try:
    f = json.load(open(sys.argv[2]))
    fagree = f["verdict"] == r["verdict"] and f.get("forged_by") is None
except Exception as e:
    fagree = "none (%s)" % type(e).__name__
forged = "forged_by" in body or any("forged_by" in b for _, b in recs)
c = r["counts"]
rv = r.get("receivers", {})
ev = {}
for e in r.get("events", []):
    k = "%s/%s" % (e.get("bucket"), e.get("reason"))
    ev[k] = ev.get(k, 0) + 1
print("record %s %s complete=%s agrees-with-exit=%s file-agrees=%s forged-in-channel=%s "
      "denied=%s abandoned=%s withdrawn_unseen=%s id_range=%s events=%s" % (
          kind, r["verdict"], r["complete"], agree, fagree, forged, c.get("denied"),
          c.get("abandoned"), rv.get("withdrawn_unseen"), rv.get("id_range"),
          json.dumps(ev, sort_keys=True)))
PY
)
			tally=$({ grep -ho 'race T [a-z]*\|forge WROTE [^:]*\|forge own fd [0-9]*\|outlive [a-z]*: [a-z ]*\|seize: [A-Za-z ]*' "$work/out" || true; } |
				{ grep -v '^$' || true; } | sort | uniq -c | awk '{$1=$1; print}' | tr '\n' ';')
			echo "RESULT $leg run $r ($who): exit $rc; ${took}s; survivors [${left}]; $line; agent: $tally"
			if [ -n "${VERBOSE:-}" ]; then sed 's/^/  /' "$work/out" "$work/err"; fi
		done
	done
done
