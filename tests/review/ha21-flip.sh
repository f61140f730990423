#!/bin/bash
# ha21-flip.sh (hostile review h-attack21, held): ha21-flip.py under the
# supervisor; a host listener (stand-in tmpfs, read-only in the agent's
# view) counts what reaches it. Expect 0 at the host, verdict fail.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
cat >/tmp/ha21/flip-inner.sh <<'INNER'
SV=$1 PY=$2 D=/tmp/ha21/svc W=/tmp/ha21/w
mkdir -p $D $W && mount -t tmpfs ha21-svc $D && mount -t tmpfs ha21-w $W
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(512); s.settimeout(1)
open(sys.argv[2], "w").close(); n = 0; idle = 0
while idle < 8:
    try: s.accept()[0].close(); n += 1; idle = 0
    except socket.timeout: idle += 1
print("host: connections reached the host socket:", n)' $D/host.sock $D/ready &
while [ ! -e $D/ready ]; do sleep 0.1; done
"$SV" --writable $W -- python3 "$PY" $W $D/host.sock 5
echo "supervisor exit $?"
wait; umount $D $W
INNER
mkdir -p /tmp/ha21
timeout 60 unshare -m --propagation private bash /tmp/ha21/flip-inner.sh "$SV" "$PWD/tests/review/ha21-flip.py"
