#!/bin/bash
# ha40-falsered.sh (hostile review h-attack40, finding 2): character devices
# a caller commonly leaves on 0-2 that fd5af76's check refuses for every
# agent (it was a root agent's check only before): /dev/kmsg on stdout (an
# init script's or initramfs's `exec >/dev/kmsg`), and a terminal that was
# hung up (a job left running after its ssh session or terminal window
# closed: `cmd & disown`), which musl's isatty (TIOCGWINSZ: EIO after a
# hangup) no longer calls a terminal. Controls: /dev/console and a live pty
# pass. Each line: the case, the supervisor's exit (3 = capability-error).
# Host, as root, from the worktree after `make supervisor`.
#   ha40-falsered.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
sv=$(realpath "${1:-build/egress-supervisor}")
run=("$sv" --no-loopback --allow 198.51.100.7:9999 -- /bin/true)
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	"${as[@]}" "${run[@]}" >/dev/kmsg 2>/dev/null
	echo "$who /dev/kmsg on stdout: exit $?"
	"${as[@]}" "${run[@]}" </dev/console 2>/dev/null
	echo "$who /dev/console on stdin (control): exit $?"
	python3 - "$who" "${as[@]}" "${run[@]}" <<'PY'
import os, pty, subprocess, sys
who, argv = sys.argv[1], sys.argv[2:]
m, s = pty.openpty()
r = subprocess.run(argv, stdin=s, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print("%s live pty on stdin (control): exit %d" % (who, r.returncode))
os.close(m)  # the terminal closes: the slave is hung up
r = subprocess.run(argv, stdin=s, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print("%s hung-up pty on stdin: exit %d (%s)" % (who, r.returncode, r.stderr.decode().splitlines()[0][:90] if r.stderr else ""))
PY
done
