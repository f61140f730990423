#!/bin/bash
# ha25-rebind.sh (hostile review h-attack25, against c88bfaf): an abstract
# datagram name is judged when the run holds it, and the kernel looks it up
# again when the supervisor's send finally runs; the agent decides when
# that is. unix_dgram_sendmsg allocates the datagram (and, on a blocking
# socket, sleeps for send-buffer room) before it looks the name up, so the
# supervisor's sendto on the agent's socket, already judged "local", waits
# as long as the agent keeps that socket's send buffer full.
#  wmem: the agent binds @ha25-svc itself, fills its sending socket's
#     buffer (SO_SNDBUF small, datagrams to another name of its own that
#     nobody reads), sends a line to @ha25-svc from a thread (judged local,
#     the supervisor's act parked), closes its own @ha25-svc, waits until
#     a host service binds @ha25-svc (here 3 s later: a service that
#     starts or restarts during the run; no race, the agent waits as long
#     as it takes), then empties the buffer: the line reaches the host
#     service. Verdict pass, event "unix:@ha25-svc allowed local".
#  wmem mmsg: the same with sendmmsg (send_copied): pass, marker written.
#  park (for comparison): the run's listener or datagram socket with a
#     full queue, the agent's blocking connect/send parked in the kernel
#     after the lookup; the agent closes its socket and a host stand-in
#     binds the name in a busy loop. The kernel's retry looks the name up
#     again; the wake-up comes with the close, so it is a race, but one
#     the agent starts at a moment it knows the supervisor is committed:
#     against the busy binder the host got the line in 1 of 6 stream and
#     4 of 6 datagram runs here (pass each time).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-h-attack25 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack25
mkdir -p /tmp/h-attack25
gcc -static -O2 -pthread -Wall -o /tmp/h-attack25/unix tests/review/ha25-unix.c || exit 2
cat >/tmp/h-attack25/rebind-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/h-attack25/unix M=/tmp/h-attack25/marker
ip link set lo up
for HOW in sendto mmsg; do
	echo "== wmem ($HOW): datagram, the act parked before the kernel's lookup"
	rm -f $M
	"$SV" --report /tmp/h-attack25/report-wmem.json -- $A wmem @ha25-svc $HOW &
	P=$!
	$A serve-later @ha25-svc $M 3 &
	S=$!
	wait $P
	echo "supervisor exit $?"
	sleep 0.3
	echo "host's marker: $(cat $M 2>&1)"
	grep -o '"syscall": "[a-z]*",[^}]*"dest": "unix:@ha25-svc",[^}]*' \
		/tmp/h-attack25/report-wmem.json | tr -s ' \n' ' '
	echo
	kill $S 2>/dev/null; wait $S 2>/dev/null
done
for T in stream dgram; do
	echo "== park $T: the act parked after the lookup (queue full)"
	rm -f $M
	"$SV" -- $A park @ha25-park $T &
	P=$!
	sleep 0.5
	$A squat-serve @ha25-park $M $T &
	S=$!
	wait $P
	echo "supervisor exit $?"
	sleep 0.3
	echo "host's marker: $(cat $M 2>&1)"
	kill $S 2>/dev/null; wait $S 2>/dev/null
done
INNER
timeout 90 unshare -n bash /tmp/h-attack25/rebind-inner.sh "$SV"
rm -f /tmp/h-attack25/rebind-inner.sh
