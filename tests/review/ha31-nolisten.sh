#!/bin/bash
# ha31-nolisten.sh (hostile review h-attack31, against 36264ec): a stream or
# seqpacket name bound by a socket that does not listen (the run's own, a
# server between its bind and its listen, or a host program that uses the
# name as a lock) is answered ECONNREFUSED by the kernel. The supervisor's
# dump lists only listeners, so it sees nothing bound; its bind probe
# (sv_unixdiag_name_free) finds the name taken, three times, and the call
# is a mechanism failure (bind_probe, EAGAIN): verdict capability-error
# for a connect the kernel refuses. Before 53a966c (mutant dump-trusted)
# the same call was ECONNREFUSED, pass.
# Root supervisor, and uid 1000 with ambient CAP_SYS_ADMIN (names judged
# there too), in a network namespace of our own. Exit 1 when a run is not
# pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
W=/tmp/h-attack31
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/p tests/review/ha31-probe.c || exit 2
cat >$W/nolisten-inner.sh <<'INNER'
set -u
SV=$1 P=/tmp/h-attack31/p
ip link set lo up
U="setpriv --reuid 1000 --regid 1000 --clear-groups --inh-caps +sys_admin,+mknod --ambient-caps +sys_admin,+mknod"
bad=0 n=0
rm -f /tmp/h-attack31/nl-*.json
echo "== kernel alone:"
$P nolisten @ha31-nl stream
$P nolisten @ha31-nl2 seqpacket
$P hold @ha31-lock stream & H=$!
sleep 0.2
echo "   host lock @ha31-lock (bound, not listening): $($P connect @ha31-lock stream)"
for who in root uid1000-cap-sys-admin; do
	[ $who = root ] && run="" || run=$U
	for t in stream seqpacket; do
		n=$((n + 1))
		out=$(cd /tmp && $run "$SV" -- $P nolisten @ha31-nl-$t $t 2>&1)
		echo "-- $who, $t, the run's own bound socket: $(echo "$out" | tr '\n' ' ')"
		echo "$out" | grep -q "egress-supervisor: pass" || bad=$((bad + 1))
	done
	n=$((n + 1))
	out=$(cd /tmp && $run "$SV" --report /tmp/h-attack31/nl-$who.json -- $P connect @ha31-lock stream 2>&1)
	chmod 644 /tmp/h-attack31/nl-$who.json 2>/dev/null
	echo "-- $who, host lock: $(echo "$out" | tr '\n' ' ')"
	echo "$out" | grep -q "egress-supervisor: pass" || bad=$((bad + 1))
done
grep -o '"dest": "unix:@ha31-lock"[^}]*' /tmp/h-attack31/nl-root.json | sed 's/^/   report: /'
kill $H
echo "RESULT: $bad of $n runs not pass (the kernel: ECONNREFUSED each time)"
[ $bad -eq 0 ]
INNER
timeout 120 unshare -n bash $W/nolisten-inner.sh "$SV"
rc=$?
rm -f $W/nolisten-inner.sh $W/nl-*.json
exit $rc
