#!/bin/bash
# ha31-selfstart.sh (hostile review h-attack31, against 36264ec): a job that
# starts its own server on an abstract name and waits for it (a client that
# polls connect until it gets in, the usual "wait for the socket" loop).
# No host socket involved. Two ways the bind probe of 53a966c breaks it:
# - the client's connect lands between the server's bind and its listen
#   (listen is trapped, so that gap is a notification round trip): the
#   dump lists no listener, the probe finds the name taken three times, a
#   mechanism failure (bind_probe, EAGAIN): capability-error;
# - the server's own bind lands in the probe's instant: EADDRINUSE, the
#   job's server fails to start (the kernel alone never does that).
# Root supervisor and agent, a network namespace of our own. RUNS=N runs
# (default 3) of TRIES=N startups (default 100), the client polling every
# POLL_US (default 10000; 0 is back to back). Exit 1 when a run is not pass
# or a server bind failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
RUNS=${RUNS:-3}
TRIES=${TRIES:-100}
POLL_US=${POLL_US:-10000}
W=/tmp/h-attack31
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/p tests/review/ha31-probe.c || exit 2
cat >$W/selfstart-inner.sh <<'INNER'
set -u
SV=$1 RUNS=$2 TRIES=$3 POLL_US=$4 P=/tmp/h-attack31/p
ip link set lo up
echo "== kernel alone: $($P selfstart @ha31-self stream "$TRIES" "$POLL_US" 2>/dev/null | tr '\n' ' ')"
bad=0 binds=0
for t in stream seqpacket; do
	for i in $(seq 1 "$RUNS"); do
		out=$("$SV" -- $P selfstart @ha31-self $t "$TRIES" "$POLL_US" 2>&1 | grep -v 'server bind:')
		echo "-- $t run $i: $(echo "$out" | tr '\n' ' ')"
		echo "$out" | grep -q "egress-supervisor: pass" || bad=$((bad + 1))
		f=$(echo "$out" | sed -n 's/^selfstart: \([0-9]*\) of.*/\1/p')
		binds=$((binds + ${f:-0}))
	done
done
echo "RESULT: $bad of $((2 * RUNS)) runs not pass, $binds of $((2 * RUNS * TRIES)) server binds EADDRINUSE"
[ $bad -eq 0 ] && [ $binds -eq 0 ]
INNER
timeout 900 unshare -n bash $W/selfstart-inner.sh "$SV" "$RUNS" "$TRIES" "$POLL_US"
rc=$?
rm -f $W/selfstart-inner.sh
exit $rc
