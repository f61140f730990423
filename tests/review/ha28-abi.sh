#!/bin/bash
# ha28-abi.sh (hostile review h-attack28, against 321a0eb): h-attack27's
# ha27-nbrace.sh race with other ways to clear O_NONBLOCK on the
# description the supervisor's connect shares (ha28-abi.c: native fcntl
# with high bits, FIONBIO on the descriptor and on a dup, a forked child
# sharing the description; the int $0x80 forms where the host has the
# i386 ABI). Root supervisor and agent (pid-namespace), as ha27.
#   ha28-abi.sh [MODE...]   (default: fcntl fcntl-hi ioctl ioctl-dup fork)
# Exit 1 when the supervisor waited in the kernel or the host stand-in got
# the line in any mode.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
W=/tmp/h-attack28
mkdir -p $W && chmod 777 $W
gcc -static -O2 -pthread -Wall -o $W/abi tests/review/ha28-abi.c || exit 2
cat >$W/abi-inner.sh <<'INNER'
set -u
SV=$1; shift
W=/tmp/h-attack28 A=/tmp/h-attack28/abi M=/tmp/h-attack28/abi-marker
R=/tmp/h-attack28/abi-report.json L=/tmp/h-attack28/abi-log
ip link set lo up
bad=0
for mode in "$@"; do
	echo "== mode $mode"
	# The log too: the wait below greps it while the supervisor's shell
	# may not yet have truncated it, and a previous run's "parked in the
	# kernel" line started the squatter before the agent bound the name.
	rm -f $M $R $L
	"$SV" --report $R -- $A agent @ha28-abi 6 $mode >$L 2>&1 &
	P=$!
	for _ in $(seq 1 400); do
		grep -q "parked in the kernel" $L && break
		sleep 0.02
	done
	w=$(cat /proc/$P/task/*/wchan 2>/dev/null | tr '\0' '\n' | grep -c unix_wait_for_peer)
	echo "supervisor threads in unix_wait_for_peer: $w"
	$A squat @ha28-abi $M 2>>$L &
	S=$!
	for _ in $(seq 1 "$((${WAIT_S:-30} * 10))"); do
		kill -0 $P 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $P 2>/dev/null
	wait $P
	echo "supervisor exit $?"
	sleep 0.3
	grep -v warning $L
	grep -o '"reason": "file-flags"' $R | wc -l | sed 's/^/file-flags events: /'
	[ -s $M ] && echo "host's marker: $(cat $M)"
	{ [ "$w" -gt 0 ] || [ -s $M ]; } && bad=$((bad + 1))
	kill $S 2>/dev/null; wait $S 2>/dev/null
done
echo "RESULT: $bad of $# modes waited in the kernel or reached the host stand-in"
[ $bad -eq 0 ]
INNER
modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(fcntl fcntl-hi ioctl ioctl-dup fork)
timeout 900 unshare -mn --propagation private bash $W/abi-inner.sh "$SV" "${modes[@]}"
rc=$?
rm -f $W/abi-inner.sh
exit $rc
