#!/bin/bash
# ha23-pidreuse.sh (hostile review h-attack23): sv_unixdiag_run_holds names
# a process by its number three times: /proc/PID/ns/pid (is it the run's?),
# /proc/PID/fd/N (does it hold socket:[INO]?) and pidfd_open(PID) (the
# cookie). A run process X that dies and is reaped between the first and
# the others, its number taken by a host process that holds the host's
# listener, is "held by the run". Here the window is widened on purpose:
# strace delays the supervisor's open of /proc/X/ns/pid by 2.5 s, and the
# harness (host root) sets ns_last_pid so the stand-in service's next
# worker gets X's number (standing in for the agent's pid churn and a
# pre-forking server that respawns a worker at that moment). Without the
# aids the window is microseconds: this shows the logic, not the odds.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-ha23 || exit 2 # one run at a time: another would rebuild under /tmp/ha23
mkdir -p /tmp/ha23
gcc -static -O2 -pthread -o /tmp/ha23/unix tests/review/ha23-unix.c || exit 2
cat >/tmp/ha23/reuse-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/ha23/unix M=/tmp/ha23/reuse-marker
rm -f $M
ip link set lo up
$A serve-forking @ha23-host $M &
S=$!
sleep 0.3
"$SV" -- $A reuse @ha23-host &
SVPID=$!
for i in $(seq 50); do X=$(pgrep -x ha23-victim) && break; sleep 0.05; done
echo "harness: X is host pid $X, supervisor $SVPID"
strace -qq -f -p $SVPID -P /proc/$X/ns/pid -e trace=open,openat \
	-e inject=open,openat:delay_exit=2500000 -o /tmp/ha23/strace.log &
ST=$!
while [ -d /proc/$X ]; do sleep 0.01; done
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo $((X - 1)) >/proc/sys/kernel/ns_last_pid
	kill -USR1 $S
	sleep 0.05
	[ "$(awk '/PPid/{print $2}' /proc/$X/status 2>/dev/null)" = "$S" ] && break
done
echo "harness: pid $X is now: $(cat /proc/$X/comm 2>&1), parent $(awk '/PPid/{print $2}' /proc/$X/status 2>/dev/null) (service $S)"
wait $SVPID
echo "supervisor exit $?"
kill $ST 2>/dev/null
sleep 0.2
echo "host's marker: $(cat $M 2>&1)"
kill $S
INNER
timeout 60 unshare -n bash /tmp/ha23/reuse-inner.sh "$SV"
rm -f /tmp/ha23/reuse-inner.sh
