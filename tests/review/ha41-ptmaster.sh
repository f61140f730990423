#!/bin/bash
# ha41-ptmaster.sh: hostile review h-attack41, sv_stdfds_chr_allowed
# (7bf3c9b) takes every terminal on 0-2, a pty master too (rdev 5:2, ptmx,
# sysfs class tty; isatty says 1). What is written to a master is the
# slave's input: the agent types, with write() and no ioctl to trap, into
# whatever reads the slave, here a shell the harness starts on it after the
# run (a harness that drives a program on a pty and hands the wrong end on,
# as TIOCSTI's denial was for the slave's side). The run says pass.
#
#   tests/review/ha41-ptmaster.sh [RUNS]    (as root; root and uid 1000)
# Environment: SV (default build/egress-supervisor).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-2}
sv=${SV:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha41-ptmaster.XXXXXX)
chmod 0777 "$work"
trap 'rm -rf "$work"' EXIT
cp "$sv" "$work/sv"
cat >"$work/harness.py" <<'PY'
import os, pty, subprocess, sys, time
m, s = pty.openpty()
out = sys.argv[1]
p = subprocess.run(sys.argv[2:], stdin=m, stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True)
last = (p.stderr.decode().strip().splitlines() or [""])[-1]
q = subprocess.Popen(["/bin/sh"], stdin=s, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
time.sleep(0.5)
os.write(m, b"exit\n")  # what the user types next
q.wait(timeout=5)
ran = open(out).read().strip() if os.path.exists(out) else "nothing"
print(f"supervisor exit {p.returncode} ({last}); the shell on the slave ran: {ran}")
PY
chmod 0755 "$work/harness.py"
hits=0 total=0
for n in $(seq "$runs"); do
	for who in root uid1000; do
		as=()
		[ "$who" = root ] || as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
		rm -f "$work/out"
		line=$("${as[@]}" /usr/bin/python3 "$work/harness.py" "$work/out" "$work/sv" -- /bin/sh -c \
			"printf 'echo typed-by-the-agent >$work/out\n' >&0")
		echo "RESULT run $n ($who): $line"
		total=$((total + 1))
		case $line in *typed-by-the-agent*) hits=$((hits + 1)) ;; esac
	done
done
echo "SUMMARY: the agent's line ran outside the run in $hits of $total runs"
