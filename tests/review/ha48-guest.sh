#!/bin/bash
# ha48-guest.sh: hostile review h-attack48, the guest leg.
# Builds ha48-agent into tests/review/ha48-guest/ (EXTRA_SCENARIOS takes an
# agent from the scenarios' directory) and runs the ha48-* cells matching
# PATTERN in batch boots (ISOLATION=batch, cells in id order), then prints
# each cell's outcome, its batch state and the agent's lines.
#   tests/review/ha48-guest.sh [KERNEL [PATTERN]]  (default debian-7.3-cloud, ha48-*)
# SUPERVISOR=PATH in the environment runs another build (make passes it on):
#   make mutant-bin MUTANT=failfs-root-fails
#   SUPERVISOR=$PWD/build/mutants/failfs-root-fails/egress-supervisor \
#       tests/review/ha48-guest.sh debian-7.3-cloud 'ha48-a*'   # before 79318a6
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-debian-7.3-cloud}
pattern=${2:-ha48-*}
dir=$top/tests/review/ha48-guest
run=ha48-guest-$$
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" -o "$dir/ha48-agent" "$top/tests/review/ha48-agent.c"
trap 'rm -f "$dir/ha48-agent"' EXIT
cd "$top"
make matrix KERNELS="$kernel" SCENARIOS="$pattern" EXTRA_SCENARIOS="$dir" JOBS=1 \
	ISOLATION=batch RUN_ID="$run" || true
find "$top" -path "*$run*" -name batch.json | sort | while read -r bj; do
	python3 - "$bj" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for c in b["cells"]:
    print(f"BATCH {sys.argv[1].split('/')[-2]}: seq {c['seq']} {c['cell']} {c['state']} {c.get('reason') or ''}")
PY
done
find "$top" -path "*$run*" -name cell.json | sort | while read -r cj; do
	python3 - "$cj" <<'PY'
import json, sys, os
c = json.load(open(sys.argv[1]))
print(f"RESULT {os.path.basename(os.path.dirname(sys.argv[1]))}: {c['outcome']} ({c['reason']})")
PY
	d=$(dirname "$cj")
	for f in "$d"/guest/supervisor_log "$d"/guest/service.*; do
		if [ -f "$f" ]; then
			grep -h '^ha48 ' "$f" | sed 's/^/  /' || true
		fi
	done
	grep -h 'egress-frame\|No space\|could not' "$d"/console.log 2>/dev/null | head -5 | sed 's/^/  console: /' || true
done
