#!/bin/bash
# ha32-nshide.sh (hostile review h-attack32, against 7d6cbe9): a root agent's
# setns into a foreign network namespace (an nsfs file outside the run, as
# `ip netns add` leaves one) is filed abandoned, verdict pass, when the
# agent interrupts its own call with a signal while the supervisor scans
# the run's processes (nsjoin.c: "rc == 0 && sv_call_still_valid(c)",
# added by 923d8e9 for a run that is ending). The caller lives on (EINTR),
# nothing is joined; the attempt leaves no denial. A denial decided on a
# call whose notification then died stays a denial everywhere else
# (sv_call_denial_valid, mutant denial-as-abandoned).
# Compared with mutant setns-ending-denied (the code before 923d8e9): the
# same interruption during the scan is denied. Control: no signal, denied.
# Second leg: the main thread ends the process (exit_group) while the
# scan runs, so the caller really dies: hidden just the same (a check that
# the caller still lives would not do).
# Exit 1 when a run of the release build is pass.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
MUT=${MUT:-$PWD/build/mutants/setns-ending-denied/egress-supervisor}
RUNS=${RUNS:-6}
DELAYS=${DELAYS:-"100000 0 1000 3000 10000"}
. tests/review/review-lock.sh
review_lock dir-h-attack32 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack32
W=/tmp/h-attack32
mkdir -p $W && chmod 1777 $W
gcc -static -O2 -Wall -pthread -o $W/nshide tests/review/ha32-nshide.c || exit 2
cat >$W/nshide-inner.sh <<'INNER'
set -u
SV=$1 MUT=$2 RUNS=$3 DELAYS=$4 W=/tmp/h-attack32
ip link set lo up
touch $W/fns
unshare --net=$W/fns true || exit 2
hidden=0
for build in release mutant; do
	[ $build = release ] && b=$SV || b=$MUT
	[ -x "$b" ] || { echo "$build: $b missing (make mutant-bin MUTANT=setns-ending-denied)"; continue; }
	for mode in signal exit; do
	for d in $DELAYS; do
		[ $mode = exit ] && [ $d = 100000 ] && continue
		pass=0 fail=0 other=0 changed=0
		for i in $(seq $RUNS); do
			out=$(cd /tmp && timeout 60 $b -- $W/nshide $W/fns 300 $d $([ $mode = exit ] && echo exit) 2>&1)
			case "$out" in
			*"egress-supervisor: pass"*) pass=$((pass + 1)) ;;
			*"egress-supervisor: fail"*) fail=$((fail + 1)) ;;
			*) other=$((other + 1)) ;;
			esac
			echo "$out" | grep -q CHANGED && changed=$((changed + 1))
		done
		if [ $d = 100000 ]; then
			what="control (no signal before the answer)"
		elif [ $mode = signal ]; then
			what="SIGUSR1 ${d}us after the call"
		else
			what="exit_group ${d}us after the call"
		fi
		echo "$build, 300 processes, $what: pass $pass, fail $fail, other $other of $RUNS; netns changed $changed"
		[ $build = release ] && [ $d != 100000 ] && hidden=$((hidden + pass))
	done
	done
done
umount $W/fns; rm -f $W/fns
echo "RESULT: $hidden release runs with a foreign setns attempt were pass"
[ $hidden -eq 0 ]
INNER
timeout 900 unshare -n bash $W/nshide-inner.sh "$SV" "$MUT" "$RUNS" "$DELAYS"
rc=$?
rm -f $W/nshide-inner.sh
exit $rc
