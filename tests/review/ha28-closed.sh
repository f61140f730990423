#!/bin/bash
# ha28-closed.sh (hostile review h-attack28, against 321a0eb): the pins of
# 40611ac turn the run's own listener, closed by the run, into a denied
# "unix-peer": a false red (ha28-closed.c). Root supervisor and agent
# (pid-namespace), in a network namespace of our own; no host service at
# all. Each run is shown beside the kernel's own answer (the agent run
# without the supervisor).
#   wait: one blocking connect waits on the full queue (the supervisor's
#         wait_again), the listener closes: kernel ECONNREFUSED; supervised
#         EACCES, verdict fail, "unix:@... denied unix-peer". Deterministic.
#   race: 8 threads connect in a loop, the listener closes (a server that
#         shuts down while clients still try): kernel ECONNREFUSED only;
#         supervised, a few EACCES and verdict fail (another call's pin
#         holds the closed listener bound while this call judges it).
# Exit 1 when any supervised run printed fail. RUNS=N per mode (default 5);
# SV=... picks the supervisor (build/mutants-faults/unix-abstract-unpinned/
# egress-supervisor is the tree before the pins: wait passes).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
RUNS=${RUNS:-5}
. tests/review/review-lock.sh
review_lock dir-h-attack28 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack28
W=/tmp/h-attack28
mkdir -p $W
gcc -static -O2 -pthread -Wall -o $W/closed tests/review/ha28-closed.c || exit 2
cat >$W/closed-inner.sh <<'INNER'
set -u
SV=$1 RUNS=$2 C=/tmp/h-attack28/closed
ip link set lo up
fails=0
for mode in wait race; do
	echo "== $mode, kernel alone:"
	$C @ha28-k-$mode $mode | grep -v "looping connects" | sort | uniq -c
	for i in $(seq 1 "$RUNS"); do
		out=$("$SV" --report /tmp/h-attack28/closed-$mode-$i.json -- $C @ha28-$mode-$i $mode 2>&1)
		echo "-- $mode run $i:"
		echo "$out" | grep -v "looping connects" | sort | uniq -c
		echo "$out" | grep -q "egress-supervisor: fail" && fails=$((fails + 1))
		grep -o '"dest": "unix:@ha28-[a-z]*-[0-9]*", "bucket": "denied", "reason": "[a-z-]*"' \
			/tmp/h-attack28/closed-$mode-$i.json | head -1
	done
done
echo "RESULT: $fails of $((2 * RUNS)) supervised runs printed fail (no destination but the run's own listener)"
[ $fails -eq 0 ]
INNER
timeout 600 unshare -n bash $W/closed-inner.sh "$SV" "$RUNS"
rc=$?
rm -f $W/closed-inner.sh
exit $rc
