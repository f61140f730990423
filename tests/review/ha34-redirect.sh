#!/bin/bash
# ha34-redirect.sh: hostile review h-attack34. --report FILE is written by
# path every time (report.c write_path: open(dir, O_TMPFILE), linkat,
# rename, all resolved afresh), by a root supervisor in the host's mount
# namespace. A root agent sees every host mount read-only but its
# --writable paths; when FILE's directory is under one, the agent replaces
# that directory with a symbolic link to any directory of the host, and the
# supervisor's final write follows it: the report lands in (or replaces a
# file of FILE's name in) a directory the agent itself cannot write
# (EROFS). Exit status and verdict are untouched (pass).
#
#   tests/review/ha34-redirect.sh [RUNS]     (as root; SV=BINARY picks the
#                                            supervisor; the last line says
#                                            in how many runs the host's file
#                                            was replaced)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-3}
work=$(mktemp -d /tmp/ha34-redirect.XXXXXX)
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" "$top/tests/review/ha34-agent.c"
cp "${SV:-$top/build/egress-supervisor}" "$work/sv"
replaced=0
for n in $(seq "$runs"); do
	rm -rf "$work/w" "$work/elsewhere"
	mkdir -p "$work/w/out" "$work/elsewhere"
	echo '{"the host": "file of that name, before the run"}' >"$work/elsewhere/report.json"
	rc=0
	"$work/sv" --writable "$work/w" --report "$work/w/out/report.json" \
		-- "$work/ha34-agent" redirect "$work/w/out" "$work/elsewhere" \
		>"$work/out" 2>"$work/err" || rc=$?
	echo "== run $n: supervisor exit $rc"
	sed 's/^/  agent: /' "$work/out"
	echo "  $work/elsewhere/report.json now: $(head -c 60 "$work/elsewhere/report.json" | tr '\n' ' ')..."
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("  its verdict:", r["verdict"], "complete:", r["complete"])' \
		"$work/elsewhere/report.json" 2>/dev/null || true
	grep -q '"the host"' "$work/elsewhere/report.json" || replaced=$((replaced + 1))
done
echo "RESULT: the host's file replaced in $replaced of $runs runs"
