#!/bin/bash
# ha21-nested.sh (hostile review h-attack21): (1, held) sendmmsg of two
# datagrams, to the run's own socket on the declared path then to a host
# socket (read-only in the agent's view): the first is sent, the second
# denied, verdict fail, nothing at the host; (2, false red) a listener on an
# abstract name held by the run's own process in a nested pid namespace
# (unshare -U -p, as bwrap --unshare-pid or unshare --pid --fork do) is
# denied unix-peer to the run's process in the outer one (run_holds
# compares /proc/PID/ns/pid for equality).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha21
gcc -O2 -static -o /tmp/ha21/ha21-unix tests/review/ha21-unix.c || exit 2
cat >/tmp/ha21/nested-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 D=/tmp/ha21/svc W=/tmp/ha21/w
mkdir -p $D $W && mount -t tmpfs ha21-svc $D && mount -t tmpfs ha21-w $W
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); open(sys.argv[2], "w").close()
s.settimeout(6)
try:
    while True: print("host: datagram at the host socket:", s.recv(100), flush=True)
except socket.timeout: print("host: nothing at the host socket")' $D/log.sock $D/ready &
while [ ! -e $D/ready ]; do sleep 0.1; done
echo "== 1: sendmmsg, own socket then host socket"
"$SV" --writable $W -- /tmp/ha21/ha21-unix mmsg $W/good.sock $D/log.sock; echo "supervisor exit $?"
echo "== 2: the run's own abstract listener in a nested pid namespace"
"$SV" -- /tmp/ha21/ha21-unix nested ha21n; echo "supervisor exit $?"
wait; umount $D $W
INNER
timeout 60 unshare -m --propagation private bash /tmp/ha21/nested-inner.sh "$SV"
rm -f /tmp/ha21/nested-inner.sh
