#!/bin/bash
# ha28-capsys.sh (hostile review h-attack28, against 321a0eb): h-attack27's
# ha27-nbrace.sh again, with the supervisor run as uid 1000 holding
# CAP_SYS_ADMIN (ambient here; a file capability or a systemd unit's
# AmbientCapabilities= is the same). sv_contain_setup then picks
# pid-namespace mode (it keys on CAP_SYS_ADMIN), so main.c turns the AF_UNIX
# judgement on (sv_unixpeer_set_judged: mode == SV_CONTAIN_PIDNS) and the
# act on an abstract name judged "local" is made nonblocking through
# O_NONBLOCK on the description the agent shares; but the filter traps the
# agent's F_SETFL/FIONBIO only when the agent's child is euid 0
# (sv_filter_install: sv_filter_build(geteuid() == 0)), and here it is uid
# 1000. The agent's toggler clears O_NONBLOCK untrapped and the supervisor's
# connect waits in the kernel (unix_wait_for_peer) holding flags_lock and
# its pins. Here (321a0eb): parked in 3 of 3 tries; the pins keep the run's
# closed listener bound, so the parked connect cannot look up the host's
# socket (host service reached in 0), but it never returns: the run hangs
# until the script kills the supervisor (exit 137, no verdict), and every
# other nonblocking connect of the run waits on flags_lock meanwhile.
# Exit 1 when the supervisor waited in the kernel in any try or the host
# service got the line; 0 otherwise. TRIES=N (default 3); WAIT_S bounds
# each run (default 60 s); AGENT_S the agent's toggling (default 8 s).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
TRIES=${TRIES:-3}
export AGENT_S=${AGENT_S:-8}
. tests/review/review-lock.sh
review_lock dir-h-attack28 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack28
W=/tmp/h-attack28
mkdir -p $W && chmod 777 $W
gcc -static -O2 -pthread -Wall -o $W/nbrace tests/review/ha27-nbrace.c || exit 2
cp "$SV" $W/sv && chmod 755 $W/sv $W/nbrace
cat >$W/capsys-inner.sh <<'INNER'
set -u
TRIES=$1 W=/tmp/h-attack28
A=$W/nbrace M=$W/cs-marker R=$W/cs-report.json L=$W/cs-log
ip link set lo up
blocked=0 reached=0 passed=0
for i in $(seq 1 "$TRIES"); do
	echo "== try $i"
	# The log too: the wait below greps it while the supervisor's shell
	# may not yet have truncated it, and a previous run's "parked in the
	# kernel" line started the squatter before the agent bound the name.
	rm -f $M $R $L
	setpriv --reuid 1000 --regid 1000 --clear-groups \
		--inh-caps +sys_admin,+mknod --ambient-caps +sys_admin,+mknod \
		$W/sv --report $R -- $A agent @ha28-cs "$AGENT_S" >$L 2>&1 &
	P=$!
	for _ in $(seq 1 400); do
		grep -q "parked in the kernel" $L && break
		sleep 0.02
	done
	w=$(cat /proc/$P/task/*/wchan 2>/dev/null | tr '\0' '\n' | grep -c unix_wait_for_peer)
	echo "supervisor threads in unix_wait_for_peer: $w"
	[ "$w" -gt 0 ] && blocked=$((blocked + 1))
	$A squat @ha28-cs $M 2>>$L &
	S=$!
	for _ in $(seq 1 "$((${WAIT_S:-60} * 10))"); do
		kill -0 $P 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $P 2>/dev/null
	wait $P
	rc=$?
	echo "supervisor exit $rc"
	sleep 0.3
	cat $L
	grep -o '"containment": "[^"]*"' $R | tail -1
	if [ -s $M ]; then
		reached=$((reached + 1))
		[ $rc -eq 0 ] && passed=$((passed + 1))
		echo "host's marker: $(cat $M)"
	fi
	grep -o '"syscall": "connect",[^}]*"dest": "unix:@ha28-cs",[^}]*"result": 0,[^}]*' $R |
		head -1 | tr -s ' \n' ' '
	echo
	kill $S 2>/dev/null; wait $S 2>/dev/null
done
echo "RESULT: supervisor waited in the kernel in $blocked of $TRIES tries; host service reached in $reached ($passed with verdict pass)"
[ $blocked -eq 0 ] && [ $reached -eq 0 ]
INNER
timeout 600 unshare -mn --propagation private bash $W/capsys-inner.sh "$TRIES"
rc=$?
rm -f $W/capsys-inner.sh
exit $rc
