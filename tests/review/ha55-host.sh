#!/bin/bash
# ha55-host.sh: hostile review h-attack55, host leg (as root, no VM): a
# stand-in root service listens on an undeclared AF_UNIX socket DIR/s.sock
# in a host directory (read-only in the run: unix-peer, exit 1, is due for
# any name that reaches it) and records what reaches it. Modes: see
# ha55-agent.c (rootover-ctl, rootover, up, rootprot, rootfound, cost).
# rootprot and rootfound set
# fs.protected_symlinks=1 for its runs and puts the old value back.
#   tests/review/ha55-host.sh [N]   (N runs per mode, default 3; MODES=...)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha55.XXXXXX)
srv=
old_ps=
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null || true
	fi
	if [ -n "$old_ps" ]; then
		sysctl -qw fs.protected_symlinks="$old_ps"
	fi
	umount /dev/shm/ha55r/h 2>/dev/null || true
	rm -rf "$work" /dev/shm/ha55x /dev/shm/ha55r /dev/shm/ha55t /dev/shm/ha55c
}
trap cleanup EXIT
gcc -O2 -Wall -static -o "$work/agent" "$top/tests/review/ha55-agent.c"
mkdir -p "$work/h"
# shellcheck source=tests/review/review-unix.sh
. "$top/tests/review/review-unix.sh"
review_unix_service "$work/h/s.sock" "$work/got"
srv=$REVIEW_UNIX_PID
chmod 755 "$work" "$work/h"
h=$work/h
for mode in ${MODES:-rootover-ctl rootover up rootprot rootfound}; do
	case $mode in
	rootprot | rootfound)
		if [ -z "$old_ps" ] && [ "${HA55_SYSCTL:-1}" = 1 ]; then
			old_ps=$(sysctl -n fs.protected_symlinks)
			sysctl -qw fs.protected_symlinks=1
		fi
		;;
	esac
	rm -f "$work/got"
	"$work/agent" "$h" "$mode" 2>&1 || true
	sleep 0.5
	echo "UNSUPERVISED $mode: sink lines: $([ -s "$work/got" ] && grep -c secret "$work/got" || echo 0)"
	for i in $(seq "$n"); do
		rm -f "$work/got"
		set +e
		timeout -s KILL 120 "$sv" --report "$work/rep" -- "$work/agent" "$h" "$mode" 2>"$work/err"
		rc=$?
		set -e
		sleep 0.3
		got=no
		[ -s "$work/got" ] && got=yes
		rec=$(python3 -c 'import json,sys,collections
r=json.load(open(sys.argv[1]))
c=collections.Counter("%s/%s/%s" % (e.get("bucket"), e.get("reason"), e.get("errno")) for e in r.get("events", []) if e.get("family") == "unix")
print(" ".join("%dx%s" % (v, k) for k, v in sorted(c.items())))' "$work/rep" 2>/dev/null || true)
		echo "MODE $mode run $i: exit $rc, sink reached: $got, recorded: $rec" \
			"$(grep -o 'ha55 [a-z][^:]*: .*' "$work/err" | sort | uniq -c | tr '\n' ' ')"
	done
	if [ -n "$old_ps" ]; then
		sysctl -qw fs.protected_symlinks="$old_ps"
		old_ps=
	fi
done
