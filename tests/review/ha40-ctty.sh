#!/bin/bash
# ha40-ctty.sh (hostile review h-attack40, finding 1): a harness gives the
# supervisor a pty on 0-2 that is no session's controlling terminal (a pty
# it opened for coloured output, as Python's pty.openpty() and Popen do;
# a serial console before its getty), as uid 1000 and as root. The agent
# (ha40-ctty.py) takes it as its controlling terminal with TIOCSCTTY (no
# capability: it leads a session without one, spawn.c's setsid) and types a
# command line into it with TIOCSTI. After the run the harness starts the
# next program on that terminal, a shell, which runs the line outside the
# run: here it writes the secret to $d/outside.WHO. Expected before a fix:
# exit 0, verdict pass, 0 notifications, the file written. Host, as root,
# from the worktree after `make supervisor`; needs dev.tty.legacy_tiocsti=1
# on 6.2+ (Debian 5.10 and 6.1 have no such knob: always on).
# MODE open: no TIOCSCTTY; the agent reopens /proc/self/fd/0 without
# O_NOCTTY, which makes the terminal its controlling one all the same.
#   ha40-ctty.sh [SUPERVISOR] [ROUNDS] [MODE]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
sv=$(realpath "${1:-build/egress-supervisor}")
rounds=${2:-3}
mode=${3:-ioctl}
d=$(mktemp -d /tmp/ha40-ctty.XXXXXX)
cp tests/review/ha40-ctty.py "$d/"
chmod -R a+rX "$d"
chmod 777 "$d"
cat >"$d/harness.py" <<'PY'
import os, pty, select, subprocess, sys, time
os.setsid()  # no controlling terminal of its own either (not needed: a new pty has no session)
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=s, stdout=s, stderr=s, close_fds=True)
out = b""
while p.poll() is None or select.select([m], [], [], 0.3)[0]:
    if select.select([m], [], [], 0.2)[0]:
        try:
            out += os.read(m, 65536)
        except OSError:
            break
print("supervisor exit", p.returncode)
for l in out.decode(errors="replace").replace("\r", "").strip().splitlines()[-2:]:
    print("  terminal:", l)
# The next program on that terminal: a shell reading its commands there.
q = subprocess.Popen(["/bin/sh"], stdin=s, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
os.write(m, b"exit\n")  # what the user types next
try:
    q.wait(timeout=5)
except subprocess.TimeoutExpired:
    q.kill()
PY
echo "legacy_tiocsti=$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo n/a) kernel=$(uname -r)"
hits=0 runs=0
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	for r in $(seq 1 "$rounds"); do
		rm -f "$d/outside.$who"
		echo "== $who round $r ($mode)"
		# The harness runs as the supervisor's user: its pty is that
		# user's (devpts gives the slave the opener's uid), as in a CI job.
		timeout 60 "${as[@]}" /usr/bin/python3 "$d/harness.py" "$sv" --no-loopback \
			--allow 198.51.100.7:9999 --report "$d/report.$who.$r.json" -- \
			/usr/bin/python3 "$d/ha40-ctty.py" "echo agent-secret-ha40 >$d/outside.$who" "$mode"
		runs=$((runs + 1))
		if grep -q agent-secret-ha40 "$d/outside.$who" 2>/dev/null; then
			hits=$((hits + 1))
			echo "  OUTSIDE SHELL RAN THE AGENT'S LINE: $d/outside.$who"
		else
			echo "  nothing ran outside"
		fi
	done
done
echo "hits $hits of $runs"
