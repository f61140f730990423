#!/bin/bash
# ha19-unixsvc.sh (hostile review h-attack19): a root service outside the
# run that answers on an AF_UNIX path socket. The agent's connect() to any
# path is allowed ("local"), its recvmsg() is never trapped, and the
# socket's file needs no writable mount to be connected to. The stand-in
# service (python, outside the run, root) does what real ones do on a
# Debian host for a uid-0 peer: hands out a descriptor opened for writing
# (udisks2's Block.OpenDevice / OpenForRestore give O_RDWR block devices;
# logind's TakeDevice input and DRM devices after a uid-0 TakeControl
# with force) and runs a command (systemd's /run/systemd/private and the
# system bus: Manager.StartTransientUnit; /run/docker.sock: a container
# with the host's / bound). Stand-ins in a private mount namespace: a tmpfs
# at /tmp/ha19/svc for the host's files and the service's socket.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
. tests/review/review-lock.sh
review_lock dir-ha19 || exit 2 # one run at a time: another would rebuild under /tmp/ha19
mkdir -p /tmp/ha19
cat >/tmp/ha19/svc.py <<'PY'
import array, os, socket, subprocess, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(4)
print("service: listening on", sys.argv[1], flush=True)
for _ in range(2):
    c, _a = s.accept()
    req = c.recv(4096).decode().split(" ", 1)
    cred = c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    uid = int.from_bytes(cred[4:8], "little")
    print("service: request", req, "from uid", uid, flush=True)
    if uid != 0:
        c.close(); continue
    if req[0] == "open":
        fd = os.open(req[1], os.O_RDWR)
        c.sendmsg([b"ok"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
        os.close(fd)
    elif req[0] == "run":
        subprocess.run(["/bin/sh", "-c", req[1]])
        c.send(b"done")
    c.close()
PY
cat >/tmp/ha19/svc-agent.py <<'PY'
import array, os, socket, sys
sock, target, marker = sys.argv[1:4]
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(sock)
c.send(("open " + target).encode())
msg, anc, _f, _a = c.recvmsg(16, socket.CMSG_SPACE(4))
fd = array.array("i", anc[0][2][:4])[0]
os.write(fd, b"HA19-UNIX: written through the service's descriptor\n")
print("agent: wrote", target, "through a descriptor the service sent", flush=True)
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(sock)
c.send(("run echo HA19-UNIX: run by the service >" + marker).encode()); c.recv(16)
print("agent: asked the service to write", marker, flush=True)
PY
cat >/tmp/ha19/svc-inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 D=/tmp/ha19/svc
mkdir -p $D && mount -t tmpfs -o mode=755 ha19-svc $D
mkdir $D/etc && echo "original" >$D/etc/crontab
python3 /tmp/ha19/svc.py $D/svc.sock & P=$!
while [ ! -S $D/svc.sock ]; do sleep 0.1; done
"$SV" -- /usr/bin/python3 /tmp/ha19/svc-agent.py $D/svc.sock $D/etc/crontab $D/etc/marker
echo "supervisor exit $?"
# A denied agent never makes the service's second request: stop it.
kill $P 2>/dev/null
wait $P
echo "host's crontab: $(cat $D/etc/crontab)"
echo "host's marker: $(cat $D/etc/marker 2>&1)"
umount $D
INNER
unshare -m --propagation private bash /tmp/ha19/svc-inner.sh "$SV"
rm -f /tmp/ha19/svc-inner.sh /tmp/ha19/svc.py /tmp/ha19/svc-agent.py
