#!/bin/bash
# Review h-foreign4: the cells whose verdicts or checks h-foreign4 made
# design-neutral (design traits, finished=, untried=pass, the oracle's owed
# arrivals), run with the two foreign supervisors of review h-foreign3
# (tests/review/hf3-killer, hf3-bpfkill: bundles declaring `design = none`)
# and with ours, one VM at a time, then every cell that is not ok.
# Usage: tests/review/hf4-run.sh [BUNDLE...] (killer bpfkill ours blind, the
# last tests/review/hf4-blind, a passthrough declaring design = none; default
# killer bpfkill ours) with KERNELS (default "debian-6.1-cloud debian-5.10") and
# TAG (the RUN_ID suffix, default a). Results: results/hf4-BUNDLE-KERNEL-TAG.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
read -r -a kernels <<<"${KERNELS:-debian-6.1-cloud debian-5.10}"
tag=${TAG:-a}
bundles=("$@")
[ ${#bundles[@]} -gt 0 ] || bundles=(killer bpfkill ours)
cells='no-network starter-undeclared supervisor-killed killed-supervisor-tree daemonize
udp-sort-probe stdio-socket-undeclared stdio-udp-declared signal-interrupt-declared
udp-held-sends prlimit-supervisor inherit-fd sink-fill forged-report forged-report-one-userns'
make -s supervisor agents >/dev/null
tests/review/hf3-build.sh
for k in "${kernels[@]}"; do
	for b in "${bundles[@]}"; do
		sv="$top/tests/review/hf3-$b"
		[ "$b" != ours ] || sv="$top/build/egress-supervisor"
		[ "$b" != blind ] || sv="$top/tests/review/hf4-blind"
		id="hf4-$b-$k-$tag"
		make matrix KERNELS="$k" SCENARIOS="$(tr '\n' ' ' <<<"$cells")" JOBS=1 RUN_ID="$id" \
			SUPERVISOR="$sv" >"/tmp/$id.log" 2>&1 || true
		echo "== $id"
		grep -E '^matrix hf4' "/tmp/$id.log" || tail -3 "/tmp/$id.log"
		grep -E '^[a-z].*  +[A-Z][A-Z-]+$' "/tmp/$id.log" || true
	done
done
