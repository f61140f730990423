#!/bin/bash
# ha52-host.sh: hostile review h-attack52, host leg (as root, no VM). A
# stand-in root service listens on an undeclared AF_UNIX socket DIR/s.sock
# in a host directory (read-only in the run: unix-peer, exit 1, is due for
# any name that reaches it) and records what reaches it. Modes
# (ha52-agent.c):
#   flip         finding 1: /dev/shm/ha52/l renamed back and forth between
#                "/proc/self/fd/F" (F: DIR, O_PATH) and DIR; one connect to
#                "/dev/shm/ha52/l/s.sock" (the kernel reaches the service
#                either way); exit 0 is a pass where fail was due
#   flip200      the same, 200 connects in one run, answers counted
#   fixed-magic  control: l is the magic link throughout (denied, exit 1)
#   fixed-dir    control: l is DIR throughout (denied, exit 1)
#   deep         finding 2: a missing name behind 9 links of ~4 kB each
#                through a 1900-deep chain; connect timed
#   stack        finding 2: a missing name behind one link of ~4 kB of
#                "e/.." with 1000 tmpfs stacked on e; connect timed
#   protsym      finding 3: with fs.protected_symlinks=1 (the script sets it
#                for the mode and puts the old value back; HA52_SYSCTL=0 to
#                leave it), the agent as uid 1000 follows its own link in
#                /dev/shm to DIR; the supervisor (fsuid 0) is refused EACCES
#                and answers that, recorded allowed (exit 0 where 1 is due)
#   protsym-rel  the same by the relative name "ha52p" from /dev/shm
#   protsym-own  the same uid's own socket through its own link: the
#                program is told EACCES where the kernel connects
#   tests/review/ha52-host.sh [N]   (N runs per mode, default 3; MODES=... to pick)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
sv=${SUPERVISOR:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha52.XXXXXX)
srv=
old_ps=
cleanup() {
	if [ -n "$srv" ]; then
		kill "$srv" 2>/dev/null || true
	fi
	if [ -n "$old_ps" ]; then
		sysctl -qw fs.protected_symlinks="$old_ps"
	fi
	rm -rf "$work" /dev/shm/ha52 /dev/shm/ha52s /dev/shm/ha52j /dev/shm/ha52k /dev/shm/ha52p /dev/shm/ha52o /dev/shm/ha52own
	rm -rf /dev/shm/ha52d 2>/dev/null || true
}
trap cleanup EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha52-agent.c"
mkdir -p "$work/h"
# shellcheck source=tests/review/review-unix.sh
. "$top/tests/review/review-unix.sh"
review_unix_service "$work/h/s.sock" "$work/got"
srv=$REVIEW_UNIX_PID
chmod 755 "$work" "$work/h"
h=$work/h
# Ground truth without the supervisor.
for m in ${UNSUPERVISED:-flip200 stat-deep stat-stack}; do
	rm -f "$work/got"
	a=$m cnt=
	[ "$m" = flip200 ] && a=flip cnt=200
	"$work/agent" "$h" "$a" $cnt 2>&1 || true
	sleep 1
	echo "UNSUPERVISED $m: sink lines: $( [ -s "$work/got" ] && grep -c secret "$work/got" || echo 0)"
done
for mode in ${MODES:-fixed-magic fixed-dir flip deep stack}; do
	amode=$mode cnt=
	case $mode in
	protsym*)
		if [ "${HA52_SYSCTL:-1}" = 1 ] && [ -z "$old_ps" ]; then
			old_ps=$(sysctl -n fs.protected_symlinks)
			sysctl -qw fs.protected_symlinks=1
		fi
		rm -f "$work/got"
		"$work/agent" "$h" "$mode" 2>&1 || true
		sleep 1
		echo "UNSUPERVISED $mode: sink lines: $([ -s "$work/got" ] && grep -c secret "$work/got" || echo 0)"
		;;
	*)
		if [ -n "$old_ps" ]; then
			sysctl -qw fs.protected_symlinks="$old_ps"
			old_ps=
		fi
		;;
	esac
	[ "$mode" = flip200 ] && amode=flip cnt=200
	for i in $(seq "$n"); do
		rm -f "$work/got"
		set +e
		t0=$(date +%s.%N)
		timeout -s KILL 600 "$sv" --report "$work/rep" -- "$work/agent" "$h" "$amode" $cnt 2>"$work/err"
		rc=$?
		t1=$(date +%s.%N)
		set -e
		got=no
		[ -s "$work/got" ] && got=yes
		rec=$(python3 -c 'import json,sys,collections
r=json.load(open(sys.argv[1]))
c=collections.Counter("%s/%s/%s" % (e.get("bucket"), e.get("reason"), e.get("errno")) for e in r.get("events", []) if e.get("family") == "unix")
print(" ".join("%dx%s" % (v, k) for k, v in sorted(c.items())))' "$work/rep" 2>/dev/null || true)
		echo "MODE $mode run $i: exit $rc, $(printf '%.1f' "$(echo "$t1 - $t0" | bc)") s, sink reached: $got, recorded: $rec" \
			"$(grep -o 'ha52 [a-z][^:]*: .*' "$work/err" | sort | uniq -c | tr '\n' ' ')"
	done
done
