#!/bin/bash
# ha29-heldbyus.sh (hostile review h-attack29, against 1d860d4): a host
# service's abstract sockets, leaked into the supervisor's own descriptor
# table by its caller, are taken for "only our own pins keep it bound"
# (unixdiag.c held_by_us looks at every descriptor of ours, not at our
# pins, and never asks whether anyone else holds the socket too). The
# agent's connect and sendto to the host's names are then answered
# ECONNREFUSED and recorded allowed ("performed", errno ECONNREFUSED):
# verdict pass. Before 1d860d4 (build/mutants/unix-closed-is-peer: the
# same check as before) both are denied "unix-peer", verdict fail.
# Nothing reaches the service either way (the act is not performed): the
# finding is the attempt hidden behind a pass.
# Stand-in: a root service holds a stream listener @ha29-svc and a
# datagram socket bound to @ha29-log, and starts the job (the supervisor)
# with both descriptors left open (no close-on-exec: a Python
# subprocess with close_fds=False, a daemon that forgets O_CLOEXEC, a
# socket-activated runner's LISTEN_FDS). The agent never holds them: the
# supervisor's child closes every descriptor above 2 (close_range).
# Root supervisor and agent (pid-namespace), in a network namespace of our
# own. RUNS=N (default 3). Exit 1 when a run of the current build passes.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
OLD=${OLD:-$PWD/build/mutants/unix-closed-is-peer/egress-supervisor}
RUNS=${RUNS:-3}
. tests/review/review-lock.sh
review_lock dir-h-attack29 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack29
W=/tmp/h-attack29
mkdir -p $W
gcc -static -O2 -Wall -o $W/unix tests/review/ha29-unix.c || exit 2
[ -x "$OLD" ] || make mutant-bin MUTANT=unix-closed-is-peer >/dev/null || exit 2
cat >$W/heldbyus-inner.sh <<'INNER'
set -u
SV=$1 OLD=$2 RUNS=$3 W=/tmp/h-attack29 U=/tmp/h-attack29/unix
ip link set lo up
cat >$W/agent.sh <<'A'
#!/bin/sh
/tmp/h-attack29/unix connect @ha29-svc
/tmp/h-attack29/unix sendto @ha29-log
A
chmod +x $W/agent.sh
echo "== kernel alone (the agent run by the service's job, no supervisor):"
rm -f $W/mark; $U service @ha29-svc @ha29-log $W/mark -- $W/agent.sh; sleep 0.2
echo "   service got: $(tr "\n" ";" 2>/dev/null <$W/mark)"
passes=0
for which in current before; do
	S=$SV; [ $which = before ] && S=$OLD
	for i in $(seq 1 "$RUNS"); do
		rm -f $W/mark $W/rep-$which-$i.json
		out=$($U service @ha29-svc @ha29-log $W/mark -- \
			"$S" --report $W/rep-$which-$i.json -- $W/agent.sh 2>&1)
		rc=$?
		echo "-- $which run $i (exit $rc):"
		echo "$out" | sed 's/^/   /'
		echo "   service got: $(tr "\n" ";" 2>/dev/null <$W/mark)"
		grep -o '"dest": "unix:@ha29-[a-z]*", "bucket": "[a-z]*", "reason": "[a-z-]*"[^}]*' \
			$W/rep-$which-$i.json | sed 's/^/   report: /'
		[ $which = current ] && echo "$out" | grep -q "egress-supervisor: pass" &&
			passes=$((passes + 1))
	done
done
echo "RESULT: $passes of $RUNS runs of the current build printed pass (a host service's names tried)"
[ $passes -eq 0 ]
INNER
timeout 300 unshare -n bash $W/heldbyus-inner.sh "$SV" "$OLD" "$RUNS"
rc=$?
rm -f $W/heldbyus-inner.sh
exit $rc
