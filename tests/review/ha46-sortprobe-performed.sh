#!/usr/bin/env bash
# Review h-attack46 finding 1, on the host (loopback only): a supervisor
# that performs the sort probe and answers it with the denial errno
# (mutant sort-probe-performed) hands the agent a connected UDP socket; its
# nameless send() leaves for the undeclared peer, and the run says pass.
# The integration test glibc_address_sort_probe_is_neutralized_not_denied
# does not see it (it checks the verdict and the events, not the send's
# result nor an arrival), nor does the appliance's udp-sort-probe (port 0:
# no sink can listen there). A UDP listener on 127.0.0.2:9 stands for the
# host; --no-loopback makes 127.0.0.2 undeclared.
#   make supervisor agents && make mutant-bin MUTANT=sort-probe-performed
#   tests/review/ha46-sortprobe-performed.sh [RUNS]   (exit 0: reproduced)
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD:-$top/build}
runs=${1:-10}
tmp=$(mktemp -d)
trap 'kill "$lpid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
python3 - "$tmp/arrived" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.2", 9))
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "a", buffering=1) as f:
    while True:
        data, peer = s.recvfrom(2048)
        f.write("%r from %s:%d\n" % (data, *peer))
PY
lpid=$!
while [ ! -e "$tmp/arrived.ready" ]; do sleep 0.05; done
hits=0
for bin in "$build/egress-supervisor" "$build/mutants/sort-probe-performed/egress-supervisor"; do
	n=0
	for _ in $(seq "$runs"); do
		: >"$tmp/arrived"
		rc=0
		"$bin" --no-loopback --report "$tmp/r.json" -- \
			"$build/agents/udp-connected-send" 127.0.0.2:9 secret >"$tmp/agent.log" 2>&1 || rc=$?
		sleep 0.1
		verdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$tmp/r.json")
		if [ -s "$tmp/arrived" ] && [ "$verdict" = pass ]; then n=$((n + 1)); fi
	done
	echo "$bin: exit $rc, verdict $verdict; pass with an arrival at 127.0.0.2:9 in $n of $runs"
	grep -h '"call"' "$tmp/agent.log" | head -2 || true
	[ "$bin" = "$build/egress-supervisor" ] || hits=$n
done
[ "$hits" -gt 0 ]
