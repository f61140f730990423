#!/bin/bash
# ha21-netns.sh (hostile review h-attack21): an abstract name is judged in
# the supervisor's network namespace (sock_diag) but connected in the
# socket's. A root agent enters another network namespace whose user
# namespace uid 0 owns (it has every capability there without
# CAP_SYS_ADMIN in the initial one; with CAP_SETUID the same for any other
# uid's), reached through a bind-mounted nsfs file as `ip netns attach`,
# `unshare --net=FILE` or a runtime leaves (read-only in its view, which an
# open for reading does not mind). A child of the run holds a listener on
# the same abstract name in the run's namespace, so the judgment finds "a
# socket the run holds" and the act connects, in the other namespace, to
# the service there. Stand-ins in a private mount namespace: a tmpfs at
# /tmp/ha21/svc for the host's files, a service as root in a user+network
# namespace uid 0 owns (a container's agent; systemd's PrivateUsers= maps
# root to root) that runs what it is sent.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-ha21 || exit 2 # one run at a time: another would rebuild under /tmp/ha21
mkdir -p /tmp/ha21
gcc -O2 -static -o /tmp/ha21/ha21-unix tests/review/ha21-unix.c || exit 2
cat >/tmp/ha21/svc-abs.py <<'PY'
import os, socket, subprocess, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1]); s.listen(4)
open(sys.argv[2], "w").close()
c, _a = s.accept()
req = c.recv(4096).decode().split(" ", 1)
print("service: request", req, flush=True)
if req[0] == "run":
    subprocess.run(["/bin/sh", "-c", req[1]])
c.send(b"done")
PY
cat >/tmp/ha21/netns-inner.sh <<'INNER'
set -u; OWNER=${OWNER:-0}
exec 2>&1
SV=$1 D=/tmp/ha21/svc
mkdir -p $D && mount -t tmpfs -o mode=755 ha21-svc $D
mkdir $D/etc
OWNER=${OWNER:-0}
if [ "$OWNER" = 0 ]; then unshare -U --map-root-user -n python3 /tmp/ha21/svc-abs.py ha21svc $D/ready & P=$!
else mkdir -p $D/etc && chown $OWNER $D/etc $D; setpriv --reuid $OWNER --regid $OWNER --clear-groups unshare -U --map-root-user -n python3 /tmp/ha21/svc-abs.py ha21svc $D/ready & P=$!; fi
while [ ! -e $D/ready ]; do sleep 0.1; done
touch $D/netns-c && mount --bind /proc/$P/ns/net $D/netns-c
echo "host: a service on @ha21svc in network namespace $(readlink /proc/$P/ns/net), user namespace owned by uid $OWNER"
"$SV" -- /tmp/ha21/ha21-unix netns $D/netns-c ha21svc $D/etc/marker
echo "supervisor exit $?"
# A denied agent never connects: stop the service.
kill $P 2>/dev/null
wait $P
echo "host's marker: $(cat $D/etc/marker 2>&1)"
umount $D/netns-c; umount $D
INNER
OWNER=${OWNER:-0} timeout 60 unshare -m --propagation private bash /tmp/ha21/netns-inner.sh "$SV"
rm -f /tmp/ha21/netns-inner.sh /tmp/ha21/svc-abs.py
