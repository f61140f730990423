#!/bin/bash
# ha36-nextrun.sh: hostile review h-attack36, item 3. 8cfd15a opens
# --report FILE's directory once, at set-up, following links, so a root
# agent can no longer redirect its own run's writes (ha34-redirect.sh). But
# the link it leaves outlives its run: run 1's root agent replaces FILE's
# directory (under its --writable path) with a symbolic link to a host
# directory it cannot write (EROFS in its view: `elsewhere`, standing for
# /etc or any other); run 2, the same command line with a harmless agent
# (/bin/true), opens the directory through the link at set-up, and its
# provisional and final reports replace `elsewhere`'s file of FILE's name.
# Second leg, the same for a declared path: run 1's agent replaces W/sub
# with a link to `elsewhere`; run 2 declares `--writable W/sub` (a path
# inside run 1's) and its agent writes W/sub/agent-was-here: the
# supervisor's set-up follows the link, so run 2's root agent writes the
# host directory.
#
#   tests/review/ha36-nextrun.sh [RUNS]   (as root from the worktree after
#                                         `make`; SV=BINARY picks the
#                                         supervisor; the last line counts
#                                         the runs where the host's file
#                                         was replaced)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-3}}
cd "$top" || exit 2
work=$(mktemp -d /tmp/ha36-nextrun.XXXXXX)
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha34-agent" tests/review/ha34-agent.c || exit 2
cp "${SV:-build/egress-supervisor}" "$work/sv"
replaced=0
for n in $(seq "$runs"); do
	rm -rf "$work/w" "$work/elsewhere"
	mkdir -p "$work/w/out" "$work/elsewhere"
	echo '{"the host": "file of that name, before the runs"}' >"$work/elsewhere/report.json"
	rc1=0
	"$work/sv" --writable "$work/w" --report "$work/w/out/report.json" \
		-- "$work/ha34-agent" redirect "$work/w/out" "$work/elsewhere" \
		>"$work/out1" 2>"$work/err1" || rc1=$?
	rc2=0
	"$work/sv" --writable "$work/w" --report "$work/w/out/report.json" \
		-- /bin/true >"$work/out2" 2>"$work/err2" || rc2=$?
	echo "== run $n: run 1 (the agent) exit $rc1, run 2 (/bin/true) exit $rc2"
	sed 's/^/  run 1 agent: /' "$work/out1"
	echo "  $work/w/out is now: $(readlink "$work/w/out" || echo 'not a link')"
	echo "  elsewhere/report.json: $(head -c 70 "$work/elsewhere/report.json" | tr '\n' ' ')..."
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("  its verdict:", r.get("verdict"), "complete:", r.get("complete"), "argv:", r["agent"]["argv"])' \
		"$work/elsewhere/report.json" 2>/dev/null || true
	grep -q '"the host"' "$work/elsewhere/report.json" || replaced=$((replaced + 1))
done
wrote=0
for n in $(seq "$runs"); do
	rm -rf "$work/w" "$work/elsewhere"
	mkdir -p "$work/w/sub" "$work/elsewhere"
	"$work/sv" --writable "$work/w" -- "$work/ha34-agent" redirect "$work/w/sub" \
		"$work/elsewhere" >"$work/out1" 2>"$work/err1"
	"$work/sv" --writable "$work/w/sub" -- /bin/sh -c \
		"echo run 2 > '$work/w/sub/agent-was-here'" >"$work/out2" 2>"$work/err2"
	echo "== writable leg $n: elsewhere holds: $(find "$work/elsewhere" -mindepth 1 -printf '%f ')"
	[ -e "$work/elsewhere/agent-was-here" ] && wrote=$((wrote + 1))
done
echo "RESULT: the host's file replaced by a later run in $replaced of $runs runs"
echo "RESULT: a later run's root agent wrote the host directory in $wrote of $runs runs"
