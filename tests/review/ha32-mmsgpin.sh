#!/bin/bash
# ha32-mmsgpin.sh (hostile review h-attack32, against 7d6cbe9): since
# 923d8e9 a call's pins go in sv_call_finish, before the answer. Does that
# reopen h-attack27's rebind race on the path that judges several names in
# one call? A sendmmsg of two datagrams to the run's receivers @A and @B;
# the run closes @B's receiver in the second message's window (the test
# build's unix_window: 300 ms between each judgement and its send), while a
# host stand-in busy-binds @B. The pin of the second judgement holds @B
# until that message is sent; sv_call_finish comes after every send. Mutant
# unix-abstract-unpinned (pin let go at the judgement) for comparison: the
# host gets "SECRET-two", pass.
# Needs build/faults (make supervisor-faults) and
# build/mutants-faults/unix-abstract-unpinned. Exit 1 when the host got the
# line from the release (faults) build.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SVF=${SVF:-$PWD/build/faults/egress-supervisor}
MUTF=${MUTF:-$PWD/build/mutants-faults/unix-abstract-unpinned/egress-supervisor}
RUNS=${RUNS:-4}
W=/tmp/h-attack32
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/mmsgpin tests/review/ha32-mmsgpin.c || exit 2
cat >$W/mmsgpin-inner.sh <<'INNER'
set -u
SVF=$1 MUTF=$2 RUNS=$3 W=/tmp/h-attack32
ip link set lo up
leaked=0
for build in faults mutant-unix-abstract-unpinned; do
	[ $build = faults ] && b=$SVF || b=$MUTF
	[ -x "$b" ] || { echo "$b missing"; continue; }
	got=0
	for i in $(seq $RUNS); do
		tag=@ha32-mp-$build-$i
		$W/mmsgpin squat $tag 4 >$W/squat.out &
		S=$!
		out=$(cd /tmp && EGRESS_SV_FAULT=unix_window:EIO $b -- $W/mmsgpin agent @ha32-mpA-$build-$i $tag 450 2>&1)
		wait $S
		h=$(cat $W/squat.out)
		echo "$build run $i: $(echo "$out" | tr '\n' ' ') | $h"
		case "$h" in *SECRET*) got=$((got + 1)) ;; esac
	done
	echo "$build: host got the second message in $got of $RUNS"
	[ $build = faults ] && leaked=$got
done
echo "RESULT: release (faults) build leaked to the host in $leaked of $RUNS"
[ $leaked -eq 0 ]
INNER
timeout 300 unshare -n bash $W/mmsgpin-inner.sh "$SVF" "$MUTF" "$RUNS"
rc=$?
rm -f $W/mmsgpin-inner.sh $W/squat.out
exit $rc
