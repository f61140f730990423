#!/bin/bash
# ha65-host.sh: hostile review h-attack65, host leg (as root, no VM):
# allowances shared by a uid, and two runs at once.
#   tests/review/ha65-host.sh [N]          # every mode, N runs where counted
#   MODES="userns" tests/review/ha65-host.sh
# SV: the supervisor (default the worktree's build). uid 1000 runs go through
# setpriv with RLIMIT_NPROC NPROC (default 300: the uid's count is shared by
# every process of the uid, the limit is each forker's own, so only the
# script's processes are held by it, not the host's other uid-1000 jobs).
# Modes:
#   nproc      one run: its agent takes every process slot of the uid, then
#              makes 3 UDP connects to 192.0.2.1:53 (undeclared): the
#              supervisor cannot start a receiver. Bucket.
#   cross      run A's agent holds every slot; run B (an honest program, one
#              declared UDP and one loopback TCP connect) starts meanwhile.
#   pulse      run A's agent takes every slot and lets them go, by turns
#              (FULL ms full, FREE ms free); N runs of B: buckets and modes.
#   userns     in a user namespace of the script's own (ids 0-65535 mapped to
#              themselves, so the host's limits stay untouched) with
#              user.max_KIND_namespaces LIMIT: run A's agent (uid 1000) takes
#              the uid's namespaces of KIND (user, pid, ipc, mnt) and holds
#              them; run B's program writes a 0600 SysV segment of an outsider
#              (a uid-1000 process outside both runs): finding 1.
#              (A root supervisor cannot run in the script's namespace: no
#              mknod for the agent's /dev; uid 0's namespaces on the host are
#              the CI's too, so the root case is by reading.)
#   after      after runs whose agents took slots, namespaces and pipes: the
#              uid's tasks and the next run (question 3).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
sv=${SV:-$top/build/egress-supervisor}
nproc=${NPROC:-300}
u() { setpriv --reuid 1000 --regid 1000 --clear-groups prlimit --nproc="$nproc" "$@"; }
verdict() {
	python3 -c 'import json,sys
try:
    r=json.load(open(sys.argv[1]))
except Exception as e:
    print("no report (%s)" % e); sys.exit(0)
print(r["verdict"], r.get("containment"), "userns_refused=%s" % r.get("userns_refused"),
      "|", (r.get("internal_error") or "")[:70], "|", r["counts"]["denied"], "denied",
      r["counts"]["mechanism_failures"], "mech")' "$1"
}
inner() {
	# Runs inside the script's own user namespace (ha8-inns.py).
	local kind=$1 limit=$2
	echo "$limit" >"/proc/sys/user/max_${kind}_namespaces"
	u "$work/agent" shmhost 0x6565 9000 >"$work/out.txt" 2>&1 &
	local out=$!
	u "$sv" --report "$work/ua.json" -- "$work/agent" userns 7000 "$kind" \
		>"$work/ua.txt" 2>&1 &
	local a=$!
	sleep 4
	set +e
	u "$sv" --report "$work/ub.json" -- "$work/agent" shmput 0x6565 secret-of-run-B \
		>"$work/ub.txt" 2>&1
	echo "  B exit $?: $(grep -h -e 'shmput' -e 'no user namespace' -e 'containment' "$work/ub.txt" | cut -c1-110 | tr '\n' ' ')"
	set -e
	wait "$a" "$out" || true
	echo "  A: $(grep userns "$work/ua.txt")"
	echo "  outsider: $(cat "$work/out.txt")"
	echo "  B report: $(verdict "$work/ub.json")"
}
if [ "${1:-}" = --inner ]; then
	# Re-entered inside the namespace: work, sv and the agent are passed on.
	work=$2
	sv=$3
	trap - EXIT
	shift 3
	"$@"
	exit 0
fi
work=$(mktemp -d /tmp/ha65.XXXXXX)
chmod 1777 "$work"
cleanup() {
	rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha65-agent.c"
for mode in ${MODES:-nproc cross pulse userns after}; do
	case $mode in
	nproc)
		for i in $(seq "$n"); do
			set +e
			u "$sv" --report "$work/x.json" -- "$work/agent" hogcall 300 192.0.2.1 53 3 \
				>"$work/x.txt" 2>&1
			rc=$?
			set -e
			echo "MODE nproc run $i: exit $rc, $(verdict "$work/x.json")"
		done
		;;
	cross)
		for i in $(seq "$n"); do
			u "$sv" --report "$work/a.json" -- "$work/agent" hog 5000 >"$work/a.txt" 2>&1 &
			sleep 2.5
			set +e
			u "$sv" --allow 192.0.2.1:53 --report "$work/b.json" -- "$work/agent" call 192.0.2.1 53 \
				>"$work/b.txt" 2>&1
			rc=$?
			set -e
			wait
			echo "MODE cross run $i: B exit $rc, $(verdict "$work/b.json"); B said: $(grep -m1 -e 'probe failed' -e ': EAGAIN' "$work/b.txt" || true)"
		done
		;;
	pulse)
		u "$sv" --report "$work/pa.json" -- "$work/agent" pulse "${FULL:-2}" "${FREE:-40}" 60000 \
			>"$work/pa.txt" 2>&1 &
		pa=$!
		sleep 1
		for i in $(seq "$((n * 5))"); do
			set +e
			u "$sv" --report "$work/pb.json" -- "$work/agent" call 127.0.0.1 53 >/dev/null 2>&1
			rc=$?
			set -e
			echo "exit $rc, $(verdict "$work/pb.json")"
			sleep 0.1
		done | sort | uniq -c | sed 's/^/MODE pulse /'
		kill "$pa" 2>/dev/null || true
		wait || true
		;;
	userns)
		for kind in ${KINDS:-user pid ipc}; do
			for i in $(seq "$n"); do
				echo "MODE userns kind $kind run $i:"
				python3 "$top/tests/review/ha8-inns.py" "$0" --inner "$work" "$sv" \
					inner "$kind" "${LIMIT:-40}"
			done
		done
		;;
	after)
		u "$sv" --report "$work/a.json" -- "$work/agent" hog 1000 >/dev/null 2>&1 || true
		u "$sv" --report "$work/a.json" -- "$work/agent" userns 1000 >/dev/null 2>&1 || true
		u "$sv" --report "$work/a.json" -- "$work/agent" pipes 3000 1000 >/dev/null 2>&1 || true
		sleep 1
		# Other uid-1000 jobs may share the host: count our agent's only.
		echo "MODE after: agent processes left: $(pgrep -c -f "^$work/agent" || true)"
		set +e
		u "$sv" --allow 192.0.2.1:53 --report "$work/b.json" -- "$work/agent" call 192.0.2.1 53 \
			>/dev/null 2>&1
		echo "MODE after: next run exit $?, $(verdict "$work/b.json")"
		set -e
		;;
	*)
		echo "unknown mode $mode" >&2
		exit 2
		;;
	esac
done
