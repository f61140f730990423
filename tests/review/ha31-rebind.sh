#!/bin/bash
# ha31-rebind.sh (hostile review h-attack31, against 36264ec): a job that
# closes its own server on an abstract name and binds the name again at
# once (a test fixture per test, a server restarted by the job) gets
# EADDRINUSE: the pin the supervisor took on that listener for a client's
# connect (or on that receiver for a sendto) is closed in sv_call_release,
# after the answer reached the agent, so for a while after the agent's
# close only our pin keeps the name bound. The kernel alone: never. The
# dup of the caller's socket is closed before the answer
# (sv_call_answer_performed); the pins are not. No host socket involved;
# the verdict stays pass, the job's bind fails.
# Root supervisor and agent, a network namespace of our own. RUNS=N runs
# (default 3) per type of TRIES=N rebinds (default 1000). Exit 1 when a
# bind failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
RUNS=${RUNS:-3}
TRIES=${TRIES:-1000}
. tests/review/review-lock.sh
review_lock dir-h-attack31 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack31
W=/tmp/h-attack31
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/p tests/review/ha31-probe.c || exit 2
cat >$W/rebind-inner.sh <<'INNER'
set -u
SV=$1 RUNS=$2 TRIES=$3 P=/tmp/h-attack31/p
ip link set lo up
echo "== kernel alone: $($P rebind @ha31-rb stream "$TRIES" | tr '\n' ' ')"
echo "== supervised, listen and close only (no client): $("$SV" -- env NOCLIENT=1 $P rebind @ha31-rb stream "$TRIES" 2>&1 | tr '\n' ' ')"
failed=0
for t in stream dgram; do
	for i in $(seq 1 "$RUNS"); do
		out=$("$SV" -- $P rebind @ha31-rb $t "$TRIES" 2>&1)
		echo "-- $t run $i: $(echo "$out" | tr '\n' ' ')"
		f=$(echo "$out" | sed -n 's/^rebind: \([0-9]*\) of.*/\1/p')
		failed=$((failed + ${f:-0}))
	done
done
echo "RESULT: $failed of $((2 * RUNS * TRIES)) binds of the job's own name EADDRINUSE"
[ $failed -eq 0 ]
INNER
timeout 600 unshare -n bash $W/rebind-inner.sh "$SV" "$RUNS" "$TRIES"
rc=$?
rm -f $W/rebind-inner.sh
exit $rc
