#!/usr/bin/env python3
"""ha57-stdio.py SV AGENT VARIANT USER: hostile review h-attack57, class 6
(inherited descriptors) variants. The caller (this script, root) prepares
descriptor 0, runs SV --no-loopback -- AGENT stdio-VARIANT 127.0.0.1:PORT
as USER (root or u1000) and says whether the secret reached an undeclared
peer (the sink is 127.0.0.1:PORT, undeclared under --no-loopback).
  mem     0 is an O_PATH-less directory descriptor of /proc/PID of a victim
          of the agent's uid outside the run, which sends its buffer to the
          sink every 0.1 s (Yama, where built, at 0 or 1)
HA57_UNSUPERVISED=1 runs the agent without the supervisor (the control).
  accept  0 is a TCP listener on 0.0.0.0 made by the caller; an outside
          client connects and records what it reads
  scm     0 is an AF_UNIX socketpair end; 1 s into the run the caller sends
          a UDP socket connected to the sink over it (SCM_RIGHTS)"""
import ctypes
import os
import socket
import subprocess
import sys
import threading
import time

sv, agent, variant, user = sys.argv[1:5]
port = 47257
got = []


def udp_sink():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    while True:
        got.append(s.recv(4096))


threading.Thread(target=udp_sink, daemon=True).start()


def drop():
    if user == "u1000":
        os.setgroups([])
        os.setresgid(1000, 1000, 1000)
        os.setresuid(1000, 1000, 1000)


extra = []
stdin = None
victim = None
if variant == "mem":
    r, w = os.pipe()
    victim = os.fork()
    if victim == 0:
        drop()
        ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: setresuid cleared it
        buf = ctypes.create_string_buffer(b"victim-heartbeat", 64)
        os.write(w, b"%x\n" % ctypes.addressof(buf))
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.connect(("127.0.0.1", port))
        for _ in range(100):
            u.send(buf.value)
            time.sleep(0.1)
        os._exit(0)
    addr = os.read(r, 64).decode().strip()
    extra = [addr]
    stdin = os.open("/proc/%d" % victim, os.O_RDONLY | os.O_DIRECTORY)
elif variant == "accept":
    lst = socket.socket()
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("0.0.0.0", port + 1))
    lst.listen(4)
    stdin = lst.fileno()

    def client():
        time.sleep(1)
        c = socket.create_connection(("127.0.0.1", port + 1))
        c.settimeout(5)
        try:
            got.append(c.recv(4096))
        except OSError:
            pass

    threading.Thread(target=client, daemon=True).start()
elif variant == "scm":
    a, b = socket.socketpair()
    stdin = b.fileno()

    def late():
        time.sleep(1)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.connect(("127.0.0.1", port))
        try:
            socket.send_fds(a, [b"x"], [u.fileno()])
            print("caller: SCM_RIGHTS sent")
        except OSError as e:
            print("caller: SCM_RIGHTS refused:", e)

    threading.Thread(target=late, daemon=True).start()
pre = [] if os.environ.get("HA57_UNSUPERVISED") else [sv, "--no-loopback", "--"]
p = subprocess.run(pre + [agent, "stdio-" + variant,
                    "127.0.0.1:%d" % port] + extra, stdin=stdin, preexec_fn=drop,
                   capture_output=True, text=True, timeout=60, cwd="/tmp")
time.sleep(0.5)
print(p.stdout.strip())
print("\n".join(l for l in p.stderr.splitlines() if "warning" not in l))
hits = [g for g in got if b"ha57secret" in g]
print("VARIANT %s %s: exit %d, secret at the undeclared peer: %d %s" % (
    variant, user, p.returncode, len(hits), hits[:1]))
if victim:
    os.kill(victim, 9)
