#!/bin/bash
# ha67-host.sh: hostile review h-attack67, host leg (as root, no VM).
#   tests/review/ha67-host.sh mapwin [N]   # finding 1: N uid-1000 runs while
#                                          # a uid-1000 outsider writes the
#                                          # trial child's uid_map (EPERM ->
#                                          # subreaper+landlock, pass)
#   tests/review/ha67-host.sh agent [N]    # the same outsider as the agent of
#                                          # a run in subreaper+landlock
#                                          # (FAULTS build, seam userns:EPERM;
#                                          # SVF, default build/faults): its
#                                          # filter and Landlock let it
#   tests/review/ha67-host.sh shm [N]      # finding 1's harm: the same, the
#                                          # run's program writes a 0600 SysV
#                                          # segment of a uid-1000 outsider
#                                          # (ha65-agent.c shmhost/shmput)
#   tests/review/ha67-host.sh memwin [N]   # a uid-1000 outsider keeps
#                                          # /proc/PID/mem of the run's
#                                          # processes opened while dumpable
#   tests/review/ha67-host.sh fsize        # RLIMIT_FSIZE and the memfd export
# SV: the supervisor (default the worktree's build). Prints one line per run
# (exit, verdict, containment, userns_refused) and a tally.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
mode=${1:-mapwin}
n=${2:-20}
# shellcheck source=tests/review/review-host.sh
. "$(dirname "$0")/review-host.sh"
# Background attackers are started with ue, so that $! is the process itself.
work=$(mktemp -d /tmp/ha67.XXXXXX)
chmod 1777 "$work"
cleanup() {
	if [ -n "${a:-}" ]; then kill "$a" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
cp "$sv" "$work/sv"
chmod 755 "$work/sv"
case $mode in
mapwin)
	gcc -O2 -Wall -o "$work/mapwin" "$top/tests/review/ha67-mapwin.c"
	(ue "$work/mapwin" 600 >"$work/mapwin.out" 2>&1) &
	a=$!
	weak=0
	for i in $(seq 1 "$n"); do
		set +e
		u "$work/sv" --report "$work/r$i.json" -- /bin/true >"$work/o$i.txt" 2>&1
		rc=$?
		set -e
		line="$(verdict "$work/r$i.json")"
		echo "run $i: exit $rc $line"
		case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
	done
	kill "$a" 2>/dev/null || true
	wait "$a" 2>/dev/null || true
	echo "passed in subreaper+landlock: $weak of $n"
	;;
agent)
	gcc -O2 -Wall -o "$work/mapwin" "$top/tests/review/ha67-mapwin.c"
	cp "${SVF:-$top/build/faults/egress-supervisor}" "$work/svf"
	chmod 755 "$work/svf"
	EGRESS_SV_FAULT=userns:EPERM u "$work/svf" --report "$work/A.json" -- "$work/mapwin" $((n * 3)) \
		>"$work/A.txt" 2>&1 &
	a=$!
	sleep 1
	weak=0
	for i in $(seq 1 "$n"); do
		set +e
		u "$work/sv" --report "$work/r$i.json" -- /bin/true >"$work/o$i.txt" 2>&1
		rc=$?
		set -e
		line="$(verdict "$work/r$i.json")"
		echo "run $i: exit $rc $line"
		case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
	done
	set +e
	wait "$a"
	echo "attacking run A: exit $? $(verdict "$work/A.json") $(grep -c wrote "$work/A.txt") maps written"
	set -e
	echo "passed in subreaper+landlock: $weak of $n"
	;;
shm)
	gcc -O2 -Wall -o "$work/mapwin" "$top/tests/review/ha67-mapwin.c"
	gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha65-agent.c"
	(ue "$work/mapwin" 600 >"$work/mapwin.out" 2>&1) &
	a=$!
	leaked=0
	for i in $(seq 1 "$n"); do
		key=$((0x6700 + i))
		u "$work/agent" shmhost "$key" 3000 >"$work/out$i.txt" 2>&1 &
		o=$!
		sleep 0.3
		set +e
		u "$work/sv" --report "$work/r$i.json" -- "$work/agent" shmput "$key" "secret-of-run-$i" \
			>"$work/o$i.txt" 2>&1
		rc=$?
		set -e
		wait "$o" || true
		echo "run $i: exit $rc $(verdict "$work/r$i.json") | $(grep -h shmput "$work/o$i.txt" | head -1) | outsider: $(cat "$work/out$i.txt")"
		if [ "$rc" = 0 ] && grep -q "secret-of-run-$i" "$work/out$i.txt"; then
			leaked=$((leaked + 1))
		fi
	done
	kill "$a" 2>/dev/null || true
	wait "$a" 2>/dev/null || true
	echo "passed with the outsider's segment written: $leaked of $n"
	;;
memwin)
	gcc -O2 -Wall -o "$work/memwin" "$top/tests/review/ha67-memwin.c"
	for i in $(seq 1 "$n"); do
		u "$work/memwin" 2 >"$work/mw$i.out" 2>&1 &
		a=$!
		sleep 0.2
		u "$work/sv" -- /bin/sleep 5 >/dev/null 2>&1 &
		s=$!
		wait "$a" || true
		echo "run $i (supervisor $s): $(grep -c '^held' "$work/mw$i.out") held;" \
			"$(grep '^read' "$work/mw$i.out" | grep -v ' -1 bytes' | grep 'dumpable now 0' | tr '\n' ';')"
		wait "$s" || true
	done
	;;
fsize)
	for fs in unlimited 4096 0; do
		set +e
		# Through a pipe: the supervisor's own stderr on a regular file
		# would meet the limit too.
		prlimit --fsize="$fs" "$work/sv" -- /bin/true 2>&1 </dev/null | cat >"$work/f.txt"
		rc=${PIPESTATUS[0]}
		set -e
		echo "fsize $fs: exit $rc: $(grep -e listener -e capability -e pass "$work/f.txt" | head -2 | tr '\n' ' ')"
	done
	;;
*)
	echo "ha67-host.sh: unknown mode $mode" >&2
	exit 2
	;;
esac
