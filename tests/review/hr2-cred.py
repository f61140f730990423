#!/usr/bin/env python3
"""What a receiver learns of its peer inside a supervised run (review h-realprog2).

hr2-cred.py MODE: a child sends one message to its parent over an AF_UNIX
socket; the parent has SO_PASSCRED and compares the SCM_CREDENTIALS pid
with the child's pid. MODE: sendmsg (no control), rights (SCM_RIGHTS, as
Chromium's zygote does), send (send(2): sendto without a name), peercred
(SO_PEERCRED of a stream connection the child made to the parent's
listener). Prints OK or MISMATCH; exit 0 on OK, 1 on MISMATCH.
"""
import os
import socket
import struct
import sys

mode = sys.argv[1]
if mode == "peercred":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"cred-{os.getpid()}.sock")
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(1)
    pid = os.fork()
    if pid == 0:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(path)
        c.recv(1)
        os._exit(0)
    conn, _ = ls.accept()
    p, u, g = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    conn.send(b"x")
    os.unlink(path)
else:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    b.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    pid = os.fork()
    if pid == 0:
        if mode == "send":
            a.send(b"ping")
        else:
            anc = []
            if mode == "rights":
                anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", os.open("/dev/null", os.O_RDONLY)))]
            a.sendmsg([b"ping"], anc)
        os._exit(0)
    _, anc, _, _ = b.recvmsg(100, 4096)
    p = u = g = None
    for lvl, typ, data in anc:
        if lvl == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
            p, u, g = struct.unpack("3i", data[:12])
os.waitpid(pid, 0)
ok = p == pid
print(f"{mode}: child pid {pid}, the receiver sees pid {p} uid {u} gid {g}: {'OK' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)
