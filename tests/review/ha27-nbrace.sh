#!/bin/bash
# ha27-nbrace.sh (hostile review h-attack27, against 1b297f5): the
# supervisor's connect to an abstract name judged "local" is made
# nonblocking through O_NONBLOCK on the file description it shares with the
# agent (sv_unixpeer_act); a thread of the agent that keeps clearing that
# flag makes it a blocking connect, which waits in the kernel
# (unix_wait_for_peer) on the run's full listener and looks the name up
# again when that listener closes: h-attack25's finding 1b (ha25-rebind.sh
# park) comes back. See ha27-nbrace.c.
# Each try: the agent's listener @ha27-nb (backlog 0, queue full), 4
# blocking connects to it, a toggler clearing O_NONBLOCK on their sockets;
# the agent sees when the supervisor's connects wait in the kernel (the
# sockets they made show in /proc/net/unix; the script also counts the
# supervisor's threads whose wchan is unix_wait_for_peer); then a busy
# stand-in host service starts binding @ha27-nb (a service in a restart
# loop) and the agent closes its listener: each parked connect looks the
# name up again, the later ones find the host's socket. Here: parked in
# the kernel 3 of 3 tries, the host service got the line in 2 (verdict
# pass, "unix:@ha27-nb allowed local performed" result 0).
# Exit 1 when the supervisor waited in the kernel in any try or the host
# service got the line; 0 otherwise. TRIES=N (default 3); WAIT_S bounds
# each run (default 60 s; a supervisor still running then is killed);
# AGENT_S bounds the agent's toggling (default 8 s; it stops sooner once
# every connect is parked).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
TRIES=${TRIES:-3}
export AGENT_S=${AGENT_S:-8}
. tests/review/review-lock.sh
review_lock dir-h-attack27 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack27
W=/tmp/h-attack27
mkdir -p $W
gcc -static -O2 -pthread -Wall -o $W/nbrace tests/review/ha27-nbrace.c || exit 2
cat >$W/nbrace-inner.sh <<'INNER'
set -u
SV=$1 TRIES=$2 A=/tmp/h-attack27/nbrace M=/tmp/h-attack27/nb-marker
R=/tmp/h-attack27/nb-report.json L=/tmp/h-attack27/nb-log
ip link set lo up
blocked=0 reached=0
for i in $(seq 1 "$TRIES"); do
	echo "== try $i"
	# The log too: the wait below greps it while the supervisor's shell
	# may not yet have truncated it, and a previous run's "parked in the
	# kernel" line started the squatter before the agent bound the name.
	rm -f $M $R $L
	"$SV" --report $R -- $A agent @ha27-nb "$AGENT_S" >$L 2>&1 &
	P=$!
	for _ in $(seq 1 400); do
		grep -q "parked in the kernel" $L && break
		sleep 0.02
	done
	w=$(cat /proc/$P/task/*/wchan 2>/dev/null | tr '\0' '\n' | grep -c unix_wait_for_peer)
	echo "supervisor threads in unix_wait_for_peer: $w"
	[ "$w" -gt 0 ] && blocked=$((blocked + 1))
	$A squat @ha27-nb $M 2>>$L &
	S=$!
	# A connect that waits in the kernel on a socket the supervisor holds
	# (a mutant) never ends: bounded (WAIT_S, default 60 s), then killed.
	for _ in $(seq 1 "$((${WAIT_S:-60} * 10))"); do
		kill -0 $P 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $P 2>/dev/null
	wait $P
	echo "supervisor exit $?"
	sleep 0.3
	cat $L
	if [ -s $M ]; then
		reached=$((reached + 1))
		echo "host's marker: $(cat $M)"
	fi
	grep -o '"syscall": "connect",[^}]*"dest": "unix:@ha27-nb",[^}]*"result": 0,[^}]*' $R |
		head -1 | tr -s ' \n' ' '
	echo
	kill $S 2>/dev/null; wait $S 2>/dev/null
done
echo "RESULT: supervisor waited in the kernel in $blocked of $TRIES tries; host service reached in $reached"
[ $blocked -eq 0 ] && [ $reached -eq 0 ]
INNER
timeout 300 unshare -mn --propagation private bash $W/nbrace-inner.sh "$SV" "$TRIES"
rc=$?
rm -f $W/nbrace-inner.sh
exit $rc
