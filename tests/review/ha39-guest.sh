#!/bin/bash
# ha39-guest.sh: hostile review h-attack39, the guest leg. Builds
# ha39-agent into tests/review/ha39-guest/ (EXTRA_SCENARIOS takes an agent
# from the scenarios' directory) and runs the ha39-* cells matching PATTERN
# in batch boots (ISOLATION=batch, cells in id order), then prints each
# cell's outcome and the agent's lines from its supervisor_log. Expected
# with the supervisor of 4b8696e: settime, showtime, caps ok, showtime
# printing "wall 97830..." (2001) and "tick 11000" (the reset after the root
# cell passed and did not put the clock back); d-panicline and f-mountline
# (root) `panic`, f-mountline uid1000 ok; e-panicline-nl `panic` in a boot
# without d (the kernel's warning is printed once per boot: run it alone);
# saturate root `false-green`, uid1000 capability-error (threads-max).
#   tests/review/ha39-guest.sh [KERNEL [PATTERN]]  (default debian-6.1-cloud, ha39-*)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-debian-6.1-cloud}
pattern=${2:-ha39-*}
dir=$top/tests/review/ha39-guest
run=ha39-guest-$$
musl-gcc -D_GNU_SOURCE -O2 -static -o "$dir/ha39-agent" "$top/tests/review/ha39-agent.c"
trap 'rm -f "$dir/ha39-agent"' EXIT
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
		[ -f "$f" ] && grep -h '^ha39 ' "$f" | sed 's/^/  /'
	done
done
