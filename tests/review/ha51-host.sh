#!/bin/bash
# ha51-host.sh: hostile review h-attack51, host leg (as root, no VM). A
# stand-in root service listens on an undeclared AF_UNIX socket DIR/s.sock
# in a host directory (read-only in the agent's namespace: unix-peer, exit
# 1, is due for any name that reaches it) and records what reaches it.
# Modes (ha51-agent.c):
#   stack       finding 1: 1000 tmpfs stacked on DIR/e in a user+mount
#               namespace of the agent's own and renames in its /dev/shm:
#               connect "e/../s.sock" from DIR; every scoped lookup
#               (RESOLVE_BENEATH) answers EAGAIN, recorded allowed (exit 0)
#   stack-abs   the same with the absolute name DIR/e/../s.sock
#               (RESOLVE_IN_ROOT; older than 52a0caa)
#   dots        control: "e/../s.sock" from DIR, no stack (exit 1)
#   chroot      finding 2: a listener of the run's own under its /dev/shm,
#               chroot there (user namespace of its own), connect
#               "run/app.sock" from "/": denied (exit 1) where the kernel
#               connects to the run's own socket (exit 0 due)
#   nochroot    control: the same name from the same directory, no chroot
#   magic       finding 3: chdir /proc/self/fd, connect "N/s.sock" (N an
#               O_PATH descriptor of DIR): ELOOP recorded allowed (exit 0)
#   magic-proc  the same from /proc: "self/fd/N/s.sock" (ENOENT for us)
#   magic-abs   "/proc/self/fd/N/s.sock"; magic-devfd "/dev/fd/N/s.sock"
#               (a symbolic link to /proc/self/fd)
#   abs         the host's socket by its absolute name (with a test build's
#               EGRESS_SV_FAULT=openat2:EAGAIN: every confined lookup raced)
#   ordinary    false-red check: eight relative spellings of a run's socket
#   tests/review/ha51-host.sh [N]   (N runs per mode, default 3; MODES=... to pick)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha51.XXXXXX)
srv=
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null || true
	fi
	rm -rf "$work" /dev/shm/ha51r
}
trap cleanup EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha51-agent.c"
mkdir -p "$work/h/e"
# shellcheck source=tests/review/review-unix.sh
. "$top/tests/review/review-unix.sh"
review_unix_service "$work/h/s.sock" "$work/got"
srv=$REVIEW_UNIX_PID
h=$work/h
# Ground truth without the supervisor: the kernel reaches the service by
# each name below.
for m in stack magic; do
	name='e/../s.sock'
	[ "$m" = magic ] && name='%d/s.sock'
	rm -f "$work/got"
	"$work/agent" "$h" "$name" "$m" 2>&1 || true
	echo "UNSUPERVISED $m: sink reached: $([ -s "$work/got" ] && echo yes || echo no)"
done
for mode in ${MODES:-stack stack-abs dots chroot nochroot magic ordinary}; do
	dir=$h
	amode=$mode
	case $mode in
	stack) name='e/../s.sock' ;;
	stack-abs) name="$h/e/../s.sock" amode=stack ;;
	dots) name='e/../s.sock' amode=dots-quiet ;;
	chroot | nochroot) name='run/app.sock' dir=/dev/shm/ha51j ;;
	magic) name='%d/s.sock' ;;
	magic-proc) name='self/fd/%d/s.sock' ;;
	magic-abs) name='/proc/self/fd/%d/s.sock' ;;
	magic-devfd) name='/dev/fd/%d/s.sock' amode=magic-abs ;;
	abs) name="$h/s.sock" amode=magic-abs ;;
	*) name=x ;;
	esac
	for i in $(seq "$n"); do
		rm -f "$work/got"
		set +e
		timeout -s KILL 120 "$sv" --report "$work/rep" -- "$work/agent" "$dir" "$name" "$amode" 2>"$work/err"
		rc=$?
		set -e
		got=no
		[ -s "$work/got" ] && got=yes
		rec=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
print(" ".join("%s/%s/%s" % (e.get("bucket"), e.get("reason"), e.get("errno")) for e in r.get("events", []) if e.get("family") == "unix"))' "$work/rep" 2>/dev/null || true)
		echo "MODE $mode run $i: exit $rc, sink reached: $got, recorded: $rec" \
			"$(grep -o 'ha51 [a-z][^:]*: .*' "$work/err" | sort | uniq -c | tr '\n' ' ')"
	done
done
