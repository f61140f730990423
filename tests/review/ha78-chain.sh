#!/usr/bin/env bash
# ha78-chain.sh N [MODE]: how long a caller's SIGTERM waits while the
# supervisor describes what the agent left (sv_descendants_describe).
# The agent (ha78-chain.c) leaves a chain of N processes and exits; once
# the stderr note is printed (due 5 s after the agent's exit, printed when
# the walk is done: agent_exit_to_sigterm - 5 is the walk), or DELAY seconds
# after the agent's exit, the caller sends SIGTERM and times the exit. MODE: root (default, pid namespace) or uid1000.
# Prints: N, seconds from SIGTERM to exit, exit status, the note's length.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1000}
mode=${2:-root}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha78-chain.XXXXXX)
trap 'rm -rf "$work"' EXIT
musl-gcc -static -O2 -o "$work/chain" "$top/tests/review/ha78-chain.c"
chmod 755 "$work" "$work/chain"
run=()
if [ "$mode" = uid1000 ]; then
	run=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	chmod 777 "$work"
fi
"${run[@]}" "$sv" --report "$work/report.json" -- "$work/chain" "$n" \
	</dev/null >"$work/out" 2>"$work/err" &
svpid=$!
for _ in $(seq 1 6000); do
	grep -q 'agent exits' "$work/err" 2>/dev/null && break
	kill -0 "$svpid" 2>/dev/null || break
	sleep 0.1
done
ta=$(date +%s.%N)
if [ -n "${DELAY:-}" ]; then
	sleep "$DELAY"
else
	# Wait for the note: it is printed once the walk is done.
	for _ in $(seq 1 36000); do
		grep -q 'the run goes on' "$work/err" 2>/dev/null && break
		sleep 0.1
	done
fi
t0=$(date +%s.%N)
kill -TERM "$svpid"
rc=0
wait "$svpid" || rc=$?
t1=$(date +%s.%N)
note=$(grep -c 'the run goes on' "$work/err" || true)
printf 'N=%s mode=%s agent_exit_to_sigterm=%.2fs sigterm_to_exit=%.2fs exit=%s note_lines=%s\n' \
	"$n" "$mode" "$(echo "$t0 - $ta" | bc)" "$(echo "$t1 - $t0" | bc)" "$rc" "$note"
grep -o '"verdict"[^,]*,' "$work/report.json" | head -1 || true
grep -o '"reason"[^"]*"[^"]*"' "$work/report.json" | head -2 || true
grep 'the run goes on' "$work/err" | cut -c1-200 || true
