#!/bin/bash
# ha7-survive.sh: a uid-1000 supervisor (user-namespace mode) runs ha7-agent
# survive, whose tries are logged and whose heartbeat children (setsid double
# fork, a nested user+pid namespace, a CLONE_PARENT sibling) beat into
# $D/beat.*; the supervisor is then SIGKILLed from outside, and every beat
# file must stop growing. SV=binary for another build (e.g. a mutant).
# Run as root from the worktree after `make`. No network traffic.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha7-agent" tests/review/ha7-agent.c
D=$(review_stage ha7-survive "$SV" "$B/ha7-agent")
setpriv --reuid 1000 --regid 1000 --clear-groups "$D/sv" --report "$D/r.json" -- \
	"$D/agent" survive "$D" 2>"$D/sv.err" &
svpid=$!
sleep 2
grep -E '^  "(containment|userns_refused)"' "$D/r.json" || true
echo "--- agent's tries"
cat "$D/log" || true
kill -KILL "$svpid"
wait "$svpid" || echo "supervisor exit $?"
sleep 0.5
declare -A before
for f in "$D"/beat.*; do before[$f]=$(wc -l <"$f"); done
sleep 1.5
alive=0
for f in "$D"/beat.*; do
	now=$(wc -l <"$f")
	if [ "$now" != "${before[$f]}" ]; then
		echo "SURVIVOR: $(basename "$f") still beating: $(tail -1 "$f")"
		alive=1
	else
		echo "dead: $(basename "$f") (last: $(tail -1 "$f"))"
	fi
done
# Ours only, by the copied binary's path: never a broad kill.
for p in $(pgrep -f "^$D/agent" || true); do kill -KILL "$p" 2>/dev/null || true; done
exit "$alive"
