#!/bin/bash
# ha69-ptwin.sh: hostile review h-attack69, finding 2 (as root, no VM; a
# host without Yama or with kernel.yama.ptrace_scope 0). N uid-1000 runs,
# each with an unconfined uid-1000 outsider (ha69-ptwin.c) that seizes the
# run's processes in their dumpable window and makes the first unshare or
# clone asking CLONE_NEWPID return EPERM.
#   tests/review/ha69-ptwin.sh [N]
# SV: the supervisor (default the worktree's build). Prints one line per run
# (exit, verdict, containment, userns_refused, what the outsider did).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=${SV:-$top/build/egress-supervisor}
n=${1:-5}
work=$(mktemp -d /tmp/ha69t.XXXXXX)
a=
cleanup() {
	if [ -n "$a" ]; then kill "$a" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
# A name no other process on the host has: the outsider touches only it.
cp "$sv" "$work/ha69sv"
mkdir "$work/out"
chown 1000:1000 "$work/out"
gcc -O2 -Wall -static -o "$work/ptwin" "$top/tests/review/ha69-ptwin.c"
chmod 755 "$work" "$work/ha69sv" "$work/ptwin"
weak=0
for i in $(seq 1 "$n"); do
	(exec setpriv --reuid 1000 --regid 1000 --clear-groups "$work/ptwin" ha69sv 3 \
		>"$work/out/pt$i.txt" 2>&1) &
	a=$!
	sleep 0.2
	set +e
	(cd "$work/out" && exec setpriv --reuid 1000 --regid 1000 --clear-groups "$work/ha69sv" \
		--report "$work/out/r$i.json" -- /bin/true >"$work/out/o$i.txt" 2>&1)
	rc=$?
	wait "$a"
	set -e
	a=
	line=$(python3 -c 'import json,sys
try:
    r=json.load(open(sys.argv[1]))
except Exception as e:
    print("no report (%s)" % e); sys.exit(0)
print(r["verdict"], r.get("containment"), "userns_refused=%s" % r.get("userns_refused"))' "$work/out/r$i.json")
	echo "run $i: exit $rc $line | $(grep -c "forced EPERM" "$work/out/pt$i.txt" || true) forced"
	case $line in *subreaper*) [ "$rc" = 0 ] && weak=$((weak + 1)) ;; esac
done
echo "passed in subreaper+landlock: $weak of $n"
