#!/bin/bash
# ha64-host.sh: hostile review h-attack64, host leg (as root, no VM).
#   tests/review/ha64-host.sh [N]
# Builds compared: SUPERVISORS (default: the worktree's build; e.g.
# SUPERVISORS="/tmp/old/build/egress-supervisor $PWD/build/egress-supervisor").
# The long names are a chain of 40 links under QUIET (default /srv/ha64, a
# directory nobody else changes: a walk through a busy /tmp is denied
# whenever anything there changes meanwhile), each "/./././..." (or
# "/../../..") near PATH_MAX: a failing connect whose walk takes 0.3-0.6 s.
# Modes (MODES=..., default "stall exitq exitqx leak"):
#   stall  T threads (0, 4, 16) make 2 long connects each while the main
#          thread makes 50 connects to /var/run/ha64-missing.sock: the
#          light ones' mean and worst wait (the pool of four instances).
#   exitq  64 threads start a long connect each and the program exits
#          100 ms later (exit_group): the calls whose walks waited for an
#          instance, recorded how (finding 1: denied unix-peer, fail).
#   exitqx the same with a name whose links are not trailing ("l0/x"):
#          the walks in progress read no fsuid after the thread's death.
#   leak   3 threads connect without pause through a directory a fourth
#          churns, the main thread 2000 times to a missing name in a quiet
#          one: does an event of one walk reach the next on its instance?
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-3}
svs=${SUPERVISORS:-$top/build/egress-supervisor}
quiet=${QUIET:-/srv/ha64}
work=$(mktemp -d /tmp/ha64.XXXXXX)
cleanup() {
	rm -rf "$work" "$quiet"
}
trap cleanup EXIT
gcc -O2 -Wall -static -pthread -o "$work/agent" "$top/tests/review/ha64-agent.c"
mkdir -p "$quiet/q"
python3 - "$quiet" <<'PY'
import os, sys
d = sys.argv[1]
for i in range(40):
    nxt = "%s/l%d" % (d, i + 1) if i < 39 else "%s/missing.sock" % d
    k = (4000 - len(nxt)) // 2
    os.symlink("/" + "./" * k + nxt.lstrip("/"), "%s/l%d" % (d, i))
PY
recorded() {
	python3 -c 'import json,sys,collections
r=json.load(open(sys.argv[1]))
c=collections.Counter("%s/%s/%s" % (e.get("bucket"), e.get("reason"), e.get("mechanism_errno") or e.get("errno")) for e in r.get("events", []) if e.get("family") == "unix")
print(r.get("verdict"), r.get("internal_error") or "", " ".join("%dx%s" % (v, k) for k, v in sorted(c.items())))' "$1" 2>/dev/null || true
}
for mode in ${MODES:-stall exitq exitqx leak}; do
	for sv in $svs; do
		case $mode in
		stall)
			for t in 0 4 16; do
				echo "MODE stall $sv T=$t"
				"$sv" --report "$work/rep" -- "$work/agent" heavy "$t" 2 "$quiet/l0" 50 \
					2>/dev/null | sed 's/^/  /'
				echo "  recorded: $(recorded "$work/rep")"
			done
			;;
		exitq | exitqx)
			name=$quiet/l0
			[ "$mode" = exitqx ] && name=$quiet/l0/x
			for i in $(seq "$n"); do
				"$sv" --report "$work/rep" -- "$work/agent" heavyexit 64 "$name" 100 \
					>/dev/null 2>&1 || true
				echo "MODE $mode $sv run $i: $(recorded "$work/rep")"
			done
			;;
		leak)
			for i in $(seq "$n"); do
				echo "MODE leak $sv run $i: $(timeout 120 "$sv" --report "$work/rep" -- \
					"$work/agent" leak 3 2000 "$quiet/q/missing.sock" 2>/dev/null)"
			done
			;;
		*)
			echo "unknown mode $mode" >&2
			exit 2
			;;
		esac
	done
done
