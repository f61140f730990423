#!/bin/bash
# ha40-stdio-edges.sh (hostile review h-attack40, held): a TUN node reached
# on 0-2 through another type. Per case, as uid 1000 and root, the
# supervisor's exit (3 = refused before the agent runs) and, when the agent
# runs, what reopening /proc/self/fd/0 for writing gave it:
#   opath    an O_PATH descriptor of /dev/net/tun (fstat says S_IFCHR; an
#            ioctl on O_PATH is EBADF, so musl's isatty is 0): refused
#   symlink  an O_PATH|O_NOFOLLOW descriptor of a symlink to /dev/net/tun
#            (S_IFLNK: passes; the reopen is ELOOP: the magic link ends
#            on the symlink itself, which open() never follows)
#   dir      /dev/net opened as a directory (passes for uid 1000, refused for
#            root; openat(0, "tun") then obeys the node's own mode, and
#            TUNSETIFF is trapped whatever the descriptor)
# Host, as root, from the worktree after `make supervisor`.
#   ha40-stdio-edges.sh [SUPERVISOR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
sv=$(realpath "${1:-build/egress-supervisor}")
d=$(mktemp -d /tmp/ha40-edges.XXXXXX)
chmod 755 "$d"
ln -s /dev/net/tun "$d/tunlink"
cat >"$d/agent.py" <<'PY'
import os, sys
for how in ("/proc/self/fd/0", "tun"):
    try:
        fd = os.open(how, os.O_RDWR, dir_fd=0) if how == "tun" else os.open(how, os.O_RDWR)
        print("agent: open(%s) for writing: ok, fstat %o" % (how, os.fstat(fd).st_mode), file=sys.stderr)
    except OSError as e:
        print("agent: open(%s) for writing: %s" % (how, e.strerror), file=sys.stderr)
PY
chmod 644 "$d/agent.py"
for who in uid1000 root; do
	as=(setpriv --reuid 1000 --regid 1000 --clear-groups)
	[ "$who" = root ] && as=()
	for mode in opath symlink dir; do
		agent=(/usr/bin/python3 "$d/agent.py")
		# Python refuses to start on a directory stdin: a shell then.
		# shellcheck disable=SC2016 # the agent's shell expands it
		[ "$mode" = dir ] && agent=(/bin/sh -c '(exec 3<>/proc/self/fd/0/tun) 2>/dev/null &&
			echo "agent: open(tun) for writing: ok" >&2 ||
			echo "agent: open(tun) for writing: refused" >&2')
		out=$(python3 - "$mode" "$d/tunlink" "${as[@]}" "$sv" --no-loopback \
			--allow 198.51.100.7:9999 -- "${agent[@]}" <<'PY' 2>&1
import os, subprocess, sys
mode, link, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
fd = {"opath": lambda: os.open("/dev/net/tun", os.O_PATH),
      "symlink": lambda: os.open(link, os.O_PATH | os.O_NOFOLLOW),
      "dir": lambda: os.open("/dev/net", os.O_RDONLY | os.O_DIRECTORY)}[mode]()
r = subprocess.run(argv, stdin=fd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
print("\n".join(l for l in r.stdout.decode().splitlines() if l.startswith("agent:") or "descriptor 0" in l)[:400])
print("exit", r.returncode)
PY
)
		echo "$who $mode: $(echo "$out" | tr '\n' ' ' | cut -c1-300)"
	done
done
