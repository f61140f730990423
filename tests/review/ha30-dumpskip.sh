#!/bin/bash
# ha30-dumpskip.sh (hostile review h-attack30, against 46adf47): a host
# service's abstract listener, bound the whole time, is answered
# ECONNREFUSED (recorded allowed, local, performed) instead of denied
# unix-peer: verdict pass for an attempt on a host socket. The agent makes
# the supervisor's sock_diag dump miss the listener (ha30-dumpskip.c): a
# dump resumes at (bucket, index) in each recv, and the agent closes
# sockets of its own that sit ahead of the listener in its bucket while
# the dump is under way. Either dump can miss it: the first (n == 0, the
# kernel's answer for a name nothing holds) or, new in 46adf47, the
# second one that still_bound takes for "closed since the first".
# Nothing reaches the service (no act is made): the finding is the
# attempt hidden behind a pass.
# Root supervisor and agent (pid-namespace), in a network namespace of our
# own, shared by the stand-in service and the agent. RUNS=N (default 5),
# K=N sockets ahead of the listener (default 6000). Exit 1 when a run of
# the current build passes.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
RUNS=${RUNS:-5}
K=${K:-6000}
. tests/review/review-lock.sh
review_lock dir-h-attack30 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack30
W=/tmp/h-attack30
mkdir -p $W
gcc -static -O2 -Wall -pthread -o $W/skip tests/review/ha30-dumpskip.c || exit 2
cat >$W/dumpskip-inner.sh <<'INNER'
set -u
SV=$1 RUNS=$2 K=$3 W=/tmp/h-attack30 U=/tmp/h-attack30/skip
ip link set lo up
printf '#!/bin/sh\nexec %s agent @ha30-svc %s\n' "$U" "$K" >$W/agent.sh
chmod +x $W/agent.sh
echo "== kernel alone (no supervisor):"
rm -f $W/mark; $U service @ha30-svc $W/mark -- $W/agent.sh; sleep 0.2
echo "   service got: $(tr "\n" ";" 2>/dev/null <$W/mark)"
passes=0
for i in $(seq 1 "$RUNS"); do
	rm -f $W/mark $W/rep-$i.json
	out=$($U service @ha30-svc $W/mark -- "$SV" --report $W/rep-$i.json -- $W/agent.sh 2>&1)
	rc=$?
	echo "-- run $i (exit $rc):"
	echo "$out" | sed 's/^/   /'
	echo "   service got: $(tr "\n" ";" 2>/dev/null <$W/mark)"
	grep -o '"dest": "unix:@ha30-svc"[^}]*' $W/rep-$i.json | sed 's/^/   report: /'
	echo "$out" | grep -q "egress-supervisor: pass" && passes=$((passes + 1))
done
echo "RESULT: $passes of $RUNS runs printed pass (a host service's listener, bound throughout, tried)"
[ $passes -eq 0 ]
INNER
timeout 600 unshare -n bash $W/dumpskip-inner.sh "$SV" "$RUNS" "$K"
rc=$?
rm -f $W/dumpskip-inner.sh
exit $rc
