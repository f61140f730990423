#!/bin/bash
# ha26-swapexit.sh (hostile review h-attack26): a root agent enters a
# container's user namespace, then its network namespace, and sends a line
# to the container's loopback service, through the setns judgment: a
# second thread swaps the descriptor after the supervisor duplicated it
# and exits before the supervisor reads "Threads:" (ha26-swapexit.c).
# Stand-ins in a private mount namespace: a tmpfs for the bind-mounted
# nsfs files, a "container" made with `unshare -U -r -n` (its user
# namespace owned by uid 0). Exits 1 when the container's service got the
# line (the attack worked), 0 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-h-attack26 || exit 2 # one run at a time: another would rebuild under /tmp/h-attack26
T=/tmp/h-attack26
mkdir -p $T
gcc -O2 -static -o $T/ha26-swapexit tests/review/ha26-swapexit.c || exit 2
cat >$T/svc.py <<'PY'
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print("port", s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); print("got", c.recv(4096).decode(errors="replace"), flush=True); c.close()
PY
cat >$T/inner.sh <<'INNER'
set -u
SV=$1 T=/tmp/h-attack26 D=/tmp/h-attack26/ns
mkdir -p $D && mount -t tmpfs ha26 $D
: >$T/svc.out
unshare -U -r -n sh -c 'ip link set lo up && exec python3 "$0"' $T/svc.py >$T/svc.out 2>&1 & P=$!
for i in $(seq 50); do grep -q port $T/svc.out && break; sleep 0.1; done
PORT=$(awk '/port/{print $2}' $T/svc.out)
touch $D/user $D/net
mount --bind /proc/$P/ns/user $D/user && mount --bind /proc/$P/ns/net $D/net
echo "host: container user $(readlink /proc/$P/ns/user) net $(readlink /proc/$P/ns/net), service port $PORT"
"$SV" --report $T/report.json -- $T/ha26-swapexit $D/user $D/net $PORT HA26-REACHED ${FILLERS:-300}
echo "supervisor exit $?"
sleep 0.5
kill $P; wait $P 2>/dev/null
umount $D/user $D/net; umount $D
INNER
timeout 600 unshare -m --propagation private bash $T/inner.sh "$SV"
echo "container service got: $(grep got $T/svc.out)"
python3 - $T/report.json <<'PY'
import json, sys, collections
r = json.load(open(sys.argv[1]))
print("verdict:", r.get("verdict"))
c = collections.Counter((e.get("syscall"), e.get("bucket"), e.get("reason")) for e in r.get("events", []))
for k, v in sorted(c.items(), key=str): print("  ", v, k)
PY
grep -q HA26-REACHED $T/svc.out && exit 1
exit 0
