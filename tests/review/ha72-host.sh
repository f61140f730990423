#!/bin/bash
# ha72-host.sh: hostile review h-attack72, host leg (as root, no VM).
#   tests/review/ha72-host.sh MODE [N] [LIMIT]
# N uid-1000 runs of `--report FILE -- /bin/true`, each started by
# ha72-launcher.c in a user + mount namespace uid 1000 owns (a rootless
# container's shape, ids mapped to themselves), whose
# user.max_user_namespaces the launcher sets to 0 (LIMIT 0, the default;
# "-" leaves it) and whose /proc/self/ns it turns, for the supervisor, into
# a procfs directory without a "user" entry:
#   fdinfo   /proc/PID/fdinfo bound over /proc/PID/ns (the pid known)
#   sysnet   /proc/sys/net bound over /proc/PID/ns
#   selfsym  the /proc/self symlink covered (open_tree + move_mount) by a
#            symlink to a directory whose ns is /proc/thread-self/fdinfo:
#            no pid needed, every later process of the namespace sees it
#   none     control: nothing over /proc (the refusal is ours: exit 3)
#   tmpfs    control: a tmpfs over /proc/PID/ns (the fstatfs proof holds)
#   pidnet   control: the launcher's own /proc/PID/fdinfo (EACCES, ours)
#   shm      selfsym's harm: the run's program writes a 0600 SysV segment
#            of a uid-1000 outsider outside the run (ha65-agent.c);
#            LMODE=none with LIMIT - is its control (user-namespace mode)
# SV: the supervisor (default the worktree's build). Prints one line per
# run (exit, verdict, containment, userns_refused) and a tally of passes
# in subreaper+landlock.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
mode=${1:-selfsym}
n=${2:-5}
limit=${3:-0}
# shellcheck source=tests/review/review-host.sh
. "$(dirname "$0")/review-host.sh"
VERDICT_PROBE=1
work=$(mktemp -d /tmp/ha72.XXXXXX)
chmod 755 "$work"
o=
cleanup() {
	if [ -n "$o" ]; then kill "$o" 2>/dev/null || true; fi
	rm -rf "$work"
	rm -rf /tmp/ha72-self.* 2>/dev/null || true
}
trap cleanup EXIT
cp "$sv" "$work/sv"
gcc -O2 -Wall -static -o "$work/launcher" "$top/tests/review/ha72-launcher.c"
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha65-agent.c"
chmod 755 "$work/sv" "$work/launcher" "$work/agent"
mkdir "$work/out"
chown 1000:1000 "$work/out"
lmode=$mode
[ "$mode" = shm ] && lmode=${LMODE:-selfsym}
weak=0
leaked=0
for i in $(seq 1 "$n"); do
	extra=
	set +e
	if [ "$mode" = shm ]; then
		key=$((0x7200 + i))
		u "$work/agent" shmhost "$key" 3000 >"$work/out/sh$i.txt" 2>&1 &
		o=$!
		sleep 0.3
		(cd "$work/out" && u "$work/launcher" "$lmode" "$limit" -- "$work/sv" \
			--report "$work/out/r$i.json" -- "$work/agent" shmput "$key" "secret-of-run-$i") \
			>"$work/out/o$i.txt" 2>&1
	else
		(cd "$work/out" && u "$work/launcher" "$lmode" "$limit" -- "$work/sv" \
			--report "$work/out/r$i.json" -- /bin/true) >"$work/out/o$i.txt" 2>&1
	fi
	rc=$?
	set -e
	if [ "$mode" = shm ]; then
		wait "$o" || true
		o=
		extra=" | outsider: $(cat "$work/out/sh$i.txt")"
		if [ "$rc" = 0 ] && grep -q "secret-of-run-$i" "$work/out/sh$i.txt"; then
			leaked=$((leaked + 1))
		fi
	fi
	line="$(verdict "$work/out/r$i.json")"
	echo "run $i: exit $rc $line$extra"
	case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
done
echo "passed in subreaper+landlock: $weak of $n"
[ "$mode" != shm ] || echo "passed with the outsider's segment written: $leaked of $n"
