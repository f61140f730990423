#!/usr/bin/env python3
"""Finding 1 of review h-realprog2, the kernel half of its fix (run as root, no supervisor).

A root sender names another process (the host pid of a child in a pid
namespace below) in SCM_CREDENTIALS; the receiver, in that namespace with
SO_PASSCRED, sees the pid translated (2), as a root supervisor performing
the agent's sendmsg could attach its caller's tgid.
"""
import os, socket, struct, subprocess, sys, time  # noqa: F401 (kept as the review ran it)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
# receiver in a new pid namespace: it forks a child (pid 2 inside) that just sleeps; we learn its host pid
r = subprocess.Popen(["unshare", "-p", "-f", "--", sys.executable, "-c", """
import os, socket, struct, sys, time
b = socket.socket(fileno=int(sys.argv[1])); b.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
pid = os.fork()
if pid == 0:
    time.sleep(5); os._exit(0)
print("inner child pid", pid, flush=True)
_, anc, _, _ = b.recvmsg(10, 256)
for l, t, d in anc:
    if t == socket.SCM_CREDENTIALS: print("receiver sees pid %d uid %d gid %d" % struct.unpack("3i", d[:12]), flush=True)
""", str(b.fileno())], pass_fds=[b.fileno()], stdout=subprocess.PIPE, text=True)
for _ in range(50):
    time.sleep(0.1)
    kids = subprocess.run(["pgrep", "-P", str(r.pid)], capture_output=True, text=True).stdout.split()
    inner = subprocess.run(["pgrep", "-P", kids[0]], capture_output=True, text=True).stdout.split() if kids else []
    if inner: break
target = int(inner[0])
print("sending as pid", target, "(host view)")
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("3i", target, 0, 0))])
print(r.communicate()[0])
