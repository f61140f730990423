#!/usr/bin/env python3
"""ha57-sink.py PORT LOG: the undeclared sink of h-attack57 (UDP and TCP on
127.0.0.1:PORT, every payload appended to LOG), and the outside process of
mode scm: on abstract @ha57-scm it hands each peer a UDP socket connected to
the sink (SCM_RIGHTS)."""
import os  # noqa: F401 (kept as the review ran it)
import socket
import sys
import threading

port, log = int(sys.argv[1]), sys.argv[2]


def note(kind, data):
    with open(log, "a") as f:
        f.write("%s %r\n" % (kind, data))


def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    while True:
        note("udp", s.recv(4096))


def tcp():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_TCP, 23, 5)  # TCP_FASTOPEN: a server for fast open
    s.bind(("127.0.0.1", port))
    s.listen(16)
    while True:
        c, _ = s.accept()
        threading.Thread(target=lambda c=c: note("tcp", c.recv(4096)), daemon=True).start()


def scm():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0ha57-scm")
    s.listen(4)
    while True:
        c, _ = s.accept()
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.connect(("127.0.0.1", port))
        socket.send_fds(c, [b"x"], [u.fileno()])
        u.close()
        c.close()


for t in (udp, tcp, scm):
    threading.Thread(target=t, daemon=True).start()
open(log, "a").close()
threading.Event().wait()
