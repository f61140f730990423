#!/bin/bash
# ha33-ownrace.sh (hostile review h-attack33, against 9c8b986): judge_nsfd
# reads the calling thread's own /proc/TID/ns links before it asks whether
# the call is alive (ID_VALID); a caller found "in the namespace" is the
# run's with no scan. Can the links read be another task's? The caller's
# tid freed and taken again by a task of a foreign network namespace
# between the caller's death and the read.
# Everything runs in a pid namespace of the script's own with pid_max 500
# (per namespace since 6.14) and a stand-in service in the foreign netns
# forking a child per millisecond (ha33-ownrace churn), so a freed pid is
# reused within a fraction of a second. A widened build (a copy of
# nsjoin.c that sleeps HA33_WIDEN_US before the own read, retrying on
# EINTR, and says on stderr when the own links were found in the target)
# stands for a supervisor descheduled there. The agent's setns thread dies
# (exit_group from the main thread 100 ms after the call) during the sleep.
# Expected, and seen: the reused tid's links do say "in the target", and
# ID_VALID then answers ENOENT (a notification dies before its task is
# released and its tid can be reused): abandoned, never allowed.
# Legs on the release build: control (no signal, denied) and a signal at
# 0 us (the known window before the judgment, README h-attack32).
# Exit 1 when any run allowed the setns or changed the netns.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# Before 6.14 pid_max is one value for the host: the inner script's 500
# would be the host's, and stay (helper h-hygiene).
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
kmin=${kmin%%[!0-9]*}
if ((kmaj < 6 || (kmaj == 6 && kmin < 14))); then
	echo "needs Linux 6.14 (pid_max per pid namespace): not lowering this host's" >&2
	exit 2
fi
SV=${SV:-$PWD/build/egress-supervisor}
RUNS=${RUNS:-6}
W=/tmp/h-attack33
mkdir -p $W/wide && chmod 1777 $W
gcc -static -O2 -Wall -Wextra -pthread -o $W/ownrace tests/review/ha33-ownrace.c || exit 2
sed -e 's|^\(\t*\)own = lives_in(-1, tid, &w);|\1if (getenv("HA33_WIDEN_US")) {\n\1\tlong us = atol(getenv("HA33_WIDEN_US"));\n\1\tstruct timespec ts = {us / 1000000, us % 1000000 * 1000};\n\1\twhile (nanosleep(\&ts, \&ts) != 0 \&\& errno == EINTR)\n\1\t\t;\n\1}\n\1own = lives_in(-1, tid, \&w);\n\1if (own == 1)\n\1\tfprintf(stderr, "ha33: tid %s own links in the target\\n", tid);|' \
	-e 's|#include <sys/ioctl.h>|#include <sys/ioctl.h>\n#include <time.h>|' supervisor/nsjoin.c >$W/wide/nsjoin.c
grep -q HA33_WIDEN_US $W/wide/nsjoin.c || { echo "nsjoin.c changed: the own read not found"; exit 2; }
srcs=()
for f in supervisor/*.c; do
	case $f in */nsjoin.c | */fault.c) ;; *) srcs+=("$f") ;; esac
done
musl-gcc -std=c11 -D_GNU_SOURCE -O2 -isystem build/kheaders -isystem build/sysroot/include \
	-iquote supervisor -static -o $W/wide/egress-supervisor \
	"${srcs[@]}" $W/wide/nsjoin.c \
	build/sysroot/lib/libseccomp.a || exit 2
cat >$W/ownrace-inner.sh <<'INNER'
set -u
SV=$1 RUNS=$2 W=/tmp/h-attack33 bad=0
echo 500 >/proc/sys/kernel/pid_max || exit 2
ip link set lo up
touch $W/fns
unshare --net=$W/fns true || exit 2
nsenter --net=$W/fns $W/ownrace churn &
churn=$!
sleep 1.5 # past 300: the pids cycle in 300..500 from here on
leg() { # name supervisor widen_us mode delay_us
	local pass=0 fail=0 other=0 own=0 allowed=0 changed=0 abandoned=0 denied=0 other_bucket=0 none=0 out
	for _ in $(seq "$RUNS"); do
		out=$(cd /tmp && HA33_WIDEN_US=$3 timeout 60 "$2" --report $W/rep.json -- \
			$W/ownrace join $W/fns "$5" "$4" 2>&1)
		case "$out" in
		*"egress-supervisor: pass"*) pass=$((pass + 1)) ;;
		*"egress-supervisor: fail"*) fail=$((fail + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
		grep -q "ha33: tid" <<<"$out" && own=$((own + 1))
		grep -q CHANGED <<<"$out" && changed=$((changed + 1))
		grep '"setns"' $W/rep.json | grep -q '"allowed"' && allowed=$((allowed + 1))
		grep '"setns"' $W/rep.json | grep -q '"abandoned"' && abandoned=$((abandoned + 1))
		grep '"setns"' $W/rep.json | grep -q '"denied"' && denied=$((denied + 1))
		grep '"setns"' $W/rep.json | grep -qv '"allowed"\|"denied"\|"abandoned"' &&
			other_bucket=$((other_bucket + 1))
		grep -q '"setns"' $W/rep.json || none=$((none + 1))
	done
	echo "$1: pass $pass, fail $fail, other $other of $RUNS; setns allowed $allowed, denied $denied, abandoned $abandoned, other $other_bucket, no record $none; own links of a reused tid in the target $own; netns changed $changed"
	bad=$((bad + allowed + changed))
}
leg "widened 1 s, caller dies at 100 ms (tid reuse)" $W/wide/egress-supervisor 1000000 exit 100000
leg "release, control (no signal)" "$SV" 0 none 0
leg "release, SIGUSR1 at 0 us" "$SV" 0 signal 0
kill $churn
umount $W/fns
rm -f $W/fns
echo "RESULT: $bad runs allowed the foreign setns or changed the netns"
[ $bad -eq 0 ]
INNER
timeout 900 unshare -n -p -f --mount-proc bash $W/ownrace-inner.sh "$SV" "$RUNS"
rc=$?
rm -f $W/ownrace-inner.sh
exit $rc
