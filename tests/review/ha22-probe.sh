#!/bin/bash
# ha22-probe.sh (hostile review h-attack22): the probe connect is a real
# connection to whatever listens on the file. A root service's socket on a
# path the agent may write (root's tmux, ssh-agent, a socket-activated
# unit's socket under a declared /tmp or /run/user/0 ...); the agent
# connects to it from a network namespace of its own, where the service's
# listener is not in the dump: unixpeer.c connects to it from a socket of
# the supervisor's, and the service accepts a connection from the
# supervisor's pid, uid 0 (no data; a socket-activated unit is started by
# it). The verdict is a correct fail; the side effect is the finding.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha22
gcc -static -O2 -o /tmp/ha22/unix tests/review/ha22-unix.c || exit 2
cat >/tmp/ha22/probe-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 A=/tmp/ha22/unix T=/tmp/ha22/tmp H=/tmp/ha22/host
mkdir -p $T $H
mount -t tmpfs -o mode=1777 ha22-tmp $T && mount -t tmpfs -o mode=755 ha22-host $H
$A serve $T/root-svc.sock $H/marker &
SVC=$!
sleep 0.5
"$SV" --writable $T -- $A netns-connect $T/root-svc.sock &
wait $!
echo "supervisor exit $? (supervisor pid $!)"
sleep 0.3
echo "host's marker: $(cat $H/marker 2>&1)"
kill $SVC
umount $T $H
INNER
timeout 60 unshare -m --propagation private bash /tmp/ha22/probe-inner.sh "$SV"
rm -f /tmp/ha22/probe-inner.sh
