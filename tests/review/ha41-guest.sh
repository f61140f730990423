#!/bin/bash
# ha41-guest.sh: hostile review h-attack41, the guest leg. Builds
# ha41-agent into tests/review/ha41-guest/ (EXTRA_SCENARIOS takes an agent
# from the scenarios' directory) and runs the ha41-* cells matching PATTERN
# in batch boots (ISOLATION=batch, cells in id order), then prints each
# cell's outcome and the agent's lines from its supervisor_log. Expected
# with the supervisor of 4020f1f: ha41-burst `false-green` (root, uid1000).
#   tests/review/ha41-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha41-*)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-debian-6.1-cloud}
pattern=${2:-ha41-*}
dir=$top/tests/review/ha41-guest
run=ha41-guest-$$
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -pthread -isystem "$top/build/kheaders" -o "$dir/ha41-agent" "$top/tests/review/ha41-agent.c"
trap 'rm -f "$dir/ha41-agent"' EXIT
cd "$top"
make matrix KERNELS="$kernel" SCENARIOS="$pattern" EXTRA_SCENARIOS="$dir" JOBS=1 \
	ISOLATION=batch RUN_ID="$run" || true
find "$top" -path "*$run*" -name cell.json | sort | while read -r cj; do
	python3 - "$cj" <<'PY'
import json, sys, os
c = json.load(open(sys.argv[1]))
print(f"RESULT {os.path.basename(os.path.dirname(sys.argv[1]))}: {c['outcome']} ({c['reason']})")
PY
	d=$(dirname "$cj")
	for f in "$d"/supervisor_log* "$d"/sections/supervisor_log* ; do
		[ -f "$f" ] && grep -h '^ha41 ' "$f" | sed 's/^/  /'
	done
done
