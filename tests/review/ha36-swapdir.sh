#!/bin/bash
# ha36-swapdir.sh: hostile review h-attack36. Since 8cfd15a report.c opens
# --report FILE's directory once at set-up and writes every version of the
# file relative to that descriptor. The agent, whose --writable path holds
# FILE's directory, renames that directory aside and makes a new one of the
# same name holding a forged FILE (a complete report, verdict "pass"); it
# then makes a denied connect. The supervisor's final, true report (fail)
# follows the descriptor into the renamed directory; FILE, as the caller
# named it, keeps the forgery. Exit status and the descriptor's record say
# fail; the file at the path the caller gave says pass.
#
#   tests/review/ha36-swapdir.sh [RUNS]   (as root from the worktree after
#                                         `make`; SV=BINARY picks the
#                                         supervisor; AS=root|uid1000|both,
#                                         default both; MODE=swapdir, denied
#                                         (control), or plant:KIND with KIND
#                                         dir, fifo, symlink or gone: FILE replaced
#                                         by one (gone: DIR removed), exit status, record and
#                                         file must agree)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-3}}
cd "$top" || exit 2
. tests/review/review-cc.sh
mkdir -p /tmp/ha36
review_cc /tmp/ha36/agent tests/review/ha36-agent.c || exit 2
forged=0
total=0
# plant:KIND is the agent's "plant KIND".
mode=${MODE:-swapdir}
mode=${mode/:/ }
for as in ${AS:-root uid1000}; do
	for n in $(seq "$runs"); do
		d=$(review_stage ha36-swapdir "${SV:-build/egress-supervisor}" /tmp/ha36/agent)
		mkdir -p "$d/w/out"
		chown -R 1000:1000 "$d/w"
		pre=()
		[ "$as" = uid1000 ] && pre=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		rc=0
		# shellcheck disable=SC2086 # mode is one or two words
		# The descriptor's records go to rec (fd 3 of the supervisor).
		"${pre[@]}" "$d/sv" --writable "$d/w" --report "$d/w/out/report.json" \
			--report-fd 3 -- "$d/agent" ${mode} "$d/w/out" report.json \
			>"$d/out" 2>"$d/err" 3>"$d/rec" || rc=$?
		total=$((total + 1))
		echo "== $as run $n: supervisor exit $rc"
		sed 's/^/  agent: /' "$d/out"
		grep -h 'egress-supervisor: \(pass\|fail\|capab\)' "$d/err" | sed 's/^/  /'
		for f in "$d/w/out/report.json" "$d/w/out.real/report.json"; do
			[ -e "$f" ] || continue
			python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("  %s: verdict %s, complete %s, agent exit_code %s, events %d" % (sys.argv[1], r.get("verdict"),
      r.get("complete"), (r.get("agent") or {}).get("exit_code"), len(r.get("events", []))))' "$f"
		done
		echo "  descriptor's last record: $(grep -o '"verdict": *"[a-z-]*"' "$d/rec" | tail -1)"
		if [ "$rc" != 0 ] && grep -q '"verdict": "pass"' "$d/w/out/report.json" 2>/dev/null; then
			forged=$((forged + 1))
		fi
		rm -rf "$d"
	done
done
echo "RESULT: FILE said pass while the exit status was not 0 in $forged of $total runs"
