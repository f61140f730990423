#!/bin/bash
# ha36-cgroup.sh: hostile review h-attack36, item 2. Against fff28ac (a
# root agent's unshare/clone with CLONE_NEWCGROUP refused): the other ways
# a root agent could get a writable view of its supervisor's cgroup (see
# ha36-agent.c, mode cgroup). The supervisor runs, as root, in a cgroup of
# the script's own below the cgroup2 mount; the agent reports each way and
# writes cgroup.freeze (then thaws) wherever one gave a view. The last line
# counts the runs where one did.
#
#   tests/review/ha36-cgroup.sh [RUNS]   (as root from the worktree after
#                                        `make`; SV=BINARY picks the
#                                        supervisor)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
cd "$top" || exit 2
. tests/review/review-cc.sh
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$root" ] || { echo "no cgroup2 mount" >&2; exit 2; }
mkdir -p /tmp/ha36
review_cc /tmp/ha36/agent tests/review/ha36-agent.c || exit 2
cg=$root/ha36-cgroup.$$
mkdir "$cg"
trap 'echo 0 >"$cg/cgroup.freeze"; echo 1 >"$cg/cgroup.kill"; sleep 0.3; rmdir "$cg"' EXIT
reached=0
for n in $(seq "$runs"); do
	d=$(review_stage ha36-cgroup "${SV:-build/egress-supervisor}" /tmp/ha36/agent)
	rc=0
	bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec timeout 30 "$@"' _ "$cg" \
		"$d/sv" --report "$d/report.json" -- "$d/agent" cgroup "$root" \
		>"$d/out" 2>"$d/err" || rc=$?
	echo "== run $n: supervisor exit $rc"
	sed 's/^/  /' "$d/out"
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("  verdict", r.get("verdict"))
for e in r["events"]:
    print("  event", *(e.get(k) for k in ("syscall", "bucket", "reason", "errno")))' "$d/report.json"
	grep -q REACHED "$d/out" && reached=$((reached + 1))
	rm -rf "$d"
done
echo "RESULT: a writable view of the supervisor's cgroup in $reached of $runs runs"
