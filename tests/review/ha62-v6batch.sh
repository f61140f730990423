#!/bin/bash
# Review h-attack62, target 3: a batch per kernel of ha62-a-v6 (a root
# service leaves IPv6 addresses and routes with lifetimes and MTU metrics on
# lo, and sends IPv6 datagrams: ha62-v6svc.c) followed by ha62-z-next (a
# declared loopback connect). A false "reset failed" ends the batch before
# ha62-z-next; prints each cell's outcome and the reset's network lines.
#   tests/review/ha62-v6batch.sh [KERNEL...]   (default debian-5.10 debian-7.3)
# Run from the worktree, as root, after `make supervisor agents
# initramfs-guest`. One VM at a time.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
DIR=$TOP/tests/review/ha62-scenarios
musl-gcc -D_GNU_SOURCE -O2 -static -no-pie -isystem "$TOP/build/kheaders" \
	-o "$DIR/ha62-v6svc" "$TOP/tests/review/ha62-v6svc.c"
# shellcheck disable=SC2064 # the path is fixed now, for the trap
trap "rm -f '$DIR/ha62-v6svc'" EXIT
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=(debian-5.10 debian-7.3)
for k in "${kernels[@]}"; do
	id="ha62-v6-$k-$STAMP"
	env KERNELS="$k" SCENARIOS="ha62-a-v6 ha62-z-next" JOBS=1 ISOLATION=batch COSTS=none \
		FLOOR=3 RUN_ID="$id" EXTRA_SCENARIOS="$DIR" BUILD="$TOP/build" "$TOP/run-vm.sh" matrix \
		>"/tmp/$id.log" 2>&1 || true
	python3 - "$TOP/results/$id/summary.json" "$k" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["cells"]:
    print(f"{sys.argv[2]}: {c['scenario']}: {c['outcome']} ({c['reason'][:160]})")
PY
	for d in "$TOP/results/$id/cells/"*; do
		grep -h "^ha62 " "$d"/guest/service.* 2>/dev/null | sed "s/^/$k:   service: /" || true
		if [[ -f $d/guest/reset ]]; then
			grep -E 'network|reset failed' "$d/guest/reset" | sed "s/^/$k:   reset: /" || true
		fi
	done
done
