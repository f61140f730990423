#!/bin/bash
# ha23-falsered.sh (hostile review h-attack23): the run's own abstract
# listener, held by a process whose main thread ended with pthread_exit
# (the process goes on in another thread): /proc/PID/fd of a zombie leader
# is empty and pidfd_getfd on its pidfd answers EBADF, so the holder walk
# never finds it: denied unix-peer, fail (false red, not stated; the
# stated one, a thread that unshared its table, for comparison). Then the
# name forms that held: the empty abstract name (addrlen 3), embedded NULs,
# a 107-byte name, a host namesake that differs after a NUL, and a
# sendmmsg whose second datagram goes to a host name.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha23
gcc -static -O2 -pthread -o /tmp/ha23/unix tests/review/ha23-unix.c || exit 2
cat >/tmp/ha23/fr-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/ha23/unix
rm -f /tmp/ha23/fr-marker*
ip link set lo up
for m in zombie-leader unshared-table; do
	echo "-- $m @ha23-$m"; "$SV" -- $A $m @ha23-$m; echo "exit $?"
done
for n in @ '@a\0b' @$(printf 'x%.0s' $(seq 107)); do
	echo "-- own $n"; "$SV" -- $A own "$n"; echo "exit $?"
done
$A serve @a /tmp/ha23/fr-marker1 & S1=$!
$A serve-dgram @h /tmp/ha23/fr-marker2 & S2=$!
sleep 0.3
echo "-- connect @a (the host's) while the run holds @a\\0b"
"$SV" -- sh -c "$A own '@a\\0b'; $A connect @a"; echo "exit $?"
echo "-- sendmmsg: own @o, then the host's @h"
"$SV" -- $A mmsg @o @h; echo "exit $?"
sleep 0.2
kill $S1 $S2
echo "host's markers: $(cat /tmp/ha23/fr-marker* 2>&1)"
INNER
timeout 60 unshare -n bash /tmp/ha23/fr-inner.sh "$SV"
rm -f /tmp/ha23/fr-inner.sh
