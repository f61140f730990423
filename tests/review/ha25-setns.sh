#!/bin/bash
# ha25-setns.sh (hostile review h-nsjoin): setns is not mediated. The agent
# joins namespaces that were not made in its run and acts there:
#   1   root agent (pid-namespace run), a "container" (user+network
#       namespace uid 0 owns) reached through a bind-mounted nsfs file
#       (`ip netns attach`, `unshare --net=FILE`, a runtime's netns file):
#       setns(user) (owner rule: no capability needed), setns(net), then a
#       connect to 127.0.0.1:PORT, which is the container's loopback, where
#       an undeclared service listens.
#   1b  the same, the container's user namespace owned by uid 1000 (rootless
#       podman): the root agent setresuid(1000)s first (CAP_SETUID is kept).
#   2a  root agent joins a container's MOUNT namespace (setns user, then mnt)
#       through its bind-mounted file, to write (a) a file of the "host"
#       that is read-only in the run's view (the container's copy of the
#       mount is writable, and is the same file system) and (b) a hook a
#       container process runs as its root. (The kernel does not copy a
#       mount namespace file's bind mount into a new mount namespace, so the
#       agent finds only the file under it.)
#   2b  the same through setns(pidfd, CLONE_NEWUSER|CLONE_NEWNS), the pidfd
#       from SO_PEERPIDFD on the container service's declared socket.
#   3   uid-1000 agent in subreaper+landlock mode (the supervisor under a
#       seccomp mask refusing CLONE_NEWUSER, as a host profile does), a
#       rootless container its uid owns, through its netns file.
#   3b  uid-1000 agent in the user-namespace mode, same container (expected:
#       setns(user) refused, the agent's namespace is not the parent).
#   3c  as 3, the namespace taken from the pidfd getsockopt(SO_PEERPIDFD)
#       gives for a connection to an AF_UNIX socket of the container's
#       service: no nsfs file needed.
#   3d  as 3, through /proc/PID/ns/net of the container's process (Landlock
#       refuses ptrace-mode access outside the domain: expected refused).
#   4a  root agent, a pidfd of the container's process received over
#       SCM_RIGHTS from a cooperating outsider on a declared (--unix-peer)
#       socket: setns(pidfd, CLONE_NEWUSER|CLONE_NEWNET).
#   4b  root agent, the pidfd from SO_PEERPIDFD on a connection to the
#       container service's own AF_UNIX socket, declared with --unix-peer.
#   5   root agent, the container's netns opened by its nsfs file handle
#       (open_by_handle_at(FD_NSFS_ROOT), 6.18): no file, no pidfd.
# Stand-ins only, in a private mount namespace: a tmpfs at /tmp/ha25/svc,
# services on 127.0.0.1 inside network namespaces of their own, whose
# output goes to logs the agent cannot write. Each case prints the
# supervisor's verdict line and whether the marker reached its target.
# Usage: [SV=path/to/egress-supervisor] tests/review/ha25-setns.sh
# Exit 0 when no case delivered data, 1 when any did, 2 on set-up failure.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
SV=${SV:-$PWD/build/egress-supervisor}
SV=$(readlink -f "$SV")
[ -x "$SV" ] || { echo "no supervisor at $SV" >&2; exit 2; }
PY=/usr/bin/python3
. tests/review/review-lock.sh
review_lock dir-ha25 || exit 2 # one run at a time: another would rebuild under /tmp/ha25
mkdir -p /tmp/ha25 && chmod 755 /tmp/ha25
gcc -O2 -static -o /tmp/ha25/ha25-setns tests/review/ha25-setns.c || exit 2
chmod 755 /tmp/ha25/ha25-setns

# The container's service: TCP on 127.0.0.1:PORT, and optionally an AF_UNIX
# listener at a path (a connection there is accepted and closed). Whatever
# arrives on TCP goes to stdout, which the host sends to a log.
cat >/tmp/ha25/svc.py <<'PY'
import os, select, socket, sys
port = int(sys.argv[1])
t = socket.socket()
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", port)); t.listen(8)
socks = [t]
if len(sys.argv) > 2:
    u = socket.socket(socket.AF_UNIX)
    u.bind(sys.argv[2]); u.listen(8); socks.append(u)
print("ready: pid %d, uid %d, %s" % (os.getpid(), os.getuid(), os.readlink("/proc/self/ns/net")),
      flush=True)
while True:
    r, _w, _x = select.select(socks, [], [])
    for s in r:
        c, _a = s.accept()
        if s is t:
            c.settimeout(5)
            try:
                data = c.recv(4096)
                print("service: received on 127.0.0.1:%d: %r" % (port, data), flush=True)
                c.sendall(b"stored by the container's service")
            except OSError as e:
                print("service: %s" % e, flush=True)
        c.close()
PY
# The cooperating outsider of case 4a: hands a pidfd of PID to whoever
# connects.
cat >/tmp/ha25/giver.py <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(4)
print("ready", flush=True)
while True:
    c, _a = s.accept()
    fd = os.pidfd_open(int(sys.argv[2]))
    socket.send_fds(c, [b"x"], [fd])
    os.close(fd); c.close()
PY

cat >/tmp/ha25/inner.sh <<'INNER'
set -u
exec 2>&1
SV=$1 PY=$2 A=/tmp/ha25/ha25-setns D=/tmp/ha25/svc PORT=8025
DELIVERED=0
trap 'kill -KILL $(jobs -p) 2>/dev/null' EXIT
mkdir -p $D && mount -t tmpfs -o mode=755 ha25-svc $D || exit 2
mkdir -p $D/etc $D/ctr $D/u1000 && chown 1000:1000 $D/u1000
echo "original contents" >$D/etc/standin
cd /

wait_ready() { # LOG
	local i
	for i in $(seq 100); do grep -q '^ready' "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "host: no service: $(cat "$1")"; return 1
}
# container NAME OWNER UNSHARE-FLAGS COMMAND...: the pid of a process in its
# namespaces in $CPID, its output in $D/NAME.log
container() {
	local name=$1 owner=$2 flags=$3; shift 3
	local asuser=()
	[ "$owner" = 0 ] || asuser=(setpriv --reuid "$owner" --regid "$owner" --clear-groups)
	# Its own pid namespace too, so that --kill-child ends all of it.
	"${asuser[@]}" unshare -U --map-root-user $flags -p -f --kill-child \
		sh -c 'ip link set lo up && exec "$@"' sh "$@" >$D/$name.log 2>&1 &
	CPID=$!
	wait_ready $D/$name.log || return 1
	echo "host: container $name: pid $CPID, user namespace owned by uid $owner," \
		"$(readlink /proc/$CPID/ns/net) $(readlink /proc/$CPID/ns/mnt)"
}
bindns() { # PID KIND FILE
	touch "$3" && mount --bind /proc/$1/ns/$2 "$3"
}
# run CASE LOG-OF-TARGET MARKER SUPERVISOR-PREFIX... -- SV-ARGS...
verdict() { grep -E '^egress-supervisor: (pass|fail|capability-error)' "$1" | tail -1; }
result() { # CASE LOG-OF-RUN MARKER TARGET-FILE...
	local c=$1 out=$2 m=$3 got=no; shift 3
	for f in "$@"; do grep -q "$m" "$f" 2>/dev/null && got="yes ($f)"; done
	echo "== case $c: verdict: $(verdict $out || echo '(none)'); marker delivered: $got"
	case $got in yes*) DELIVERED=1 ;; esac
}
runsv() { # OUT [setpriv...] -- args: the whole command after OUT
	local out=$1; shift
	timeout 60 "$@" >$out 2>&1
	echo "host: supervisor exit $?"
	sed 's/^/    /' $out
}

echo "### case 1: root agent, container owned by uid 0, its netns file"
container c1 0 "-n" $PY /tmp/ha25/svc.py $PORT $D/c1.sock || exit 2
C1=$CPID
bindns $C1 net $D/netns-c1
runsv $D/run1 "$SV" -- $A net $D/netns-c1 $PORT HA25-CASE1
sleep 0.3; result 1 $D/run1 HA25-CASE1 $D/c1.log

echo "### case 1b: root agent, container owned by uid 1000 (rootless), its netns file"
container c1b 1000 "-n" $PY /tmp/ha25/svc.py $PORT || exit 2
bindns $CPID net $D/netns-c1b
runsv $D/run1b "$SV" -- $A net $D/netns-c1b $PORT HA25-CASE1B
sleep 0.3; result 1b $D/run1b HA25-CASE1B $D/c1b.log

echo "### case 2a: root agent, a container's mount namespace through its bind-mounted file"
# A container that only holds a mount namespace of its own (binding the file
# of one that has mounted something inside was refused, EINVAL, on 6.18).
container c2a 0 "-n -m" sh -c 'echo ready; exec sleep 600' || exit 2
bindns $CPID mnt $D/mntns-c2a || echo "host: bind of the mount namespace file failed"
echo "host: $D/mntns-c2a in the host's view: $(stat -f -c %T $D/mntns-c2a)"
runsv $D/run2a "$SV" -- $A mnt $D/mntns-c2a $D/etc/standin $D/ctr/hook HA25-CASE2A
result 2a $D/run2a HA25-CASE2A $D/etc/standin

echo "### case 2b: root agent, container's mount namespace through SO_PEERPIDFD on its declared socket"
# The container: its own mount namespace with a tmpfs on $D/ctr that only it
# sees, a loop that runs $D/ctr/hook as the container's root, and a service
# with an AF_UNIX socket at $D/c2.sock.
container c2 0 "-n -m" sh -c 'mount -t tmpfs ha25-ctr '$D'/ctr &&
	{ while :; do [ -x '$D'/ctr/hook ] && { '$D'/ctr/hook; rm -f '$D'/ctr/hook; }; sleep 0.2; done & } &&
	exec '$PY' /tmp/ha25/svc.py '$PORT' '$D'/c2.sock' || exit 2
runsv $D/run2b "$SV" --unix-peer $D/c2.sock -- $A mnt-pidfd $D/c2.sock $D/etc/standin $D/ctr/hook HA25-CASE2B
sleep 1
echo "host: the host's $D/etc/standin now: $(cat $D/etc/standin)"
echo "host: container log: $(grep -v '^ready' $D/c2.log)"
result 2b $D/run2b HA25-CASE2B $D/etc/standin $D/c2.log
echo "original contents" >$D/etc/standin

echo "### case 3: uid-1000 agent, subreaper+landlock (user namespaces refused), rootless container's netns file"
container c3 1000 "-n" $PY /tmp/ha25/svc.py $PORT $D/u1000/c3.sock || exit 2
C3=$CPID
bindns $C3 net $D/netns-c3
U1000=(setpriv --reuid 1000 --regid 1000 --clear-groups)
runsv $D/run3 "${U1000[@]}" $A nouserns "$SV" --report-fd 3 -- $A net $D/netns-c3 $PORT HA25-CASE3 3>$D/r3.json
echo "host: report: $(grep -o '"containment": *"[^"]*"' $D/r3.json | tail -1) $(grep -o '"userns_refused": *"[^"]*"' $D/r3.json | tail -1)"
sleep 0.3; result 3 $D/run3 HA25-CASE3 $D/c3.log

echo "### case 3b: uid-1000 agent, user-namespace mode, the same container"
runsv $D/run3b "${U1000[@]}" "$SV" --report-fd 3 -- $A net $D/netns-c3 $PORT HA25-CASE3B 3>$D/r3b.json
echo "host: report: $(grep -o '"containment": *"[^"]*"' $D/r3b.json | tail -1)"
sleep 0.3; result 3b $D/run3b HA25-CASE3B $D/c3.log

echo "### case 3c: uid-1000 agent, subreaper+landlock, pidfd from SO_PEERPIDFD on the container's AF_UNIX socket"
runsv $D/run3c "${U1000[@]}" $A nouserns "$SV" -- $A pidfd-peer $D/u1000/c3.sock $PORT HA25-CASE3C
sleep 0.3; result 3c $D/run3c HA25-CASE3C $D/c3.log

echo "### case 3d: uid-1000 agent, subreaper+landlock, /proc/$C3/ns/net"
runsv $D/run3d "${U1000[@]}" $A nouserns "$SV" -- $A net /proc/$C3/ns/net $PORT HA25-CASE3D
sleep 0.3; result 3d $D/run3d HA25-CASE3D $D/c3.log

echo "### control for 3c and 3d: the same agents as uid 1000 without the supervisor (no Landlock domain)"
"${U1000[@]}" $A pidfd-peer $D/u1000/c3.sock $PORT HA25-CTRL3C 2>&1 | sed 's/^/    /'
"${U1000[@]}" $A net /proc/$C3/ns/net $PORT HA25-CTRL3D 2>&1 | sed 's/^/    /'
echo "host: control markers at the service: $(grep -c 'HA25-CTRL' $D/c3.log) (not counted)"

echo "### case 4a: root agent, pidfd of the container's process over SCM_RIGHTS on a declared socket"
$PY /tmp/ha25/giver.py $D/giver.sock $C1 >$D/giver.log 2>&1 &
G=$!
wait_ready $D/giver.log || exit 2
runsv $D/run4a "$SV" --unix-peer $D/giver.sock -- $A pidfd-scm $D/giver.sock $PORT HA25-CASE4A
sleep 0.3; result 4a $D/run4a HA25-CASE4A $D/c1.log
kill $G

echo "### case 4b: root agent, pidfd from SO_PEERPIDFD on the container service's declared socket"
runsv $D/run4b "$SV" --unix-peer $D/c1.sock -- $A pidfd-peer $D/c1.sock $PORT HA25-CASE4B
sleep 0.3; result 4b $D/run4b HA25-CASE4B $D/c1.log

echo "### case 5: root agent, the container's network namespace by nsfs file handle (open_by_handle_at, 6.18)"
H=$($A handle $D/netns-c1)
echo "host: handle of $D/netns-c1: $H"
runsv $D/run5 "$SV" -- $A byhandle "$H" $PORT HA25-CASE5
sleep 0.3; result 5 $D/run5 HA25-CASE5 $D/c1.log
echo "### control for 5: the same handle opened by the host's root (init pid namespace, CAP_SYS_ADMIN)"
$A byhandle "$H" $PORT HA25-CTRL5 2>&1 | sed 's/^/    /'

kill -KILL $(jobs -p) 2>/dev/null  # unshare --fork ignores SIGTERM
wait
for f in $D/netns-* $D/mntns-*; do umount $f 2>/dev/null; done
umount -l $D
echo "### delivered: $DELIVERED"
exit $DELIVERED
INNER
timeout 600 unshare -m --propagation private bash /tmp/ha25/inner.sh "$SV" "$PY"
rc=$?
rm -f /tmp/ha25/inner.sh /tmp/ha25/svc.py /tmp/ha25/giver.py
case $rc in 0) echo "ha25: no case delivered" ;; 1) echo "ha25: data delivered" ;; esac
exit $rc
