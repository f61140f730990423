#!/bin/bash
# ha31-hostbind.sh (hostile review h-attack31, against 36264ec): how often
# the agent makes a host service's bind fail by connecting in a loop to the
# service's abstract name while it is not bound (design.md: "For that
# instant the name is ours"). A stand-in host service binds the name every
# ~200 us (a uniform sample of "a service starting now"), outside the run;
# the agent's THREADS threads connect for SECS seconds, with HOGS threads
# spinning (preemption between our bind and close). Every connect is
# ECONNREFUSED and the verdict is pass: the agent pays nothing. Then a
# service in a restart loop (up 20 ms, down 100 ms, like Restart=always):
# while it is up the agent's connects are denied (fail), so an agent that
# wants a pass must stop then; one that wants the service down does not.
# Root supervisor and agent, a network namespace of our own. Prints rates;
# exit 1 when any host bind failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
SECS=${SECS:-10}
W=/tmp/h-attack31
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/p tests/review/ha31-probe.c || exit 2
cat >$W/hostbind-inner.sh <<'INNER'
set -u
SV=$1 SECS=$2 P=/tmp/h-attack31/p
ip link set lo up
failed=0
echo "== host binds, no agent: $($P binder @ha31-svc stream 3)"
for cfg in "4 0" "16 0" "4 8" "4 32"; do
	set -- $cfg
	$P binder @ha31-svc stream "$SECS" >$W/binder.out 2>&1 &
	B=$!
	out=$("$SV" -- $P hammer @ha31-svc stream "$1" "$SECS" "$2" 2>&1)
	wait $B
	echo "-- agent $1 threads, $2 hogs: $(cat $W/binder.out) | $(echo "$out" | tr '\n' ' ')"
	f=$(sed -n 's/.* \([0-9]*\) EADDRINUSE.*/\1/p' $W/binder.out)
	failed=$((failed + ${f:-0}))
done
$P restart @ha31-svc stream 20 100 >$W/restart.out 2>/dev/null &
B=$!
out=$("$SV" -- $P hammer @ha31-svc stream 8 20 2>&1)
wait $B
echo "-- restart loop, agent 8 threads: $(cat $W/restart.out) | $(echo "$out" | tr '\n' ' ')"
f=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' $W/restart.out)
failed=$((failed + ${f:-0}))
rm -f $W/binder.out $W/restart.out
echo "RESULT: $failed host binds failed with EADDRINUSE (none without the supervisor)"
[ $failed -eq 0 ]
INNER
timeout 600 unshare -n env W="$W" bash "$W/hostbind-inner.sh" "$SV" "$SECS"
rc=$?
rm -f $W/hostbind-inner.sh
exit $rc
