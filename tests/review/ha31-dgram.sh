#!/bin/bash
# ha31-dgram.sh (hostile review h-attack31, against 36264ec): datagrams sent
# from several threads of a job to an abstract name nobody binds (a logger
# that is not running) are denied unix-peer (EACCES), verdict fail. The
# datagram dump lists every socket of the type bound to the name, whatever
# its state, and that includes the supervisor's own probe socket, bound for
# an instant by another call's sv_unixdiag_name_free: no process of the run
# holds it, no pin is it, a second dump still lists it, so it is a host's.
# The kernel alone: ECONNREFUSED every time. probe_lock serialises the
# probes, not the dumps.
# Root supervisor and agent (and uid 1000 with ambient CAP_SYS_ADMIN), a
# network namespace of our own. RUNS=N (default 3) runs of THREADS=N
# threads (default 2) sending for SECS=N seconds (default 5). Exit 1 when
# a run is not pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
RUNS=${RUNS:-3}
THREADS=${THREADS:-2}
SECS=${SECS:-5}
. tests/review/review-lock.sh
review_lock dir-h-attack31 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack31
W=/tmp/h-attack31
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/p tests/review/ha31-probe.c || exit 2
cat >$W/dgram-inner.sh <<'INNER'
set -u
SV=$1 RUNS=$2 THREADS=$3 SECS=$4 P=/tmp/h-attack31/p
ip link set lo up
U="setpriv --reuid 1000 --regid 1000 --clear-groups --inh-caps +sys_admin,+mknod --ambient-caps +sys_admin,+mknod"
echo "== kernel alone: $($P hammer @ha31-dg dgram "$THREADS" 2)"
bad=0 n=0
for who in root uid1000-cap-sys-admin; do
	[ $who = root ] && run="" || run=$U
	for i in $(seq 1 "$RUNS"); do
		n=$((n + 1))
		out=$(cd /tmp && $run "$SV" -- $P hammer @ha31-dg dgram "$THREADS" "$SECS" 2>&1)
		echo "-- $who run $i: $(echo "$out" | tr '\n' ' ')"
		echo "$out" | grep -q "egress-supervisor: pass" || bad=$((bad + 1))
	done
done
echo "RESULT: $bad of $n runs not pass (nothing bound to the name; the kernel: ECONNREFUSED)"
[ $bad -eq 0 ]
INNER
timeout 600 unshare -n bash $W/dgram-inner.sh "$SV" "$RUNS" "$THREADS" "$SECS"
rc=$?
rm -f $W/dgram-inner.sh
exit $rc
