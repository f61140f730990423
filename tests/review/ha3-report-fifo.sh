#!/bin/bash
# ha3-report-fifo.sh: --report-fd on a named FIFO. report_fd_named (main.c,
# 3e894b8) warns only for a regular file with a name; a FIFO with a name is
# as open to the agent (our uid), which writes a line of its own into the
# channel between the supervisor's records. Prints the supervisor's stderr
# (no warning) and the channel's lines that the agent wrote. Run from the
# worktree after make build/egress-supervisor.
set -euo pipefail
d=$(mktemp -d)
mkfifo -m 600 "$d/report"
exec 9<>"$d/report"
cat "$d/report" >"$d/out" &
reader=$!
set +e
"${SV:-$PWD/build/egress-supervisor}" --report-fd 9 -- /bin/sh -c \
	"printf '{\"forged\":\"by the agent\"}\n' > '$d/report'; echo agent-wrote-\$?" 2>"$d/err"
echo "supervisor exit $?"
set -e
exec 9>&-
sleep 0.5
kill "$reader" 2>/dev/null || true
wait "$reader" 2>/dev/null || true
echo "-- supervisor stderr:"
cat "$d/err"
echo "-- channel lines written by the agent:"
grep -n '^{"forged"' "$d/out" || echo "(none)"
rm -rf "$d"
