#!/bin/bash
# ha63-host.sh: hostile review h-attack63, host leg (as root, no VM).
#   tests/review/ha63-host.sh [N]
# Modes (MODES=..., default "cost inohold inowatch inobench attrwatch"):
#   cost      N runs of 200 connects to /var/run/ha63-missing.sock (/var/run
#             a link to /run; missing: our lookup fails ENOENT and the walk
#             walks it again) under each build of SUPERVISORS (default: the
#             worktree's build; e.g. SUPERVISORS="/tmp/old /tmp/new").
#   inohold   run A (a root agent) takes every inotify instance of uid 0
#             and holds them; run B, another program, makes 5 such
#             failing connects: recorded and its verdict printed (due:
#             allowed/local/ENOENT, pass).
#   inowatch  the same with fs.inotify.max_user_watches taken (one
#             instance left free).
#   inobench  unsupervised: what an inotify instance's close costs.
#   attrwatch unsupervised: are remounts and mount_setattr seen by the
#             /proc/self/mounts watch (POLLPRI)?
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
svs=${SUPERVISORS:-$top/build/egress-supervisor}
work=$(mktemp -d /tmp/ha63.XXXXXX)
holder=
cleanup() {
	if [ -n "$holder" ]; then
		kill "$holder" 2>/dev/null || true
		wait "$holder" 2>/dev/null || true
	fi
	rm -rf "$work" /dev/shm/ha63w /dev/shm/ha63a
}
trap cleanup EXIT
gcc -O2 -Wall -static -o "$work/agent" "$top/tests/review/ha63-agent.c"
recorded() {
	python3 -c 'import json,sys,collections
r=json.load(open(sys.argv[1]))
c=collections.Counter("%s/%s/%s" % (e.get("bucket"), e.get("reason"), e.get("errno")) for e in r.get("events", []) if e.get("family") == "unix")
print(" ".join("%dx%s" % (v, k) for k, v in sorted(c.items())))' "$1" 2>/dev/null || true
}
# Run B beside a holder run A (arguments: A's agent arguments).
beside() {
	local sv=$1
	shift
	"$sv" --report "$work/repA" -- "$work/agent" "$@" >"$work/A.out" 2>"$work/A.err" &
	holder=$!
	for _ in $(seq 50); do
		[ -s "$work/A.out" ] && break
		sleep 0.2
	done
	sed 's/^/  A: /' "$work/A.out"
	set +e
	"$sv" --report "$work/repB" -- "$work/agent" miss 5 2>"$work/B.err" | sed 's/^/  B: /'
	set -e
	echo "  B: $(tail -1 "$work/B.err" | cut -c1-40) recorded: $(recorded "$work/repB")"
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	holder=
	echo "  A: $(tail -1 "$work/A.err" | cut -c1-60)"
}
for mode in ${MODES:-cost inohold inowatch inobench attrwatch}; do
	case $mode in
	cost)
		for sv in $svs; do
			for i in $(seq "$n"); do
				"$sv" --report "$work/rep" -- "$work/agent" miss 200 2>"$work/err" |
					sed "s|^|MODE cost $sv run $i: |"
				echo "  $(tail -1 "$work/err" | cut -c1-40) recorded: $(recorded "$work/rep")"
			done
		done
		;;
	inohold)
		for sv in $svs; do
			echo "MODE inohold $sv"
			beside "$sv" hold 1000 60
		done
		;;
	inowatch)
		for sv in $svs; do
			echo "MODE inowatch $sv"
			beside "$sv" holdw 128 1600 60
		done
		;;
	inobench)
		"$work/agent" inobench
		;;
	attrwatch)
		echo "MODE attrwatch (unsupervised)"
		"$work/agent" attrwatch
		;;
	*)
		echo "unknown mode $mode" >&2
		exit 2
		;;
	esac
done
