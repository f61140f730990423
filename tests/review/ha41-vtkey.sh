#!/bin/bash
# ha41-vtkey.sh: hostile review h-attack41, a root agent's kept
# CAP_SYS_TTY_CONFIG. With a virtual console on its stdin (a run started
# from a console login, or a VT no session holds), the agent rewrites the
# keyboard's function-key strings (KDSKBSENT) and keymap (KDSKBENT). Both are
# global to every VT of the host and outlive the run: a key pressed on any
# console later types what the agent chose (Enter remapped to a function key
# whose string is a command line). TIOCSTI/TIOCLINUX are denied since
# 7bf3c9b; these ioctls are not trapped. The kernel's check since 5.11 is
# the caller's terminal AND CAP_SYS_TTY_CONFIG, so uid 1000 (the control)
# is refused even after TIOCSCTTY. The agent writes slot 250 (unused) and
# clears it, and writes Enter's entry with the value it has: nothing stays.
#
#   tests/review/ha41-vtkey.sh [VT]    (as root; VT default /dev/tty1)
# Environment: SV (default build/egress-supervisor).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vt=${1:-/dev/tty1}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha41-vtkey.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -isystem "$top/build/kheaders" \
	-o "$work/ha41-agent" "$top/tests/review/ha41-agent.c"
cp "$sv" "$work/sv"
echo "== root agent, $vt on stdin"
rc=0
"$work/sv" -- "$work/ha41-agent" vtkey <"$vt" || rc=$?
echo "RESULT root: supervisor exit $rc"
echo "== uid 1000 agent, $vt on stdin, TIOCSCTTY first (control)"
rc=0
setpriv --reuid 1000 --regid 1000 --clear-groups "$work/sv" -- "$work/ha41-agent" vtkey ctty <"$vt" || rc=$?
echo "RESULT uid1000: supervisor exit $rc"
