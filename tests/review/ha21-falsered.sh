#!/bin/bash
# ha21-falsered.sh (hostile review h-attack21): what a legitimate root job
# on a systemd host now fails on. glibc's NSS (Debian's nsswitch.conf:
# "passwd: files systemd", "group: files systemd") asks systemd-userdbd's
# varlink socket /run/systemd/userdb/io.systemd.Multiplexer (and nscd's
# /var/run/nscd/socket where nscd runs: the same) for `id`, initgroups, getent
# enumeration and any uid not in /etc/passwd; glibc falls back when the
# connect fails, the job succeeds, and the run is "fail" (denied
# unix-peer). Stand-ins in a private mount namespace: a tmpfs on /run with
# listeners where systemd and nscd put them.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
mkdir -p /tmp/ha21
cat >/tmp/ha21/falsered-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1
mount -t tmpfs -o mode=755 ha21-run /run
mkdir -p /run/systemd/userdb /run/systemd/system
python3 -c '
import socket, sys, time
ls = []
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(p); s.listen(16); ls.append(s)
open("/run/ready", "w").close()
time.sleep(30)' /run/systemd/userdb/io.systemd.Multiplexer /run/systemd/userdb/io.systemd.DynamicUser & P=$!
while [ ! -e /run/ready ]; do sleep 0.1; done
for cmd in "getent passwd 4242" "getent group" "ls -ln /"; do
  "$SV" --report /run/rep.json -- /bin/sh -c "$cmd >/dev/null; echo \"agent: '$cmd' exit \$?\"" 2>&1 | grep -v '^$'
  grep -o '"reason": "[^"]*"' /run/rep.json | head -1
done
kill $P
INNER
timeout 60 unshare -m --propagation private bash /tmp/ha21/falsered-inner.sh "$SV"
rm -f /tmp/ha21/falsered-inner.sh
