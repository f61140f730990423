#!/usr/bin/env python3
"""ha79-sinks.py (hostile review h-attack79): the listeners of ha79-run.sh.

ha79-sinks.py LOG PORT DPORT DPORT6: a TCP and a UDP listener on 127.0.0.1:PORT
(undeclared: where a connect to 0.0.0.0:PORT would lead), UDP on the declared
127.0.0.5:DPORT and [::1]:DPORT6. Every accepted connection and datagram is one
line in LOG ("PROTO ADDR:PORT from PEER len N"). Runs until SIGTERM.
"""
import select
import signal
import socket
import sys

log, port, dport, dport6 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
socks = []
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", port))
t.listen(64)
socks.append(("tcp", "127.0.0.1:%d" % port, t))
for fam, addr, p in ((socket.AF_INET, "127.0.0.1", port), (socket.AF_INET, "127.0.0.5", dport),
                     (socket.AF_INET6, "::1", dport6)):
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.bind((addr, p))
    socks.append(("udp", "%s:%d" % (addr, p), u))
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
with open(log, "a", buffering=1) as out:
    out.write("ready\n")
    while True:
        r, _, _ = select.select([s for _, _, s in socks], [], [])
        for proto, name, s in socks:
            if s not in r:
                continue
            if proto == "tcp":
                c, peer = s.accept()
                out.write("tcp %s from %s accepted\n" % (name, peer))
                c.close()
            else:
                data, peer = s.recvfrom(65536)
                out.write("udp %s from %s len %d %r\n" % (name, peer[:2], len(data), data[:8]))
