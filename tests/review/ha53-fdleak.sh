#!/bin/bash
# ha53-fdleak.sh: review h-attack53, finding 1. A root supervisor appends
# its SCM_CREDENTIALS after the agent's control bytes (9605a0a); bytes the
# kernel and the walk both ignore (a tail shorter than one cmsghdr) become,
# once padded and followed by ours, one SCM_RIGHTS header the kernel reads
# whole, whose descriptor numbers are our appended bytes: 28, 0, 1, 2 of
# the supervisor's own table, sent to the agent's socketpair.
#   1. fdleak: plain run; EBADF (nothing at 28) or 28's descriptor.
#   2. fdleakload: 12 threads held in the supervisor's wait for a full
#      abstract queue fill its table past 28.
#   3. --report-fd 28 on a pipe: the agent receives the report channel and
#      writes into it (FORGE); the reader sees its bytes.
# RUNS=N repeats each (hit rate). Host, as root. SV=binary for another build.
set -euo pipefail
B=$PWD/build
SV=${SV:-$B/egress-supervisor}
RUNS=${RUNS:-1}
# shellcheck source=tests/review/review-cc.sh
. tests/review/review-cc.sh
review_cc "$B/ha53-agent" tests/review/ha53-agent.c
hits() {
	local n=0 i
	for ((i = 0; i < RUNS; i++)); do
		if "$@"; then n=$((n + 1)); fi
	done
	echo "   => descriptors reached the agent in $n of $RUNS runs"
}
leak() { timeout 60 "$SV" -- "$B/ha53-agent" "$@" 2>/dev/null | grep -E '^(received fd|sendmsg:|  )' | grep -q '^received fd'; }
echo "== unsupervised (the kernel ignores the 13-byte control)"
"$B/ha53-agent" fdleak || true
echo "== 1. fdleak under $SV"
timeout 60 "$SV" -- "$B/ha53-agent" fdleak 2>&1 | grep -v '^received creds' || true
hits leak fdleak
echo "== 2. fdleakload 12 under $SV"
timeout 60 "$SV" -- "$B/ha53-agent" fdleakload 12 30 2>&1 | grep -v '^received creds' || true
hits leak fdleakload 12 30
echo "== 3. --report-fd 28 (a pipe) under $SV"
out=$(mktemp /tmp/ha53-rep.XXXXXX)
FORGE='{"verdict": "pass", "forged-by": "ha53-agent"}' timeout 60 "$SV" --report-fd 28 -- \
	"$B/ha53-agent" fdleak 28> >(cat >"$out") 2>&1 | grep -v '^received creds' || true
sleep 0.5
if grep -q 'forged-by' "$out"; then
	echo "   => the report channel holds the agent's bytes:"
	grep -o '{"verdict": "pass", "forged-by": "ha53-agent"}' "$out"
else
	echo "   => the report channel holds none of the agent's bytes"
fi
rm -f "$out"
