#!/bin/bash
# ha39-caps.sh: hostile review h-attack39, the capabilities a root agent
# keeps (caps.c keeps all but risky_caps; docs/design.md lists
# CAP_SYS_TIME, CAP_SYS_NICE and CAP_SYS_RESOURCE as "not egress; not
# reviewed for it" and does not name CAP_SYSLOG or CAP_IPC_LOCK). The agent
# tries each without changing anything (ADJ_TICK with the tick the clock
# already has, the console log level it already has, SCHED_FIFO on itself
# and back, oom_score_adj -1000 on itself, mlock of 64 MiB): "ok" means the
# capability works in the run, so the real change (the host's clock, its
# kernel log cleared, every CPU taken at real-time priority) would too.
# A uid-1000 run is the control: every line refused.
#
#   tests/review/ha39-caps.sh        (as root; SV picks the supervisor)
# This development host's root lacks CAP_SYS_RESOURCE itself, so the
# oom_score_adj line is refused here for both; the guest's root has it
# (tests/review/ha39-guest.sh, cell ha39-c-caps: ok).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ha39-caps.XXXXXX)
chmod 0755 "$work"
trap 'rm -rf "$work"' EXIT
musl-gcc -D_GNU_SOURCE -O2 -static -pthread -o "$work/ha39-agent" "$top/tests/review/ha39-agent.c"
cp "${SV:-$top/build/egress-supervisor}" "$work/sv"
for who in root uid1000; do
	as=()
	[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	rc=0
	"${as[@]}" "$work/sv" -- "$work/ha39-agent" caps >"$work/out" 2>"$work/err" || rc=$?
	echo "== $who agent: supervisor exit $rc, $(tail -n 1 "$work/err" | cut -c1-60)"
	sed 's/^/  /' "$work/out"
done
