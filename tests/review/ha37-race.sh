#!/bin/bash
# ha37-race.sh: hostile review h-attack37, item 1. f9b59a0 checks a
# --writable path for links with sv_rootfs_open_nolinks, closes that
# descriptor, then resolves the path again by name (realpath) and binds it
# by name (mount(r, r)): a check then a use. Run A's root agent (declared
# --writable W) exchanges W/sub, a directory, with a symbolic link to a host
# directory `elsewhere` (renameat2 RENAME_EXCHANGE, in a loop: ha37-swap.c)
# while run B, started concurrently with `--writable W/sub`, sets up: when
# the check sees the directory and realpath the link, run B declares and
# makes writable `elsewhere` itself, and its root agent (here a shell that
# writes elsewhere/agent-was-here, read-only in a correct set-up) writes
# there; the run passes. When the exchange falls between realpath and mount,
# the bind lands on the moved directory and the mount check refuses the run
# (another false red). When
# the check sees the link, run B is refused (a false red for run B's caller,
# the ELOOP message blaming an earlier run).
#
#   tests/review/ha37-race.sh [RUNS]   (as root from the worktree after
#                                     `make`; SV=BINARY picks the
#                                     supervisor; the last lines count)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-${RUNS:-20}}
cd "$top" || exit 2
work=$(mktemp -d /tmp/ha37-race.XXXXXX)
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -o "$work/ha37-swap" tests/review/ha37-swap.c || exit 2
cp "${SV:-build/egress-supervisor}" "$work/sv"
mkdir -p "$work/w/sub" "$work/elsewhere"
secs=$((runs / 2 + 15))
"$work/sv" --writable "$work/w" -- "$work/ha37-swap" "$work/w/sub" "$work/w/lnk" \
	"$work/elsewhere" "$secs" >"$work/outA" 2>"$work/errA" &
runa=$!
sleep 3
wrote=0 refused=0 clean=0 other=0
for n in $(seq "$runs"); do
	rm -f "$work/elsewhere/agent-was-here"
	rc=0
	"$work/sv" --writable "$work/w/sub" -- /bin/sh -c \
		"echo run B $n > '$work/elsewhere/agent-was-here'" >"$work/outB" 2>"$work/errB" || rc=$?
	if [ -e "$work/elsewhere/agent-was-here" ]; then
		wrote=$((wrote + 1))
		echo "== run B $n: exit $rc, its agent WROTE elsewhere/agent-was-here: $(cat "$work/elsewhere/agent-was-here")"
		tail -n 2 "$work/errB" | sed 's/^/  stderr: /'
	elif grep -q 'is a symbolic link' "$work/errB"; then
		refused=$((refused + 1))
		echo "== run B $n: exit $rc, refused: $(grep -m1 'symbolic link' "$work/errB")"
	elif [ "$rc" = 0 ]; then
		clean=$((clean + 1))
		echo "== run B $n: exit 0 (its agent failed to write elsewhere: read-only)"
	else
		other=$((other + 1))
		echo "== run B $n: exit $rc:"
		grep -v "^egress-supervisor: capability-error" "$work/errB" | tail -n 3 | sed "s/^/  stderr: /"
	fi
done
wait "$runa"
echo "run A: $(cat "$work/outA")"
echo "RESULT: run B's root agent wrote the host directory in $wrote of $runs runs"
echo "RESULT: run B refused (a link seen) in $refused, clean in $clean, other errors in $other of $runs runs"
