#!/bin/bash
# review-guest.sh: sourced by the reviews' guest legs (ha43, ha47, ha48).
#   review_guest TAG KERNEL PATTERN
# Builds TAG-agent (tests/review/TAG-agent.c) into tests/review/TAG-guest/
# (EXTRA_SCENARIOS takes an agent from the scenarios' directory), runs the
# cells of that directory matching PATTERN on KERNEL in batch boots
# (ISOLATION=batch, cells in id order; SUPERVISOR in the environment runs
# another build, as make passes it on), then prints each boot's cells and
# states, each cell's outcome, the agent's "TAG " lines and the console's
# frame errors. The agent is removed again whatever happens.

review_guest() {
	local tag=$1 kernel=$2 pattern=$3 top dir run
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	dir=$top/tests/review/$tag-guest
	run=$tag-guest-$$
	musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$top/build/kheaders" \
		-o "$dir/$tag-agent" "$top/tests/review/$tag-agent.c"
	# shellcheck disable=SC2064 # the path is fixed now, for the trap
	trap "rm -f '$dir/$tag-agent'" EXIT
	(cd "$top" && make matrix KERNELS="$kernel" SCENARIOS="$pattern" EXTRA_SCENARIOS="$dir" \
		JOBS=1 ISOLATION=batch RUN_ID="$run") || true
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
		local d
		d=$(dirname "$cj")
		for f in "$d"/guest/supervisor_log "$d"/guest/service.*; do
			if [ -f "$f" ]; then
				grep -h "^$tag " "$f" | sed 's/^/  /' || true
			fi
		done
		grep -h 'egress-frame\|No space\|could not' "$d"/console.log 2>/dev/null | head -5 |
			sed 's/^/  console: /' || true
	done
}
