#!/bin/bash
# ha22-inowrap.sh (hostile review h-attack22): see ha22-inowrap.c. A root
# service (stand-in) holds the abstract listener @ha22-svc in the host's
# network namespace and writes what it gets to a file on a tmpfs the agent
# cannot write. The agent waits for the inode counter to come round.
# MEASURE=SECONDS (default 10) only measures the rate and stops; MEASURE=0
# runs the whole attack (hours on this 2-core machine: ~115,000 numbers/s,
# about 10 h; on a laptop-class machine with a few cores, well under one).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
MEASURE=${MEASURE:-10}
mkdir -p /tmp/ha22
gcc -static -O2 -o /tmp/ha22/unix tests/review/ha22-unix.c || exit 2
gcc -static -O2 -pthread -o /tmp/ha22/inowrap tests/review/ha22-inowrap.c || exit 2
cat >/tmp/ha22/inowrap-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 M=$2 H=/tmp/ha22/host
mkdir -p $H && mount -t tmpfs -o mode=755 ha22-host $H
/tmp/ha22/unix serve @ha22-svc $H/marker &
SVC=$!
sleep 0.5
if [ "$M" = 0 ]; then
  "$SV" -- /tmp/ha22/inowrap @ha22-svc
else
  "$SV" -- /tmp/ha22/inowrap @ha22-svc "$M"
fi
echo "supervisor exit $?"
sleep 0.3
echo "host's marker: $(cat $H/marker 2>&1)"
kill $SVC
umount $H
INNER
unshare -m --propagation private bash /tmp/ha22/inowrap-inner.sh "$SV" "$MEASURE"
rm -f /tmp/ha22/inowrap-inner.sh
